"""The audit log's side of the admin: every ModelAdmin registered with the room's admin site (staff.sites) is
audited, whatever app registered it. Its form saves (add, change, delete) and its actions are recorded with
the object's values before and after; an action whose service recorded itself (accounts.audit) is not
recorded twice. Custom views record through their services."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from django.contrib import messages
from django.contrib.admin import helpers
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import NestedObjects, unquote
from django.contrib.auth import get_permission_codename
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import router
from django.http import HttpResponseRedirect
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from accounts.audit import staff_actions_recorded
from staff.services import audit_entry_write

# Never copied into the log: secrets, and what would show cards or card numbers (two-factor apps' `key` and
# recovery codes' `token` included).
SECRET_FIELDS = frozenset(
    {"password", "deck_secret", "hole_cards", "config", "card_token", "destination_token", "key", "token"}
)
ACTION_SNAPSHOTS_AT_MOST = 500


def object_snapshot(obj) -> dict[str, Any]:
    """The object's own fields as JSON values (foreign keys by id); a password only as a fingerprint, so a
    change shows without the hash."""
    data: dict[str, Any] = {}
    for field in obj._meta.concrete_fields:
        value = getattr(obj, field.attname)
        if field.name == "password":
            value = hashlib.sha256(str(value).encode()).hexdigest()[:12] if value else ""
        elif field.name in SECRET_FIELDS:
            continue
        data[field.attname] = value
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def _change_text(message) -> str:
    text = message if isinstance(message, str) else json.dumps(message)
    return LogEntry(change_message=text).get_change_message()


def _before_store(request) -> dict:
    if not hasattr(request, "_audit_before"):
        request._audit_before = {}
    return request._audit_before


class AuditedModelAdmin:
    """Mixed into every ModelAdmin of the staff site (before the admin's own class)."""

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None and request.method == "POST":
            _before_store(request)[(type(obj), obj.pk)] = object_snapshot(obj)
        return obj

    def save_model(self, request, obj, form, change):
        request._audit_recorded_at_save = staff_actions_recorded()
        super().save_model(request, obj, form, change)

    def _service_recorded(self, request) -> bool:
        """The save went through a service that wrote its own record (a self-exclusion staff record)."""
        start = getattr(request, "_audit_recorded_at_save", None)
        return start is not None and staff_actions_recorded() > start

    def log_addition(self, request, obj, message):
        logged = super().log_addition(request, obj, message)
        if self._service_recorded(request):
            return logged
        audit_entry_write(
            actor=request.user,
            action="admin.add",
            target=obj,
            after=object_snapshot(obj),
            note=_change_text(message),
        )
        return logged

    def log_change(self, request, obj, message):
        logged = super().log_change(request, obj, message)
        if self._service_recorded(request):
            return logged
        before = _before_store(request).get((type(obj), obj.pk))
        audit_entry_write(
            actor=request.user,
            action="admin.change",
            target=obj,
            before=before,
            after=object_snapshot(obj),
            note=_change_text(message),
        )
        return logged

    def log_deletions(self, request, queryset):
        for obj in queryset:
            audit_entry_write(
                actor=request.user, action="admin.delete", target=obj, before=object_snapshot(obj)
            )
        return super().log_deletions(request, queryset)

    def delete_view(self, request, object_id, extra_context=None):
        """Deleting what the room keeps history of is refused with the room's reason (`delete_refusal`), never
        with Django's page about protected objects or missing permissions."""
        obj = super().get_object(request, unquote(object_id))
        if obj is not None and self.has_delete_permission(request, obj):
            refusal = delete_refusal(self, request, [obj])
            if refusal:
                self.message_user(request, refusal, messages.ERROR)
                opts = self.model._meta
                return redirect(f"admin:{opts.app_label}_{opts.model_name}_change", obj.pk)
        return super().delete_view(request, object_id, extra_context)

    def response_action(self, request, queryset):
        selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        try:
            for value in selected:
                self.model._meta.pk.to_python(value)
        except ValidationError:  # Django's own filter(pk__in=...) would answer 500
            self.message_user(request, _("Those items do not exist; nothing was done."), messages.WARNING)
            return None
        name = _action_name(request)
        if name == "delete_selected":
            chosen = (
                queryset if request.POST.get("select_across") == "1" else queryset.filter(pk__in=selected)
            )
            refusal = delete_refusal(self, request, list(chosen[:ACTION_SNAPSHOTS_AT_MOST]))
            if refusal:
                self.message_user(request, refusal, messages.ERROR)
                return None
        if name in (None, "delete_selected"):  # deletions are recorded by log_deletions
            return super().response_action(request, queryset)
        chosen = queryset if request.POST.get("select_across") == "1" else queryset.filter(pk__in=selected)
        before = {obj.pk: object_snapshot(obj) for obj in chosen[:ACTION_SNAPSHOTS_AT_MOST]}
        recorded = staff_actions_recorded()
        response = super().response_action(request, queryset)
        if staff_actions_recorded() == recorded and isinstance(response, HttpResponseRedirect):
            self._action_record(request, name, before)
        return response

    def _action_record(self, request, name: str, before: dict) -> None:
        label = str(self.get_actions(request).get(name, (None, name, name))[2])
        changed = 0
        for obj in self.model._default_manager.filter(pk__in=list(before)):
            after = object_snapshot(obj)
            if after != before[obj.pk]:
                changed += 1
                audit_entry_write(
                    actor=request.user,
                    action="admin.action",
                    target=obj,
                    before=before[obj.pk],
                    after=after,
                    note=label,
                )
        if not changed:
            note = _("%(action)s: nothing changed (%(count)d selected)") % {
                "action": label,
                "count": len(before),
            }
            audit_entry_write(actor=request.user, action="admin.action", target=None, note=note)


def delete_refusal(model_admin, request, objs: list) -> str:
    """Why staff may not delete `objs` ("" if they may): the room keeps the records that point at them (a
    table's hands and seat sessions, a player's ledger...), protected in the database or not staff's to
    delete. Names the kinds and counts, then the admin's `delete_refused_hint`, if any (a table: close it)."""
    if not objs:
        return ""
    collector = NestedObjects(using=router.db_for_write(model_admin.model))
    collector.collect(objs)
    kept: Counter = Counter(type(obj) for obj in collector.protected)
    for model, instances in collector.model_objs.items():
        opts = model._meta
        if model is model_admin.model or opts.auto_created or not instances:
            continue
        if not request.user.has_perm(f"{opts.app_label}.{get_permission_codename('delete', opts)}"):
            kept[model] += len(instances)
    if not kept:
        return ""
    kinds = ", ".join(
        f"{count} {model._meta.verbose_name if count == 1 else model._meta.verbose_name_plural}"
        for model, count in sorted(kept.items(), key=lambda item: -item[1])
    )
    names = ", ".join(str(obj) for obj in objs[:3]) + ("…" if len(objs) > 3 else "")
    text = _("%(object)s cannot be deleted: the room keeps what refers to it (%(kinds)s).") % {
        "object": names,
        "kinds": kinds,
    }
    hint = getattr(model_admin, "delete_refused_hint", "")
    return f"{text} {hint}" if hint else text


def _action_name(request) -> str | None:
    names = request.POST.getlist("action")
    try:
        return names[int(request.POST.get("index", 0))]
    except (IndexError, ValueError):
        return None


def audited(admin_class: type) -> type:
    """`admin_class` with the audit mixed in (the same class if it has it already)."""
    if issubclass(admin_class, AuditedModelAdmin):
        return admin_class
    return type(
        admin_class.__name__,
        (AuditedModelAdmin, admin_class),
        {"__module__": admin_class.__module__, "__qualname__": admin_class.__qualname__},
    )
