"""omnium settings: one module, every deployment difference read from the environment.

Development: ``DEBUG=true`` (``make run`` sets it). Production: ``DEBUG`` unset or false,
``SECRET_KEY`` and ``ALLOWED_HOSTS`` set; the security settings below then switch on and
``manage.py check --deploy`` passes.
"""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from omnium.dbroles import role_urls
from omnium.env import (
    database_from_url,
    env_bool,
    env_int,
    env_list,
    env_str,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)

_DEV_SECRET_KEY = "dev-only-insecure-key-never-used-when-debug-is-off"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET_KEY if DEBUG else None)
if not DEBUG and SECRET_KEY == _DEV_SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY: the development key cannot be used with DEBUG off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# Two roles (omnium/dbroles.py): the application connects as DATABASE_URL's role, which owns
# nothing and may only read and write rows; `manage.py migrate` connects as the owner. A URL
# without a user name connects as omnium_app (DATABASE_URL) or omnium_owner (the owner).
_PG = ("postgres", "postgresql")
DATABASE_URL, DATABASE_OWNER_URL = role_urls(
    env_url("DATABASE_URL", "postgres://127.0.0.1:5432/omnium", schemes=_PG),
    env_url("DATABASE_OWNER_URL", "", schemes=_PG) if env_str("DATABASE_OWNER_URL", "") else None,
)
DATABASES = {
    "default": {
        **database_from_url("DATABASE_URL", DATABASE_URL),
        "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 0 if DEBUG else 60, minimum=0),
        "CONN_HEALTH_CHECKS": True,
        "ATOMIC_REQUESTS": False,
    }
}
# How migrations connect: the same server and database as "default", as the owner.
DATABASE_OWNER = database_from_url("DATABASE_OWNER_URL", DATABASE_OWNER_URL)
DATABASE_APP_ROLE = str(DATABASES["default"]["USER"])
if DATABASE_OWNER["USER"] == DATABASES["default"]["USER"]:
    raise ImproperlyConfigured(
        "DATABASE_OWNER_URL: names the same role as DATABASE_URL; the application's role "
        "must not own the tables it writes."
    )
if (DATABASE_OWNER["HOST"], DATABASE_OWNER["PORT"], DATABASE_OWNER["NAME"]) != (
    DATABASES["default"]["HOST"],
    DATABASES["default"]["PORT"],
    DATABASES["default"]["NAME"],
):
    raise ImproperlyConfigured(
        "DATABASE_OWNER_URL: must name the server and database of DATABASE_URL."
    )
# Read replica (omnium/replica.py): with DATABASE_REPLICA_URL set, public reads (site pages
# and the API read by visitors and viewers) go to this hot standby while it keeps up; every
# write, every staff read and everything outside a request stays on the primary. A URL
# without a user name connects as the application's role.
DATABASE_REPLICA_URL = env_str("DATABASE_REPLICA_URL", "")
if DATABASE_REPLICA_URL:
    _replica_url, _ = role_urls(env_url("DATABASE_REPLICA_URL", "", schemes=_PG), None)
    DATABASES["replica"] = {
        **database_from_url("DATABASE_REPLICA_URL", _replica_url),
        "CONN_MAX_AGE": DATABASES["default"]["CONN_MAX_AGE"],
        "CONN_HEALTH_CHECKS": True,
        "ATOMIC_REQUESTS": False,
        # A replica that does not answer costs a request a second at most, then it is
        # left alone for REPLICA_RETRY_SECONDS.
        "OPTIONS": {"connect_timeout": 1},
        # The test runner makes no database of its own for it.
        "TEST": {"MIRROR": "default"},
    }
DATABASE_ROUTERS = ["omnium.replica.ReplicaRouter"]
# Public reads go to the primary while the replica's replay lag is above this.
REPLICA_MAX_LAG_SECONDS = env_int("REPLICA_MAX_LAG_SECONDS", 5, minimum=0)
# A session that wrote reads the primary for this long (read-your-writes).
REPLICA_PIN_SECONDS = env_int("REPLICA_PIN_SECONDS", 5, minimum=0)
# Each process measures the lag at most this often, and leaves a replica that did not
# answer alone for REPLICA_RETRY_SECONDS.
REPLICA_CHECK_SECONDS = env_int("REPLICA_CHECK_SECONDS", 1, minimum=0)
REPLICA_RETRY_SECONDS = env_int("REPLICA_RETRY_SECONDS", 10, minimum=0)
# The primary's own tables: sessions, accounts, API keys and usage counters, jobs, lockouts
# and the console's log are freshness checks that must see the previous request's write.
REPLICA_PRIMARY_APPS = frozenset({"accounts", "sessions", "axes", "admin", "auth"})
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_url("REDIS_URL", "redis://127.0.0.1:6379/0", schemes=("redis", "rediss"))

