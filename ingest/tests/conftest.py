import pytest

from omnium.testing import SHARED_DATA

CATALOGUE_DATA = SHARED_DATA / "catalogue"


@pytest.fixture
def catalogue_data():
    if not CATALOGUE_DATA.is_dir():
        pytest.skip(f"local-only catalogue data not present at {CATALOGUE_DATA}")
    return CATALOGUE_DATA


@pytest.fixture
def batch_grants(submitter, reviewer):
    """The submitter and reviewer personas may act on every competition (a grant on "*"
    each, given by an operator). Batch tests that are not about permissions use it;
    test_batch_permissions walks the grant boundaries with personas that lack it."""
    from accounts.access import competition_grant_set

    for user in (submitter, reviewer):
        competition_grant_set(user=user, competition=None, role=user.role, actor=None)
