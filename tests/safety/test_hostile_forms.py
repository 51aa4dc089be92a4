"""Bad input never a 500 (issue 11): every URL of the room's URLconf, enumerated, is sent hostile values (other
scripts' digits, huge and negative numbers, empty and very long strings, NUL, JSON of the wrong types) as a
form, as a query string and as a JSON body, by a visitor, a player with money, and staff; none answers 500 and
nothing changes in the ledger (nor deposits, withdrawals, limits, exclusions, users)."""

from __future__ import annotations

import json
import uuid

import pytest
from django import forms as django_forms
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import DepositLimit, SelfExclusion
from cashier import services as cashier
from cashier.models import Account, Deposit, Entry, Withdrawal
from cashier.providers import SandboxProvider
from tests.admin_client import staff_log_in
from tests.factories import eur_fund
from tests.factories import eur_table_create as table_create

pytestmark = pytest.mark.django_db

ARABIC_CARD = "٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢"  # 4242 4242 4242 4242 in Arabic-Indic digits
HOSTILE = [
    ARABIC_CARD,
    "١٠",
    "²",
    "۱۲۳",
    "-5",
    "-1",
    "0",
    "",
    " ",
    "99999999999999999999999999",
    "1e309",
    "NaN",
    "x" * 10_000,
    "\x00",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "\u202e",
    "4242424242424242" * 3,
    "4242 4242 4242 4242",  # a real card number, in every field at once: the amount is absurd
]
ADMIN_HOSTILE = [ARABIC_CARD, "", "x" * 10_000, "\x00"]
JSON_BODIES = [
    [],
    [1, 2],
    17,
    "text",
    None,
    {"amount": [1]},
    {"amount": {"a": 1}},
    {"amount": 10**40},
    {"type": "act", "amount": -1},
    {"card_number": ARABIC_CARD, "amount": "10"},
]


def _field_names() -> set[str]:
    """Every field name of the room's own forms (and of Django's login and password forms)."""
    import accounts.forms  # noqa: F401 - the forms register as subclasses on import
    import cashier.forms  # noqa: F401
    import tables.history.forms  # noqa: F401

    names = {
        "username",
        "password",
        "password1",
        "password2",
        "old_password",
        "new_password1",
        "new_password2",
        "email",
        "language",
        "next",
        "page",
        "q",
        "o",
        "p",
        "post",
        "action",
        "_selected_action",
        "reason",
    }
    stack = [django_forms.BaseForm]
    while stack:
        form = stack.pop()
        stack.extend(form.__subclasses__())
        if form.__module__.split(".")[0] in {"accounts", "cashier", "tables", "tournaments", "staff"}:
            names.update(getattr(form, "base_fields", {}))
    return names


def _urls(resolver=None, prefix: str = "", ids=(0, 10**20)) -> list[str]:
    """Concrete paths for every pattern of the URLconf: each integer (or other) argument replaced by an id
    that exists nowhere and by a huge one, strings by odd text."""
    resolver = resolver or get_resolver()
    out: list[str] = []
    for entry in resolver.url_patterns:
        route = str(entry.pattern)
        if route.startswith("^") or "(?P" in route:  # the admin's regex patterns: fixed parts only
            route = route.lstrip("^").rstrip("$").replace("\\", "")
            if "(" in route:
                continue
        if isinstance(entry, URLResolver):
            out.extend(_urls(entry, prefix + route, (0,) if route == "admin/" else ids))
            continue
        assert isinstance(entry, URLPattern)
        converters = getattr(entry.pattern, "converters", {})
        if not converters:
            out.append("/" + prefix + route)
            continue
        for value in ids:
            path = route
            for name, converter in converters.items():
                kind = type(converter).__name__
                replacement = str(value) if kind == "IntConverter" else ("٤" if value == 0 else "x" * 300)
                path = path.replace(
                    f"<{'int' if kind == 'IntConverter' else kind.replace('Converter', '').lower()}:{name}>",
                    replacement,
                )
                path = path.replace(f"<{name}>", replacement)
            out.append("/" + prefix + path)
    return out


def _ledger() -> tuple:
    user = get_user_model()
    return (
        Entry.objects.count(),
        sorted(Account.objects.values_list("id", "balance")),
        Deposit.objects.count(),
        Withdrawal.objects.count(),
        DepositLimit.objects.count(),
        SelfExclusion.objects.count(),
        user.objects.count(),
        sorted(user.objects.values_list("id", "is_active")),
    )


def _broken(url: str, status: int) -> bool:
    """A server error (the health check's 503 says a service is down, which without a worker it is)."""
    return status >= 500 and not (url == "/healthz" and status == 503)


