from django.apps import AppConfig


class DbFlushConfig(AppConfig):
    """Test settings only: the suite's ``flush`` (omnium/tests/dbflush/management/commands)."""

    name = "omnium.tests.dbflush"
    label = "omnium_dbflush"
