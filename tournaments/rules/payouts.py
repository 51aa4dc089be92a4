"""Prize money (SPEC 1.3): payout tables by number of entrants, a prize pool split to the cent, and the
places and prizes of players who bust together.

Pure: the standard library only. A share is an integer in thousandths of a percent: ``SHARE_TOTAL``
(100,000) is the whole prize pool, so 65 % is 65,000 and a 0.135 % minimum cash is 135.

The room's defaults, which staff may replace as data:
- sit-and-go (SPEC): 2-5 entrants, the winner takes all; 6-8, 65/35; 9-10, 50/30/20;
- multi-table: the same up to 10 entrants, then about 15 % of the field paid (never fewer than 3 places),
  in steps of places as rooms publish them (3, 4, ... 10, 12, 15, 18, 20, 25, ... 300). Three places are
  paid 50/30/20; more are paid in proportion to 1, 1/2, 1/3, ... (the harmonic table: first place takes about 18 % of a
  900-entrant pool, the last place paid about 1.2 buy-ins), rounded down to thousandths of a percent with
  what the rounding leaves going one each to the top places.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import groupby

SHARE_TOTAL = 100_000
PAID_FRACTION = Fraction(15, 100)
MULTI_TABLE_PLACE_STEPS = (
    3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100,
    120, 135, 150, 175, 200, 225, 250, 275, 300,
)  # fmt: skip


class PayoutError(ValueError):
    """A payout table that cannot pay a prize pool (shares not adding up, overlapping bands, ...)."""


@dataclass(frozen=True, slots=True)
class PayoutBand:
    """The shares of the places paid when ``entrants_min`` to ``entrants_max`` players entered, first
    place first. They add up to ``SHARE_TOTAL``, never rise from one place to the next and are positive."""

    entrants_min: int
    entrants_max: int
    shares: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "shares", tuple(self.shares))
        if not 2 <= self.entrants_min <= self.entrants_max:
            raise PayoutError(f"entrants {self.entrants_min}-{self.entrants_max}: need 2 <= min <= max")
        shares_check(self.shares)
        if len(self.shares) > self.entrants_min:
            raise PayoutError(f"{len(self.shares)} places paid with only {self.entrants_min} entrants")


def shares_check(shares: Sequence[int]) -> None:
    """Refuse shares that cannot be a payout: empty, not whole positive numbers, rising, or not adding up
    to the whole pool."""
    if not shares:
        raise PayoutError("no place is paid")
    if any(type(share) is not int or share <= 0 for share in shares):
        raise PayoutError("shares must be positive whole numbers (thousandths of a percent)")
    if any(later > earlier for earlier, later in zip(shares, shares[1:], strict=False)):
        raise PayoutError("a place cannot be paid more than the place above it")
    if sum(shares) != SHARE_TOTAL:
        raise PayoutError(f"the shares add up to {sum(shares) / 1000:g} %, not 100 %")


@dataclass(frozen=True, slots=True)
class PayoutSchedule:
    """A payout table: bands of entrants, sorted, without gaps or overlaps."""

    bands: tuple[PayoutBand, ...]

    def __post_init__(self) -> None:
        bands = tuple(sorted(self.bands, key=lambda band: band.entrants_min))
        object.__setattr__(self, "bands", bands)
        if not bands:
            raise PayoutError("a payout table needs at least one band")
        for before, after in zip(bands, bands[1:], strict=False):
            if after.entrants_min != before.entrants_max + 1:
                raise PayoutError(
                    f"the bands {before.entrants_min}-{before.entrants_max} and "
                    f"{after.entrants_min}-{after.entrants_max} leave a gap or overlap"
                )

    @property
    def entrants_min(self) -> int:
        return self.bands[0].entrants_min

    @property
    def entrants_max(self) -> int:
        return self.bands[-1].entrants_max

    def shares_for(self, *, entrants: int) -> tuple[int, ...]:
        for band in self.bands:
            if band.entrants_min <= entrants <= band.entrants_max:
                return band.shares
        raise PayoutError(
            f"the payout table covers {self.entrants_min} to {self.entrants_max} entrants, not {entrants}"
        )

    def late_registration_closes_at(self, *, entrants: int, max_entrants: int) -> int:
        """Late registration closes when the players left come down to this many: the field reaches the
        money. With ``entrants`` so far and up to ``max_entrants``, it is the most places that ``e`` more
        entries could pay, less ``e`` (every entry comes in above the players already out), over every ``e``:
        the places paid now for the usual tables, where one entry adds at most one paid place. So a player
        who busts while late registration stays open finishes out of the money however many more enter."""
        closes_at = len(self.shares_for(entrants=entrants))
        for band in self.bands:
            first = max(band.entrants_min, entrants)
            if band.entrants_max >= entrants and first <= max_entrants:
                closes_at = max(closes_at, len(band.shares) - (first - entrants))
        return closes_at

    def prizes(self, *, entrants: int, pool: int) -> tuple[int, ...]:
        """The prize of each place paid (first place first) for this many entrants and this pool."""
        return pool_split(pool=pool, shares=self.shares_for(entrants=entrants))


def pool_split(*, pool: int, shares: Sequence[int]) -> tuple[int, ...]:
    """Split ``pool`` (cents or chips) by ``shares``: each place gets its share rounded down, and what the
    rounding leaves (less than a cent per place) goes to the first place, the higher place (SPEC 1.3).
    The prizes add up to the pool exactly."""
    if type(pool) is not int or pool < 0:
        raise PayoutError(f"a prize pool is a whole number >= 0, not {pool!r}")
    shares_check(shares)
    prizes = [pool * share // SHARE_TOTAL for share in shares]
    prizes[0] += pool - sum(prizes)
    return tuple(prizes)


def chips_share(*, pool: int, chips: Sequence[tuple[int, int]]) -> dict[int, int]:
    """A running tournament cancelled by staff (docs/tournaments.md): the prize pool left is shared among the
    players still in by their chips. ``chips`` is (entry, chips) for each; each gets its share rounded down,
    and the cents the rounding leaves go one each to the largest remainders (then the larger stack, then the
    earlier entry: a fixed order, so the result repeats). The shares add up to the pool exactly."""
    if type(pool) is not int or pool < 0:
        raise PayoutError(f"a prize pool is a whole number >= 0, not {pool!r}")
    total = sum(count for _entry, count in chips)
    if not chips or total <= 0 or any(count < 0 for _entry, count in chips):
        raise PayoutError("a pool is shared among players with chips")
    shares = {entry: pool * count // total for entry, count in chips}
    left = pool - sum(shares.values())
    order = sorted(chips, key=lambda row: (-(pool * row[1] % total), -row[1], row[0]))
    for entry, _count in order[:left]:
        shares[entry] += 1
    return shares


# --- the room's default tables ---------------------------------------------------------------------------

SIT_AND_GO_SHARES = (
    (2, 5, (100_000,)),
    (6, 8, (65_000, 35_000)),
    (9, 10, (50_000, 30_000, 20_000)),
)


@cache
def sit_and_go_default() -> PayoutSchedule:
    """SPEC 1.3's sit-and-go payouts: 2-5 winner takes all, 6-8 65/35, 9-10 50/30/20."""
    return PayoutSchedule(
        bands=tuple(PayoutBand(low, high, shares) for low, high, shares in SIT_AND_GO_SHARES)
    )


