import pytest

from omnium.testing import SHARED_DATA

CATALOGUE_DATA = SHARED_DATA / "catalogue"


@pytest.fixture
def catalogue_data():
    if not CATALOGUE_DATA.is_dir():
        pytest.skip(f"local-only catalogue data not present at {CATALOGUE_DATA}")
    return CATALOGUE_DATA
