"""One web process of the room: daphne on a socket the supervisor bound, listening only once it can answer.

    python -m pokerroom.web --fd N pokerroom.asgi:application     (daphne's own command line)

The supervisor (pokerroom.supervisor) binds one socket per web process to the room's port with SO_REUSEPORT
and hands it over bound but not listening. The kernel gives new connections only to the sockets that listen,
so this process loads the application first (Django set up, the apps imported: the seconds a start takes),
then listens, then runs daphne on the socket (daphne's `--fd`; Twisted adopts a socket as it is, without
calling listen). A web process starting again after a crash therefore gets no connection before it can
answer: until then they all go to the others.

With more than one web process, a table's connections are served by one of them (pokerroom.web_route): each
new connection's first request line is read here, and one to another process's table is handed to it.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import time

import daphne.server  # installs Twisted's asyncio reactor: before anything of Twisted's
from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory
from twisted.internet import reactor
from twisted.internet.interfaces import IReadDescriptor
from twisted.internet.protocol import Protocol
from zope.interface import implementer

from pokerroom import web_route

logger = logging.getLogger(__name__)

LISTEN_BACKLOG = 1024
FIRST_LINE_SECONDS = 10.0  # a connection that has not sent its request's first line by then is served here
HAND_RETRY_SECONDS = 0.005  # a socket for an owner whose queue is full is sent again after this
HAND_BUSY_SECONDS = 2.0  # and served here if that queue is still full after this
INBOX_READS = 64  # handed sockets taken at one wake-up, at most (then the reactor's other work)


def socket_listen(fd: int) -> None:
    sock = socket.socket(fileno=fd)
    sock.listen(LISTEN_BACKLOG)
    sock.detach()  # the descriptor stays open for daphne


class _FirstLine(Protocol):
    """A new connection until its request's first line is read: then served here by daphne's HTTP protocol,
    or handed to the web process that serves its table."""

    def __init__(self, factory: RoutingHTTPFactory, addr) -> None:
        self.factory, self.addr = factory, addr
        self.head = b""
        self.timer = self.retry = None

    def connectionMade(self) -> None:  # noqa: N802 (Twisted's name)
        self.timer = reactor.callLater(FIRST_LINE_SECONDS, self.serve_here)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802
        self.head += data
        if b"\r\n" not in self.head and len(self.head) < web_route.REQUEST_LINE_MAX:
            return
        router = self.factory.router
        owner = router.owner(self.head) if router is not None else None
        if owner is not None and len(self.head) <= web_route.HANDOFF_MAX:
            self._timer_cancel()
            self.transport.stopReading()  # what the client sends next stays in the socket, for the owner
            self.hand(owner, until=time.monotonic() + HAND_BUSY_SECONDS)
            return
        self.serve_here()

    def hand(self, owner: int, *, until: float) -> None:
        """Send the connection to the process that serves its table; while that one's queue is full, again
        a moment later; if it is not running, or still full at `until`, serve it here."""
        self.retry = None
        router, transport = self.factory.router, self.transport
        outcome = router.hand(transport.fileno(), self.head, owner)
        if outcome == web_route.HANDED:
            # the connection lives on in the owner: close this process's copy only, no shutdown
            transport._shouldShutdown = False
            transport.loseConnection()
        elif outcome == web_route.BUSY and time.monotonic() < until:
            self.retry = reactor.callLater(HAND_RETRY_SECONDS, self.hand, owner, until=until)
        else:
            if outcome == web_route.BUSY:
                logger.warning("web process %d stayed busy: a connection to its table served here", owner)
            transport.startReading()
            self.serve_here()

    def serve_here(self) -> None:
        """daphne's HTTP protocol takes the connection over from here, with what was read."""
        self._timer_cancel()
        served = self.factory.http_protocol(self.addr)
        self.transport.protocol = served
        served.makeConnection(self.transport)
        if self.head:
            served.dataReceived(self.head)

    def connectionLost(self, reason) -> None:  # noqa: N802
        self._timer_cancel()
        if self.retry is not None and self.retry.active():
            self.retry.cancel()

    def _timer_cancel(self) -> None:
        if self.timer is not None and self.timer.active():
            self.timer.cancel()
        self.timer = None


class _Handed:
    """The factory of one handed connection: daphne's HTTP protocol, noted to be given the bytes read."""

    def __init__(self, factory: RoutingHTTPFactory) -> None:
        self.factory, self.built = factory, None

    def buildProtocol(self, addr):  # noqa: N802
        self.built = self.factory.http_protocol(addr)
        return self.built


@implementer(IReadDescriptor)
class _Inbox:
    """This process's address for handed sockets, read by the reactor: each adopted as a connection of its own."""

    def __init__(self, sock: socket.socket, factory: RoutingHTTPFactory) -> None:
        self.sock, self.factory = sock, factory

    def fileno(self) -> int:
        return self.sock.fileno()

    def logPrefix(self) -> str:  # noqa: N802
        return "web_route"

    def doRead(self) -> None:  # noqa: N802
        for _ in range(INBOX_READS):
            got = web_route.handed_receive(self.sock)
            if got is None:
                return
            sock, head = got
            handed = _Handed(self.factory)
            try:
                reactor.adoptStreamConnection(sock.fileno(), sock.family, handed)
            except OSError:  # the client went away meanwhile
                continue
            finally:
                sock.close()  # the reactor holds a copy
            if handed.built is not None:
                handed.built.dataReceived(head)

    def connectionLost(self, reason) -> None:  # noqa: N802
        self.sock.close()


class RoutingHTTPFactory(HTTPFactory):
    """daphne's HTTP factory, its connections first read to their request's first line (`_FirstLine`) when
    there are other web processes to hand a table's connections to."""

    router: web_route.Router | None = None

    def __init__(self, server) -> None:
        super().__init__(server)
        if self.router is not None:
            reactor.addReader(_Inbox(self.router.inbox(), self))

    def buildProtocol(self, addr):  # noqa: N802
        if self.router is None:
            return super().buildProtocol(addr)
        return _FirstLine(self, addr)

    def http_protocol(self, addr):
        return super().buildProtocol(addr)


def main(argv: list[str]) -> None:
    if "--fd" not in argv:
        raise SystemExit("pokerroom.web runs on a socket the supervisor made: --fd N")
    fd = int(argv[argv.index("--fd") + 1])
    application = argv[-1]
    CommandLineInterface().load_asgi_app(application)  # the slow part of a start, before any connection
    RoutingHTTPFactory.router = web_route.Router.from_env(os.environ)
    daphne.server.HTTPFactory = RoutingHTTPFactory  # what daphne's Server.run builds its connections with
    socket_listen(fd)
    CommandLineInterface().run(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
