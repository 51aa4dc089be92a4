"""The room's default blind structures and payout tables as data staff can edit (tournaments.defaults)."""

from django.db import migrations

from tournaments.defaults import PAYOUTS, STRUCTURES, defaults_create


def defaults_add(apps, schema_editor):
    defaults_create(
        blind_structure=apps.get_model("tournaments", "BlindStructure"),
        blind_level=apps.get_model("tournaments", "BlindLevel"),
        payout_table=apps.get_model("tournaments", "PayoutTable"),
        payout_band=apps.get_model("tournaments", "PayoutBand"),
    )


def defaults_remove(apps, schema_editor):
    apps.get_model("tournaments", "BlindStructure").objects.filter(name__in=STRUCTURES.values()).delete()
    apps.get_model("tournaments", "PayoutTable").objects.filter(name__in=PAYOUTS).delete()


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_tournaments")]

    operations = [migrations.RunPython(defaults_add, defaults_remove)]
