"""Settings come from the environment; a production configuration passes Django's deployment checks."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG", "SECURE_SSL", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    environment.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_a_production_configuration_passes_check_deploy():
    result = manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="0",
                    SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="poker.example.com")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", DEBUG="0", ALLOWED_HOSTS="poker.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_the_development_defaults_fail_check_deploy():
    result = manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="1")
    assert result.returncode != 0
