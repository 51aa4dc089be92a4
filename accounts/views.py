from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import LanguageForm, SignUpForm
from accounts.services import email_signup_attempt_send, email_verification_send, email_verify, user_signed_up
from accounts.throttle import throttle_hit

HOUR = 3600


def address_throttled(request, *, scope: str, limit: int) -> bool:
    """Counts this request against its client address (the one django-axes uses, pokerroom.addresses);
    True when the address made more than `limit` of them in the last hour."""
    from axes.helpers import get_client_ip_address

    address = get_client_ip_address(request) or ""
    return throttle_hit(scope=scope, subject=address, limit=limit, window=HOUR)


def throttled(request):
    """429 and a page in the visitor's language: too many requests from their address; nothing was done."""
    return render(request, "registration/throttled.html", {"minutes": HOUR // 60}, status=429)


@require_http_methods(["GET", "POST"])
def signup(request):
    """A new account, not logged in until its owner comes back with the password; the answer is the same
    page, after the same password hashing, whether or not the email already has an account (its owner is told
    by email instead)."""
    from django.conf import settings

    if request.user.is_authenticated:
        return redirect("lobby")
    if request.method == "POST" and address_throttled(
        request, scope="signup", limit=settings.SIGNUP_PER_ADDRESS_PER_HOUR
    ):
        return throttled(request)  # before the form: no password hashed, no account, no email
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        if get_user_model().objects.filter(email__iexact=email).exists():
            # the same work as a new account's (hashing the password is most of it), so that the time the
            # answer takes does not say the address is registered; the hash is thrown away
            make_password(form.cleaned_data["password1"])
            email_signup_attempt_send(email=email, request=request)
        else:
            with transaction.atomic():
                user = form.save()
                user_signed_up(user=user)
            email_verification_send(user=user, request=request)
        return render(request, "registration/signup_sent.html", {"email": email})
    return render(request, "registration/signup.html", {"form": form})


def email_verify_view(request, token: str):
    user = email_verify(token=token)
    if user is None:
        return render(request, "accounts/email_verify_failed.html", status=400)
    messages.success(request, _("Your email is confirmed: you can deposit euros."))
    return redirect("profile" if request.user.is_authenticated else "login")


@login_required
@require_POST
def email_verify_resend(request):
    if not request.user.email_verified:
        email_verification_send(user=request.user, request=request)
    messages.info(request, _("We sent the link to %(email)s.") % {"email": request.user.email})
    return redirect("profile")


class RoomPasswordResetView(auth_views.PasswordResetView):
    """Django's "forgot your password" form, at most PASSWORD_RESET_PER_ADDRESS_PER_HOUR requests from one
    address an hour: more get the 429 page and send no email."""

    def post(self, request, *args, **kwargs):
        from django.conf import settings

        if address_throttled(
            request, scope="password-reset", limit=settings.PASSWORD_RESET_PER_ADDRESS_PER_HOUR
        ):
            return throttled(request)
        return super().post(request, *args, **kwargs)


class RoomLoginView(auth_views.LoginView):
    """Django's login, then the language the player chose in their profile (if any) for what follows."""

    def form_valid(self, form):
        response = super().form_valid(form)
        language = form.get_user().preferred_language
        if language:
            language_cookie_set(response, language)
        return response


def language_cookie_set(response, language: str) -> None:
    from django.conf import settings

    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@login_required
@require_POST
def language_choose(request):
    """The language of the player's pages, kept in their profile: it applies at every login, anywhere."""
    form = LanguageForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the languages offered."))
        return redirect("profile")
    language = form.cleaned_data["language"]
    request.user.preferred_language = language
    request.user.save(update_fields=["preferred_language"])
    response = redirect("profile")
    language_cookie_set(response, language)
    return response


def locked_out(request, original_response=None, credentials=None):
    """django-axes' answer to a login while the account or the address is locked out: 429, and a page that
    says what happened and when to try again (the login form's own page, the admin's too)."""
    from django.conf import settings

    minutes = max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))
    return render(request, "registration/locked_out.html", {"cooloff_minutes": minutes}, status=429)


@login_required
def profile(request):
    from django.utils.translation import get_language

    language = request.user.preferred_language or get_language()
    return render(
        request, "accounts/profile.html", {"language_form": LanguageForm(initial={"language": language})}
    )
