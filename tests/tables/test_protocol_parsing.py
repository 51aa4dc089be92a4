"""Every shape of bad message a client can send is refused with a stable code, before it reaches a service."""

import json

import pytest

from tables.protocol import (
    MAX_MESSAGE_BYTES,
    Act,
    Chat,
    Join,
    Options,
    ProtocolError,
    RateLimiter,
    SitIn,
    Sync,
    TopUp,
    parse_client_message,
)


def parse(obj) -> object:
    return parse_client_message(json.dumps(obj))


def test_well_formed_messages_parse_to_what_they_say():
    assert parse({"type": "join", "seat": 3, "buy_in": 4000}) == Join(seat=3, buy_in=4000, post="wait_bb")
    assert parse({"type": "join", "buy_in": 4000, "post": "now"}) == Join(seat=None, buy_in=4000, post="now")
    assert parse({"type": "act", "action": "raise", "amount": 600, "hand_id": 9, "action_no": 4}) == Act(
        action="raise", amount=600, hand_id=9, action_no=4
    )
    # an amount sent with a call is not the client's to choose: it is dropped, not trusted
    assert parse({"type": "act", "action": "call", "amount": 5, "hand_id": 9, "action_no": 4}).amount is None
    assert parse({"type": "sit_in", "post": "now"}) == SitIn(post="now")
    assert parse({"type": "top_up", "amount": 100}) == TopUp(amount=100, sit_in=None)
    assert parse({"type": "top_up", "amount": 100, "sit_in": "now"}) == TopUp(amount=100, sit_in="now")
    assert parse({"type": "options", "auto_muck": False}) == Options(auto_muck=False, straddle=None)
    assert parse({"type": "options", "run_twice": True}) == Options(
        auto_muck=None, straddle=None, run_twice=True
    )
    assert parse({"type": "chat", "text": "  gg  "}) == Chat(text="gg")
    assert parse({"type": "sync"}) == Sync()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        ('"act"', "bad_json"),
        ("{}", "unknown_type"),
        ('{"type": "explode"}', "unknown_type"),
        ('{"type": 7}', "unknown_type"),
        ('{"type": "act", "action": "raise", "hand_id": 1, "action_no": 0}', "missing_field"),
        ('{"type": "act", "action": "raise", "amount": 10.5, "hand_id": 1, "action_no": 0}', "bad_type"),
        ('{"type": "act", "action": "raise", "amount": 10.0, "hand_id": 1, "action_no": 0}', "bad_type"),
        ('{"type": "act", "action": "raise", "amount": "10", "hand_id": 1, "action_no": 0}', "bad_type"),
        ('{"type": "act", "action": "raise", "amount": true, "hand_id": 1, "action_no": 0}', "bad_type"),
        ('{"type": "act", "action": "raise", "amount": -5, "hand_id": 1, "action_no": 0}', "bad_value"),
        ('{"type": "act", "action": "raise", "amount": 0, "hand_id": 1, "action_no": 0}', "bad_value"),
        ('{"type": "act", "action": "raise", "amount": 1e300, "hand_id": 1, "action_no": 0}', "bad_type"),
        (
            '{"type": "act", "action": "raise", "amount": 99999999999999999999999, "hand_id": 1, "action_no": 0}',
            "bad_value",
        ),
        ('{"type": "act", "action": "steal", "hand_id": 1, "action_no": 0}', "bad_value"),
        ('{"type": "act", "action": "fold", "action_no": 0}', "missing_field"),
        ('{"type": "act", "action": "fold", "hand_id": 1, "action_no": -1}', "bad_value"),
        ('{"type": "join", "seat": 0, "buy_in": 100}', "bad_value"),
        ('{"type": "join", "seat": 1}', "missing_field"),
        ('{"type": "join", "seat": 1, "buy_in": 100, "post": "later"}', "bad_value"),
        ('{"type": "top_up", "amount": -1}', "bad_value"),
        ('{"type": "top_up", "amount": 100, "sit_in": "later"}', "bad_value"),
        ('{"type": "top_up", "amount": 100, "sit_in": true}', "bad_value"),
        ('{"type": "options"}', "missing_field"),
        ('{"type": "options", "auto_muck": "yes"}', "bad_type"),
        ('{"type": "options", "run_twice": 1}', "bad_type"),
        ('{"type": "chat", "text": ""}', "bad_value"),
        ('{"type": "chat", "text": 5}', "bad_value"),
    ],
)
def test_malformed_messages_are_refused_with_a_code(raw, code):
    with pytest.raises(ProtocolError) as refused:
        parse_client_message(raw)
    assert refused.value.code == code
    assert refused.value.message


def test_oversized_messages_and_chat_are_refused():
    with pytest.raises(ProtocolError) as refused:
        parse_client_message("{" + " " * MAX_MESSAGE_BYTES + "}")
    assert refused.value.code == "too_large"
    with pytest.raises(ProtocolError) as refused:
        parse({"type": "chat", "text": "x" * 301})
    assert refused.value.code == "too_large"


def test_the_rate_limiter_allows_a_burst_then_the_rate():
    now = [0.0]
    limiter = RateLimiter(rate=5, burst=10, clock=lambda: now[0])
    assert all(limiter.allow() for _ in range(10))
    assert not limiter.allow()
    now[0] += 1.0
    assert sum(limiter.allow() for _ in range(10)) == 5
