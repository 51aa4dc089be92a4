"""A table's connections on one web process (pokerroom.web_route): which process a request belongs to, and a
connected socket handed from one process's router to another's inbox through the kernel, as the web processes
do it (tests/foundation/test_web_processes.py runs them)."""

from __future__ import annotations

import array
import os
import socket

import pytest

from pokerroom import web_route
from pokerroom.web_route import Router, handed_receive, owner_of, request_table


def test_a_tables_socket_is_known_by_its_first_line_and_nothing_else_is_routed():
    assert request_table(b"GET /ws/tables/17/?frames=batch HTTP/1.1\r\nHost: x\r\n\r\n") == 17
    assert request_table(b"GET /poker/ws/tables/4/ HTTP/1.1\r\n") == 4  # under a path prefix
    assert request_table(b"GET /ws/lobby/ HTTP/1.1\r\n") is None
    assert request_table(b"GET /tables/17/ HTTP/1.1\r\n") is None  # the table's page
    assert request_table(b"GET / HTTP/1.1\r\nReferer: /ws/tables/3/\r\n") is None  # a header is not the path
    assert request_table(b"\x16\x03\x01 not http") is None


def test_tables_are_spread_over_the_web_processes_and_always_to_the_same_one():
    owners = [owner_of(table_id, 3) for table_id in range(1, 301)]
    assert {owner: owners.count(owner) for owner in (1, 2, 3)} == {1: 100, 2: 100, 3: 100}
    assert owner_of(17, 3) == owner_of(17, 3)


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"ROOM_WEB_ROUTE": "x", "ROOM_WEB_INDEX": "1", "ROOM_WEB_COUNT": "1"},  # alone: nothing to route
        {"ROOM_WEB_ROUTE": "x", "ROOM_WEB_INDEX": "3", "ROOM_WEB_COUNT": "2"},
        {"ROOM_WEB_ROUTE": "x", "ROOM_WEB_INDEX": "one", "ROOM_WEB_COUNT": "2"},
        {"ROOM_WEB_INDEX": "1", "ROOM_WEB_COUNT": "2"},
    ],
)
def test_no_routing_outside_a_room_of_several_web_processes(environ):
    assert Router.from_env(environ) is None


def _routers(count: int = 2) -> list[Router]:
    name = f"test-{os.getpid()}-{id(object())}"
    return [Router(name=name, index=index, count=count) for index in range(1, count + 1)]


def test_a_connection_handed_to_its_owner_keeps_its_bytes_and_its_peer():
    one, two = _routers()
    inbox = two.inbox()
    client, server_end = socket.socketpair()
    try:
        head = b"GET /ws/tables/1/ HTTP/1.1\r\nHost: room\r\n\r\n"  # table 1: process 2's
        assert one.owner(head) == 2 and two.owner(head) is None
        assert one.hand(server_end.fileno(), head, 2) == web_route.HANDED
        server_end.close()  # the first process's copy closed: the connection lives on in the second
        handed, read_before = handed_receive(inbox)
        assert read_before == head
        handed.sendall(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")
        assert client.recv(100) == b"HTTP/1.1 101 Switching Protocols\r\n\r\n"
        client.sendall(b"more")
        handed.setblocking(True)
        assert handed.recv(10) == b"more", "what the client sends next reaches the owner"
        handed.close()
        assert handed_receive(inbox) is None, "nothing else waits"
        assert one.handed == 1
    finally:
        client.close()
        inbox.close()


def test_a_connection_for_a_process_that_is_not_there_is_kept():
    one, _two = _routers()  # the second never binds its inbox: dead, or starting again
    client, server_end = socket.socketpair()
    try:
        assert one.hand(server_end.fileno(), b"GET /ws/tables/1/ HTTP/1.1\r\n", 2) == web_route.AWAY
        assert one.handed == 0
        server_end.sendall(b"still here")
        assert client.recv(20) == b"still here", "the connection is untouched, served where it is"
    finally:
        client.close()
        server_end.close()


def test_an_owner_whose_queue_is_full_is_told_apart_from_one_that_is_away():
    """A burst of new connections fills the owner's queue (net.unix.max_dgram_qlen): the sender is told BUSY,
    to send again in a moment, and the socket sent once the owner has taken what waits."""
    one, two = _routers()
    inbox = two.inbox()
    pairs = [socket.socketpair() for _ in range(300)]
    try:
        head = b"GET /ws/tables/1/ HTTP/1.1\r\n"
        outcomes = [one.hand(server_end.fileno(), head, 2) for _client, server_end in pairs]
        assert outcomes[0] == web_route.HANDED and outcomes[-1] == web_route.BUSY, outcomes
        taken = []
        while (got := handed_receive(inbox)) is not None:
            taken.append(got[0])
        assert len(taken) == outcomes.count(web_route.HANDED)
        assert one.hand(pairs[-1][1].fileno(), head, 2) == web_route.HANDED, "room again: sent"
        for sock in taken:
            sock.close()
    finally:
        inbox.close()
        for client, server_end in pairs:
            client.close()
            server_end.close()


def test_an_inbox_takes_only_one_socket_with_each_message():
    _one, two = _routers()
    inbox = two.inbox()
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    a, b = socket.socketpair()
    try:
        address = web_route.route_address(two.name, 2)
        sender.sendto(b"GET /ws/tables/1/ HTTP/1.1\r\n", address)  # no socket with it
        assert handed_receive(inbox) is None
        fds = array.array("i", [a.fileno(), b.fileno()])
        sender.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)], 0, address)  # two
        before = len(os.listdir("/proc/self/fd"))
        assert handed_receive(inbox) is None
        assert len(os.listdir("/proc/self/fd")) == before, "what came with a refused message is closed"
    finally:
        for sock in (inbox, sender, a, b):
            sock.close()


def test_the_supervisor_numbers_its_web_processes_unless_routing_is_off():
    from pokerroom.supervisor import WebPort, web_env

    port = WebPort("127.0.0.1", 8123)
    second = Router.from_env(web_env({}, port, index=2, count=3))
    assert (second.index, second.count) == (2, 3)
    assert second.name == Router.from_env(web_env({}, port, index=1, count=3)).name, "one room, one name"
    assert Router.from_env(web_env({}, port, index=1, count=1)) is None, "alone: nothing to route"
    assert Router.from_env(web_env({"ROOM_WEB_ROUTING": "0"}, port, index=2, count=3)) is None
