"""The import contracts (pyproject.toml's [tool.importlinter]), so CI keeps them as `make lint` does: the engine
imports no Django, the cashier nothing of tables, no two apps import each other, no circles inside an app, the
table's services reach the transport and the clock only through tables.effects, the clock and the bots are
leaves, the table's presenters import no service."""

import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args], cwd=BASE_DIR, capture_output=True, text=True, timeout=240
    )


def test_every_import_contract_is_kept():
    result = _run()
    assert result.returncode == 0, result.stdout + result.stderr
    for contract in (
        "The engine imports no Django",
        "The cashier imports nothing of tables",
        "none imports an app above it",
        "No import circles inside an app",
        "The clock and the bots are leaves",
        "The table's presenters take no lock and write nothing",
    ):
        assert contract in result.stdout, f"the contract {contract!r} is checked"
    assert " broken" not in result.stdout.replace("0 broken", ""), result.stdout


def test_a_broken_contract_fails_the_check(tmp_path):
    """The check can fail: the cashier's own modules, forbidden to import the cashier, break it."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["cashier", "accounts"]\n\n'
        '[[tool.importlinter.contracts]]\nname = "cashier services import no ledger"\ntype = "forbidden"\n'
        'source_modules = ["cashier.services"]\nforbidden_modules = ["cashier.ledger"]\n'
    )
    result = _run("--config", str(config))
    assert result.returncode != 0
    assert "BROKEN" in result.stdout and "cashier.services -> cashier.ledger" in result.stdout, result.stdout
