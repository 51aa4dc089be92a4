"""What the table's buy-in and top-up boxes read from what a player types (static/js/money.js parseAmount, run
by Node): a dot in Italian is a thousands separator only where it groups thousands, so "0.500" is refused rather
than read as 500.00 (the cashier's form refuses it the same way)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

MONEY_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "money.js"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")

CASES = [
    # typed, page language, cents read (None: refused)
    ("0.500", "it", None),
    ("0.001", "it", None),
    ("1.00.0", "it", None),
    ("1.000", "it", 100_000),
    ("1.000,50", "it", 100_050),
    ("0,50", "it", 50),
    ("12,5", "it", 1_250),
    ("3", "it", 300),
    ("1,000.50", "en", 100_050),
    ("0.5", "en", 50),
    ("abc", "en", None),
]


def test_typed_amounts_are_read_as_a_player_means_them_or_refused():
    script = (
        "globalThis.document = {documentElement: {lang: 'en'}};"
        f"const m = await import({json.dumps(MONEY_JS.as_uri())});"
        f"const cases = {json.dumps([[t, lang] for t, lang, _ in CASES])};"
        "console.log(JSON.stringify(cases.map(([t, l]) => m.parseAmount(t, l))));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [cents for _, _, cents in CASES]
