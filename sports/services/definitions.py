"""Shipped sport definitions: the versions of each sport's declared shape that live in the
repository, and the one write that brings the database up to them.

Each app may hold a ``definitions/`` folder of JSON files (``sports/definitions/`` for the
spine's own sports, ``cricket/definitions/`` for cricket). A file declares one body (the
plugin, the JSON Schemas of ``meta`` and ``format``, the status codes) shared by the sports
it lists::

    {
      "plugin": "ranked_field",
      "sports": [{"code": "swimming", "name": "Swimming", "parent": "aquatics"}],
      "parents": {"aquatics": "Aquatics"},
      "meta_schema": {...}, "format_schema": {...}, "status_codes": {"DQ": "DSQ"},
      "notes": "..."
    }

``sport_definition_ensure`` publishes a new version of a sport's definition when the shipped
body differs from its current version, and nothing otherwise; every import calls it before
it writes fixtures, and so does ``manage.py sport_definitions_ensure``.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from sports.models import Archetype, CompetitorKind, ResultStatus, Sport, SportDefinitionVersion
from sports.services.common import Actor
from sports.services.fixtures import definition_for, sport_definition_publish

FOLDER = "definitions"
FILE_KEYS = {"plugin", "sports", "parents", "meta_schema", "format_schema", "status_codes", "notes"}
SPORT_KEYS = {"code", "name", "parent", "archetype", "competitor_kind"}


@dataclass(frozen=True)
class ShippedSport:
    """One sport's row and definition body as the repository ships them."""

    code: str
    name: str
    parent: tuple[str, str] | None  # (code, name)
    archetype: str | None
    competitor_kind: str | None
    plugin: str
    meta_schema: dict[str, Any]
    format_schema: dict[str, Any]
    status_codes: dict[str, str]
    notes: str
    path: str

    def differs_from(self, version: SportDefinitionVersion | None) -> bool:
        """Whether publishing is owed: no version yet, or a frozen part differs (the notes
        of a version may change in place, so they do not count)."""
        if version is None:
            return True
        return (
            version.plugin,
            version.meta_schema,
            version.format_schema,
            version.status_codes,
        ) != (self.plugin, self.meta_schema, self.format_schema, self.status_codes)


def _refuse(path: Path, problem: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"Sport definition {path}: {problem}")


def _read_file(path: Path) -> list[ShippedSport]:
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _refuse(path, f"not readable JSON ({error})") from error
    if not isinstance(body, dict):
        raise _refuse(path, "the file holds one JSON object")
    unknown = set(body) - FILE_KEYS
    if unknown:
        raise _refuse(path, f"unknown keys {', '.join(sorted(unknown))}")
    plugin = body.get("plugin")
    if plugin not in settings.SPORT_PLUGINS:
        raise _refuse(
            path,
            f"plugin {plugin!r} is not in SPORT_PLUGINS "
            f"({', '.join(sorted(settings.SPORT_PLUGINS))})",
        )
    schemas = {}
    for key in ("meta_schema", "format_schema"):
        schema = body.get(key, {"type": "object"})
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as error:
            raise _refuse(path, f"{key} is not a JSON Schema ({error.message})") from error
        schemas[key] = schema
    codes = body.get("status_codes", {})
    if not isinstance(codes, dict):
        raise _refuse(path, "status_codes maps each code to a result status")
    wrong = sorted(code for code, status in codes.items() if status not in ResultStatus.values)
    if wrong:
        raise _refuse(
            path,
            f"status_codes {', '.join(wrong)} map to no result status "
            f"({', '.join(ResultStatus.values)})",
        )
    parents = body.get("parents", {})
    sports = body.get("sports")
    if not isinstance(sports, list) or not sports:
        raise _refuse(path, "sports lists at least one sport")
    shipped = []
    for index, row in enumerate(sports):
        where = f"sports[{index}]"
        if not isinstance(row, dict) or not row.get("code") or not row.get("name"):
            raise _refuse(path, f"{where} needs a code and a name")
        unknown = set(row) - SPORT_KEYS
        if unknown:
            raise _refuse(path, f"{where} has unknown keys {', '.join(sorted(unknown))}")
        parent = row.get("parent")
        if parent is not None and parent not in parents:
            raise _refuse(path, f"{where}.parent {parent!r} is not named in parents")
        for key, choices in (("archetype", Archetype), ("competitor_kind", CompetitorKind)):
            if row.get(key) is not None and row[key] not in choices.values:
                raise _refuse(path, f"{where}.{key} {row[key]!r} is not one of {choices.values}")
        shipped.append(
            ShippedSport(
                code=row["code"],
                name=row["name"],
                parent=(parent, parents[parent]) if parent else None,
                archetype=row.get("archetype"),
                competitor_kind=row.get("competitor_kind"),
                plugin=plugin,
                meta_schema=schemas["meta_schema"],
                format_schema=schemas["format_schema"],
                status_codes=codes,
                notes=body.get("notes", ""),
                path=str(path),
            )
        )
    return shipped


@cache
def shipped_definitions() -> dict[str, ShippedSport]:
    """Every shipped sport by code, from each installed app's ``definitions/*.json``. A
    sport shipped twice is a configuration error naming both files."""
    found: dict[str, ShippedSport] = {}
    for config in apps.get_app_configs():
        folder = Path(config.path) / FOLDER
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.json")):
            for sport in _read_file(path):
                if sport.code in found:
                    raise _refuse(
                        path, f"sport {sport.code!r} is shipped in {found[sport.code].path} too"
                    )
                found[sport.code] = sport
    return found


def _sport_row(shipped: ShippedSport) -> Sport:
    """The sport's row, made from the shipped row (and its parent) when missing; an existing
    row is used as it is."""
    parent = None
    if shipped.parent is not None:
        parent, _ = Sport.objects.get_or_create(
            code=shipped.parent[0], defaults={"name": shipped.parent[1]}
        )
    sport, _ = Sport.objects.get_or_create(
        code=shipped.code,
        defaults={
            "name": shipped.name,
            "parent": parent,
            "archetype": shipped.archetype,
            "competitor_kind": shipped.competitor_kind,
        },
    )
    return sport


@transaction.atomic
def sport_definition_ensure(
    *, actor: Actor, sports: Collection[str] | None = None
) -> list[SportDefinitionVersion]:
    """Bring each shipped sport (or those of ``sports`` that are shipped; a code with no
    shipped definition is left alone) to its shipped definition: a missing sport row is
    made, and a new version is published when the shipped body differs from the sport's
    current version. Existing fixtures keep the version they pinned. Returns the versions
    published; a second run publishes none and writes nothing.

    The comparison is made without a lock (the usual case, nothing owed, takes no lock);
    when a version is owed the sport's row is locked and the comparison made again, so two
    imports starting together publish it once."""
    shipped = shipped_definitions()
    codes = sorted(shipped if sports is None else set(sports) & set(shipped))
    published = []
    for code in codes:
        wanted = shipped[code]
        sport = _sport_row(wanted)
        if not wanted.differs_from(definition_for(sport)):
            continue
        Sport.objects.select_for_update().filter(pk=sport.pk).values_list("pk").get()
        if not wanted.differs_from(definition_for(sport)):
            continue
        published.append(
            sport_definition_publish(
                sport=sport,
                plugin=wanted.plugin,
                actor=actor,
                meta_schema=wanted.meta_schema,
                format_schema=wanted.format_schema,
                status_codes=wanted.status_codes,
                notes=wanted.notes,
            )
        )
    return published
