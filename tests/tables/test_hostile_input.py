"""Hostile input over a real daphne WebSocket: hundreds of generated malformed or hostile messages, each
answered with an `error`, nothing changed at the table or in the ledger, a flood closed with 4429, and the
room serving players at another table all along."""

import asyncio
import json
import random

import pytest
import websockets

from cashier.models import Account, Entry
from tables import services
from tables.models import Hand, Seat, Table
from tests.factories import player_create, table_create
from tests.tables.wsclient import TableClient, session_cookie_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

PER_CONNECTION = 18  # under the burst of 20, so every message gets its own answer and not `rate_limited`
HUGE = [10**12, 10**13, 2**63, 10**30, -(2**63)]
NOT_INTEGERS = ["10", 10.0, 10.5, True, False, None, [], {}, "", 1e300]


@pytest.fixture
def room_env(room_env) -> dict[str, str]:
    """The room's environment with an anonymous address's rate limit raised: here each hostile message must get
    its own answer (the limits themselves are tests/tables/test_ws_abuse.py's)."""
    return {**room_env, "ROOM_ADDRESS_RATE": "1000", "ROOM_ADDRESS_BURST": "1000"}


def is_state(message) -> bool:
    return message["type"] == "state"


def junk_json(rng: random.Random) -> list:
    fixed = [
        "",
        "{",
        "}",
        "[",
        "nul",
        "{'type': 'act'}",
        '{"type": "act",}',
        '{"type": "act"',
        "\x00",
        "NaN",
        "Infinity",
        '"act"',
        "[]",
        "null",
        "true",
        "17",
        '[{"type": "sync"}]',
        "{" * 600,
        '{"type": "act", "amount": 1e999}',
    ]
    out = list(fixed)
    for _ in range(60):
        alphabet = '{}[]":,\\ abcdefghijklmnopqrstuvwxyz0123456789'
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))))
    out.append(b"\xff\xfe\x00binary")
    out.append(b'{"type": "sync"')
    out.append(json.dumps({"type": "chat", "text": "x" * 5000}))  # over 4,096 bytes
    return [item for item in out if not _is_valid_object(item)]


POOL = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    10.0,
    -(10**9),
    10**13,
    2**64,
    "",
    "10",
    "fold",
    "now",
    [],
    [1],
    {},
    {"a": 1},
    "\u202e",
    "<script>",
    "' OR 1=1 --",
    "x" * 400,
]
KINDS = ["act", "join", "sit_out", "sit_in", "top_up", "leave", "options", "chat", "sync"]
FIELDS = [
    "action",
    "amount",
    "hand_id",
    "action_no",
    "seat",
    "buy_in",
    "post",
    "auto_muck",
    "straddle",
    "text",
]


def fuzzed(rng: random.Random, count: int) -> list[tuple[dict, str]]:
    """Random messages of the known types with hostile field values, kept only when the protocol's own parser
    refuses them; each comes with the code the parser gives, which the room must answer with."""
    from tables.protocol import ProtocolError, parse_client_message

    out = []
    while len(out) < count:
        message = {"type": rng.choice(KINDS)}
        for name in rng.sample(FIELDS, rng.randint(1, 4)):
            message[name] = rng.choice(POOL)
        try:
            parse_client_message(json.dumps(message))
        except ProtocolError as refused:
            out.append((message, refused.code))
    return out


def _is_valid_object(raw) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except (ValueError, TypeError, UnicodeDecodeError):
        return False


