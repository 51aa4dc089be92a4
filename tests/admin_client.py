"""Staff at work in the Django admin, through the test client: open a form, change some fields, send it.

`admin_form_submit` sends what the page holds (the main form, every inline formset and its management form)
with the changes given, as a browser would after a member of staff edited those fields."""

from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.forms import MultiWidget
from django.test import Client

STAFF_PASSWORD = "staff-Pass-123"


def two_factor_device(user):
    """The user's authenticator app, confirmed (made if they have none), as after they set it up."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name="authenticator", confirmed=True)


def totp_code(device) -> str:
    """The code the app shows now (django_otp's own totp), or the next step's when this one's code was used
    already (a code is accepted once; one step ahead is within the device's tolerance)."""
    from django_otp.oath import totp

    device.refresh_from_db()
    now = int((time.time() - device.t0) // device.step)
    ahead = max(0, device.last_t + 1 - now)
    return f"{totp(device.bin_key, device.step, device.t0, device.digits, ahead):0{device.digits}d}"


def staff_log_in(client: Client, user) -> Client:
    """`user` logged in on `client`, then their app's code entered at the code step (the admin needs both);
    an app is made for them if they have none."""
    from django.urls import reverse

    device = two_factor_device(user)
    client.force_login(user)
    response = client.post(reverse("two_factor_code"), {"code": totp_code(device)})
    assert response.status_code == 302, response.status_code
    return client


def staff_client(*, username: str = "boss", superuser: bool = True, **extra) -> tuple[Client, object]:
    """A member of staff with an authenticator app, logged in as at the admin's login page: the password,
    then the code."""
    User = get_user_model()
    if superuser:
        staff = User.objects.create_superuser(username, f"{username}@example.com", STAFF_PASSWORD, **extra)
    else:
        staff = User.objects.create_user(
            username, f"{username}@example.com", STAFF_PASSWORD, is_staff=True, **extra
        )
    device = two_factor_device(staff)
    client = Client()
    answer = client.post("/admin/login/", {"username": username, "password": STAFF_PASSWORD})
    assert answer.status_code == 302 and "/login/code/" in answer["Location"], answer.status_code
    answer = client.post(answer["Location"], {"code": totp_code(device)})
    assert answer.status_code == 302, answer.status_code
    return client, staff


def _form_values(form) -> dict:
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        key = form.add_prefix(name)
        if value is None or value is False:
            continue
        if isinstance(field.widget, MultiWidget):  # a date and a time, say: one input each
            parts = value if isinstance(value, list | tuple) else field.widget.decompress(value)
            data.update({f"{key}_{i}": str(part) for i, part in enumerate(parts) if part is not None})
            continue
        if value is True:
            data[key] = "on"
        elif isinstance(value, list | tuple):
            data[key] = [str(v) for v in value]
        else:
            data[key] = str(getattr(value, "pk", value))
    return data


def admin_form_data(response) -> dict:
    """The POST data the admin page in `response` would send unchanged."""
    context = response.context
    data = _form_values(context["adminform"].form)
    for inline in context.get("inline_admin_formsets", []):
        formset = inline.formset
        data.update(_form_values(formset.management_form))
        for form in formset.forms:
            data.update(_form_values(form))
    return data


def admin_form_submit(client: Client, url: str, changes: dict, *, drop: tuple[str, ...] = ()):
    """Open the admin form at `url`, apply `changes` (None or False unticks/empties a field), send it."""
    page = client.get(url)
    assert page.status_code == 200, page.status_code
    data = admin_form_data(page)
    for key, value in changes.items():
        if value is None or value is False:
            data.pop(key, None)
        elif value is True:
            data[key] = "on"
        else:
            data[key] = str(getattr(value, "pk", value))
    for key in drop:
        data.pop(key, None)
    return client.post(url, data)


def form_errors(response) -> dict[str, list[str]]:
    """The errors of the admin page's main form (field -> messages; "__all__" for the form's own)."""
    if response.context is None or "adminform" not in response.context:
        return {}
    errors = {
        field: [str(e) for e in messages]
        for field, messages in response.context["adminform"].form.errors.items()
    }
    for inline in response.context.get("inline_admin_formsets", []):
        for message in inline.formset.non_form_errors():
            errors.setdefault("__inline__", []).append(str(message))
        for form in inline.formset.forms:
            for field, messages in form.errors.items():
                errors.setdefault(f"inline:{field}", []).extend(str(m) for m in messages)
    return errors
