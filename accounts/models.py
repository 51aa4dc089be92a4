from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player or a member of staff. House bots are users too, flagged, so seats and ledgers treat them alike."""

    is_bot = models.BooleanField(_("house bot"), default=False)
    identity_verified_at = models.DateTimeField(_("identity verified at"), null=True, blank=True)
    preferred_language = models.CharField(
        _("language"), max_length=8, blank=True, choices=[("en", "English"), ("it", "Italiano")]
    )

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")

    @property
    def identity_verified(self) -> bool:
        return self.identity_verified_at is not None

    def __str__(self) -> str:
        return self.username
