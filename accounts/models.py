from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player or a member of staff. House bots are users too, flagged, so seats and ledgers treat them alike."""

    is_bot = models.BooleanField(_("house bot"), default=False)
    identity_verified_at = models.DateTimeField(_("identity verified at"), null=True, blank=True)
    identity_verified_by = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("identity verified by"),
    )
    preferred_language = models.CharField(
        _("language"), max_length=8, blank=True, choices=[("en", "English"), ("it", "Italiano")]
    )
    email_verified_at = models.DateTimeField(_("email verified at"), null=True, blank=True)
    date_of_birth = models.DateField(_("date of birth"), null=True, blank=True)

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")

    @property
    def identity_verified(self) -> bool:
        return self.identity_verified_at is not None

    @property
    def email_verified(self) -> bool:
        return self.email_verified_at is not None

    def __str__(self) -> str:
        return self.username


# Responsible gaming (SPEC 2). The rules live in cashier.services (deposit_limit_set, player_self_exclude, ...).


class DepositLimit(models.Model):
    """A player's own cap on deposits over a rolling day (24 h), week (7 days) or month (30 days).

    `amount` applies now (null: no limit). A raise (or a removal) waits: it is stored in `pending_amount`
    and takes effect at `pending_from`; a lowering applies at once and cancels any pending raise."""

    class Period(models.TextChoices):
        DAY = "day", _("Day")
        WEEK = "week", _("Week")
        MONTH = "month", _("Month")

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="deposit_limits", verbose_name=_("player")
    )
    period = models.CharField(_("period"), max_length=8, choices=Period.choices)
    amount = models.BigIntegerField(_("limit"), null=True, blank=True)
    pending_amount = models.BigIntegerField(_("new limit"), null=True, blank=True)
    pending_from = models.DateTimeField(_("new limit from"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("deposit limit")
        verbose_name_plural = _("deposit limits")
        ordering = ("user", "period")
        constraints = [
            models.UniqueConstraint(fields=("user", "period"), name="deposit_limit_one_per_period"),
            models.CheckConstraint(
                condition=models.Q(amount__gte=0) | models.Q(amount__isnull=True),
                name="deposit_limit_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.period}"


class SelfExclusion(models.Model):
    """A player's self-exclusion: for 30, 60 or 90 days (never lifted early) or for good (`ends_at` null,
    which can be lifted only 6 months after it started). While active: no deposits, no sitting down."""

    class Period(models.TextChoices):
        DAYS_30 = "30d", _("30 days")
        DAYS_60 = "60d", _("60 days")
        DAYS_90 = "90d", _("90 days")
        PERMANENT = "permanent", _("For good")

    user = models.ForeignKey(
        User, on_delete=models.PROTECT, related_name="self_exclusions", verbose_name=_("player")
    )
    period = models.CharField(_("period"), max_length=12, choices=Period.choices)
    starts_at = models.DateTimeField(_("from"))
    ends_at = models.DateTimeField(_("until"), null=True, blank=True)
    lifted_at = models.DateTimeField(_("lifted at"), null=True, blank=True)
    lifted_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("lifted by")
    )
    created_by = models.ForeignKey(
        User, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("recorded by")
    )

    class Meta:
        verbose_name = _("self-exclusion")
        verbose_name_plural = _("self-exclusions")
        ordering = ("-starts_at",)
        constraints = [
            models.CheckConstraint(
                condition=models.Q(period="permanent", ends_at__isnull=True)
                | (~models.Q(period="permanent") & models.Q(ends_at__isnull=False)),
                name="self_exclusion_end_matches_period",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.get_period_display()}"

    def is_active_at(self, when) -> bool:
        return (
            self.lifted_at is None
            and self.starts_at <= when
            and (self.ends_at is None or when < self.ends_at)
        )