def places_shares(places: int) -> tuple[int, ...]:
    """The default shares of ``places`` places: SPEC's sit-and-go shares up to 3 places, then in proportion
    to 1, 1/2, 1/3, ... (rounded down, the rest one each from the top)."""
    if places < 1:
        raise PayoutError("at least one place is paid")
    for _low, _high, shares in SIT_AND_GO_SHARES:
        if len(shares) == places:
            return shares
    weights = [Fraction(1, place) for place in range(1, places + 1)]
    total = sum(weights)
    shares = [int(weight * SHARE_TOTAL / total) for weight in weights]
    for index in range(SHARE_TOTAL - sum(shares)):
        shares[index] += 1
    return tuple(shares)


@cache
def multi_table_default(*, entrants_max: int = 2000) -> PayoutSchedule:
    """Up to 10 entrants as a sit-and-go; then each step of places paid from the smallest field in which it is
    at most 15 % of the entrants, up to ``entrants_max`` (the last step paying at most 15 % there)."""
    bands = [PayoutBand(low, high, shares) for low, high, shares in SIT_AND_GO_SHARES]
    steps = [places for places in MULTI_TABLE_PLACE_STEPS if places <= max(3, PAID_FRACTION * entrants_max)]
    first = 11
    for index, places in enumerate(steps):
        if index + 1 < len(steps):
            # The next step starts in the smallest field where it is at most 15 % of the entrants.
            last = -(-steps[index + 1] // PAID_FRACTION) - 1
        else:
            last = entrants_max
        if last >= first:
            bands.append(PayoutBand(first, int(last), places_shares(places)))
            first = int(last) + 1
    return PayoutSchedule(bands=tuple(bands))


# --- finishing places ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bust:
    """A player who lost their last chip.

    ``stack_at_start``: their chips when the hand began (hand-for-hand: when their table's hand of the round
    began). ``after_button``: their seat's place clockwise from the button at their table (1 = the first
    seat after the button), for the odd cent of a shared prize; ``table`` breaks ties between tables of a
    hand-for-hand round (lower first)."""

    entry: int
    stack_at_start: int
    after_button: int
    table: int = 0


@dataclass(frozen=True, slots=True)
class Finish:
    """A finishing place and its prize. Players who share places all get the best of them."""

    entry: int
    place: int
    prize: int
    provisional: bool = False  # out while late registration is open: the place moves down as the field grows


def busts_finish(*, busts: Iterable[Bust], players_left: int, prizes: Sequence[int]) -> tuple[Finish, ...]:
    """Places and prizes of the players who busted in one hand (or one hand-for-hand round).

    ``players_left``: players still in the tournament before these busts, the busted among them, so the
    busted take the places ``players_left`` and up. A bigger stack at the start finishes higher; equal stacks
    share their places, each taking the best place of the group and an equal part of those places' prizes
    (``prizes[0]`` is first place's; places beyond it are not paid), the odd cents one each to the earlier
    seat after the button (SPEC 1.3). Returned best place first."""
    ordered = sorted(busts, key=lambda bust: (-bust.stack_at_start, bust.after_button, bust.table))
    if len({bust.entry for bust in ordered}) != len(ordered):
        raise ValueError("a player can bust only once")
    if not ordered:
        return ()
    if len(ordered) >= players_left:
        raise ValueError(f"{len(ordered)} busts leave nobody of the {players_left} players to win")
    place = players_left - len(ordered) + 1
    finishes: list[Finish] = []
    for _stack, group_iter in groupby(ordered, key=lambda bust: bust.stack_at_start):
        group = list(group_iter)
        places = range(place, place + len(group))
        shared = sum(prizes[p - 1] for p in places if p <= len(prizes))
        each, odd = divmod(shared, len(group))
        finishes += [Finish(bust.entry, place, each + (index < odd)) for index, bust in enumerate(group)]
        place += len(group)
    return tuple(finishes)
