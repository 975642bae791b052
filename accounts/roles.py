"""What each role may do: the one table both permission systems answer from.

``ROLE_TABLE`` gives each role the console actions it has per app label (Django's model
permissions: view, add, change, delete) and the named capabilities of
``accounts.access.user_can`` (submit, review, edit, administer), and says whether the role
is scoped by competition grants. From it:

- each role's Django group (a group of the role's name) holds exactly the permissions its
  apps and actions name (``role_group``; an account's groups follow its role through
  ``accounts.services.account_groups_sync``). Rules are by app and action, so a model added
  to an app later is covered once ``manage.py sync_role_groups`` runs;
- ``user_can`` answers from the capabilities (``role_may``, ``roles_with``).

An app label that is not installed (yet) matches no permission and is skipped, so the table
may name an app before it exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.db.models import Q

from accounts.models import Capability, Role

VIEW, ADD, CHANGE, DELETE = "view", "add", "change", "delete"
ACTIONS = (VIEW, ADD, CHANGE, DELETE)
READ = (VIEW,)
CURATE = (VIEW, ADD, CHANGE)

# The apps people curate in the console. ``curation`` holds the merge-candidate queue: as
# with catalogue's candidates, reviewers decide (change) and editors curate (add, change).
CURATED_APPS = ("sports", "cricket", "catalogue", "curation", "discussions", "ingest")


@dataclass(frozen=True)
class RoleRights:
    apps: Mapping[str, tuple[str, ...]]  # app label -> console actions on all its models
    capabilities: frozenset[str]  # what ``user_can`` may answer yes to
    scoped: bool = False  # capabilities hold only where a competition grant says so
    # The models the console lists for the role ("app_label.Model"); None lists every model
    # its permissions open. Listing is not permission: a page left off the list still opens
    # for whoever the permissions let in (a link from a queue, a record's own page).
    console_models: frozenset[str] | None = None


_READ_ALL = {app: READ for app in CURATED_APPS}

# What each role works in the console day to day; the client surfaces (quote requests,
# feature priorities, client to-dos), the lockout records and the logs of other apps stay
# off every list but the administrator's.
_SUBMITTER_MODELS = frozenset({"ingest.Batch", "ingest.StoredObject"})
_REVIEWER_MODELS = _SUBMITTER_MODELS | {
    "accounts.Job",
    "ingest.BatchParticipantOnboardingTask",
    "curation.MergeCandidate",
    "catalogue.Brand",
    "catalogue.ProductLine",
    "catalogue.Product",
    "catalogue.Listing",
    "sports.Competition",
    "sports.Fixture",
    "sports.Participant",
    "cricket.Innings",
    "cricket.Delivery",
    "cricket.DeliveryCorrectionHistory",
    "discussions.Thread",
    "discussions.Comment",
}
_EDITOR_MODELS = _REVIEWER_MODELS | {
    "catalogue.VariationAlias",
    "catalogue.Override",
    "catalogue.ProductMerge",
    "catalogue.PriceObservation",
    "catalogue.Retailer",
    "catalogue.Location",
    "catalogue.AirportHours",
    "catalogue.FxRate",
    "catalogue.Award",
    "catalogue.Category",
    "catalogue.CategoryMapping",
    "catalogue.Reverification",
    "catalogue.VerificationRun",
    "catalogue.Source",
    "catalogue.CollectionRun",
    "catalogue.RejectedObservation",
    "sports.Sport",
    "sports.Venue",
    "sports.FixtureAmendment",
    "sports.PointsAdjustment",
    "sports.SportDefinitionVersion",
    "sports.UnmatchedRow",
    "sports.ExternalIdMap",
    "sports.TimelineItem",
    "cricket.DismissalKind",
    "cricket.FixtureOfficial",
    "cricket.CricketBattingLine",
    "cricket.CricketBowlingLine",
    "cricket.CricketFieldingLine",
    "discussions.Article",
}

ROLE_TABLE: dict[str, RoleRights] = {
    Role.VIEWER: RoleRights(apps=_READ_ALL, capabilities=frozenset(), console_models=frozenset()),
    Role.SUBMITTER: RoleRights(
        apps={**_READ_ALL, "ingest": (VIEW, ADD)},
        capabilities=frozenset({Capability.SUBMIT}),
        scoped=True,
        console_models=_SUBMITTER_MODELS,
    ),
    Role.REVIEWER: RoleRights(
        apps={
            **_READ_ALL,
            "ingest": (VIEW, ADD, CHANGE),
            "catalogue": (VIEW, CHANGE),
            "curation": (VIEW, CHANGE),
        },
        capabilities=frozenset({Capability.SUBMIT, Capability.REVIEW}),
        scoped=True,
        console_models=_REVIEWER_MODELS,
    ),
    Role.EDITOR: RoleRights(
        apps={app: CURATE for app in CURATED_APPS},
        capabilities=frozenset({Capability.SUBMIT, Capability.REVIEW, Capability.EDIT}),
        console_models=_EDITOR_MODELS,
    ),
    Role.ADMIN: RoleRights(
        apps={**{app: CURATE for app in CURATED_APPS}, "accounts": CURATE},
        capabilities=frozenset(Capability.values),
    ),
}


def role_may(role: str, capability: str) -> bool:
    """Whether ``role`` has ``capability`` at all (before any grant scoping)."""
    return capability in ROLE_TABLE[role].capabilities


def roles_with(capability: str) -> list[str]:
    """The roles that have ``capability``: also the grant roles that carry it."""
    return [role for role, rights in ROLE_TABLE.items() if capability in rights.capabilities]


def role_app_actions(role: str) -> dict[str, tuple[str, ...]]:
    """``role``'s console actions per app, limited to the apps installed now."""
    # Checked against the registry, not just left to match nothing: a label the table names
    # ahead of its app (or after one is removed) must never grant anything by accident.
    return {app: acts for app, acts in ROLE_TABLE[role].apps.items() if app in apps.app_configs}


def role_permissions(role: str):
    match = Q(pk__in=[])
    for app, actions in role_app_actions(role).items():
        match |= Q(content_type__app_label=app, codename__regex=rf"^({'|'.join(actions)})_")
    return Permission.objects.filter(match)


def role_group(role: str, *, refresh: bool = False) -> Group:
    """The group of ``role``, created with its permissions on first use."""
    group, created = Group.objects.get_or_create(name=role)
    if created or refresh:
        group.permissions.set(role_permissions(role))
    return group
