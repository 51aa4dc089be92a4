"""The room's default blind structures (regular, turbo, hyper-turbo) and payout tables (SPEC's sit-and-go,
multi-table about 15 % paid) as data staff can edit: the values of `tournaments.rules` at the time of this
migration (documented in docs/tournaments.md)."""

from decimal import Decimal

from django.db import migrations

from tournaments.rules.payouts import SHARE_TOTAL, multi_table_default, sit_and_go_default
from tournaments.rules.structures import SPEED_STARTING_STACK, Speed, default_schedule

STRUCTURES = {
    Speed.REGULAR: "Regular (10 minutes)",
    Speed.TURBO: "Turbo (5 minutes)",
    Speed.HYPER: "Hyper-turbo (3 minutes)",
}
PAYOUTS = {"Sit-and-go": sit_and_go_default, "Multi-table (15 % paid)": multi_table_default}


def defaults_create(apps, schema_editor):
    BlindStructure = apps.get_model("tournaments", "BlindStructure")
    BlindLevel = apps.get_model("tournaments", "BlindLevel")
    PayoutTable = apps.get_model("tournaments", "PayoutTable")
    PayoutBand = apps.get_model("tournaments", "PayoutBand")
    for speed, name in STRUCTURES.items():
        structure = BlindStructure.objects.create(
            name=name, speed=speed.value, starting_stack=SPEED_STARTING_STACK[speed]
        )
        BlindLevel.objects.bulk_create(
            BlindLevel(
                structure=structure,
                number=number,
                small_blind=level.small_blind,
                big_blind=level.big_blind,
                ante=level.ante,
                seconds=level.seconds,
            )
            for number, level in enumerate(default_schedule(speed).levels, start=1)
        )
    for name, default in PAYOUTS.items():
        table = PayoutTable.objects.create(name=name)
        PayoutBand.objects.bulk_create(
            PayoutBand(
                payout_table=table,
                entrants_min=band.entrants_min,
                entrants_max=band.entrants_max,
                percentages=[Decimal(share) / (SHARE_TOTAL // 100) for share in band.shares],
            )
            for band in default().bands
        )


def defaults_remove(apps, schema_editor):
    apps.get_model("tournaments", "BlindStructure").objects.filter(name__in=STRUCTURES.values()).delete()
    apps.get_model("tournaments", "PayoutTable").objects.filter(name__in=PAYOUTS).delete()


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_tournaments")]

    operations = [migrations.RunPython(defaults_create, defaults_remove)]
