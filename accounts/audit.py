"""Where every app tells the audit log what a member of staff did (SPEC 4; docs/staff.md).

The log itself belongs to the `staff` app, which nothing imports: it registers its writer here once (in
`StaffConfig.ready()`). A service that carries out a staff decision (verifying an identity, approving a
withdrawal, looking at a hand's hidden cards) calls `staff_action_record` inside the transaction that carries
it out, so the decision and its record commit together or not at all. Edits made through the admin's forms
and actions are recorded by the staff app's admin site itself, with the values before and after.

    from accounts import audit
    audit.staff_action_record(actor=request.user, action="withdrawal.reject", target=withdrawal,
                              before={"status": "pending"}, after={"status": "rejected"}, note=reason)

Until a writer is registered (the staff app not installed) nothing is recorded."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

_writers: list[Callable[..., Any]] = []
_recorded: ContextVar[int] = ContextVar("staff_actions_recorded", default=0)


def audit_writer_register(func: Callable[..., Any]) -> None:
    """`func(*, actor, action, target, before, after, note, player)` writes one record; registered once."""
    if func not in _writers:
        _writers.append(func)


def staff_action_record(
    *,
    actor,
    action: str,
    target=None,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    note: str = "",
    player=None,
) -> None:
    """Record that `actor` did `action` ("<noun>.<verb>") to `target` (a model instance or None), with the
    values it changed before and after. `player`: the player concerned, when `target` is not theirs."""
    for write in _writers:
        write(actor=actor, action=action, target=target, before=before, after=after, note=note, player=player)
    _recorded.set(_recorded.get() + 1)


def staff_actions_recorded() -> int:
    """How many records this context made so far (the admin site compares it around an admin action: an
    action whose service recorded itself is not recorded a second time)."""
    return _recorded.get()