def hostile_shapes(rng: random.Random, hand: dict) -> list[dict]:
    """Messages refused for their shape, whoever sends them."""
    out = [
        {},
        {"type": None},
        {"type": 7},
        {"type": ["act"]},
        {"type": "ACT"},
        {"type": "act "},
        {"type": "deal"},
        {"type": "admin"},
        {"type": "__proto__"},
        {"type": "state"},
        {"type": "error"},
    ]
    out += [{"type": "".join(rng.choice("abcxyz_") for _ in range(rng.randint(1, 12)))} for _ in range(15)]
    base = {"type": "act", "hand_id": hand["id"], "action_no": hand["action_no"]}
    for value in NOT_INTEGERS:
        out.append({**base, "action": "raise", "amount": value})
        out.append({**base, "action": "fold", "hand_id": value})
        out.append({**base, "action": "fold", "action_no": value})
        out.append({"type": "join", "buy_in": value})
        out.append({"type": "join", "seat": value, "buy_in": 100}) if value is not None else None
        out.append({"type": "top_up", "amount": value})
    for value in (-1, 0, -(10**9), *HUGE):
        out.append({**base, "action": "bet", "amount": value})
        out.append({"type": "top_up", "amount": value})
        out.append({"type": "join", "buy_in": value})
    out += [{**base, "action": action} for action in ("shove", "", None, 1, "FOLD", "check_fold", ["fold"])]
    out += [
        {**base, "action": "raise"},
        {**base, "action": "bet"},
        {"type": "act", "action": "fold"},
        {"type": "act", "action": "fold", "hand_id": hand["id"]},
        {"type": "act", "action": "fold", "action_no": 0},
        {**base, "action": "fold", "hand_id": -1},
        {**base, "action": "fold", "action_no": -1},
    ]
    out += [{"type": "join", "buy_in": 100, "post": post} for post in ("later", "", 1, None, True)]
    out += [{"type": "sit_in", "post": post} for post in ("later", 0, [])]
    out += [
        {"type": "options"},
        {"type": "options", "auto_muck": "yes"},
        {"type": "options", "straddle": 1},
        {"type": "options", "auto_muck": None, "straddle": None},
    ]
    out += [
        {"type": "chat"},
        {"type": "chat", "text": ""},
        {"type": "chat", "text": "   "},
        {"type": "chat", "text": 5},
        {"type": "chat", "text": ["hi"]},
        {"type": "chat", "text": "y" * 301},
    ]
    return [item for item in out if item is not None]


async def expect_errors(client: TableClient, raws: list, timeout: float = 20) -> list[dict]:
    """Send each raw frame and collect one `error` per frame (other frames are only recorded)."""
    for raw in raws:
        if isinstance(raw, bytes):
            await client.ws.send(raw)
        else:
            await client.ws.send(raw if isinstance(raw, str) else json.dumps(raw))
    errors = []
    while len(errors) < len(raws):
        try:
            message = await client.recv(timeout=timeout)
        except TimeoutError:
            raise AssertionError(
                f"{len(raws) - len(errors)} of these went unanswered: {raws!r}; answers: "
                f"{[e['code'] for e in errors]}"
            ) from None
        if message["type"] == "error":
            errors.append(message)
        else:
            assert message["type"] in ("state", "event", "chat_history"), message
    return errors


def table_fingerprint(table_id: int, user_ids: list[int]) -> dict:
    table = Table.objects.get(pk=table_id)
    return {
        "seq": table.seq,
        "hands": list(
            Hand.objects.filter(table_id=table_id).values_list("id", "status", "actions", "to_act")
        ),
        "seats": list(
            Seat.objects.filter(table_id=table_id).values_list(
                "number",
                "user_id",
                "status",
                "auto_muck",
                "straddle",
                "sit_out_next",
                "leave_after_hand",
                "time_bank_ms",
            )
        ),
        "accounts": list(
            Account.objects.filter(user_id__in=user_ids).order_by("id").values_list("id", "balance")
        ),
        "entries": Entry.objects.filter(account__user_id__in=user_ids).count(),
    }


