"""One web process of the room: daphne on a socket the supervisor bound, listening only once it can answer.

    python -m pokerroom.web --fd N pokerroom.asgi:application     (daphne's own command line)

The supervisor (pokerroom.supervisor) binds one socket per web process to the room's port with SO_REUSEPORT
and hands it over bound but not listening. The kernel gives new connections only to the sockets that listen,
so this process loads the application first (Django set up, the apps imported: the seconds a start takes),
then listens, then runs daphne on the socket (daphne's `--fd`; Twisted adopts a socket as it is, without
calling listen). A web process starting again after a crash therefore gets no connection before it can
answer: until then they all go to the others.
"""

from __future__ import annotations

import socket
import sys

from daphne.cli import CommandLineInterface  # installs Twisted's asyncio reactor: before anything else

LISTEN_BACKLOG = 1024


def socket_listen(fd: int) -> None:
    sock = socket.socket(fileno=fd)
    sock.listen(LISTEN_BACKLOG)
    sock.detach()  # the descriptor stays open for daphne


def main(argv: list[str]) -> None:
    if "--fd" not in argv:
        raise SystemExit("pokerroom.web runs on a socket the supervisor made: --fd N")
    fd = int(argv[argv.index("--fd") + 1])
    application = argv[-1]
    CommandLineInterface().load_asgi_app(application)  # the slow part of a start, before any connection
    socket_listen(fd)
    CommandLineInterface().run(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
