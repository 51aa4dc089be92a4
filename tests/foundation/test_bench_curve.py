"""The capacity figure as bench/load.py --curve computes and draws it (docs/performance.md quotes both)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from bench.curve import TARGET_P99_MS, curve_svg, curve_table, knee

SVG = "{http://www.w3.org/2000/svg}"


def point(players: int, p99: float | None, *, p50: float = 5.0, p95: float = 20.0) -> dict:
    latency = {"p50": p50, "p95": p95, "p99": p99, "n": 1000} if p99 is not None else None
    return {
        "players": players,
        "latency_ms": latency,
        "errors": {},
        "tables_stalled": f"0/{players // 6}",
        "cpu_percent_of_one_core": {"daphne1": 40.0, "daphne2": 41.0},
        "actions_per_second": players / 20,
    }


def run(*points: dict, app: str = "abc1234") -> dict:
    return {"started": "2026-12-01 10:00:00", "app": app, "args": {"think": 2.0}, "points": list(points)}


def test_the_knee_is_the_most_players_with_p99_at_most_100_ms():
    points = [point(300, 40), point(600, 100.0), point(900, 100.1), point(1200, 95), point(1800, 3800)]
    assert knee(points) == 1200, "the most players that meet the target, even above a point that missed"
    assert knee([point(300, 40), point(600, 100.0), point(900, 140)]) == 600, "100 ms itself meets it"
    assert knee([point(300, 120), point(600, None)]) is None, "no point met it (a failed run has no latency)"
    assert knee([point(300, float("nan"))]) is None


def test_the_picture_shows_every_run_against_the_target():
    before = run(point(300, 40), point(600, 60), point(900, 250), app="before1")
    after = run(point(300, 30), point(600, 45), point(900, 80), point(1200, 400), app="after22")
    root = ET.fromstring(curve_svg([before, after]))
    lines = root.findall(f"{SVG}polyline")
    assert [line.get("class") for line in lines] == ["p99", "p50", "p95"] * 2
    target_y = float(root.find(f"{SVG}line[@class='target']").get("y1"))
    p99_after = [tuple(map(float, xy.split(","))) for xy in lines[3].get("points").split()]
    assert [y < target_y for _x, y in p99_after] == [False, False, False, True], "above the line: over 100 ms"
    assert [x for x, _y in p99_after] == sorted(x for x, _y in p99_after), "players increase to the right"
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "before1" in text and "knee 600 players" in text
    assert "after22" in text and "knee 900 players" in text
    assert "2 s think" in text and f"{TARGET_P99_MS:g} ms" in text


def test_the_table_gives_each_point_and_the_knee():
    table = curve_table([run(point(300, 40), point(600, 250))])
    assert "| 300 | 15.0 | 5.0 / 20.0 / 40.0 | none | 0/50 | daphne1 40.0, daphne2 41.0 |" in table
    assert "knee: **300**" in table
