"""The queue's levels are registered by the apps that own their rows."""

import pytest

from curation.models import MergeLevel
from curation.registry import level_resolver, registered_levels, registered_proposers


def test_every_level_of_the_queue_has_an_owner_once_the_apps_are_ready():
    assert set(registered_levels()) == set(MergeLevel.values)


def test_each_owning_app_registers_one_proposer():
    assert [name for name, _ in registered_proposers()] == ["sports", "catalogue"]


def test_a_level_nobody_registered_is_refused_by_name():
    with pytest.raises(LookupError, match="'tournament'"):
        level_resolver("tournament")


def test_the_levels_point_into_their_owners_tables():
    assert level_resolver(MergeLevel.PARTICIPANT).model._meta.label == "sports.Participant"
    assert level_resolver(MergeLevel.PRODUCT).model._meta.label == "catalogue.Product"