def test_hundreds_of_hostile_messages_are_refused_and_change_nothing(live_room):
    rng = random.Random(6)
    table = table_create(seats=6, chip=5, small_blind=5, big_blind=10, action_seconds=90, time_bank_seconds=0)
    other = table_create(seats=6, action_seconds=90, time_bank_seconds=0)
    alice, bob, carol, outsider = (player_create() for _ in range(4))
    dave, erin = player_create(), player_create()
    for seat, user in enumerate((alice, bob, carol), start=1):
        services.seat_take(table_id=table.id, user=user, seat_number=seat, buy_in=500, post="now")
    for seat, user in enumerate((dave, erin), start=1):
        services.seat_take(table_id=other.id, user=user, seat_number=seat, buy_in=200, post="now")
    cookies = {user.pk: session_cookie_for(user) for user in (alice, bob, carol, outsider, dave, erin)}
    by_name = {u.username: u for u in (alice, bob, carol)}

    async def scenario():
        # Bob and Carol stay connected throughout, as Alice does: the attack's connections of theirs coming and
        # going then never mark a seat disconnected (a real change of the table, which the fingerprint would see).
        async with (
            TableClient(live_room, table.id, session=cookies[alice.pk]) as watch,
            TableClient(live_room, table.id, session=cookies[bob.pk]) as keep_bob,
            TableClient(live_room, table.id, session=cookies[carol.pk]) as keep_carol,
        ):
            keepers = [asyncio.ensure_future(keep.drain(3600)) for keep in (keep_bob, keep_carol)]
            try:
                return await attack_scenario(watch)
            finally:
                for keeper in keepers:
                    keeper.cancel()

    async def attack_scenario(watch):
        state = await watch.until(lambda m: is_state(m) and m["hand"] is not None, timeout=20)
        # one real action first, so that the hand has an old decision to answer
        first = by_name[next(r for r in state["seats"] if r["seat"] == state["to_act"])["player"]["name"]]
        async with TableClient(live_room, table.id, session=cookies[first.pk]) as mine:
            own = await mine.until(lambda m: is_state(m) and bool(m.get("legal")))
            await mine.send(
                type="act", action="call", hand_id=own["hand"]["id"], action_no=own["hand"]["action_no"]
            )
        state = await watch.until(lambda m: is_state(m) and m["hand"] and m["hand"]["action_no"] == 1)
        hand = state["hand"]
        to_act = next(r for r in state["seats"] if r["seat"] == state["to_act"])
        actor = by_name[to_act["player"]["name"]]
        bystander = next(u for u in (alice, bob, carol) if u != actor)
        # the table as it stands before the attack
        before = await asyncio.to_thread(
            table_fingerprint, table.id, [alice.pk, bob.pk, carol.pk, outsider.pk]
        )

        # what the player to act may not do: check facing the big blind, bet when there is one, show or
        # muck before a showdown, raise off the chip step, below the minimum, beyond the stack, huge
        async with TableClient(live_room, table.id, session=cookies[actor.pk]) as mine:
            own = await mine.until(lambda m: is_state(m) and bool(m.get("legal")))
            legal = {item["action"]: item for item in own["legal"]}
        assert "check" not in legal and "raise" in legal, legal
        raise_min, raise_max = legal["raise"]["min"], legal["raise"]["max"]
        decision = {"type": "act", "hand_id": hand["id"], "action_no": hand["action_no"]}
        actor_msgs = [
            {**decision, "action": "check"},
            {**decision, "action": "bet", "amount": raise_min},
            {**decision, "action": "show"},
            {**decision, "action": "muck"},
            {**decision, "action": "raise", "amount": raise_min + 1},
            {**decision, "action": "raise", "amount": raise_min + 3},
            {**decision, "action": "raise", "amount": raise_min - 5},
            {**decision, "action": "raise", "amount": 5},
            {**decision, "action": "raise", "amount": raise_max + 5},
            {**decision, "action": "raise", "amount": 10**12},
            {**decision, "action": "fold", "action_no": hand["action_no"] + 1},
            {**decision, "action": "fold", "action_no": hand["action_no"] - 1},
            {**decision, "action": "fold", "hand_id": hand["id"] + 1000},
            {**decision, "action": "fold", "hand_id": hand["id"] - 1 or 10**9},
            {"type": "top_up", "amount": 50},
            {"type": "join", "seat": 4, "buy_in": 500},
        ]
        actor_msgs += [
            {**decision, "action": "raise", "amount": raise_min + rng.randint(1, 4)} for _ in range(8)
        ]
        actor_msgs += [{**decision, "action": "raise", "amount": -rng.randint(1, 10**6)} for _ in range(6)]
        # another player's decision, or another seat named: refused whoever is named
        bystander_msgs = []
        for action in ("fold", "call", "check", "all_in", "raise"):
            message = {**decision, "action": action, "seat": to_act["seat"], "player": actor.username}
            if action == "raise":
                message["amount"] = raise_min
            bystander_msgs.append(message)
        bystander_msgs += [
            {**decision, "action": "fold", "user": actor.pk, "user_id": actor.pk},
            {**decision, "action": "call", "as": to_act["seat"]},
            {"type": "join", "seat": to_act["seat"], "buy_in": 500},
        ]
        shapes = hostile_shapes(rng, hand)
        junk = junk_json(rng)
        outsider_msgs = [{**decision, "action": a} for a in ("fold", "call", "all_in", "check")]
        outsider_msgs += [
            {"type": "sit_out"},
            {"type": "sit_in"},
            {"type": "leave"},
            {"type": "top_up", "amount": 50},
            {"type": "options", "auto_muck": False},
            {"type": "join", "seat": 1, "buy_in": 500},
            {"type": "join", "seat": 9, "buy_in": 500},
            {"type": "join", "buy_in": 1},
            {"type": "join", "buy_in": 10**9},
        ]
        anonymous_msgs = [*outsider_msgs, {"type": "chat", "text": "hello"}, {"type": "join", "buy_in": 500}]

        expected: dict[str, str] = {}  # frame -> the one right answer, where there is exactly one
        plan: list[tuple[int | None, list]] = []  # (who sends, frames)
        plan.append((actor.pk, actor_msgs))
        plan.append((bystander.pk, bystander_msgs * 3))
        plan.append((outsider.pk, outsider_msgs * 2))
        plan.append((None, anonymous_msgs * 2))
        fuzz = fuzzed(rng, 220)
        expected.update((json.dumps(message), code) for message, code in fuzz)
        mixed = shapes + junk + [message for message, _code in fuzz]
        rng.shuffle(mixed)
        senders = [actor.pk, bystander.pk, outsider.pk, None]
        for index, item in enumerate(mixed):
            plan.append((senders[index % 4], [item]))
        chunks: list[tuple[int | None, list]] = []
        for who, frames in plan:
            for start in range(0, len(frames), PER_CONNECTION):
                chunks.append((who, frames[start : start + PER_CONNECTION]))
        merged: dict[int | None, list] = {}
        batches: list[tuple[int | None, list]] = []
        for who, frames in chunks:  # pack single frames into connections of up to PER_CONNECTION
            merged.setdefault(who, [])
            if len(merged[who]) + len(frames) > PER_CONNECTION:
                batches.append((who, merged[who]))
                merged[who] = []
            merged[who].extend(frames)
        batches += [(who, frames) for who, frames in merged.items() if frames]
        total = sum(len(frames) for _who, frames in batches)
        assert total >= 500, total

        async def attack_one(who, frames):
            async with TableClient(live_room, table.id, session=cookies.get(who)) as client:
                await client.until(is_state)
                errors = await expect_errors(client, frames)
                return list(zip(frames, errors, strict=True))

        async def attack():
            gate = asyncio.Semaphore(8)
            from tables.consumers import CONNECTIONS_PER_USER_AND_TABLE

            # fewer connections per player than the room allows (a closed one is released just after), less the
            # one each seated player keeps open throughout (Alice's watch, Bob's and Carol's keepers)
            per_player = {
                who: asyncio.Semaphore(CONNECTIONS_PER_USER_AND_TABLE - 3) for who, _frames in batches
            }

            async def bounded(who, frames):
                async with gate, per_player[who]:
                    return await attack_one(who, frames)

            results = await asyncio.gather(*(bounded(who, frames) for who, frames in batches))
            return [pair for result in results for pair in result]

        async def other_table_keeps_playing():
            """Two players at another table play a hand through while the attack runs."""
            async with (
                TableClient(live_room, other.id, session=cookies[dave.pk]) as d,
                TableClient(live_room, other.id, session=cookies[erin.pk]) as e,
            ):
                acted = 0
                clients = [d, e]
                deadline = asyncio.get_running_loop().time() + 25
                while acted < 3 and asyncio.get_running_loop().time() < deadline:
                    states = await asyncio.gather(*(c.until(is_state) for c in clients))
                    mine = next((c for c, s in zip(clients, states, strict=True) if s.get("legal")), None)
                    if mine is None:
                        await asyncio.sleep(0.1)
                        continue
                    hand_b = mine.state["hand"]
                    action = "call" if any(i["action"] == "call" for i in mine.state["legal"]) else "check"
                    await mine.send(
                        type="act", action=action, hand_id=hand_b["id"], action_no=hand_b["action_no"]
                    )
                    reply = await mine.until(
                        lambda m: m["type"] == "error" or (m["type"] == "event" and m["event"] == "acted"),
                        timeout=10,
                    )
                    assert reply["type"] == "event", reply
                    acted += 1
                return acted

        pairs, acted_elsewhere = await asyncio.gather(attack(), other_table_keeps_playing())
        after = await asyncio.to_thread(
            table_fingerprint, table.id, [alice.pk, bob.pk, carol.pk, outsider.pk]
        )
        return pairs, acted_elsewhere, before, after, expected

    pairs, acted_elsewhere, before, after, expected = asyncio.run(scenario())
    assert len(pairs) >= 500
    codes = {}
    for frame, error in pairs:
        assert error["type"] == "error" and error["code"], (frame, error)
        assert error["code"] != "rate_limited", "every message got its own answer"
        codes[error["code"]] = codes.get(error["code"], 0) + 1
    # the answers are the right ones, not just any error
    checked = 0
    for frame, error in pairs:
        if isinstance(frame, bytes) or isinstance(frame, str):
            assert error["code"] in ("bad_json", "too_large"), (frame, error)
        elif json.dumps(frame) in expected:
            assert error["code"] == expected[json.dumps(frame)], (frame, error)
            checked += 1
    assert checked >= 200
    assert {
        "bad_json",
        "unknown_type",
        "bad_type",
        "bad_value",
        "missing_field",
        "not_your_turn",
        "stale",
        "not_in_hand",
        "login_required",
        "too_large",
    } <= set(codes), codes
    assert after == before, "the hostile messages changed nothing at the table or in the ledger"
    assert acted_elsewhere >= 3, "another table kept playing during the attack"