INSTALLED_APPS = [
    "accounts.admin_config.ConsoleAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "mptt",
    "simple_history",
    "pgtrigger",
    "axes",
    "omnium",
    "accounts",
    "curation",
    "sports",
    "cricket",
    "catalogue",
    "discussions",
    "search",
    "ingest",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Every error under /api/ in the API's JSON shape, whatever answered it.
    "omnium.exceptions.ApiErrorMiddleware",
    # A NUL character in the path or a parameter is a 400, never a database error.
    "omnium.request_guard.NulByteMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Cache-Control and Vary on API reads: public for anonymous ones, private otherwise.
    "omnium.conditional.CacheHeadersMiddleware",
    "accounts.acting.ActingAsMiddleware",
    # After the user is known: public reads may go to the read replica (omnium/replica.py).
    "omnium.replica.ReplicaRoutingMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, as django-axes requires: it turns a lockout into the lockout response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "omnium.urls"
WSGI_APPLICATION = "omnium.wsgi.application"
ASGI_APPLICATION = "omnium.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "omnium.navigation.navigation",
                "discussions.context_processors.notifications",
            ],
        },
    },
]

AUTH_USER_MODEL = "accounts.User"
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "admin:login"
AUTHENTICATION_BACKENDS = [
    "accounts.backends.LockoutBackend",
    "accounts.backends.StatusModelBackend",
]
# Sessions live in accounts' table, keyed by a digest of the cookie value (accounts/sessions.py).
SESSION_ENGINE = "accounts.sessions"
# Lockout (django-axes): 5 failures for one username from one client lock that pair for 15
# minutes. The client is a keyed pseudonym (accounts/lockout.py); no address, no user agent.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.lockout_client_key"
AXES_HANDLER = "accounts.lockout.PseudonymousAxesHandler"
AXES_DISABLE_ACCESS_LOG = True
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
# Absolute links in e-mail (welcome, reset, notifications) start with this.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
# Discussions: at most this many notification e-mails per person per hour.
NOTIFICATION_MAIL_CAP = env_int("NOTIFICATION_MAIL_CAP", 10, minimum=1)
# Sign-in links (welcome, reset) per account per hour.
AUTH_MAIL_CAP = env_int("AUTH_MAIL_CAP", 3, minimum=1)
# A newsletter signup waits for its address to confirm it, through a link this long-lived.
SUBSCRIPTION_CONFIRM_HOURS = env_int("SUBSCRIPTION_CONFIRM_HOURS", 48, minimum=1)
# A batch phase's lease (validation, publication) lasts this long past its last renewal;
# renewed as each item begins, it is taken over this soon after its worker dies.
BATCH_LEASE_SECONDS = env_int("BATCH_LEASE_SECONDS", 30, minimum=5)
CLIENT_UPLOAD_MAX_BYTES = env_int("CLIENT_UPLOAD_MAX_BYTES", 20 * 1024 * 1024, minimum=1)
# An uploaded file larger than this streams to a temporary file instead of a web worker's
# memory; a request body that is not a file is refused above DATA_UPLOAD_MAX_MEMORY_SIZE.
FILE_UPLOAD_MAX_MEMORY_SIZE = env_int("FILE_UPLOAD_MAX_MEMORY_SIZE", 256 * 1024, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440, minimum=1)
# A multipart request's whole body (all its files), refused above this as it streams in
# (omnium/uploads.py), so no upload fills a worker's disk either.
UPLOAD_MAX_REQUEST_BYTES = env_int("UPLOAD_MAX_REQUEST_BYTES", 128 * 1024 * 1024, minimum=1)
FILE_UPLOAD_HANDLERS = [
    "omnium.uploads.RequestSizeLimitUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Files and archives read for import (omnium/archives.py): one file or archive member,
# uncompressed; the members of one archive; the uncompressed total of one archive. Each is
# checked against what the archive declares and again while it is inflated.
INGEST_MAX_FILE_BYTES = env_int("INGEST_MAX_FILE_BYTES", 32 * 1024 * 1024, minimum=1)
INGEST_ARCHIVE_MAX_MEMBERS = env_int("INGEST_ARCHIVE_MAX_MEMBERS", 100_000, minimum=1)
INGEST_ARCHIVE_MAX_TOTAL_BYTES = env_int(
    "INGEST_ARCHIVE_MAX_TOTAL_BYTES", 8 * 1024 * 1024 * 1024, minimum=1
)
# One Cricsheet match file, refused unparsed above this (parsed JSON takes many times its
# size in memory; the largest real match file is under 1 MB).
CRICSHEET_MAX_FILE_BYTES = env_int("CRICSHEET_MAX_FILE_BYTES", 4 * 1024 * 1024, minimum=1)
# A staged batch (ingest/batches): its files, each file's size (match files: parsed before
# they are validated, so no larger than one may be) and all of them together.
BATCH_MAX_FILES = env_int("BATCH_MAX_FILES", 500, minimum=1)
BATCH_MAX_FILE_BYTES = env_int("BATCH_MAX_FILE_BYTES", CRICSHEET_MAX_FILE_BYTES, minimum=1)
BATCH_MAX_TOTAL_BYTES = env_int("BATCH_MAX_TOTAL_BYTES", 100 * 1024 * 1024, minimum=1)

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "var" / "media")))
# Client uploads: outside MEDIA_ROOT and never served directly; a view checks who asks.
PRIVATE_MEDIA_ROOT = Path(env_str("PRIVATE_MEDIA_ROOT", str(BASE_DIR / "var" / "private")))
# Uploaded source files (stored objects): a private directory of their own, never under
# MEDIA_ROOT or the static files, and with no URL. Any storage backend can replace it.
STORED_OBJECTS_ROOT = Path(
    env_str("STORED_OBJECTS_ROOT", str(BASE_DIR / "var" / "stored-objects"))
).resolve()
for _public_root in (MEDIA_ROOT, STATIC_ROOT):
    if STORED_OBJECTS_ROOT.is_relative_to(Path(_public_root).resolve()):
        raise ImproperlyConfigured(
            f"STORED_OBJECTS_ROOT: {STORED_OBJECTS_ROOT} is inside {_public_root}, which may be "
            "served publicly; choose a private directory."
        )
