"""Staff verify a player's identity from the admin, which is what lets the player withdraw."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.admin_client import staff_log_in

pytestmark = pytest.mark.django_db


def test_staff_mark_identities_verified_with_an_admin_action():
    User = get_user_model()
    staff = User.objects.create_superuser("boss", "boss@example.com", "staff-Pass-123")
    anna = User.objects.create_user("anna", "anna@example.com", "a-Long-pass-123")
    bot = User.objects.create_user("Bot X", is_bot=True)
    client = Client()
    staff_log_in(client, staff)
    response = client.post(
        "/admin/accounts/user/",
        {"action": "identity_verify", "_selected_action": [anna.pk, bot.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "1 identity verified." in response.content.decode()
    anna.refresh_from_db()
    bot.refresh_from_db()
    assert anna.identity_verified_at is not None
    assert bot.identity_verified_at is None, "house bots have no identity to verify"