def _hit(
    client: Client, url: str, values: list[str], names: set[str], failures: list[str], bodies=JSON_BODIES
) -> None:
    for value in values:
        form = dict.fromkeys(names, value)
        for method, kwargs in (
            ("post", {"data": form}),
            (
                "get",
                {
                    "data": {
                        name: value
                        for name in (
                            "page",
                            "per_page",
                            "table",
                            "game",
                            "since",
                            "until",
                            "format",
                            "q",
                            "o",
                            "p",
                            "next",
                            "limit",
                        )
                    }
                },
            ),
        ):
            response = getattr(client, method)(url, **kwargs)
            if _broken(url, response.status_code):
                failures.append(f"{method.upper()} {url} {value[:20]!r}: {response.status_code}")
    for body in bodies:
        response = client.post(url, data=json.dumps(body), content_type="application/json")
        if _broken(url, response.status_code):
            failures.append(f"POST json {url} {body!r}: {response.status_code}")


@pytest.fixture
def people(db):
    user = get_user_model()
    player = user.objects.create_user(
        username=f"fuzz-{uuid.uuid4().hex[:6]}",
        password="pw-Secret-123",
        email=f"fuzz-{uuid.uuid4().hex[:6]}@example.com",
    )
    cashier.play_chips_welcome(user=player)
    _verified(player)
    eur_fund(player, 50_000)
    staff = user.objects.create_superuser(
        username=f"staff-{uuid.uuid4().hex[:6]}",
        password="pw-Secret-123",
        email=f"staff-{uuid.uuid4().hex[:6]}@example.com",
    )
    return player, staff


def _verified(user) -> None:
    for field in ("email_verified_at", "identity_verified_at"):
        if hasattr(user, field):
            from django.utils import timezone

            setattr(user, field, timezone.now())
    user.save()


def test_every_form_and_json_endpoint_refuses_hostile_input_without_a_500_and_changes_nothing(people):
    player, staff = people
    table_create()
    names = _field_names()
    urls = _urls()
    room = [u for u in urls if not u.startswith("/admin/")]
    admin = [u for u in urls if u.startswith("/admin/") and "/delete/" not in u and "logout" not in u]
    assert "/cashier/deposit/" in room and "/accounts/signup/" in room and "/admin/login/" in admin
    before = _ledger()
    failures: list[str] = []

    visitor = Client(raise_request_exception=False)
    for url in room + ["/admin/login/"]:
        _hit(visitor, url, HOSTILE[:8], names, failures)
    logged_in = Client(raise_request_exception=False)
    logged_in.force_login(player)
    for url in room:
        if "logout" not in url:
            _hit(logged_in, url, HOSTILE, names, failures)
    staff_client = Client(raise_request_exception=False)
    staff_log_in(staff_client, staff)
    for url in admin:
        _hit(staff_client, url, ADMIN_HOSTILE, names, failures, bodies=JSON_BODIES[:3])

    if failures:
        from tests.live import ARTIFACTS

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "hostile_forms_failures.txt").write_text("\n".join(failures))
    assert not failures, "\n".join(failures[:40])
    assert _ledger() == before, "hostile input moved money or changed an account"


def test_a_card_number_in_arabic_indic_digits_is_a_form_error(client, people):
    player, _staff = people
    client.force_login(player)
    before = _ledger()
    for card in (ARABIC_CARD, "4242 4242 4242 424²", "４２４２４２４２４２４２４２４２"):
        response = client.post(
            "/cashier/deposit/", {"amount": "10.00", "card_number": card, "idempotency_key": uuid.uuid4().hex}
        )
        assert response.status_code == 400
        assert "digits 0-9" in response.content.decode()
    assert _ledger() == before


def test_a_deposit_above_the_maximum_is_refused_with_the_maximum_named(client, people, settings):
    player, _staff = people
    settings.DEPOSIT_MAX = 100_000
    client.force_login(player)
    before = _ledger()
    response = client.post(
        "/cashier/deposit/",
        {"amount": "1000.01", "card_number": SandboxProvider.CARD_OK, "idempotency_key": uuid.uuid4().hex},
    )
    assert response.status_code == 400
    assert "One deposit is at most €\xa01,000.00" in response.content.decode()
    assert _ledger() == before
    response = client.post(
        "/cashier/deposit/",
        {"amount": "1000.00", "card_number": SandboxProvider.CARD_OK, "idempotency_key": uuid.uuid4().hex},
        follow=True,
    )
    assert "deposited to your wallet" in response.content.decode()


def test_the_default_maximum_refuses_ten_billion_euros(client, people):
    player, _staff = people
    client.force_login(player)
    before = _ledger()
    response = client.post(
        "/cashier/deposit/",
        {
            "amount": "10000000000",
            "card_number": SandboxProvider.CARD_OK,
            "idempotency_key": uuid.uuid4().hex,
        },
    )
    assert response.status_code == 400 and "One deposit is at most" in response.content.decode()
    assert _ledger() == before


# Each field in turn: the other fields hold what a person would type, so the form's deeper checks run (a valid
# amount with a bad card, a valid card with a bad amount, a good password with a bad date of birth...).

GOOD_PASSWORD = "pw-Secret-123"


