from __future__ import annotations

from django.db import models
from django.db.models import Q

from omnium.models import TimestampedModel, UUIDModel
from sports.models.enums import ParticipantType
from sports.models.taxonomy import Competition, Sport
from sports.querysets import ParticipantQuerySet

COUNTRY_SHAPE = r"^[A-Z]{3}$"


class Participant(UUIDModel, TimestampedModel):
    """One row per party: a person, team, pair, crew, horse or country.

    Which sports see a record is decided by ``ParticipantSport`` rows, not by ``sport``
    (where it was created): a record with no rows is in the Commons and seen by every sport,
    which is what lets one India appear in every sport's tables. Duplicates are merged, not
    deleted: the loser points at the survivor through ``merged_into`` and its external ids
    and aliases keep resolving.
    """

    sport = models.ForeignKey(
        Sport, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    code = models.CharField(max_length=64)
    type = models.CharField(max_length=32, choices=ParticipantType.choices)
    name = models.CharField(max_length=256)
    country = models.CharField(max_length=3, null=True, blank=True)
    born_on = models.DateField(null=True, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    # App-computed fingerprint (sports.identity.participant_fingerprint) for duplicates.
    identity_hash = models.CharField(max_length=64, null=True, blank=True, unique=True)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )

    objects = ParticipantQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["sport", "code"], name="uq_participant_sport_code"),
            models.UniqueConstraint(
                fields=["code"],
                condition=Q(sport__isnull=True),
                name="uq_participant_code_commons",
            ),
            models.CheckConstraint(
                condition=Q(country__isnull=True) | Q(country__regex=COUNTRY_SHAPE),
                name="participant_country_shape",
            ),
            models.CheckConstraint(
                condition=~Q(merged_into=models.F("id")), name="participant_not_merged_into_self"
            ),
        ]
        indexes = [models.Index(fields=["country"], name="participant_country_idx")]

    def __str__(self) -> str:
        return self.name


class ParticipantSport(models.Model):
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="sports")
    sport = models.ForeignKey(Sport, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["participant", "sport"], name="uq_participant_sport"),
        ]

    def __str__(self) -> str:
        return f"{self.participant_id} in {self.sport_id}"


class ParticipantAlias(models.Model):
    """A name observed for a participant, with where and when it was seen. Names are
    never join keys; these rows are how a name maps back to an identity."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(max_length=256)
    source_code = models.CharField(max_length=64)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["participant", "source_code", "name"], name="uq_participant_alias"
            ),
            models.CheckConstraint(
                condition=Q(last_seen__gte=models.F("first_seen")), name="alias_seen_ordered"
            ),
        ]
        indexes = [models.Index(fields=["name"], name="participant_alias_name_idx")]

    def __str__(self) -> str:
        return self.name


#: ``Membership.role`` of a national side in its country (team = the Commons country,
#: member = the side): how a cricket "India" belongs to the India the Games enter.
NATIONAL_SIDE = "national side"


class Membership(UUIDModel):
    """A member of a team over a period. A re-signing is a new row, so history stays.

    ``season`` names the period when a source gives one (a cricket season, "2023/24"):
    one row per team, member, role and season, its dates widened to the first and last
    match seen in it. A national side is a member of its country (``NATIONAL_SIDE``)."""

    team = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="members")
    member = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="memberships")
    role = models.CharField(max_length=64, blank=True)
    season = models.CharField(max_length=32, blank=True, default="")
    valid_from = models.DateField(null=True, blank=True)
    valid_to = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["team", "member", "role", "season"],
                condition=~Q(season=""),
                name="uq_membership_season",
            ),
            models.UniqueConstraint(
                fields=["team", "member"],
                condition=Q(role=NATIONAL_SIDE),
                name="uq_membership_national_side",
            ),
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True)
                | Q(valid_from__isnull=True)
                | Q(valid_to__gte=models.F("valid_from")),
                name="membership_period_ordered",
            ),
            models.CheckConstraint(
                condition=~Q(team=models.F("member")), name="membership_not_self"
            ),
        ]


class CompetitionEntry(UUIDModel, TimestampedModel):
    """Who is entered in a competition, and for which country: the flag is on the entry
    because athletes change flags between Games."""

    competition = models.ForeignKey(Competition, on_delete=models.PROTECT, related_name="entries")
    participant = models.ForeignKey(Participant, on_delete=models.PROTECT, related_name="entries")
    country = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    entry = models.JSONField(default=dict, blank=True)
    pinned = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "participant"], name="uq_competition_entry"
            ),
        ]
