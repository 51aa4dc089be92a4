"""bench/seats_evening.py's options (docs/tables.md quotes a run with the defaults)."""

from __future__ import annotations

import pytest

from bench.seats_evening import KINDS, main, parser_make


def test_the_defaults_fill_six_tables_beside_two_house_bots_with_short_limits():
    args = parser_make().parse_args([])
    assert (args.players, args.tables) == (24, 6), "four people a table beside the two house bots"
    assert (args.sit_out_limit, args.bust_limit) == (20, 10)
    assert KINDS == ("disconnect", "sit_out", "bust"), "a third walk away each way"


@pytest.mark.parametrize("argv", [["--players", "25"], ["--players", "30", "--tables", "6"]])
def test_players_that_do_not_fit_four_a_table_are_refused_before_any_room_starts(argv):
    with pytest.raises(SystemExit) as refused:
        main(argv)
    assert refused.value.code == 2