def _forms(player, table_id: int) -> list[tuple[str, str, str, dict[str, str]]]:
    """(who, method, url, valid values) for every form of the room a person fills in."""
    key = uuid.uuid4().hex
    return [
        (
            "visitor",
            "post",
            "/accounts/signup/",
            {
                "username": "newcomer",
                "email": "newcomer@example.com",
                "password1": "a-Long-pass-123",
                "password2": "a-Long-pass-123",
                "date_of_birth": "1990-04-01",
            },
        ),
        ("visitor", "post", "/accounts/login/", {"username": player.username, "password": GOOD_PASSWORD}),
        ("visitor", "post", "/admin/login/", {"username": player.username, "password": GOOD_PASSWORD}),
        ("visitor", "post", "/accounts/password/reset/", {"email": player.email}),
        (
            "player",
            "post",
            "/accounts/password/",
            {
                "old_password": GOOD_PASSWORD,
                "new_password1": "n3w-Secret-456",
                "new_password2": "n3w-Secret-456",
            },
        ),
        ("player", "post", "/accounts/language/", {"language": "it", "next": "/"}),
        (
            "player",
            "post",
            "/cashier/deposit/",
            {"amount": "10.00", "card_number": SandboxProvider.CARD_OK, "idempotency_key": key},
        ),
        (
            "player",
            "post",
            "/cashier/withdraw/",
            {"amount": "10.00", "card_number": SandboxProvider.CARD_OK, "idempotency_key": key},
        ),
        ("player", "post", "/cashier/refill/", {"next": "/"}),
        ("player", "post", "/accounts/limits/", {"period": "day", "amount": "100.00"}),
        ("player", "post", "/accounts/self-exclusion/", {"period": "30d", "confirm": "on"}),
        (
            "player",
            "get",
            "/hands/",
            {"table": str(table_id), "game": "holdem", "since": "2024-01-01", "page": "1", "per_page": "25"},
        ),
        (
            "player",
            "get",
            "/hands/download/",
            {"table": str(table_id), "format": "phh", "since": "2024-01-01"},
        ),
    ]


def _refused(response) -> bool:
    """The form was refused: an error status, or the page again with the form's errors on it."""
    if response.status_code in (400, 403, 404, 405, 429):
        return True
    forms_shown = [
        value
        for context in (response.context or [])
        for value in (context.flatten().values() if hasattr(context, "flatten") else [])
        if isinstance(value, django_forms.BaseForm)
    ]
    return response.status_code == 200 and any(form.errors for form in forms_shown)


def _room_state() -> tuple:
    """The ledger and accounts (`_ledger`), with the tables and their seats."""
    from tables.models import Seat, Table, WaitingEntry

    return (
        _ledger(),
        sorted(get_user_model().objects.values_list("id", "password", "email", "preferred_language")),
        sorted(Table.objects.values_list("id", "seq", "is_open")),
        sorted(Seat.objects.values_list("id", "user_id", "status")),
        WaitingEntry.objects.count(),
    )


def test_each_field_of_every_form_in_turn_refuses_hostile_input_while_the_others_are_valid(people, settings):
    """Every form, each field in turn given each hostile value, the others what a person would type: never a
    500, and a refused form changes nothing (ledger, accounts, tables). A submission the form accepts (a
    harmless `next`, a 'confirm' box any text ticks, a username of digits) does its ordinary work, undone
    before the next, and the ledger stays balanced."""
    from django.db import transaction

    from cashier.selectors import ledger_check

    player, _staff = people
    # a cheap hasher first, so that some six hundred requests that check or hash a password take seconds
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *settings.PASSWORD_HASHERS]
    player.set_password(GOOD_PASSWORD)
    player.save()
    table = table_create()
    visitor, logged_in = Client(raise_request_exception=False), Client(raise_request_exception=False)
    logged_in.force_login(player)
    clients = {"visitor": visitor, "player": logged_in}
    failures: list[str] = []
    tried = refused = 0
    for who, method, url, valid in _forms(player, table.id):
        with transaction.atomic():  # the valid values themselves pass: the hostile one is what is refused
            response = getattr(clients[who], method)(url, data=valid)
            if response.status_code >= 400 or (_refused(response) and url != "/admin/login/"):
                failures.append(f"{url} with valid values: {response.status_code}")  # (a player is not staff)
            transaction.set_rollback(True)
        logged_in.force_login(player)
        for field in valid:
            for value in HOSTILE:
                data = {**valid, field: value}
                with transaction.atomic():
                    before = _room_state()
                    response = getattr(clients[who], method)(url, data=data)
                    tried += 1
                    status = response.status_code
                    if status >= 500:
                        failures.append(f"{method.upper()} {url} {field}={value[:20]!r}: {status}")
                    elif _refused(response) and (refused := refused + 1) and _room_state() != before:
                        failures.append(f"{url} {field}={value[:20]!r}: refused ({status}) yet changed")
                    elif not ledger_check().ok:
                        failures.append(f"{url} {field}={value[:20]!r}: accepted, ledger unbalanced")
                    transaction.set_rollback(True)
                if who == "player" and url in ("/accounts/language/", "/accounts/password/"):
                    logged_in.force_login(player)  # a changed password logs the session out; undone above
    assert tried > 500 and refused > tried // 2, (tried, refused)  # the checks ran, on refusals mostly
    assert not failures, "\n".join(failures[:40])
