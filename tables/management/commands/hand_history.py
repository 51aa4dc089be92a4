"""Staff export of hand histories to standard output.

    python manage.py hand_history --format pokerstars|phh [--player NAME] [--table ID] [--since DATE] [--until DATE]

Without ``--player``: every finished hand with every card dealt (the full history, for staff). With
``--player NAME``: exactly the file that player downloads from "My hands" (their own cards, the hands shown).
"""

import argparse
from datetime import date

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.days import DayOutOfRange, day_from_text
from tables.history.selectors import EXPORT_FORMATS, hands_export_text, hands_for_export


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

    def handle(self, *args, **options):
        if options["since"] and options["until"] and options["since"] > options["until"]:
            raise CommandError("--since comes after --until")
        user = None
        if options["player"]:
            user = get_user_model().objects.filter(username=options["player"]).first()
            if user is None:
                raise CommandError(f"no player named {options['player']!r}")
        hands = hands_for_export(
            user=user, table_id=options["table"], since=options["since"], until=options["until"]
        )
        for text in hands_export_text(hands=hands, fmt=options["format"], user=user):
            self.stdout.write(text, ending="")
