"""The staff app's writes: the audit log, notes on players, the review of flagged deposits.

Each runs in the caller's transaction (the audit record commits with the action it records) or in its own."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from accounts.audit import staff_action_record
from accounts.models import User
from staff.models import AuditEntry, DepositFlag, Login, StaffNote
from staff.selectors import deposit_review_reasons


def _json(value: Any) -> Any:
    return None if value is None else json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _player_id_of(target) -> int | None:
    if isinstance(target, User):
        return target.pk
    return getattr(target, "user_id", None) or getattr(target, "player_id", None)


def audit_entry_write(
    *, actor, action: str, target=None, before=None, after=None, note: str = "", player=None
) -> AuditEntry:
    """Write one record of the audit log (the writer accounts.audit calls; the admin site calls it too).

    Lock: none; runs in the caller's transaction, so the record commits with what it records."""
    return AuditEntry.objects.create(
        actor_id=getattr(actor, "pk", None),
        action=action[:64],
        target_type=ContentType.objects.get_for_model(target) if target is not None else None,
        target_id="" if target is None else str(target.pk),
        target_repr="" if target is None else str(target)[:200],
        player_id=player.pk if player is not None else _player_id_of(target),
        before=_json(before),
        after=_json(after),
        note=str(note or "")[:4000],
    )


def staff_note_add(*, player: User, author: User, text: str) -> StaffNote:
    """A member of staff's note on a player (shown on the player page, never to the player)."""
    text = text.strip()
    if not text:
        raise ValueError("a note needs text")
    with transaction.atomic():
        note = StaffNote.objects.create(player=player, author=author, text=text[:4000])
        staff_action_record(
            actor=author, action="staff_note.add", target=note, after={"text": note.text}, player=player
        )
    return note


def deposit_flag_check(*, deposit) -> DepositFlag | None:
    """Flag a deposit just credited if it is large or unusual (the DEPOSIT_REVIEW_* settings); called by the
    cashier's `deposit_succeeded` hook inside the transaction that credited it."""
    reasons = deposit_review_reasons(deposit=deposit)
    if not reasons:
        return None
    flag, _created = DepositFlag.objects.get_or_create(deposit=deposit, defaults={"reasons": reasons})
    return flag


def deposit_flag_review(*, flag: DepositFlag, staff_user: User, note: str) -> DepositFlag:
    """Staff looked at a flagged deposit and say what they found; the flag leaves the list of those to review."""
    with transaction.atomic():
        flag = DepositFlag.objects.select_for_update().get(pk=flag.pk)
        if flag.reviewed_at is not None:
            return flag
        flag.reviewed_by, flag.reviewed_at, flag.review_note = staff_user, timezone.now(), note.strip()[:4000]
        flag.save(update_fields=["reviewed_by", "reviewed_at", "review_note"])
        staff_action_record(
            actor=staff_user,
            action="deposit_flag.review",
            target=flag.deposit,
            before={"reviewed": False},
            after={"reviewed": True},
            note=flag.review_note,
        )
    return flag


def _client_ip(request) -> str:
    """The client's address as the login throttle reads it (settings.AXES_CLIENT_IP_CALLABLE: the room's
    pokerroom.addresses.client_ip, which believes X-Forwarded-For only behind PROXY_COUNT proxies)."""
    return import_string(settings.AXES_CLIENT_IP_CALLABLE)(request)


def login_record(sender=None, *, request=None, user=None, **kwargs) -> Login | None:
    """The user_logged_in receiver: one row of the player's logins (the player page shows the latest). A login
    without a request (a test client's force_login, a shell) is not recorded."""
    if request is None or user is None or getattr(user, "pk", None) is None:
        return None
    return Login.objects.create(
        user=user,
        address=_client_ip(request),
        user_agent=str(request.META.get("HTTP_USER_AGENT", ""))[:200],
    )
