"""The payout page's chart, drawn on the server: a line per game type with play, broken where a day had none,
on an axis of round numbers that keeps every point inside the plot."""

from datetime import date, timedelta
from decimal import Decimal

from tables.payout.chart import payout_chart
from tables.payout.selectors import DayFigures, PayoutLine

FIRST = date(2026, 11, 1)
LAST = FIRST + timedelta(days=29)


def _line(game: str, days: dict[int, tuple[int, int]]) -> PayoutLine:
    figures = tuple(
        DayFigures(FIRST + timedelta(days=n), game, "eur", put_in, paid_back, 1)
        for n, (put_in, paid_back) in sorted(days.items())
    )
    return PayoutLine(
        game, "eur", sum(d.put_in for d in figures), sum(d.paid_back for d in figures), len(figures), figures
    )


def test_a_day_without_play_breaks_the_line_and_lines_without_play_are_not_drawn():
    holdem = _line("holdem", {0: (10_000, 9_862), 1: (10_000, 9_900), 5: (10_000, 9_700), 6: (10_000, 9_800)})
    chart = payout_chart(lines=[holdem, _line("omaha", {})], first=FIRST, last=LAST)
    [series] = chart.series
    assert series.game == "holdem" and len(series.segments) == 2, "days 0-1 and 5-6, apart"
    assert [p.percent for p in series.points] == [
        Decimal("98.62"),
        Decimal("99.00"),
        Decimal("97.00"),
        Decimal("98.00"),
    ]
    xs = [p.x for p in series.points]
    assert xs[0] == chart.plot_left and xs == sorted(xs)
    assert not chart.empty and payout_chart(lines=[_line("omaha", {})], first=FIRST, last=LAST).empty


def test_the_axis_keeps_every_point_inside_the_plot_with_round_grid_lines():
    low = _line("omaha", {0: (1_000, 900), 29: (1_000, 1_000)})  # 90 % and 100 %
    chart = payout_chart(lines=[low], first=FIRST, last=LAST)
    values = [value for _y, value in chart.grid]
    assert values[0] < Decimal(90) and values[-1] >= Decimal(100) and len(values) <= 6
    assert all(chart.plot_top <= p.y < chart.plot_bottom for p in chart.series[0].points)
    assert chart.series[0].points[-1].x == chart.plot_right
    assert [anchor for _x, _day, anchor in chart.ticks] == ["start", "middle", "end"]
    assert [day for _x, day, _anchor in chart.ticks] == [FIRST, FIRST + timedelta(days=15), LAST]
