"""A member of staff who switched the admin to Italian reads why a deposit was flagged in Italian, on the list
of flagged deposits and on the flag's page: the stored reason codes are shown in the reader's language."""

import pytest

from staff.models import DepositFlag
from tests.factories import player_create

pytestmark = pytest.mark.django_db

REASONS = {
    "large": ("Large deposit", "Deposito elevato"),
    "day_total": ("Large total deposited in 24 hours", "Totale elevato depositato in 24 ore"),
    "many": ("Many deposits in 24 hours", "Molti depositi in 24 ore"),
    "unusual": (
        "Much larger than this player's usual deposits",
        "Molto più alto dei depositi abituali del giocatore",
    ),
}


def test_a_flagged_deposit_s_reasons_read_in_italian_in_the_italian_admin(boss, deposit_with, settings):
    settings.DEPOSIT_REVIEW_FROM = 100_000
    settings.DEPOSIT_REVIEW_DAY_TOTAL = 100_000
    settings.DEPOSIT_REVIEW_COUNT_PER_DAY = 3
    settings.DEPOSIT_REVIEW_FACTOR = 5
    player = player_create()
    for amount in (1_000, 2_000, 1_500):
        deposit_with(player, amount)
    flag = DepositFlag.objects.get(deposit=deposit_with(player, 120_000))
    assert sorted(flag.reasons) == sorted(REASONS), "the fourth deposit is flagged for every reason"

    english = boss.get("/admin/staff/depositflag/?reviewed=no").content.decode()
    assert all(en in english.replace("&#x27;", "'") for en, _it in REASONS.values())

    switched = boss.post("/i18n/setlang/", {"language": "it", "next": "/admin/"}, follow=True)
    assert "La sala adesso" in switched.content.decode(), "the admin is in Italian now"
    pages = {
        "list": boss.get("/admin/staff/depositflag/?reviewed=no").content.decode(),
        "flag": boss.get(f"/admin/staff/depositflag/{flag.pk}/change/").content.decode(),
    }
    for where, page in pages.items():
        page = page.replace("&#x27;", "'")
        assert player.username in page, where
        for code, (en, it) in REASONS.items():
            assert it in page, f"{code} in Italian on the {where} page"
            assert en not in page, f"{code} still in English on the {where} page"
