"""What staff keep beside the room's own records: the audit log of their actions, their notes on players, the
deposits flagged for review, and the player as the back office sees one (a proxy of the user)."""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

# What each action code means, for people (a code not listed here is shown as it is).
ACTION_LABELS = {
    "admin.add": _("Added in the admin"),
    "admin.change": _("Changed in the admin"),
    "admin.delete": _("Deleted in the admin"),
    "admin.action": _("Admin action"),
    "identity.verify": _("Identity verified"),
    "player.deactivate": _("Player deactivated"),
    "player.reactivate": _("Player reactivated"),
    "staff_note.add": _("Staff note added"),
    "self_exclusion.record": _("Self-exclusion recorded"),
    "self_exclusion.lift": _("Self-exclusion lifted"),
    "withdrawal.first_approval": _("Withdrawal: first of two approvals"),
    "withdrawal.approve": _("Withdrawal approved"),
    "withdrawal.reject": _("Withdrawal rejected"),
    "deposit_flag.review": _("Flagged deposit reviewed"),
    "hand.cards_view": _("Hidden cards of a hand viewed"),
    "rake_schedule.copy": _("Rake schedule copied"),
    "blind_structure.copy": _("Blind structure copied"),
    "payout_table.copy": _("Payout table copied"),
    "tournament_entry.remove": _("Tournament entry removed, refunded"),
    "tournament.cancel_running": _("Running tournament cancelled, pool shared by chips"),
    "table.pause": _("Table paused"),
    "table.resume": _("Table resumed"),
    "table.message": _("Message sent to a table"),
    "table.remove_player": _("Player removed from a seat"),
    "table.close": _("Table closed, its players cashed out"),
    "hand.cancel": _("Hand cancelled, bets returned"),
    "adjustment.propose": _("Balance adjustment proposed"),
    "adjustment.approve": _("Balance adjustment booked"),
    "adjustment.reject": _("Balance adjustment rejected"),
}


class AuditEntry(models.Model):
    """One staff action: who, what, when, to what, and the values it changed before and after. Written by the
    staff app only, never changed or deleted (PostgreSQL refuses it: migration 0002)."""

    at = models.DateTimeField(_("when"), default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        related_name="+",
        verbose_name=_("staff member"),
    )
    action = models.CharField(_("action"), max_length=64, db_index=True)
    target_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, null=True, blank=True, verbose_name=_("kind of object")
    )
    target_id = models.CharField(_("object id"), max_length=64, blank=True, default="")
    target_repr = models.CharField(_("object"), max_length=200, blank=True, default="")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("player concerned"),
    )
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)
    note = models.TextField(_("note"), blank=True, default="")

    class Meta:
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log")
        ordering = ("-at", "-id")
        indexes = [models.Index(fields=("player", "-at"), name="audit_player_recent")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target_repr}"

    @property
    def action_label(self) -> str:
        return str(ACTION_LABELS.get(self.action, self.action))

    def changed_keys(self) -> list[str]:
        before, after = self.before or {}, self.after or {}
        return sorted(key for key in set(before) | set(after) if before.get(key) != after.get(key))


class StaffNote(models.Model):
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="staff_notes",
        verbose_name=_("player"),
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("written by")
    )
    text = models.TextField(_("note"), max_length=4000)
    created_at = models.DateTimeField(_("written at"), default=timezone.now)

    class Meta:
        verbose_name = _("staff note")
        verbose_name_plural = _("staff notes")
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.player}: {self.text[:40]}"


class DepositFlag(models.Model):
    """A deposit staff should look at (thresholds: the DEPOSIT_REVIEW_* settings), until someone reviews it."""

    class Reason(models.TextChoices):
        LARGE = "large", _("Large deposit")
        DAY_TOTAL = "day_total", _("Large total deposited in 24 hours")
        MANY = "many", _("Many deposits in 24 hours")
        UNUSUAL = "unusual", _("Much larger than this player's usual deposits")

    deposit = models.OneToOneField(
        "cashier.Deposit", on_delete=models.PROTECT, related_name="review_flag", verbose_name=_("deposit")
    )
    reasons = models.JSONField(_("reasons"), default=list)
    created_at = models.DateTimeField(_("flagged at"), default=timezone.now, db_index=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("reviewed by"),
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    review_note = models.TextField(_("review note"), blank=True, default="")

    class Meta:
        verbose_name = _("flagged deposit")
        verbose_name_plural = _("flagged deposits")
        ordering = ("reviewed_at", "-created_at")

    def __str__(self) -> str:
        return f"#{self.deposit_id}"

    @property
    def reason_labels(self) -> list[str]:
        labels = dict(self.Reason.choices)
        return [str(labels.get(code, code)) for code in self.reasons]


class Login(models.Model):
    """A player's login as staff see it on the player page: when, from which address (the client's, behind
    PROXY_COUNT proxies, as the login throttle reads it: pokerroom.addresses.client_ip) and with which browser. Written by the staff app's
    user_logged_in receiver (staff.services.login_record)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("player")
    )
    at = models.DateTimeField(_("when"), default=timezone.now)
    address = models.GenericIPAddressField(_("address"))
    user_agent = models.CharField(_("browser"), max_length=200, blank=True, default="")

    class Meta:
        verbose_name = _("login")
        verbose_name_plural = _("logins")
        ordering = ("-at", "-id")
        indexes = [models.Index(fields=("user", "-at"), name="login_user_recent")]

    def __str__(self) -> str:
        return f"{self.user} {self.at:%Y-%m-%d %H:%M} {self.address}"


class Player(User):
    """A user as the back office sees one: the player page (staff.admin.PlayerAdmin)."""

    class Meta:
        proxy = True
        verbose_name = _("player")
        verbose_name_plural = _("players")