STORED_OBJECT_RETENTION_DAYS = env_int("STORED_OBJECT_RETENTION_DAYS", 90, minimum=1)
STORED_OBJECT_MAX_BYTES = env_int("STORED_OBJECT_MAX_BYTES", 64 * 1024 * 1024, minimum=1)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "stored_objects": {
        "BACKEND": "ingest.storage.PrivateFileSystemStorage",
        "OPTIONS": {"location": str(STORED_OBJECTS_ROOT), "file_permissions_mode": 0o600},
    },
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Fails open (omnium.cache): with Redis down a read is a miss, never a 500, and connecting
# gives up quickly.
CACHE_CONNECT_TIMEOUT = 0.5
CACHES = {
    "default": {
        "BACKEND": "omnium.cache.FailOpenRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "omnium"),
        "TIMEOUT": 300,
        "OPTIONS": {
            "socket_connect_timeout": CACHE_CONNECT_TIMEOUT,
            "socket_timeout": 2 * CACHE_CONNECT_TIMEOUT,
        },
    }
}

# --- Security: on whenever DEBUG is off -------------------------------------------------
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", not DEBUG) else None
)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# Key for pseudonymising client addresses (throttling, lockout): never store a raw address.
CLIENT_HASH_KEY = env_str("CLIENT_HASH_KEY", SECRET_KEY)

