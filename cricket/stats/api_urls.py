"""Cricket statistics API routes (mounted under /api/v1/ by omnium/urls.py)."""

from django.urls import path

from cricket.stats import apis
from cricket.stats.query_apis import (
    BattingStatsApi,
    BowlingStatsApi,
    FieldingStatsApi,
    PlayerInningsApi,
    TeamStatsApi,
)
from cricket.stats.records_apis import PartnershipListApi, PointsTableApi, RecordListApi

urlpatterns = [
    path(
        "cricket/leaderboards/batting/",
        apis.BattingLeaderboardApi.as_view(),
        name="cricket-leaderboard-batting",
    ),
    path(
        "cricket/leaderboards/bowling/",
        apis.BowlingLeaderboardApi.as_view(),
        name="cricket-leaderboard-bowling",
    ),
    path(
        "cricket/players/<uuid:pk>/career/",
        apis.PlayerCareerApi.as_view(),
        name="cricket-player-career",
    ),
    path(
        "cricket/players/<uuid:pk>/trace/",
        apis.FigureTraceApi.as_view(),
        name="cricket-player-trace",
    ),
    path("cricket/releases/", apis.DatasetReleaseListApi.as_view(), name="cricket-releases"),
    path(
        "cricket/release-jobs/<uuid:pk>/",
        apis.DatasetReleaseJobApi.as_view(),
        name="cricket-release-job",
    ),
    path(
        "cricket/releases/<uuid:pk>/files/<str:name>",
        apis.DatasetReleaseFileApi.as_view(),
        name="cricket-release-file",
    ),
    path(
        "cricket/stats/partnerships/",
        PartnershipListApi.as_view(),
        name="cricket-stats-partnerships",
    ),
    path(
        "cricket/records/<slug:kind>/",
        RecordListApi.as_view(),
        name="cricket-records",
    ),
    path(
        "cricket/competitions/<uuid:pk>/points-table/",
        PointsTableApi.as_view(),
        name="cricket-points-table",
    ),
]

# The query views (cricket.stats.query_apis).
urlpatterns += [
    path(
        "cricket/stats/batting/",
        BattingStatsApi.as_view(),
        name="cricket-stats-batting",
    ),
    path(
        "cricket/stats/bowling/",
        BowlingStatsApi.as_view(),
        name="cricket-stats-bowling",
    ),
    path(
        "cricket/stats/fielding/",
        FieldingStatsApi.as_view(),
        name="cricket-stats-fielding",
    ),
    path("cricket/stats/team/", TeamStatsApi.as_view(), name="cricket-stats-team"),
    path(
        "cricket/players/<uuid:pk>/innings/",
        PlayerInningsApi.as_view(),
        name="cricket-player-innings",
    ),
]
