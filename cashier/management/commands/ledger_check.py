"""`python manage.py ledger_check`: audit the ledger, print the totals per account kind, exit 1 on any
violation (a transfer that does not balance, a stored balance that differs from its entries, a negative
player account, a currency whose accounts do not sum to zero)."""

from django.core.management.base import BaseCommand, CommandError

from cashier.selectors import ledger_check
from cashier.templatetags.money import format_amount


def report_lines(report) -> list[str]:
    lines = [f"transfers: {report.transfers}, entries: {report.entries}", "", "totals per account kind:"]
    for currency, kind, count, total in report.totals:
        lines.append(
            f"  {currency:<5} {kind:<16} {count:>8} account(s) {total:>18} ({format_amount(total, currency)})"
        )
    for currency, total in sorted(report.currency_totals.items()):
        lines.append(f"  {currency:<5} {'all accounts':<16} {'':>8}            {total:>18}")
    return lines


class Command(BaseCommand):
    help = (
        "Check the ledger: balanced transfers, stored balances, no negative wallets, zero sum per currency."
    )

    def handle(self, *args, **options):
        report = ledger_check()
        for line in report_lines(report):
            self.stdout.write(line)
        if report.ok:
            self.stdout.write(self.style.SUCCESS("ledger OK"))
            return
        for violation in report.violations:
            self.stderr.write(self.style.ERROR(f"VIOLATION: {violation}"))
        raise CommandError(f"ledger check failed: {len(report.violations)} violation(s)")
