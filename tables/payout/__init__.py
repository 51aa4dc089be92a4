"""Payout statistics (SPEC 3): for each game type, the share of what players put in that went back to them.

Computed from the ledger only (hand settlements record what was put into their pots; tournament entries and
prizes are transfers), kept as daily rows (`tables.models.PayoutDay`), published on a public page, as JSON at
`/api/payout/` and in the admin with a CSV download. docs/payout.md states the rules."""