# --- REST framework and OpenAPI ---------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "accounts.authentication.ApiKeyAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # Lists refuse query parameters they do not document (omnium.filters).
    "DEFAULT_FILTER_BACKENDS": ["omnium.filters.StrictFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "omnium.pagination.StableCursorPagination",
    "PAGE_SIZE": 50,
    # No ?format= override: it is a filter name (the cricket format); the response format
    # is negotiated from the Accept header alone.
    "URL_FORMAT_OVERRIDE": None,
    "DEFAULT_SCHEMA_CLASS": "omnium.schema.OmniumAutoSchema",
    "EXCEPTION_HANDLER": "omnium.exceptions.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.throttling.AnonymousAdmissionThrottle",
        "accounts.throttling.ConsumerRateThrottle",
    ],
}
# Anonymous API limits per UTC minute: one source (an IPv4 address or an IPv6 /64, counted
# under a daily pseudonym) and all anonymous traffic together. Counters are database rows
# (accounts.AnonymousMinute / AnonymousSourceMinute), so every process shares them.
API_ANON_PER_MINUTE = env_int("API_ANON_PER_MINUTE", 120, minimum=1)
API_ANON_GLOBAL_PER_MINUTE = env_int("API_ANON_GLOBAL_PER_MINUTE", 6000, minimum=1)
# make bench-api only: serve /bench/bare, a plain Django view, as the baseline it measures
# the API against. Off everywhere else.
BENCH_BARE_VIEW = env_bool("BENCH_BARE_VIEW", False)
SPECTACULAR_SETTINGS = {
    "TITLE": "omnium API",
    "DESCRIPTION": "Curated sports results and retail prices.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # One name for a choice set several fields share (the search result groups).
    "ENUM_NAME_OVERRIDES": {
        "SearchGroupEnum": "search.selectors.GROUP_KEYS",
        "JobStateEnum": "accounts.models.JobState",
        "BatchStateEnum": "ingest.batches.models.BatchState",
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # One group per app: omnium.schema tags each operation and lists the tags.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "omnium.schema.list_tags",
    ],
}

# --- Celery ----------------------------------------------------------------------------
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 1800, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1860, minimum=1)
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_RESULT_EXPIRES = 86_400
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A broker that is down costs a sender a second, not a request's worth of retries: jobs are
# their own outbox (accounts.services.jobs), and the dispatcher sends what was not sent.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 1}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1
# A sender subscribes to its task's result; with the result store down it gives up after
# one quick retry (the default is twenty, a second apart) and the send is left unsent.
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
}
# Task modules beyond each app's tasks.py (autodiscovered).
CELERY_IMPORTS = ["ingest.sports_tasks", "cricket.stats.tasks", "ingest.batches.tasks"]
# Two queues, so long work never waits in front of short work: the default queue is the
# interactive one (statistics refreshes, price alerts, mail, sweeps, anything unrouted);
# imports, collections, rebuilds, suggestion runs, batch phases and releases go to
# `<default>-bulk`. `make run` starts a worker for each; a worker started without
# `--queues` consumes both.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "omnium")
CELERY_BULK_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-bulk"
CELERY_TASK_QUEUES: dict[str, dict] = {CELERY_TASK_DEFAULT_QUEUE: {}, CELERY_BULK_QUEUE: {}}
CELERY_BULK_TASKS = (
    "ingest.import_openfootball",
    "ingest.import_games",
    "ingest.import_cricsheet",
    "ingest.collect_source",
    "ingest.batch_validate",
    "ingest.batch_publish",
    "catalogue.suggest_candidates",
    "cricket.statistics_rebuild",
    "cricket.dataset_release_build",
    "sports.stat_table_rebuild",
)
CELERY_TASK_ROUTES = {name: {"queue": CELERY_BULK_QUEUE} for name in CELERY_BULK_TASKS}
CELERY_BEAT_SCHEDULE = {
    # Retailer feeds: the task itself skips disabled sources (the kill switch).
    "collect-enabled-sources": {
        "task": "ingest.collect_enabled_sources",
        "schedule": env_int("COLLECT_EVERY_SECONDS", 6 * 3600, minimum=60),
    },
    # API usage counters: keyed minute rows older than two days go, day rows stay; anonymous
    # source rows (pseudonyms) go after an hour, anonymous global rows after two days.
    "prune-api-usage": {"task": "accounts.api_usage_prune", "schedule": 3600},
    # Stored objects past their retention: bytes deleted, metadata rows kept.
    "expire-stored-objects": {"task": "ingest.stored_objects_expire", "schedule": 3600},
    # Jobs whose worker died mid-way (no heartbeat for JOBS_STALE_SECONDS): marked failed.
    "sweep-stale-jobs": {"task": "accounts.jobs_sweep_stale", "schedule": 60},
    # Jobs whose task the broker never took (a sender killed after its commit, a broker
    # that was down): sent again.
    "dispatch-unsent-jobs": {"task": "accounts.jobs_dispatch_unsent", "schedule": 30},
    # Cricket fixtures written without their statistics refresh (an import killed between
    # its matches' commits and the refresh it asks for after each block): refreshed.
    "refresh-unrefreshed-fixtures": {"task": "cricket.statistics_sweep", "schedule": 60},
    # Collection runs whose worker was killed (still running COLLECT_RUN_STALE_SECONDS
    # after they began): marked failed.
    # The partitioned logs (omnium/partitions.py): next months' (and next year's) partitions,
    # made well before a row needs them (a row past them lands in the default partition).
    "ensure-partitions": {"task": "omnium.partitions_ensure", "schedule": 24 * 3600},
    "sweep-stale-collection-runs": {
        "task": "ingest.collection_runs_sweep_stale",
        "schedule": 600,
    },
}
# Jobs (accounts.services.jobs): a running job's worker touches it every
# JOBS_HEARTBEAT_SECONDS; one silent for JOBS_STALE_SECONDS is marked failed, worker lost.
JOBS_HEARTBEAT_SECONDS = env_int("JOBS_HEARTBEAT_SECONDS", 30, minimum=1)
JOBS_STALE_SECONDS = env_int("JOBS_STALE_SECONDS", 300, minimum=10)
# A queued job's message unsent this long is sent again by the dispatcher; one sent this
# long ago and never started (a broker that lost it) too.
JOBS_SEND_GRACE_SECONDS = env_int("JOBS_SEND_GRACE_SECONDS", 20, minimum=1)
JOBS_RESEND_SECONDS = env_int("JOBS_RESEND_SECONDS", 3600, minimum=60)
# A collection run still "running" this long after it began (its worker was killed) no
# longer counts against its source's max_concurrency.
COLLECT_RUN_STALE_SECONDS = env_int("COLLECT_RUN_STALE_SECONDS", 3600, minimum=60)
# Cricket fixtures written this long ago without a statistics refresh get one from the
# sweep (cricket.stats.refresh.statistics_sweep_unrefreshed); a live import asks sooner.
STATISTICS_SWEEP_GRACE_SECONDS = env_int("STATISTICS_SWEEP_GRACE_SECONDS", 300, minimum=0)
if CELERY_TASK_TIME_LIMIT <= CELERY_TASK_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured(
        "CELERY_TASK_TIME_LIMIT: must be greater than CELERY_TASK_SOFT_TIME_LIMIT."
    )

