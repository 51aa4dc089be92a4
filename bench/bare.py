"""The bare stack's ceiling: the least a table action could cost on daphne + Channels + PostgreSQL + Redis.

    daphne bench.bare:application        (bench/load.py starts it next to the room's daphne)

One consumer, `/ws/bare/<table id>/?seat=N`: per `act` message it runs one locked transaction
(`select_for_update` on the table's row, then its counter moved on) in Channels' database thread, and one
group send to the table's group (six players), as the room does for a real action; nothing else: no engine,
no snapshot, no per-viewer message. `sync` answers with the counter, read without a lock, to start a table.

Messages: client `{"type": "act", "action_no": n}` / `{"type": "sync"}`; server
`{"type": "state", "action_no": n, "to_act": seat}` and `{"type": "event", "event": "acted", "seat": s,
"action_no": n + 1, "to_act": next seat}` to the whole table; `{"type": "error", "code": "stale"}` to the
sender when `action_no` is not the counter.
"""

from __future__ import annotations

import json
import os
from urllib.parse import parse_qs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokerroom.settings")

import django  # noqa: E402

django.setup()

from channels.db import database_sync_to_async  # noqa: E402
from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.db import transaction  # noqa: E402
from django.urls import path  # noqa: E402

from tables.models import Table  # noqa: E402


def _act(table_id: int, action_no: int) -> tuple[int, int] | None:
    """The one locked transaction: returns (new counter, seats) or None when `action_no` is stale."""
    with transaction.atomic():
        table = Table.objects.select_for_update().only("id", "seq", "seats").get(pk=table_id)
        if table.seq != action_no:
            return None
        Table.objects.filter(pk=table_id).update(seq=action_no + 1)
        return action_no + 1, table.seats


def _read(table_id: int) -> tuple[int, int]:
    table = Table.objects.only("seq", "seats").get(pk=table_id)
    return table.seq, table.seats


class BareTableConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.seat = int(query.get("seat", ["0"])[0])
        self.group = f"bare-{self.table_id}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        message = json.loads(text_data)
        if message.get("type") == "sync":
            seq, seats = await database_sync_to_async(_read)(self.table_id)
            await self.send(
                text_data=json.dumps({"type": "state", "action_no": seq, "to_act": seq % seats + 1})
            )
            return
        done = await database_sync_to_async(_act)(self.table_id, int(message.get("action_no", -1)))
        if done is None:
            await self.send(text_data=json.dumps({"type": "error", "code": "stale"}))
            return
        action_no, seats = done
        event = {
            "type": "event",
            "event": "acted",
            "seq": action_no,
            "seat": self.seat,
            "action_no": action_no,
            "to_act": action_no % seats + 1,
        }
        await self.channel_layer.group_send(self.group, {"type": "bare.message", "message": event})

    async def bare_message(self, event: dict) -> None:
        await self.send(text_data=json.dumps(event["message"], separators=(",", ":")))


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/bare/<int:table_id>/", BareTableConsumer.as_asgi())])}
)
