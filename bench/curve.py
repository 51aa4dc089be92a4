"""The capacity curve: latency against players, and the knee (the most players with p99 at most 100 ms).

`bench/load.py --curve` measures it and writes a JSON copy and this picture of it. This script draws one
picture from several such runs, for docs/performance.md (before and after a change, three runs each):

    python bench/curve.py var/bench/load/curve-*.json -o docs/capacity-curve.svg

The picture is plain SVG written here (no plotting library): players across, latency up on a log scale,
p99 solid, p95 dashed, p50 dotted, one colour a run, the 100 ms target as a grey line.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from xml.sax.saxutils import escape

TARGET_P99_MS = 100.0
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
DASHES = {"p99": "", "p50": "2 4", "p95": "7 4"}
WIDTH, PLOT_HEIGHT, LEFT, RIGHT, TOP = 760, 340, 70, 30, 40


def curve_point(players: int, results: dict) -> dict:
    """What the curve keeps of one load run (bench/load.py's results) at `players`."""
    room = results.get("room") or {}
    return {
        "players": players,
        "tables": players // 6,
        "latency_ms": room.get("latency_ms"),
        "actions_per_second": room.get("actions_per_second"),
        "errors": room.get("errors"),
        "cpu_percent_of_one_core": room.get("cpu_percent_of_one_core"),
        "tables_stalled": room.get("tables_stalled"),
        "seq_gaps": room.get("seq_gaps"),
        "seqs_never_received": room.get("seqs_never_received"),
        "connect_failures": room.get("connect_failures"),
        "disconnects": room.get("disconnects"),
        "ledger_check": results.get("ledger_check"),
        "loadavg": [results.get("loadavg_before"), results.get("loadavg_after")],
    }


def _p(point: dict, name: str) -> float | None:
    value = (point.get("latency_ms") or {}).get(name)
    return value if isinstance(value, int | float) and math.isfinite(value) and value > 0 else None


def knee(points: list[dict], *, limit_ms: float = TARGET_P99_MS) -> int | None:
    """The most players at which p99 was at most `limit_ms` (None: at no point)."""
    passing = [p["players"] for p in points if (p99 := _p(p, "p99")) is not None and p99 <= limit_ms]
    return max(passing, default=None)


def run_label(run: dict) -> str:
    web = run.get("args", {}).get("daphnes")
    layout = f", {web} web" if web else ""
    if web and web > 1 and "web_routing" in run:
        layout += ", tables routed" if run["web_routing"] else ", not routed"
    return f"{run.get('started', '?')} ({run.get('app') or 'app ?'}{layout})"


def curve_table(runs: list[dict]) -> str:
    """The figures as a Markdown table, one row a point of each run."""
    lines = [
        "| run | players | actions/s | p50 / p95 / p99 ms | errors | stalled | CPU % of one core |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for run in runs:
        for point in run["points"]:
            latency = " / ".join(
                f"{v:.1f}" if (v := _p(point, k)) is not None else "-" for k in ("p50", "p95", "p99")
            )
            cpu = ", ".join(
                f"{name} {value}" for name, value in (point.get("cpu_percent_of_one_core") or {}).items()
            )
            lines.append(
                f"| {run_label(run)} | {point['players']:,} | {point.get('actions_per_second')} | {latency} "
                f"| {point.get('errors') or 'none'} | {point.get('tables_stalled')} | {cpu} |"
            )
        found = knee(run["points"])
        lines.append(f"| {run_label(run)} | knee: **{f'{found:,}' if found else 'none'}** | | | | | |")
    return "\n".join(lines)


class _Axes:
    """Players (linear, from 0) across, milliseconds (log) up, over the plot area."""

    def __init__(self, runs: list[dict]) -> None:
        players = [p["players"] for run in runs for p in run["points"]] or [1]
        values = [v for run in runs for p in run["points"] for k in DASHES if (v := _p(p, k)) is not None]
        self.x_max = max(players) * 1.05
        self.decade_low = min(0, math.floor(math.log10(min(values, default=1))))
        self.decade_high = max(3, math.ceil(math.log10(max(values, default=1000))))
        self.ticks = sorted(set(players))
        thinks = {run.get("args", {}).get("think") for run in runs}
        self.think = (
            f"{thinks.pop():g} s think" if len(thinks) == 1 and None not in thinks else "think as in each run"
        )

    def x(self, players: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * players / self.x_max

    def y(self, ms: float) -> float:
        share = (math.log10(ms) - self.decade_low) / (self.decade_high - self.decade_low)
        return TOP + PLOT_HEIGHT * (1 - share)


def _axes_svg(axes: _Axes) -> list[str]:
    bottom = TOP + PLOT_HEIGHT
    out = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>',
    ]
    for decade in range(axes.decade_low, axes.decade_high + 1):
        y = axes.y(10**decade)
        label = f"{10**decade:g} ms" if decade < 3 else f"{10 ** (decade - 3):g} s"
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for players in axes.ticks:
        x = axes.x(players)
        out.append(f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 5}" stroke="#333"/>')
        out.append(f'<text x="{x:.1f}" y="{bottom + 18}" text-anchor="middle">{players:,}</text>')
    out.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{bottom + 36}" text-anchor="middle">players '
        f"(six to a table, {axes.think})</text>"
    )
    target = axes.y(TARGET_P99_MS)
    out.append(
        f'<line class="target" x1="{LEFT}" y1="{target:.1f}" x2="{WIDTH - RIGHT}" y2="{target:.1f}" '
        'stroke="#888" stroke-width="1.5" stroke-dasharray="10 5"/>'
    )
    out.append(f'<text x="{LEFT + 6}" y="{target - 5:.1f}" fill="#666">p99 target: 100 ms</text>')
    return out


def _series_svg(axes: _Axes, run: dict, colour: str) -> list[str]:
    out = []
    for name, dash in DASHES.items():
        dots = [(axes.x(p["players"]), axes.y(v)) for p in run["points"] if (v := _p(p, name)) is not None]
        if not dots:
            continue
        coordinates = " ".join(f"{x:.1f},{y:.1f}" for x, y in dots)
        style = f' stroke-dasharray="{dash}"' if dash else ""
        width = 2.2 if name == "p99" else 1.4
        out.append(
            f'<polyline class="{name}" points="{coordinates}" fill="none" stroke="{colour}" '
            f'stroke-width="{width}"{style}/>'
        )
        out.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>' for x, y in dots)
    return out


def curve_svg(
    runs: list[dict], *, title: str = "Capacity: action-to-broadcast latency against players"
) -> str:
    axes = _Axes(runs)
    height = TOP + PLOT_HEIGHT + 70 + 18 * len(runs)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="15">{escape(title)}</text>',
        *_axes_svg(axes),
    ]
    legend_y = TOP + PLOT_HEIGHT + 60
    out.append(f'<text x="{LEFT}" y="{legend_y}">p99 solid, p95 dashed, p50 dotted</text>')
    for index, run in enumerate(runs):
        colour = COLOURS[index % len(COLOURS)]
        out.extend(_series_svg(axes, run, colour))
        found = knee(run["points"])
        text = f"knee {found:,} players" if found else "no point with p99 at most 100 ms"
        y = legend_y + 18 * (index + 1)
        out.append(
            f'<line x1="{LEFT}" y1="{y - 4}" x2="{LEFT + 24}" y2="{y - 4}" stroke="{colour}" stroke-width="2.2"/>'
        )
        out.append(f'<text x="{LEFT + 30}" y="{y}">{escape(run_label(run))}: {text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", help="JSON files written by bench/load.py --curve")
    parser.add_argument("-o", "--out", required=True, help="the SVG to write")
    parser.add_argument("--title", default="Capacity: action-to-broadcast latency against players")
    args = parser.parse_args(argv)
    runs = [json.loads(Path(name).read_text()) for name in args.runs]
    Path(args.out).write_text(curve_svg(runs, title=args.title))
    print(curve_table(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
