"""The staff app's pages in the admin: the player page, the audit log, the flagged deposits."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.services import identity_verify, player_reactivate
from cashier.models import Account, AccountKind
from cashier.services import player_deactivate
from cashier.templatetags.money import format_amount
from staff.models import ACTION_LABELS, AuditEntry, DepositFlag, Player
from staff.selectors import player_overview
from staff.services import deposit_flag_review, staff_note_add

# --- the player page ----------------------------------------------------------------------------------------


class IdentityFilter(admin.SimpleListFilter):
    title = gettext_lazy("identity")
    parameter_name = "identity"

    def lookups(self, request, model_admin):
        return [("verified", _("Verified")), ("unverified", _("Not verified"))]

    def queryset(self, request, queryset):
        if self.value() == "verified":
            return queryset.filter(identity_verified_at__isnull=False)
        if self.value() == "unverified":
            return queryset.filter(identity_verified_at__isnull=True)
        return queryset


def _wallet_balance(kind: str) -> Subquery:
    return Subquery(Account.objects.filter(user=OuterRef("pk"), kind=kind).values("balance")[:1])


class StaffNoteForm(forms.Form):
    text = forms.CharField(
        label=gettext_lazy("Note"), max_length=4000, widget=forms.Textarea(attrs={"rows": 3})
    )


class ConfirmForm(forms.Form):
    note = forms.CharField(label=gettext_lazy("Why (kept in the audit log)"), max_length=1000, required=False)


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """One page per player: everything staff need about them, and what they may do to the account."""

    list_display = (
        "username",
        "email",
        "full_name",
        "identity",
        "eur_balance",
        "play_balance",
        "is_active",
        "date_joined",
    )
    list_filter = ("is_active", IdentityFilter, "is_staff")
    search_fields = ("username", "email", "first_name", "last_name")
    fields = (
        "username",
        "first_name",
        "last_name",
        "email",
        "preferred_language",
        "account_status",
        "identity_status",
        "date_joined",
        "last_login",
    )
    readonly_fields = ("username", "account_status", "identity_status", "date_joined", "last_login")
    change_form_template = "staff/player_change_form.html"

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .filter(is_bot=False)
            .annotate(
                eur=_wallet_balance(AccountKind.PLAYER_EUR), play=_wallet_balance(AccountKind.PLAYER_PLAY)
            )
        )

    def has_add_permission(self, request):
        return False  # players sign up themselves

    def has_delete_permission(self, request, obj=None):
        return False  # a player with a history is deactivated, never deleted

    @admin.display(description=gettext_lazy("name"))
    def full_name(self, obj):
        return obj.get_full_name()

    @admin.display(
        description=gettext_lazy("identity verified"), boolean=True, ordering="identity_verified_at"
    )
    def identity(self, obj):
        return obj.identity_verified_at is not None

    @admin.display(description=gettext_lazy("EUR wallet"), ordering="eur")
    def eur_balance(self, obj):
        return format_amount(obj.eur or 0, "eur")

    @admin.display(description=gettext_lazy("play chips"), ordering="play")
    def play_balance(self, obj):
        return format_amount(obj.play or 0, "play")

    @admin.display(description=gettext_lazy("account"))
    def account_status(self, obj):
        return _("Active") if obj.is_active else _("Deactivated: cannot log in, deposit or sit down")

    @admin.display(description=gettext_lazy("identity"))
    def identity_status(self, obj):
        if obj.identity_verified_at is None:
            return _("Not verified")
        return _("Verified on %(date)s by %(staff)s") % {
            "date": date_format(timezone.localtime(obj.identity_verified_at), "SHORT_DATETIME_FORMAT"),
            "staff": obj.identity_verified_by.username
            if obj.identity_verified_by_id
            else _("(not recorded)"),
        }

    def change_view(self, request, object_id, form_url="", extra_context=None):
        player = self.get_object(request, object_id)
        extra = {"overview": player_overview(user=player), "note_form": StaffNoteForm()} if player else {}
        return super().change_view(request, object_id, form_url, {**extra, **(extra_context or {})})

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/verify-identity/", view(self.identity_verify_view), name="staff_player_verify"),
            path("<int:pk>/deactivate/", view(self.deactivate_view), name="staff_player_deactivate"),
            path("<int:pk>/reactivate/", view(self.reactivate_view), name="staff_player_reactivate"),
            path("<int:pk>/note/", view(self.note_view), name="staff_player_note"),
            *super().get_urls(),
        ]

    def _player_for_change(self, request, pk):
        player = get_object_or_404(self.get_queryset(request), pk=pk)
        if not self.has_change_permission(request, player):
            raise PermissionDenied
        return player

    def _back(self, player):
        return redirect("admin:staff_player_change", player.pk)

    def identity_verify_view(self, request, pk):
        player = self._player_for_change(request, pk)
        if request.method == "POST" and request.POST.get("confirm"):
            if identity_verify(user=player, staff_user=request.user):
                self.message_user(
                    request, _("The identity of %(name)s is verified.") % {"name": player.username}
                )
            return self._back(player)
        return self._confirm_page(
            request,
            player,
            _("Verify the identity of %(name)s") % {"name": player.username},
            _("You checked the player's identity documents: they may now withdraw."),
        )

    def deactivate_view(self, request, pk):
        player = self._player_for_change(request, pk)
        form = ConfirmForm(request.POST or None)
        if request.method == "POST" and request.POST.get("confirm") and form.is_valid():
            closed = player_deactivate(user=player, staff_user=request.user, note=form.cleaned_data["note"])
            self.message_user(
                request,
                _(
                    "%(name)s is deactivated; %(seats)d seat(s) cashed out now, any seat in a "
                    "hand when it ends."
                )
                % {"name": player.username, "seats": closed},
            )
            return self._back(player)
        return self._confirm_page(
            request,
            player,
            _("Deactivate %(name)s") % {"name": player.username},
            _(
                "They can no longer log in, deposit or sit down; every seat is cashed out (after the hand in play)."
            ),
            form=form,
        )

    def reactivate_view(self, request, pk):
        player = self._player_for_change(request, pk)
        form = ConfirmForm(request.POST or None)
        if request.method == "POST" and request.POST.get("confirm") and form.is_valid():
            player_reactivate(user=player, staff_user=request.user, note=form.cleaned_data["note"])
            self.message_user(request, _("%(name)s can log in again.") % {"name": player.username})
            return self._back(player)
        return self._confirm_page(
            request,
            player,
            _("Reactivate %(name)s") % {"name": player.username},
            _("They can log in, deposit and play again."),
            form=form,
        )

    def note_view(self, request, pk):
        player = self._player_for_change(request, pk)
        form = StaffNoteForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            staff_note_add(player=player, author=request.user, text=form.cleaned_data["text"])
            self.message_user(request, _("Note added."))
        elif request.method == "POST":
            self.message_user(request, _("A note needs some text."), level=messages.ERROR)
        return self._back(player)

    def _confirm_page(self, request, player, title, explanation, form=None):
        return TemplateResponse(
            request,
            "staff/confirm.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "original": player,
                "title": title,
                "explanation": explanation,
                "form": form,
            },
        )


# --- the audit log ------------------------------------------------------------------------------------------


class ActionFilter(admin.SimpleListFilter):
    title = gettext_lazy("action")
    parameter_name = "action"

    def lookups(self, request, model_admin):
        return [(code, label) for code, label in ACTION_LABELS.items()]

    def queryset(self, request, queryset):
        return queryset.filter(action=self.value()) if self.value() else queryset


class ActorFilter(admin.SimpleListFilter):
    title = gettext_lazy("staff member")
    parameter_name = "actor"

    def lookups(self, request, model_admin):
        from accounts.models import User

        actors = AuditEntry.objects.values("actor").distinct()
        return [(user.pk, user.username) for user in User.objects.filter(pk__in=actors).order_by("username")]

    def queryset(self, request, queryset):
        return queryset.filter(actor_id=self.value()) if self.value() else queryset


class PlayerFilter(admin.SimpleListFilter):
    """The actions on one player (the player page links here with ?player=<id>); offered only once chosen."""

    title = gettext_lazy("player concerned")
    parameter_name = "player"

    def lookups(self, request, model_admin):
        from accounts.models import User

        value = self.value()
        player = User.objects.filter(pk=value).first() if value and value.isdigit() else None
        return [(str(player.pk), player.username)] if player else []

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        return queryset.filter(player_id=int(value)) if value.isdigit() else queryset.none()


def admin_link(target_type, target_id: str, label: str) -> str:
    """A link to the object's admin page (the player page for a user), or the label alone."""
    if target_type is None or not target_id:
        return label
    app, model = target_type.app_label, target_type.model
    if (app, model) == ("accounts", "user"):
        app, model = "staff", "player"
    try:
        return format_html(
            '<a href="{}">{}</a>', reverse(f"admin:{app}_{model}_change", args=[target_id]), label
        )
    except NoReverseMatch:
        return label


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Read-only: the log is written by the room, never by hand."""

    list_display = ("at", "actor", "action_shown", "target", "player_link", "changes")
    list_filter = (ActionFilter, ActorFilter, PlayerFilter, "target_type")
    date_hierarchy = "at"
    search_fields = ("actor__username", "player__username", "player__email", "target_repr", "note")
    list_select_related = ("actor", "player", "target_type")
    fields = ("at", "actor", "action_shown", "target", "player_link", "note", "before_and_after")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("action"), ordering="action")
    def action_shown(self, obj):
        return obj.action_label

    @admin.display(description=gettext_lazy("object"))
    def target(self, obj):
        return admin_link(obj.target_type, obj.target_id, obj.target_repr)

    @admin.display(description=gettext_lazy("player concerned"))
    def player_link(self, obj):
        if obj.player_id is None:
            return "-"
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:staff_player_change", args=[obj.player_id]),
            obj.player.username,
        )

    @admin.display(description=gettext_lazy("changed"))
    def changes(self, obj):
        return ", ".join(obj.changed_keys()) or (obj.note[:80] if obj.note else "-")

    @admin.display(description=gettext_lazy("before and after"))
    def before_and_after(self, obj):
        before, after = obj.before or {}, obj.after or {}
        keys = sorted(set(before) | set(after))
        if not keys:
            return "-"
        rows = [
            (
                key,
                _shown(before.get(key, "")),
                _shown(after.get(key, "")),
                "changed" if before.get(key) != after.get(key) else "",
            )
            for key in keys
        ]
        return format_html(
            '<table class="audit-diff"><tr><th>{}</th><th>{}</th><th>{}</th></tr>{}</table>',
            _("field"),
            _("before"),
            _("after"),
            format_html_join("", '<tr class="{3}"><td>{0}</td><td>{1}</td><td>{2}</td></tr>', rows),
        )


def _shown(value) -> str:
    return "-" if value is None else str(value)


# --- deposits flagged for review ----------------------------------------------------------------------------


class ReviewedFilter(admin.SimpleListFilter):
    title = gettext_lazy("reviewed")
    parameter_name = "reviewed"

    def lookups(self, request, model_admin):
        return [("no", _("To review")), ("yes", _("Reviewed"))]

    def queryset(self, request, queryset):
        if self.value() == "no":
            return queryset.filter(reviewed_at__isnull=True)
        if self.value() == "yes":
            return queryset.filter(reviewed_at__isnull=False)
        return queryset


class FlagReviewForm(forms.Form):
    note = forms.CharField(
        label=gettext_lazy("What you found"), max_length=4000, widget=forms.Textarea(attrs={"rows": 3})
    )


@admin.register(DepositFlag)
class DepositFlagAdmin(admin.ModelAdmin):
    list_display = ("deposit", "player", "amount", "reasons_shown", "created_at", "reviewed", "reviewed_by")
    list_filter = (ReviewedFilter,)
    search_fields = ("deposit__user__username", "deposit__user__email")
    list_select_related = ("deposit", "deposit__user", "reviewed_by")
    fields = (
        "deposit",
        "player",
        "amount",
        "reasons_shown",
        "created_at",
        "reviewed_by",
        "reviewed_at",
        "review_note",
    )
    readonly_fields = fields
    change_form_template = "staff/depositflag_change_form.html"

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=gettext_lazy("player"))
    def player(self, obj):
        user = obj.deposit.user
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:staff_player_change", args=[user.pk]), user.username
        )

    @admin.display(description=gettext_lazy("amount"), ordering="deposit__amount")
    def amount(self, obj):
        return format_amount(obj.deposit.amount, obj.deposit.currency)

    @admin.display(description=gettext_lazy("why"))
    def reasons_shown(self, obj):
        return "; ".join(obj.reason_labels)

    @admin.display(description=gettext_lazy("reviewed"), boolean=True, ordering="reviewed_at")
    def reviewed(self, obj):
        return obj.reviewed_at is not None

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return super().change_view(
            request, object_id, form_url, {"review_form": FlagReviewForm(), **(extra_context or {})}
        )

    def get_urls(self):
        return [
            path(
                "<int:pk>/review/",
                self.admin_site.admin_view(self.review_view),
                name="staff_depositflag_review",
            ),
            *super().get_urls(),
        ]

    def review_view(self, request, pk):
        flag = get_object_or_404(DepositFlag, pk=pk)
        if request.method != "POST" or not self.has_change_permission(request, flag):
            raise PermissionDenied
        form = FlagReviewForm(request.POST)
        if not form.is_valid():
            self.message_user(
                request, _("Say what you found before marking it reviewed."), level=messages.ERROR
            )
            return redirect("admin:staff_depositflag_change", flag.pk)
        deposit_flag_review(flag=flag, staff_user=request.user, note=form.cleaned_data["note"])
        self.message_user(request, _("Marked as reviewed."))
        return redirect("admin:staff_depositflag_changelist")
