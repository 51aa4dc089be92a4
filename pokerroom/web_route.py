"""A table's connections on one web process: the process that takes a connection to a table it does not own
hands the socket to the one that does.

With several web processes on one port the kernel spreads new connections over them at random, so nearly
every table of six had players on each: each process decoded every message of the table, the view one process
holds was made old by every action through the other, and two processes published the table's messages, which
could cross (docs/performance.md, the capacity curve). Here table `t` belongs to web process
`owner_of(t, count)`. A process reads the first line of each new connection's request; when it asks for
`/ws/tables/<t>/` and `t` belongs to another process, it sends that process the socket and the bytes read
(a Unix datagram with SCM_RIGHTS, the Linux abstract address `route_address(name, index)`), and closes its own
copy without shutting the connection down; the owner adopts the socket and reads the request from those bytes
on. Pages, the lobby's socket and anything else stay where the kernel put them. When the owner's queue is
full (a burst of new connections) the socket is sent again a few milliseconds later, for up to two seconds;
when the owner is not running (or starting again) the process serves the connection itself: a dead
process's tables are served by the others until it is back, as before.

Each process binds its address once its application is loaded (with its port socket's listen), and takes
sockets only from processes of the same user (SCM_CREDENTIALS).
"""

from __future__ import annotations

import array
import logging
import os
import re
import socket
import struct

logger = logging.getLogger(__name__)

# The start of a request that is read before it is routed: its first line, within this many bytes (a request
# line longer than that is served where it is).
REQUEST_LINE_MAX = 8192
HANDOFF_MAX = 65536  # the most bytes read before the first line ends, sent with the socket
_TABLE_PATH = re.compile(rb"^[A-Z]+ [^ ]*/ws/tables/(\d+)/")
_CREDENTIALS = struct.Struct("3i")  # pid, uid, gid
HANDED, BUSY, AWAY = "handed", "busy", "away"  # what became of a socket sent to its owner (Router.hand)


def request_table(head: bytes) -> int | None:
    """The table a request's first line asks for (`GET /ws/tables/17/?frames=batch HTTP/1.1`), else None."""
    line = head.split(b"\r\n", 1)[0]
    found = _TABLE_PATH.match(line)
    return int(found.group(1)) if found else None


def owner_of(table_id: int, count: int) -> int:
    """The web process (1 … count) that serves the table's connections."""
    return table_id % count + 1


def route_address(name: str, index: int) -> str:
    """Web process `index`'s address for handed sockets: abstract (no file), named after the room."""
    return f"\0pokerroom-route-{name}-{index}"


class Router:
    """What one web process needs to hand sockets to the others and take theirs."""

    def __init__(self, *, name: str, index: int, count: int) -> None:
        self.name, self.index, self.count = name, index, count
        self.out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.out.setblocking(False)
        self.handed = 0  # connections sent to their owner

    @classmethod
    def from_env(cls, environ) -> Router | None:
        """From the supervisor's ROOM_WEB_ROUTE (the room's name), ROOM_WEB_INDEX and ROOM_WEB_COUNT; None
        with one web process, or outside the supervisor."""
        name = environ.get("ROOM_WEB_ROUTE", "")
        try:
            index, count = int(environ.get("ROOM_WEB_INDEX", "")), int(environ.get("ROOM_WEB_COUNT", ""))
        except ValueError:
            return None
        if not name or count < 2 or not 1 <= index <= count:
            return None
        return cls(name=name, index=index, count=count)

    def inbox(self) -> socket.socket:
        """This process's address, bound: the sockets the others hand over wait there."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        sock.bind(route_address(self.name, self.index))
        sock.setblocking(False)
        return sock

    def owner(self, head: bytes) -> int | None:
        """The other web process that should serve the connection whose request starts with `head`; None when
        it is this one's (or not a table's)."""
        table_id = request_table(head)
        if table_id is None:
            return None
        owner = owner_of(table_id, self.count)
        return None if owner == self.index else owner

    def hand(self, fd: int, head: bytes, owner: int) -> str:
        """Send the connected socket `fd` and the bytes read from it to web process `owner`: HANDED, or
        nothing sent and BUSY (its queue is full: a burst of connections, try again in a moment) or AWAY (not
        running, or starting again: serve it here)."""
        try:
            self.out.sendmsg(
                [head],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))],
                0,
                route_address(self.name, owner),
            )
        except BlockingIOError:  # its queue holds net.unix.max_dgram_qlen sockets (10 by default)
            return BUSY
        except OSError:
            return AWAY
        self.handed += 1
        return HANDED


def handed_receive(inbox: socket.socket) -> tuple[socket.socket, bytes] | None:
    """One handed socket and the bytes read from it before, from a process of this user; None when nothing
    waits or what came is not that (whatever descriptors came with it closed)."""
    try:
        head, ancillary, flags, _address = inbox.recvmsg(
            HANDOFF_MAX,
            socket.CMSG_SPACE(array.array("i").itemsize) + socket.CMSG_SPACE(_CREDENTIALS.size),
            socket.MSG_CMSG_CLOEXEC,
        )
    except (BlockingIOError, InterruptedError):
        return None
    fds: list[int] = []
    uid = None
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % array.array("i").itemsize
            fds.extend(array.array("i", data[:usable]))
        elif level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            _pid, uid, _gid = _CREDENTIALS.unpack(data[: _CREDENTIALS.size])
    if uid != os.getuid() or len(fds) != 1 or flags & (socket.MSG_CTRUNC | socket.MSG_TRUNC):
        for fd in fds:
            os.close(fd)
        logger.warning("a handed socket refused: %d descriptors from uid %s", len(fds), uid)
        return None
    sock = socket.socket(fileno=fds[0])  # its family and type are the socket's own
    if sock.type != socket.SOCK_STREAM:
        sock.close()
        return None
    sock.setblocking(False)
    return sock, head
