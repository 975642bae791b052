"""Test settings: the real settings with a test-only Redis database and quick static files.

Tests talk to the real PostgreSQL and Redis; nothing here swaps in SQLite or a fake cache.
"""

import atexit
import os
import shutil
import tempfile
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
# The suite's Redis database is its own (15, or TEST_REDIS_DB) on whatever server REDIS_URL
# names: the Makefile exports database 0 to every target, and a `make run` beside `make test`
# keeps its broker queue and cache there.
os.environ["REDIS_URL"] = urlunsplit(
    urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))._replace(
        path=f"/{os.environ.get('TEST_REDIS_DB', '15')}"
    )
)
os.environ.setdefault("CACHE_KEY_PREFIX", "omnium-test")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("CELERY_TASK_DEFAULT_QUEUE", "omnium-test")
# Uploaded bytes of a test run go to a directory of its own, never the developer's var/.
# Set in the environment, so a worker process the tests start reads the same directory.
if "STORED_OBJECTS_ROOT" not in os.environ:
    os.environ["STORED_OBJECTS_ROOT"] = tempfile.mkdtemp(prefix="omnium-test-objects-")
    atexit.register(shutil.rmtree, os.environ["STORED_OBJECTS_ROOT"], ignore_errors=True)

from omnium.settings import *  # noqa: F403

# The suite's own ``flush`` (transactional tests): first, so its command is the one found.
INSTALLED_APPS = ["omnium.tests.dbflush", *INSTALLED_APPS]  # noqa: F405

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# Serve static files from the finders; no collectstatic before tests.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
