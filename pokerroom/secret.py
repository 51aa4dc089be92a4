"""The secret key a room keeps when none is given: generated once, kept in a file under var/ (mode 0600).

Read by the settings (every process of the room, and the tests) and prepared by the supervisor's `run` and
`serve` before they start their children. Several processes starting at once all end up with the one key:
the first to link its file in place wins, the others read it. No Django here (the settings import it)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def secret_key_path() -> Path:
    """Where the generated key is kept: SECRET_KEY_FILE, else var/secret_key in the checkout."""
    return Path(os.environ.get("SECRET_KEY_FILE") or BASE_DIR / "var" / "secret_key")


def secret_key_ensure(path: Path | None = None) -> str:
    """The key kept at `path`, generated there first if there is none yet (or the file is empty)."""
    path = path or secret_key_path()
    key = _read(path)
    if key:
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(descriptor, (secrets.token_urlsafe(64) + "\n").encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    try:
        if path.exists() and not _read(path):
            path.unlink()  # an empty file left by hand: replaced
        os.link(draft, path)  # fails if another process put its key there first: theirs is kept
    except FileExistsError:
        pass
    finally:
        draft.unlink(missing_ok=True)
    key = _read(path)
    if not key:
        raise RuntimeError(f"could not keep a secret key in {path}")
    return key


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        return ""
