"""Staff export of hand histories to standard output.

    python manage.py hand_history --format pokerstars|phh [--player NAME] [--table ID] [--since DATE] [--until DATE]
    python manage.py hand_history --summaries [--player NAME] [--since DATE] [--until DATE]

Without ``--player``: every finished hand with every card dealt (the full history, for staff). With
``--player NAME``: exactly the file that player downloads from "My hands" (their own cards, the hands shown).
A tournament table's hands are written in PokerStars' tournament form. ``--summaries``: the PokerStars
summaries of the tournaments started in the dates (the player's, with their place; every tournament's
without ``--player``), instead of hands.
"""

import argparse
from datetime import date

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.days import DayOutOfRange, day_from_text
from tables.history.selectors import EXPORT_FORMATS, hands_export_text, hands_for_export
from tables.history.tournament import tournament_summaries


def _day(text: str) -> date:
    """A day of ``--since`` / ``--until``. argparse turns the ArgumentTypeError into a usage error: a message
    on standard error and exit status 2 (a CommandError raised here would escape the parser as a traceback)."""
    try:
        return day_from_text(text)
    except DayOutOfRange as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


class Command(BaseCommand):
    help = (
        "Write finished hands as PokerStars text or PHH to standard output (all cards, or one player's view)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=EXPORT_FORMATS, default="pokerstars")
        parser.add_argument("--player", help="username: write exactly what this player may see")
        parser.add_argument("--table", type=int, help="table id")
        parser.add_argument("--since", type=_day, help="first day, YYYY-MM-DD (local time)")
        parser.add_argument("--until", type=_day, help="last day, YYYY-MM-DD (local time)")
        parser.add_argument(
            "--summaries",
            action="store_true",
            help="write PokerStars tournament summaries (the tournaments started in the dates) instead of hands",
        )

    def handle(self, *args, **options):
        if options["since"] and options["until"] and options["since"] > options["until"]:
            raise CommandError("--since comes after --until")
        user = None
        if options["player"]:
            user = get_user_model().objects.filter(username=options["player"]).first()
            if user is None:
                raise CommandError(f"no player named {options['player']!r}")
        if options["summaries"]:
            if options["table"] is not None:
                raise CommandError("--summaries takes no --table")
            texts = tournament_summaries(user=user, since=options["since"], until=options["until"])
        else:
            hands = hands_for_export(
                user=user, table_id=options["table"], since=options["since"], until=options["until"]
            )
            texts = hands_export_text(hands=hands, fmt=options["format"], user=user)
        for text in texts:
            self.stdout.write(text, ending="")
