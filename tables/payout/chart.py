"""The daily payout figures as a line chart drawn on the server: coordinates for an inline SVG in the page's
template (no script, so nothing for the Content Security Policy to allow). A day without play is a gap."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from tables.payout.selectors import PayoutLine

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 12, 32  # margins around the plot, for the axes' labels
_STEPS = (
    Decimal("0.5"),
    Decimal(1),
    Decimal(2),
    Decimal(5),
    Decimal(10),
    Decimal(20),
    Decimal(50),
    Decimal(100),
)
_MAX_GRID_LINES = 6
_FLOOR = Decimal(95)  # the axis shows at least 95-100 %, so small wobbles do not look like cliffs


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    day: date
    percent: Decimal


@dataclass(frozen=True)
class Series:
    game: str
    label: str
    segments: tuple[str, ...]
    """SVG polyline `points` attributes, one per run of consecutive days with play."""
    points: tuple[Point, ...]


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot_left: int
    plot_right: int
    plot_top: int
    plot_bottom: int
    grid: tuple[tuple[float, Decimal], ...]
    """(y, percent) of each horizontal grid line."""
    ticks: tuple[tuple[float, date, str], ...]
    """(x, day, text-anchor) of the days labelled under the plot: the first, the middle and the last."""
    series: tuple[Series, ...]

    @property
    def empty(self) -> bool:
        return not any(s.points for s in self.series)


def payout_chart(*, lines: Sequence[PayoutLine], first: date, last: date) -> Chart:
    """One series per line with at least one day of play, on a shared axis from `first` to `last`."""
    days = (last - first).days + 1
    values = [d.percent for line in lines for d in line.days if d.percent is not None]
    low, high, step = _axis(values)
    plot_width, plot_height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(day: date) -> float:
        return round(LEFT + (day - first).days * plot_width / max(days - 1, 1), 1)

    def y(percent: Decimal) -> float:
        return round(TOP + float((high - percent) / (high - low)) * plot_height, 1)

    series = []
    for line in lines:
        points = tuple(
            Point(x(d.day), y(d.percent), d.day, d.percent) for d in line.days if d.percent is not None
        )
        if points:
            series.append(Series(line.game, line.label, _segments(points), points))
    grid, value = [], low
    while value <= high:
        grid.append((y(value), value))
        value += step
    middle = first + timedelta(days=days // 2)
    ticks = ((x(first), first, "start"), (x(middle), middle, "middle"), (x(last), last, "end"))
    return Chart(WIDTH, HEIGHT, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM, tuple(grid), ticks, tuple(series))


def _axis(values: list[Decimal]) -> tuple[Decimal, Decimal, Decimal]:
    """Bounds and grid step of the percent axis: round numbers around every value (the lowest clear of the
    bottom line), at most six lines."""
    low = min([*values, _FLOOR])
    high = max([*values, Decimal(100)])
    for step in _STEPS:
        bottom = ((low - step / 2) / step).to_integral_value(rounding=ROUND_FLOOR) * step
        top = (high / step).to_integral_value(rounding=ROUND_CEILING) * step
        if (top - bottom) / step <= _MAX_GRID_LINES - 1:
            break
    return bottom, max(top, bottom + step), step


def _segments(points: tuple[Point, ...]) -> tuple[str, ...]:
    """Polylines over runs of consecutive days (a day without play breaks the line)."""
    runs: list[list[Point]] = []
    for point in points:
        if runs and (point.day - runs[-1][-1].day).days == 1:
            runs[-1].append(point)
        else:
            runs.append([point])
    return tuple(" ".join(f"{p.x},{p.y}" for p in run) for run in runs)
