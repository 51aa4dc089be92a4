"""`python manage.py payout_stats [--from DATE] [--to DATE]`: recompute the payout statistics' daily rows of
a range of days from the ledger (default: the last 30 days), and print the figures of the range."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from accounts.days import DayOutOfRange, day_from_text
from tables.payout.selectors import payout_summary, payout_window
from tables.payout.services import PayoutRangeInvalid, payout_days_compute


def _day(text: str) -> date:
    try:
        return day_from_text(text)
    except DayOutOfRange as error:
        raise CommandError(str(error)) from None
    except ValueError:
        raise CommandError(f"not a date (YYYY-MM-DD): {text!r}") from None


class Command(BaseCommand):
    help = "Recompute the payout statistics (daily rows per game type and currency) from the ledger."

    def add_arguments(self, parser):
        parser.add_argument(
            "--from", dest="first", type=str, help="first day, YYYY-MM-DD (default: 29 days before --to)"
        )
        parser.add_argument("--to", dest="last", type=str, help="last day, YYYY-MM-DD (default: today)")

    def handle(self, *args, first=None, last=None, **options):
        last_day = _day(last) if last else payout_window()[1]
        first_day = _day(first) if first else payout_window(today=last_day)[0]
        try:
            rows = payout_days_compute(first=first_day, last=last_day)
        except PayoutRangeInvalid as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"payout statistics {first_day} to {last_day}: {rows} daily row(s) stored")
        for currency, lines in payout_summary(first=first_day, last=last_day).lines.items():
            for line in lines:
                figure = "-" if line.percent is None else f"{line.percent} %"
                self.stdout.write(
                    f"  {currency:<5} {line.game:<11} {figure:>9}  put in {line.put_in}, paid back {line.paid_back},"
                    f" {line.count} hand(s)/entries"
                )
