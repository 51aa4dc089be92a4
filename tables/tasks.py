from celery import shared_task
from django.db import transaction

from tables.broadcast import table_send_event_on_commit


@shared_task
def table_announce(table_id: int, text: str) -> None:
    """A message from the room to everyone at a table ("this table closes in 5 minutes")."""
    with transaction.atomic():
        table_send_event_on_commit(table_id=table_id, event="announcement", data={"text": str(text)[:500]})
