"""Settings come from the environment; `make run`'s defaults are safe to put on the internet (issue 11): DEBUG
off, a secret key generated once under var/, static files by WhiteNoise, no debug pages, and Django's
deployment checks report nothing but the HTTPS settings an operator switches on with SECURE_SSL=1."""

import os
import re
import secrets
import socketserver
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]
OPERATOR_SETTINGS = {
    "SECRET_KEY",
    "DEBUG",
    "SECURE_SSL",
    "ALLOWED_HOSTS",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "SECRET_KEY_FILE",
    "DJANGO_SETTINGS_MODULE",
}
HTTPS_WARNINGS = {"security.W004", "security.W008", "security.W012", "security.W016"}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    """manage.py with the environment of `make run` (no operator settings) plus `env`."""
    environment = {k: v for k, v in os.environ.items() if k not in OPERATOR_SETTINGS}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def setting(name: str, **env: str) -> str:
    result = manage("shell", "-c", f"from django.conf import settings; print(settings.{name})", **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_a_production_configuration_passes_check_deploy(tmp_path):
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="poker.example.com",
        SECURE_SSL="1",
        SECRET_KEY_FILE=str(tmp_path / "key"),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_make_runs_defaults_fail_check_deploy_on_the_https_settings_only(tmp_path):
    result = manage("check", "--deploy", SECRET_KEY_FILE=str(tmp_path / "key"))
    reported = set(re.findall(r"\(([a-z_]+\.[EW]\d+)\)", result.stdout + result.stderr))
    assert reported == HTTPS_WARNINGS, result.stdout + result.stderr
    silent = manage(
        "check", "--deploy", "--fail-level", "WARNING", SECURE_SSL="1", SECRET_KEY_FILE=str(tmp_path / "key")
    )
    assert silent.returncode == 0 and "no issues" in silent.stdout, silent.stdout + silent.stderr


def test_debug_is_off_unless_asked_for(tmp_path):
    key = str(tmp_path / "key")
    assert setting("DEBUG", SECRET_KEY_FILE=key) == "False"
    assert setting("DEBUG", SECRET_KEY_FILE=key, DEBUG="0") == "False"
    assert setting("DEBUG", SECRET_KEY_FILE=key, DEBUG="1") == "True"


def test_without_secret_key_one_is_generated_once_and_kept_under_var(tmp_path):
    key_file = tmp_path / "var" / "secret_key"
    first = setting("SECRET_KEY", SECRET_KEY_FILE=str(key_file))
    assert len(first) >= 50 and "dev-only" not in first
    assert key_file.read_text().strip() == first
    assert key_file.stat().st_mode & 0o777 == 0o600, "only the room's user may read it"
    assert setting("SECRET_KEY", SECRET_KEY_FILE=str(key_file)) == first, "the same key at the next start"
    assert (
        setting("SECRET_KEY", SECRET_KEY_FILE=str(key_file), SECRET_KEY="given-" + "x" * 60)
        == "given-" + "x" * 60
    )


def test_the_supervisor_prepares_the_key_before_its_children_start(tmp_path, monkeypatch):
    from pokerroom import supervisor

    key_file = tmp_path / "secret_key"
    monkeypatch.setenv("SECRET_KEY_FILE", str(key_file))
    supervisor.secret_prepare({})
    kept = key_file.read_text().strip()
    supervisor.secret_prepare({})
    assert key_file.read_text().strip() == kept and len(kept) >= 50
    supervisor.secret_prepare({"SECRET_KEY": "given"})
    assert key_file.read_text().strip() == kept


def test_testserver_is_not_an_allowed_host_outside_tests(tmp_path):
    assert "testserver" not in setting("ALLOWED_HOSTS", SECRET_KEY_FILE=str(tmp_path / "key"))


@pytest.mark.live
def test_daphne_under_make_runs_defaults_serves_static_files_and_no_debug_page(room_env, tmp_path):
    """daphne as `make run` starts it, with none of the operator's settings: /static/ is served (WhiteNoise),
    an unknown page is a plain 404 (no URL patterns), and a 500 shows no settings."""
    from tests.live import Room

    env = {k: v for k, v in room_env.items() if k not in OPERATOR_SETTINGS}
    env["SECRET_KEY_FILE"] = str(tmp_path / "key")
    room = Room(env)
    try:
        room.start_daphne()
        with urllib.request.urlopen(f"{room.http_url}/static/js/table.js", timeout=10) as response:
            assert response.status == 200 and b"function" in response.read()
        with urllib.request.urlopen(f"{room.http_url}/static/admin/css/base.css", timeout=10) as response:
            assert response.status == 200, "the admin's own static files too"
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{room.http_url}/no-such-page/", timeout=10)
        body = missing.value.read().decode()
        assert missing.value.code == 404
        assert "URLconf" not in body and "urlpatterns" not in body.lower() and "DEBUG" not in body
    finally:
        room.stop()


class _SmtpServer(socketserver.ThreadingTCPServer):
    """Just enough of an SMTP server (RFC 5321 without extensions) to take the room's mail and keep it."""

    allow_reuse_address = True
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _SmtpSession)
        self.received: list[dict] = []


class _SmtpSession(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        def say(line: str) -> None:
            self.wfile.write(line.encode() + b"\r\n")

        say("220 test SMTP")
        message: dict = {"to": []}
        while line := self.rfile.readline().decode().rstrip("\r\n"):
            verb = line[:4].upper()
            if verb in ("EHLO", "HELO"):
                say("250 test")
            elif verb == "MAIL":
                message = {"from": line.split(":", 1)[1].strip(" <>"), "to": []}
                say("250 OK")
            elif verb == "RCPT":
                message["to"].append(line.split(":", 1)[1].strip(" <>"))
                say("250 OK")
            elif verb == "DATA":
                say("354 go on")
                lines = []
                while (data := self.rfile.readline().decode().rstrip("\r\n")) != ".":
                    lines.append(data[1:] if data.startswith("..") else data)
                message["data"] = "\n".join(lines)
                self.server.received.append(message)
                say("250 kept")
            elif verb == "QUIT":
                say("221 bye")
                return
            else:
                say("250 OK")


def test_mail_goes_to_the_console_unless_an_smtp_server_is_named_then_through_it(tmp_path):
    key = str(tmp_path / "key")
    assert setting("EMAIL_BACKEND", SECRET_KEY_FILE=key) == "django.core.mail.backends.console.EmailBackend"
    server = _SmtpServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sent = manage(
            "shell",
            "-c",
            "from django.core.mail import send_mail; "
            "send_mail('Reset your password', 'Your link', None, ['luca@example.com'])",
            SECRET_KEY_FILE=key,
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=str(server.server_address[1]),
            EMAIL_USE_TLS="0",
            DEFAULT_FROM_EMAIL="Sala poker <noreply@poker.example.com>",
        )
    finally:
        server.shutdown()
        server.server_close()
    assert sent.returncode == 0, sent.stderr
    assert "Reset your password" not in sent.stdout, "not written to the console once a server is named"
    (message,) = server.received
    assert message["to"] == ["luca@example.com"] and message["from"] == "noreply@poker.example.com"
    assert "Subject: Reset your password" in message["data"] and "Your link" in message["data"]
