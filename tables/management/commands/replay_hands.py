"""``python manage.py replay_hands [--rake room] FILE.phh ...``: replay recorded hands through the engine.

A door for checking the engine from outside: one JSON object a line, ``{"file", "finishing_stacks",
"rake"}`` in the order of the file's players, or ``{"file", "error"}``; exit status 1 if any file could
not be replayed. All the logic is in :func:`tables.engine.phh.replay_file`.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tables.engine.phh import replay_file


class Command(BaseCommand):
    help = "Replay PHH hand histories by the room's rules; prints one JSON object per file."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE.phh")
        parser.add_argument(
            "--rake",
            choices=["room"],
            default=None,
            help="take the room's rake (amounts read as euro cents at a smallest chip of 0.01)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        failed = 0
        for path in options["files"]:
            result = replay_file(path, rake=options["rake"])
            failed += "error" in result
            self.stdout.write(json.dumps(result))
        if failed:
            raise CommandError(f"{failed} file(s) could not be replayed", returncode=1)
