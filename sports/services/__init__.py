"""Every write on the sports spine. Admin, API, Celery and management commands call these."""

from sports.services.fixtures import (
    CompetitorSpec,
    fixture_amend,
    fixture_command,
    fixture_create,
    fixture_merge,
    fixture_pin,
    fixture_rebuild,
    fixture_set_competitors,
    fixture_unpin,
    sport_definition_publish,
)
from sports.services.participants import (
    OutsideRow,
    alias_observe,
    dangling_external_ids,
    external_id_link,
    participant_create,
    participant_merge,
    participants_resolve,
)
from sports.services.timeline import timeline_append, timeline_void
from sports.services.tree import (
    competition_archive,
    competition_create,
    competition_merge,
    competition_move,
    trees_check,
)

__all__ = [
    "CompetitorSpec",
    "OutsideRow",
    "alias_observe",
    "competition_archive",
    "competition_create",
    "competition_merge",
    "competition_move",
    "dangling_external_ids",
    "external_id_link",
    "fixture_amend",
    "fixture_command",
    "fixture_create",
    "fixture_merge",
    "fixture_pin",
    "fixture_rebuild",
    "fixture_set_competitors",
    "fixture_unpin",
    "participant_create",
    "participant_merge",
    "participants_resolve",
    "sport_definition_publish",
    "timeline_append",
    "timeline_void",
    "trees_check",
]
