"""Demo tournaments for `make run`: practice sit-and-gos on play chips that house bots fill when a person registers
(heads-up hyper-turbo, 6 seats turbo, 10 seats hyper-turbo), a EUR sit-and-go, and a practice multi-table
freezeout starting 20 minutes from now (house bots fill its field at the start).

Idempotent: it creates each one only when no tournament of that name is open for registration (a practice
tournament opens again by itself when it starts)."""

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from tournaments.defaults import STRUCTURES, defaults_ensure
from tournaments.models import BlindStructure, PayoutTable, Tournament
from tournaments.rules.structures import Speed

# name, kind, currency, buy-in, fee (cents or hundredths of a chip), seats, speed, practice
DEMO_TOURNAMENTS = [
    ("Allenamento SNG Testa a Testa", "sng", "play", 50_000, 0, 2, Speed.HYPER, True),
    ("Allenamento SNG 6 Turbo", "sng", "play", 100_000, 0, 6, Speed.TURBO, True),
    ("Allenamento SNG 10 Hyper", "sng", "play", 50_000, 0, 10, Speed.HYPER, True),
    ("SNG Roma 6 · € 5", "sng", "eur", 500, 50, 6, Speed.TURBO, False),
    ("Allenamento MTT della sera", "mtt", "play", 100_000, 0, 6, Speed.HYPER, True),
]
MTT_FIELD = 18  # the practice multi-table's field: three tables of six


class Command(BaseCommand):
    help = "Create the demo tournaments (idempotent)."

    @transaction.atomic
    def handle(self, *args, **options):
        defaults_ensure()
        created = 0
        for name, kind, currency, buy_in, fee, seats, speed, practice in DEMO_TOURNAMENTS:
            if Tournament.objects.filter(name=name, status=Tournament.Status.REGISTERING).exists():
                continue
            structure = BlindStructure.objects.get(name=STRUCTURES[speed])
            mtt = kind == "mtt"
            tournament = Tournament(
                name=name,
                kind=kind,
                currency=currency,
                buy_in=buy_in,
                fee=fee,
                starting_stack=structure.starting_stack,
                seats_per_table=seats,
                blind_structure=structure,
                payout_table=PayoutTable.objects.get(name="Multi-table (15 % paid)" if mtt else "Sit-and-go"),
                min_entrants=2 if mtt else seats,
                max_entrants=MTT_FIELD if mtt else seats,
                practice=practice,
                starts_at=timezone.now() + timedelta(minutes=20) if mtt else None,
                late_registration_levels=2 if mtt else 0,
                action_seconds=15,
                time_bank_seconds=30,
            )
            tournament.full_clean()
            tournament.save()
            created += 1
        self.stdout.write(f"demo tournaments: {created} created")
