"""The tournament rules stay pure: nothing of Django or the project but the pure engine."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "tournaments" / "rules"


def test_the_rules_import_only_the_standard_library_and_the_engine() -> None:
    imported = set()
    for path in RULES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module)
    assert imported, "no module read"
    outside = {
        name
        for name in imported
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("tables.engine")
    }
    assert outside == set()
