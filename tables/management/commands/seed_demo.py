"""Demo data for `make run`: the room's rake schedules and a spread of play-money and EUR cash tables (Hold'em,
Omaha and Omaha Hi-Lo; a practice table with bomb pots).

Idempotent: run it as often as you like; it creates what is missing and leaves the rest as staff left it."""

from django.core.management.base import BaseCommand
from django.db import transaction

from tables.models import Currency, Game, RakeCap, RakeSchedule, Structure, Table
from tables.services import bots_seat

# SPEC 1.2's caps, in cents: (players dealt in from, big blind from, cap)
ROOM_CAPS = [
    (2, 0, 100),
    (2, 20, 100),
    (2, 400, 100),
    (3, 0, 100),
    (3, 20, 200),
    (3, 400, 300),
    (5, 0, 200),
    (5, 20, 300),
    (5, 400, 300),
]

DEMO_TABLES = [
    # name, currency, game, structure, small blind, big blind, seats, bots allowed (amounts in cents / chips)
    ("Allenamento Roma", Currency.PLAY, Game.HOLDEM, Structure.NO_LIMIT, 50, 100, 6, True),
    ("Allenamento Milano", Currency.PLAY, Game.HOLDEM, Structure.NO_LIMIT, 100, 200, 9, True),
    ("Allenamento Napoli", Currency.PLAY, Game.HOLDEM, Structure.POT_LIMIT, 50, 100, 6, True),
    ("Allenamento Torino", Currency.PLAY, Game.HOLDEM, Structure.FIXED_LIMIT, 100, 200, 10, True),
    ("Allenamento Testa a Testa", Currency.PLAY, Game.HOLDEM, Structure.NO_LIMIT, 250, 500, 2, True),
    ("Allenamento Omaha Bari", Currency.PLAY, Game.OMAHA, Structure.POT_LIMIT, 50, 100, 6, True),
    ("Allenamento Hi-Lo Lecce", Currency.PLAY, Game.OMAHA_HILO, Structure.POT_LIMIT, 50, 100, 6, True),
    (
        "Allenamento Hi-Lo Limit Pisa",
        Currency.PLAY,
        Game.OMAHA_HILO,
        Structure.FIXED_LIMIT,
        100,
        200,
        6,
        True,
    ),
    ("Allenamento Bomb Pot Siena", Currency.PLAY, Game.HOLDEM, Structure.NO_LIMIT, 50, 100, 6, True),
    ("Venezia NL10", Currency.EUR, Game.HOLDEM, Structure.NO_LIMIT, 5, 10, 6, False),
    ("Firenze NL20", Currency.EUR, Game.HOLDEM, Structure.NO_LIMIT, 10, 20, 9, False),
    ("Bologna NL100", Currency.EUR, Game.HOLDEM, Structure.NO_LIMIT, 50, 100, 6, False),
    ("Genova PL50", Currency.EUR, Game.HOLDEM, Structure.POT_LIMIT, 25, 50, 6, False),
    ("Palermo FL200", Currency.EUR, Game.HOLDEM, Structure.FIXED_LIMIT, 100, 200, 10, False),
    ("Verona NL400", Currency.EUR, Game.HOLDEM, Structure.NO_LIMIT, 200, 400, 6, False),
    ("Trieste PLO50", Currency.EUR, Game.OMAHA, Structure.POT_LIMIT, 25, 50, 6, False),
    ("Cagliari PLO8 20", Currency.EUR, Game.OMAHA_HILO, Structure.POT_LIMIT, 10, 20, 6, False),
    ("Padova FL8 100", Currency.EUR, Game.OMAHA_HILO, Structure.FIXED_LIMIT, 50, 100, 6, False),
]
# Table options beyond the columns above: a bomb pot every 5 hands, an ante of 2 big blinds from everyone.
DEMO_OPTIONS = {"Allenamento Bomb Pot Siena": {"bomb_pot_every": 5, "bomb_pot_ante_bb": 2}}


def rake_schedules_seed() -> tuple[RakeSchedule, RakeSchedule]:
    """The room's two schedules of SPEC 1.2 (0.01 and 0.05 smallest chip), with their caps."""
    cent, _ = RakeSchedule.objects.get_or_create(
        name="Room 0.01 chip: 1 per 18", defaults={"method": RakeSchedule.Method.PER_UNIT, "unit": 18}
    )
    nickel, _ = RakeSchedule.objects.get_or_create(
        name="Room 0.05 chip: 5.5 %", defaults={"method": RakeSchedule.Method.PERCENT, "per_mille": 55}
    )
    for schedule in (cent, nickel):
        for players_min, bb_min, cap in ROOM_CAPS:
            RakeCap.objects.get_or_create(
                schedule=schedule, players_min=players_min, big_blind_min=bb_min, defaults={"cap": cap}
            )
    return cent, nickel


class Command(BaseCommand):
    help = "Create the room's rake schedules and demo cash tables (idempotent)."

    @transaction.atomic
    def handle(self, *args, **options):
        cent, _nickel = rake_schedules_seed()
        created = 0
        for name, currency, game, structure, sb, bb, seats, bots in DEMO_TABLES:
            _table, was_created = Table.objects.get_or_create(
                name=name,
                defaults={
                    "currency": currency,
                    "game": game,
                    "structure": structure,
                    "small_blind": sb,
                    "big_blind": bb,
                    "seats": seats,
                    "bots_allowed": bots,
                    "rake_schedule": cent,
                    "chip": 1,
                    **DEMO_OPTIONS.get(name, {}),
                },
            )
            created += was_created
        bots = sum(
            bots_seat(table_id=t.id) for t in Table.objects.filter(bots_allowed=True, currency=Currency.PLAY)
        )
        self.stdout.write(
            f"demo data: {created} table(s) created, {Table.objects.count()} in all; {bots} house bot(s) sat down"
        )
