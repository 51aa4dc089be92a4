"""The room's default blind structures (regular, turbo, hyper-turbo) and payout tables (SPEC's sit-and-go,
multi-table about 15 % paid), from `tournaments.rules`, as rows staff can edit. Written by migration 0002
(with its historical models) and, where they are missing, by `defaults_ensure` (a flushed test database)."""

from decimal import Decimal

from tournaments.rules.payouts import SHARE_TOTAL, multi_table_default, sit_and_go_default
from tournaments.rules.structures import SPEED_STARTING_STACK, Speed, default_schedule

STRUCTURES = {
    Speed.REGULAR: "Regular (10 minutes)",
    Speed.TURBO: "Turbo (5 minutes)",
    Speed.HYPER: "Hyper-turbo (3 minutes)",
}
PAYOUTS = {"Sit-and-go": sit_and_go_default, "Multi-table (15 % paid)": multi_table_default}


def levels_create(*, blind_level, structure, schedule) -> None:
    """A blind structure's rows from a schedule of `tournaments.rules` (levels numbered from 1), with the model
    class given (a migration's historical one, or the app's)."""
    blind_level.objects.bulk_create(
        blind_level(
            structure=structure,
            number=number,
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            seconds=level.seconds,
        )
        for number, level in enumerate(schedule.levels, start=1)
    )


def defaults_create(*, blind_structure, blind_level, payout_table, payout_band) -> None:
    """Create the defaults that do not exist yet, with the model classes given."""
    for speed, name in STRUCTURES.items():
        structure, created = blind_structure.objects.get_or_create(
            name=name, defaults={"speed": speed.value, "starting_stack": SPEED_STARTING_STACK[speed]}
        )
        if created:
            levels_create(blind_level=blind_level, structure=structure, schedule=default_schedule(speed))
    for name, default in PAYOUTS.items():
        table, created = payout_table.objects.get_or_create(name=name)
        if created:
            payout_band.objects.bulk_create(
                payout_band(
                    payout_table=table,
                    entrants_min=band.entrants_min,
                    entrants_max=band.entrants_max,
                    percentages=[Decimal(share) / (SHARE_TOTAL // 100) for share in band.shares],
                )
                for band in default().bands
            )


def defaults_ensure() -> None:
    from tournaments.models import BlindLevel, BlindStructure, PayoutBand, PayoutTable

    defaults_create(
        blind_structure=BlindStructure,
        blind_level=BlindLevel,
        payout_table=PayoutTable,
        payout_band=PayoutBand,
    )
