"""Settings load in a fresh interpreter, as a deployment would load them."""

import os
import subprocess
import sys

from omnium.testing import REPO_ROOT

PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "prod-like-key-5f1e0c9a7b3d2e8f6a4c1b0d9e7f5a3c2b1d0e9f8a7b6c5d4e3f",
    "ALLOWED_HOSTS": "omnium.example.org",
}


def _run(args, **env):
    # Only what an interpreter needs: the test process's own settings must not leak in.
    clean = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "omnium.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _load_settings(**env):
    return _run(["-c", "import django; django.setup()"], **env)


def test_malformed_boolean_fails_naming_the_variable():
    result = _load_settings(DEBUG="perhaps")
    assert result.returncode != 0
    assert "DEBUG: expected a boolean" in result.stderr


def test_malformed_database_url_fails_naming_the_variable():
    result = _load_settings(DEBUG="true", DATABASE_URL="postgres://127.0.0.1:notaport/omnium")
    assert result.returncode != 0
    assert "DATABASE_URL: not a valid URL" in result.stderr


def test_malformed_redis_url_fails_naming_the_variable():
    result = _load_settings(DEBUG="true", REDIS_URL="http://127.0.0.1:6379/0")
    assert result.returncode != 0
    assert "REDIS_URL: the scheme must be one of redis, rediss" in result.stderr


def test_secret_key_is_required_when_debug_is_off():
    result = _load_settings(DEBUG="false", ALLOWED_HOSTS="omnium.example.org")
    assert result.returncode != 0
    assert "SECRET_KEY: this variable is required" in result.stderr


def test_production_settings_pass_the_deploy_check_with_nothing_reported():
    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_manage_py_runs_in_debug_only_when_no_secret_key_is_set():
    dev = _run(
        ["manage.py", "shell", "-c", "from django.conf import settings; print(settings.DEBUG)"]
    )
    assert dev.stdout.strip().splitlines()[-1] == "True", dev.stderr
    deployed = _run(
        ["manage.py", "shell", "-c", "from django.conf import settings; print(settings.DEBUG)"],
        SECRET_KEY=PRODUCTION_ENV["SECRET_KEY"],
        ALLOWED_HOSTS="omnium.example.org",
    )
    assert deployed.stdout.strip().splitlines()[-1] == "False", deployed.stderr


def test_the_suite_uses_its_own_redis_database_whatever_redis_url_says():
    # The Makefile exports database 0 to every target, `make test` included.
    result = _run(
        [
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.CACHES['default']['LOCATION'], settings.CELERY_BROKER_URL)",
        ],
        DJANGO_SETTINGS_MODULE="omnium.settings_test",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["redis://127.0.0.1:6379/15"] * 2


def test_clearing_the_suites_cache_leaves_other_runs_keys():
    import redis
    from django.conf import settings
    from django.core.cache import cache

    from omnium.testing import cache_clear_own

    other = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    other.set("omnium-someone-else:1:kept", "x", ex=60)
    cache.set("ours", "x", 60)
    try:
        assert cache_clear_own() >= 1
        assert cache.get("ours") is None
        assert other.get("omnium-someone-else:1:kept") == b"x"
    finally:
        other.delete("omnium-someone-else:1:kept")
