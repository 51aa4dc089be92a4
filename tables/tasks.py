from celery import shared_task
from django.db import transaction

from tables.broadcast import table_send_event_on_commit


@shared_task
def table_announce(table_id: int, text: str) -> int:
    """A message from the room to everyone at a table ("this table closes in 5 minutes"); returns its seq."""
    with transaction.atomic():
        return table_send_event_on_commit(table_id=table_id, event="announcement", data={"text": str(text)[:500]})
