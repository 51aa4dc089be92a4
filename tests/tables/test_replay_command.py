"""`manage.py replay_hands`: the door for checking the engine from outside, as a process."""

import json
import subprocess
import sys
from pathlib import Path

from tests.engine.engine_helpers import DATA_DIR

BASE_DIR = Path(__file__).resolve().parents[2]
ROOM_HANDS = DATA_DIR / "room-hands"


def replay(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "replay_hands", *args],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_room_hands_replay_to_the_chip_with_and_without_the_rooms_rake():
    expected = json.loads((ROOM_HANDS / "expected.json").read_text())
    names = sorted(expected)[:25]
    files = [str(ROOM_HANDS / name) for name in names]
    plain = [json.loads(line) for line in replay(*files).stdout.splitlines()]
    raked = [json.loads(line) for line in replay("--rake", "room", *files).stdout.splitlines()]
    for name, row, row_raked in zip(names, plain, raked, strict=True):
        assert Path(row["file"]).name == name
        assert row["finishing_stacks"] == expected[name]["finishing_stacks"] and row["rake"] == 0
        assert row_raked["finishing_stacks"] == expected[name]["finishing_stacks_raked"]
        assert row_raked["rake"] == expected[name]["rake"]


def test_a_file_it_cannot_replay_gives_an_error_line_and_a_non_zero_exit(tmp_path):
    bad = tmp_path / "bad.phh"
    bad.write_text("variant = 'NT'\nthis is not toml [\n")
    good = sorted(ROOM_HANDS.glob("hand_*.phh"))[0]
    result = replay(str(bad), str(good), str(tmp_path / "missing.phh"))
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert lines[0]["file"].endswith("bad.phh") and lines[0]["error"]
    assert "finishing_stacks" in lines[1]
    assert lines[2]["error"]
