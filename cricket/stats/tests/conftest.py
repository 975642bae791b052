import pytest

from cricket.tests.factories import seed_dismissal_kinds


@pytest.fixture(autouse=True)
def _dismissal_kinds(request):
    if "db" in request.fixturenames or request.node.get_closest_marker("django_db"):
        request.getfixturevalue("db")
        seed_dismissal_kinds()
