"""A tournament's rules as pure code (no Django, nothing of the project but the pure ``tables.engine``):
``payouts`` (payout tables, prize pools split to the cent, places of players who bust together),
``structures`` (blind levels and their clock), ``seating`` (the draw, balancing, broken tables,
hand-for-hand)."""
