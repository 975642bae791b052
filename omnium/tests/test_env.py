import pytest
from django.core.exceptions import ImproperlyConfigured

from omnium.env import database_from_url, env_bool, env_int, env_list, env_url


@pytest.mark.parametrize(
    "raw,expected", [("true", True), ("On", True), ("0", False), ("no", False)]
)
def test_env_bool_reads_the_usual_spellings(raw, expected):
    assert env_bool("FLAG", not expected, environ={"FLAG": raw}) is expected


def test_env_bool_uses_the_default_when_unset():
    assert env_bool("FLAG", True, environ={}) is True


def test_env_bool_rejects_a_malformed_value_naming_the_variable():
    with pytest.raises(ImproperlyConfigured, match=r"^FLAG: expected a boolean .* got 'maybe'"):
        env_bool("FLAG", False, environ={"FLAG": "maybe"})


def test_env_int_rejects_text_naming_the_variable():
    with pytest.raises(ImproperlyConfigured, match=r"^WORKERS: expected a whole number"):
        env_int("WORKERS", 2, environ={"WORKERS": "two"})


def test_env_int_enforces_its_minimum():
    with pytest.raises(ImproperlyConfigured, match=r"^WORKERS: must be at least 1"):
        env_int("WORKERS", 2, minimum=1, environ={"WORKERS": "0"})


def test_env_list_rejects_empty_items():
    with pytest.raises(ImproperlyConfigured, match=r"^HOSTS: expected a comma-separated list"):
        env_list("HOSTS", [], environ={"HOSTS": "a.example,,b.example"})


def test_env_url_rejects_a_wrong_scheme_naming_the_variable():
    with pytest.raises(ImproperlyConfigured, match=r"^DATABASE_URL: the scheme must be one of"):
        env_url("DATABASE_URL", "", schemes=("postgres",), environ={"DATABASE_URL": "mysql://h/db"})


def test_env_url_rejects_a_bad_port_naming_the_variable():
    with pytest.raises(ImproperlyConfigured, match=r"^REDIS_URL: not a valid URL"):
        env_url("REDIS_URL", "", schemes=("redis",), environ={"REDIS_URL": "redis://h:port/0"})


def test_env_url_rejects_a_url_without_host():
    with pytest.raises(ImproperlyConfigured, match=r"^REDIS_URL: the URL names no host"):
        env_url("REDIS_URL", "", schemes=("redis",), environ={"REDIS_URL": "redis:///0"})


def test_database_from_url_splits_every_part():
    db = database_from_url("DATABASE_URL", "postgres://ann:p%40ss@db.example:6543/omnium")
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "ann",
        "p@ss",
        "db.example",
        "6543",
        "omnium",
    )


def test_database_from_url_requires_a_database_name():
    with pytest.raises(ImproperlyConfigured, match=r"^DATABASE_URL: the URL names no database"):
        database_from_url("DATABASE_URL", "postgres://127.0.0.1:5432/")