def test_a_flood_is_refused_then_closed_with_4429_while_the_room_serves_others(live_room):
    table = table_create(seats=6, action_seconds=90)
    alice, bob = player_create(), player_create()
    cookies = [session_cookie_for(alice), session_cookie_for(bob)]

    async def scenario():
        async with (
            TableClient(live_room, table.id, session=cookies[0]) as flooder,
            TableClient(live_room, table.id, session=cookies[1]) as other,
        ):
            await flooder.until(is_state)
            await flooder.until(
                lambda m: m["type"] == "chat_history"
            )  # the last part of the connection's greeting
            await other.until(is_state)
            for n in range(60):
                try:
                    await flooder.ws.send(json.dumps(["junk", n]))
                except websockets.ConnectionClosed:
                    break
            answers = []
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    answers.append(await flooder.recv(timeout=10))
            # the other connection is still served: it can still join and gets its state
            await other.send(type="join", seat=2, buy_in=200)
            seated = await other.until(
                lambda m: (
                    is_state(m)
                    and any((r.get("player") or {}).get("name") == bob.username for r in m["seats"])
                )
            )
            return answers, closed.value, seated

    answers, closed, _seated = asyncio.run(scenario())
    assert closed.rcvd is not None and closed.rcvd.code == 4429, closed
    errors = [a for a in answers if a["type"] == "error"]
    codes = [e["code"] for e in errors]
    # the burst of 20 answered as usual (junk: bad_json), then refusals until 10 in a row close it (a token
    # that comes back meanwhile may let one more through and restart the count)
    assert codes[:20] == ["bad_json"] * 20, codes
    assert codes[-9:] == ["rate_limited"] * 9, codes
    assert set(codes) <= {"bad_json", "rate_limited"}, codes
    assert len(answers) == len(errors), "a flood only ever gets refusals"