# Sport plugins: a sport's definition names one of these keys.
SPORT_PLUGINS = {
    "cricket": "cricket.plugin.CricketPlugin",
    "football": "sports.plugins.football.FootballPlugin",
    "ranked_field": "sports.plugins.ranked_field.RankedFieldPlugin",
}

EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# A shop's latest price older than this many days is shown as stale on the catalogue pages.
CATALOGUE_STALE_PRICE_DAYS = env_int("CATALOGUE_STALE_PRICE_DAYS", 90, minimum=1)
# A collected observation dated more than this many seconds after its run started is
# refused (observed_in_future): prices are append-only, so a wrong future time would stay
# the latest price for good. Default: one day (time zones, a shop's clock).
COLLECT_FUTURE_SKEW_SECONDS = env_int("COLLECT_FUTURE_SKEW_SECONDS", 86_400, minimum=0)
# The most one purchase may cost, in the currency's own units (about a million dollars;
# "*" for any currency not listed, and never beyond what a price column holds): a price
# above it is refused (price_above_ceiling).
PRICE_CEILINGS = {
    "*": 1_000_000,
    "CNY": 7_500_000,
    "CZK": 25_000_000,
    "DKK": 7_000_000,
    "EGP": 50_000_000,
    "HKD": 8_000_000,
    "HUF": 400_000_000,
    "IDR": 9_999_999_999,
    "INR": 90_000_000,
    "ISK": 140_000_000,
    "JPY": 160_000_000,
    "KRW": 1_500_000_000,
    "KZT": 500_000_000,
    "MXN": 20_000_000,
    "NOK": 11_000_000,
    "PHP": 60_000_000,
    "PKR": 280_000_000,
    "RSD": 110_000_000,
    "RUB": 100_000_000,
    "SEK": 11_000_000,
    "THB": 35_000_000,
    "TRY": 40_000_000,
    "TWD": 32_000_000,
    "VND": 9_999_999_999,
}
