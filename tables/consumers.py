"""WebSocket consumers: they parse, call one service, answer. The rules live in services and the engine."""

import json

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from tables.broadcast import LOBBY_GROUP, table_group
from tables.models import Table
from tables.selectors import table_list_open

MAX_MESSAGE_BYTES = 4096


class RoomConsumer(AsyncWebsocketConsumer):
    groups_to_join: tuple[str, ...] = ()

    async def room_message(self, event: dict) -> None:
        await self.send(text_data=json.dumps(event["message"], separators=(",", ":")))

    async def send_json(self, message: dict) -> None:
        await self.send(text_data=json.dumps(message, separators=(",", ":")))


class LobbyConsumer(RoomConsumer):
    async def connect(self) -> None:
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.accept()
        await self.send_json({"type": "tables", "tables": await database_sync_to_async(table_list_open)()})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)


class TableConsumer(RoomConsumer):
    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        exists = await database_sync_to_async(Table.objects.filter(pk=self.table_id, is_open=True).exists)()
        if not exists:
            await self.close(code=4404)
            return
        await self.channel_layer.group_add(table_group(self.table_id), self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "table_id"):
            await self.channel_layer.group_discard(table_group(self.table_id), self.channel_name)
