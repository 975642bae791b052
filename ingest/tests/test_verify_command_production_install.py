"""``verify_cricket_statistics`` starts in a production install: one without the packages
``pyproject.toml`` lists as development-only. Rather than build a second virtualenv, the
command runs in a child interpreter whose import system refuses those packages."""

import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions

from omnium.testing import REPO_ROOT

# Installed first in the child, before Django or any project module, so the first attempt
# to import a blocked package anywhere (even deep in a dependency) fails as it would where
# that package is not installed.
BLOCKER = """
import sys

BLOCKED = frozenset({blocked!r})


class _DevOnly:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is a development-only package", name=name)
        return None


sys.meta_path.insert(0, _DevOnly())
sys.argv = ["manage.py", "verify_cricket_statistics", "--help"]
import runpy

runpy.run_path("manage.py", run_name="__main__")
"""


def _normalized(name: str) -> str:
    # PEP 503: "Factory_Boy" and "factory-boy" name one distribution.
    return re.sub(r"[-_.]+", "-", name).lower()


def _dev_only_modules() -> set[str]:
    """Top-level import names of every distribution in the ``dev`` extra, as installed here
    (a distribution's name is not its import name: factory-boy installs ``factory``)."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    dev = {
        _normalized(re.match(r"[A-Za-z0-9._-]+", requirement).group())
        for requirement in project["optional-dependencies"]["dev"]
    }
    return {
        module
        for module, distributions in packages_distributions().items()
        if any(_normalized(d) in dev for d in distributions)
    }


def test_the_blocker_covers_every_development_only_package():
    modules = _dev_only_modules()
    expected = ("pytest", "pytest_django", "factory", "ruff", "openapi_spec_validator", "docx")
    for name in (*expected, "schemathesis", "httpx"):
        assert name in modules, name


def test_verify_cricket_statistics_help_runs_without_the_development_packages():
    blocked = sorted(_dev_only_modules())
    done = subprocess.run(
        [sys.executable, "-c", BLOCKER.format(blocked=blocked)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        # The production settings, not the test settings module this suite runs under.
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "omnium.settings", "DEBUG": "true"},
    )
    assert done.returncode == 0, done.stderr
    assert "usage: manage.py verify_cricket_statistics" in done.stdout
    assert "--show SHOW" in done.stdout
