"""The client side of PROTOCOL.md, parsed: every message a client may send, checked for shape and types.

The consumer calls `parse_client_message` and nothing else before handing the result to one service. Shape
only: whether an action is legal is the engine's business, whether a buy-in fits the wallet the cashier's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _

MAX_MESSAGE_BYTES = 4096
# Arrays and objects inside one another: a message of the protocol is one object of plain values (depth 1). A
# deeper one is refused: 4 KB of `[[[...` made Python's parser raise RecursionError, which closed the socket
# with 1011 and skipped the consumer's clean-up. Refused as the parser meets it (RecursionError, caught), or
# after it, on the decoded message (a walk that stops at the first container too deep).
MAX_JSON_DEPTH = 8
MAX_AMOUNT = 10**12  # far above any stake; stops "huge" numbers before they reach arithmetic
MAX_CHAT_CHARS = 300

ACTIONS = ("fold", "check", "call", "bet", "raise", "all_in", "show", "muck")
POSTS = ("wait_bb", "now")


class ProtocolError(Exception):
    """A message refused for its shape. `code` is stable for clients; `message` is for people."""

    def __init__(self, code: str, message) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = str(message)


@dataclass(frozen=True)
class Join:
    seat: int | None
    buy_in: int
    post: str


@dataclass(frozen=True)
class Act:
    action: str
    amount: int | None
    hand_id: int
    action_no: int


@dataclass(frozen=True)
class SitOut:
    pass


@dataclass(frozen=True)
class SitIn:
    post: str


@dataclass(frozen=True)
class TopUp:
    amount: int
    sit_in: str | None = None  # a player sitting out comes back with the chips: "wait_bb" or "now"


@dataclass(frozen=True)
class Leave:
    pass


@dataclass(frozen=True)
class Options:
    auto_muck: bool | None
    straddle: bool | None
    run_twice: bool | None = None


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class Sync:
    pass


@dataclass(frozen=True)
class WaitingJoin:
    """Join a full table's waiting list: at a table, that table; in the lobby, `table`."""

    table: int | None


@dataclass(frozen=True)
class WaitingLeave:
    table: int | None


ClientMessage = (
    Join | Act | SitOut | SitIn | TopUp | Leave | Options | Chat | Sync | WaitingJoin | WaitingLeave
)


def _integer(data: dict, name: str, *, required: bool = True, minimum: int = 0) -> int | None:
    value = data.get(name)
    if value is None:
        if required:
            raise ProtocolError("missing_field", _("The field “%(name)s” is required.") % {"name": name})
        return None
    # bool is an int in Python, and 10.0 == 10: neither is an amount a client may send.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProtocolError("bad_type", _("“%(name)s” must be a whole number.") % {"name": name})
    if value < minimum:
        raise ProtocolError(
            "bad_value", _("“%(name)s” must be at least %(min)d.") % {"name": name, "min": minimum}
        )
    if value > MAX_AMOUNT:
        raise ProtocolError("bad_value", _("“%(name)s” is too large.") % {"name": name})
    return value


def _choice(data: dict, name: str, choices: tuple[str, ...], default: str | None = None) -> str:
    value = data.get(name, default)
    if not isinstance(value, str) or value not in choices:
        raise ProtocolError(
            "bad_value",
            _("“%(name)s” must be one of: %(choices)s.") % {"name": name, "choices": ", ".join(choices)},
        )
    return value


def _boolean(data: dict, name: str) -> bool | None:
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ProtocolError("bad_type", _("“%(name)s” must be true or false.") % {"name": name})
    return value


def _nesting_within(data: Any, limit: int) -> bool:
    """Whether no array or object in the decoded message (an array or object) lies more than `limit` deep."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return True


def _json_within_bounds(raw: str | bytes) -> Any:
    """The message decoded, within MAX_MESSAGE_BYTES (UTF-8) and MAX_JSON_DEPTH; ProtocolError otherwise."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", _("The message is too large."))
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
            raise ProtocolError("too_large", _("The message is too large."))
    except UnicodeError:
        raise ProtocolError("bad_json", _("The message is not valid JSON.")) from None
    try:
        data = json.loads(text)
    except RecursionError:  # thousands deep: the parser's own bound, at about 65 us
        raise ProtocolError("bad_json", _("The message is nested too deeply.")) from None
    except ValueError:
        raise ProtocolError("bad_json", _("The message is not valid JSON.")) from None
    if isinstance(data, dict) and not _nesting_within(data, MAX_JSON_DEPTH):  # anything else is refused next
        raise ProtocolError("bad_json", _("The message is nested too deeply."))
    return data


def parse_client_message(raw: str | bytes | None) -> ClientMessage:
    if raw is None:
        raise ProtocolError("bad_json", _("Messages are JSON text."))
    data = _json_within_bounds(raw)
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", _("A message is a JSON object with a “type”."))
    kind = data.get("type")
    if kind == "act":
        action = _choice(data, "action", ACTIONS)
        amount = _integer(data, "amount", required=action in ("bet", "raise"), minimum=1)
        return Act(
            action=action,
            amount=amount if action in ("bet", "raise") else None,
            hand_id=_integer(data, "hand_id", minimum=1),
            action_no=_integer(data, "action_no"),
        )
    if kind == "join":
        return Join(
            seat=_integer(data, "seat", required=False, minimum=1),
            buy_in=_integer(data, "buy_in", minimum=1),
            post=_choice(data, "post", POSTS, "wait_bb"),
        )
    if kind == "sit_out":
        return SitOut()
    if kind == "sit_in":
        return SitIn(post=_choice(data, "post", POSTS, "wait_bb"))
    if kind == "top_up":
        sit_in = _choice(data, "sit_in", POSTS) if data.get("sit_in") is not None else None
        return TopUp(amount=_integer(data, "amount", minimum=1), sit_in=sit_in)
    if kind == "leave":
        return Leave()
    if kind == "options":
        options = Options(
            auto_muck=_boolean(data, "auto_muck"),
            straddle=_boolean(data, "straddle"),
            run_twice=_boolean(data, "run_twice"),
        )
        if options.auto_muck is None and options.straddle is None and options.run_twice is None:
            raise ProtocolError("missing_field", _("Say which option to change."))
        return options
    if kind == "chat":
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ProtocolError("bad_value", _("A chat message needs some text."))
        if len(text) > MAX_CHAT_CHARS:
            raise ProtocolError(
                "too_large", _("A chat message has at most %(n)d characters.") % {"n": MAX_CHAT_CHARS}
            )
        return Chat(text=text.strip())
    if kind == "sync":
        return Sync()
    if kind == "waiting_join":
        return WaitingJoin(table=_integer(data, "table", required=False, minimum=1))
    if kind == "waiting_leave":
        return WaitingLeave(table=_integer(data, "table", required=False, minimum=1))
    raise ProtocolError("unknown_type", _("Unknown message type."))


class RateLimiter:
    """A token bucket per connection: `burst` messages at once, `rate` a second after that."""

    def __init__(self, *, rate: float, burst: int, clock) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.updated = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
