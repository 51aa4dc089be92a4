"""Cashier services. The ledger arrives with the cashier issue; until then a new player gets nothing."""


def play_chips_welcome(*, user) -> None:
    """Give a new player the welcome play chips (see PLAY_CHIPS_WELCOME)."""
