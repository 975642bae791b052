"""The floor plan as tests: the import contract between apps (``.importlinter``, the
arrows of docs/architecture.md), imports hidden inside functions, and file sizes.

These read the source tree; none needs the database.
"""

from __future__ import annotations

import ast
import configparser
import subprocess
import sys
from pathlib import Path

import pytest

from omnium.testing import REPO_ROOT

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CONTRACT = REPO_ROOT / ".importlinter"
MAX_LINES = 800


def _root_packages() -> list[str]:
    config = configparser.ConfigParser()
    config.read(CONTRACT)
    return config["importlinter"]["root_packages"].split()


def _project_modules():
    """Every module of the apps, less tests and migrations (schema history)."""
    for package in _root_packages():
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            parts = path.relative_to(REPO_ROOT).parts
            if "tests" in parts or "migrations" in parts or path.name == "testing.py":
                continue
            yield path


def _lint(config: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), str(config), "--no-cache"],
        cwd=cwd,
        env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_import_contract_holds_for_the_tree():
    result = _lint(CONTRACT, REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("omnium", "accounts"),
        ("accounts", "sports"),
        ("sports", "cricket"),
        ("sports", "catalogue"),
        ("catalogue", "sports"),
        ("catalogue", "ingest"),
        ("cricket", "ingest"),
        ("cricket", "catalogue"),
        ("discussions", "ingest"),
        ("curation", "catalogue"),
        ("curation", "sports"),
        ("accounts", "curation"),
        ("cricket", "curation"),
        ("sports", "search"),
        ("catalogue", "search"),
        ("ingest", "search"),
        ("search", "ingest"),
    ],
)
def test_the_contract_refuses_a_wrong_way_import(tmp_path, importer, imported):
    """The same contract over a tree of empty apps, one of which imports the wrong way."""
    for package in _root_packages():
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / importer / "wrong.py").write_text(f"import {imported}\n")
    config = tmp_path / ".importlinter"
    config.write_text(CONTRACT.read_text())

    result = _lint(config, tmp_path)

    assert result.returncode != 0
    assert f"{importer}.wrong -> {imported}" in result.stdout


def _local_project_imports(tree: ast.AST):
    packages = set(_root_packages())
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            if any(name.split(".")[0] in packages for name in names):
                yield node


def test_a_project_import_inside_a_function_says_why():
    """Imports inside functions hide the real graph from the contract; each that remains
    (a Celery task looked up at call time, the app registry not ready at import time)
    carries a comment on its line or the line above saying why."""
    silent = []
    for path in _project_modules():
        lines = path.read_text().splitlines()
        for node in _local_project_imports(ast.parse("\n".join(lines))):
            here = lines[node.lineno - 1]
            above = lines[node.lineno - 2] if node.lineno > 1 else ""
            if "#" not in here and not above.strip().startswith("#"):
                silent.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: {here.strip()}")
    assert not silent, "\n".join(silent)


def test_no_module_outside_tests_and_migrations_exceeds_800_lines():
    long = [
        f"{path.relative_to(REPO_ROOT)}: {n} lines"
        for path in _project_modules()
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    ]
    assert not long, "\n".join(long)
