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
from sports.services.results import (
    EntrantResult,
    fixture_import,
    fixture_results_record,
    result_lines_rebuild,
    submission_record,
)
from sports.services.tables import (
    effective_config,
    medal_table_compute,
    standings_compute,
    stat_table,
    stat_table_rebuild,
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
    "EntrantResult",
    "OutsideRow",
    "alias_observe",
    "competition_archive",
    "competition_create",
    "competition_merge",
    "competition_move",
    "dangling_external_ids",
    "effective_config",
    "external_id_link",
    "fixture_amend",
    "fixture_command",
    "fixture_create",
    "fixture_import",
    "fixture_merge",
    "fixture_pin",
    "fixture_rebuild",
    "fixture_results_record",
    "fixture_set_competitors",
    "fixture_unpin",
    "medal_table_compute",
    "participant_create",
    "participant_merge",
    "participants_resolve",
    "result_lines_rebuild",
    "sport_definition_publish",
    "standings_compute",
    "stat_table",
    "stat_table_rebuild",
    "submission_record",
    "timeline_append",
    "timeline_void",
    "trees_check",
]
