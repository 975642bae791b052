# omnium — every command a developer or CI needs. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON_BIN ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
MANAGE = $(EMBEDDED_ENV) $(PY) manage.py
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000
# With neither URL given, a machine without PostgreSQL or Redis gets the embedded servers
# (omnium/embedded.py); their URLs are in var/embedded.env, which every command below reads.
ifeq ($(origin DATABASE_URL)$(origin REDIS_URL),undefinedundefined)
export OMNIUM_EMBEDDED := auto
endif
export DATABASE_URL ?= postgres://127.0.0.1:5432/omnium
export REDIS_URL ?= redis://127.0.0.1:6379/0
EMBEDDED_ENV = $(if $(wildcard var/embedded.env),env $$(cat var/embedded.env))

.PHONY: verify-data
.PHONY: fuzz
.PHONY: stop-embedded
.PHONY: help install browser services run web worker beat test lint format check typecheck bench bench-prices bench-suggest bench-api bench-pages bench-corrections bench-stats verify-stats bench-batches bench-search bench-stats-query bench-stats-as-of bench-identity bench-scale

help: ## List the commands
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  make %-14s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON_BIN) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP) browser ## Create .venv and install omnium with its development tools

# The browser tests drive Debian's Chromium through Playwright; no browser is downloaded.
CHROMIUM ?= /usr/bin/chromium
browser: ## Install Debian's chromium and chromium-driver when missing (as root)
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "chromium is missing: run 'sudo apt-get install chromium chromium-driver'"; exit 1; fi; \
	  echo "installing chromium and chromium-driver from Debian's packages"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null \
	    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null; }; \
	fi

services: install ## Check PostgreSQL and Redis (start them if installed here) and create the database
	$(PY) -m omnium.services --create-database

# Welcome and reset links name the site that is actually served: the host and port `run`
# starts the server on, unless SITE_URL is given.
run: export SITE_URL := $(or $(SITE_URL),http://$(HOST):$(PORT))
run: services ## Install, migrate, load the sample data, queue merge candidates, start web + two workers (interactive, bulk) + beat
	DEBUG=$${DEBUG:-true} $(MANAGE) migrate --noinput
	@# Every shipped sport definition is current before any fixture is written.
	DEBUG=$${DEBUG:-true} $(MANAGE) sport_definitions_ensure
	DEBUG=$${DEBUG:-true} $(MANAGE) load_samples
	@# Cricket matches imported before sides had countries and squads had seasons get them.
	DEBUG=$${DEBUG:-true} $(MANAGE) cricket_identity_backfill
	@# The queue has its candidates before anyone opens the console (the collection's own
	@# suggest task waits for a worker that is not running yet).
	DEBUG=$${DEBUG:-true} $(MANAGE) suggest
	DEBUG=$${DEBUG:-true} $(MANAGE) sync_role_groups
	@echo
	@DEBUG=$${DEBUG:-true} $(MANAGE) ensure_admin
	@echo "site   http://$(HOST):$(PORT)/   (links in e-mails: $$SITE_URL)"
	@echo "admin  http://$(HOST):$(PORT)/admin/"
	@echo "api    http://$(HOST):$(PORT)/api/v1/   docs http://$(HOST):$(PORT)/api/docs/"
	@echo "health http://$(HOST):$(PORT)/healthz"
	@echo "Ctrl-C stops the web server, the workers and the scheduler."
	@# All three run in the background and the shell waits: bash runs its trap during `wait`
	@# (not while a foreground child runs), so Ctrl-C, a closed terminal, or any process
	@# ending stops the others too. Beat keeps its schedule state under var/ (ignored by git).
	@mkdir -p var
	@export DEBUG=$${DEBUG:-true}; trap 'trap - EXIT INT TERM HUP; kill 0' EXIT INT TERM HUP; \
	  queue=$${CELERY_TASK_DEFAULT_QUEUE:-omnium}; \
	  $(EMBEDDED_ENV) $(VENV)/bin/celery -A omnium worker --loglevel=INFO --concurrency=1 --queues=$$queue --hostname=interactive@%h & \
	  $(EMBEDDED_ENV) $(VENV)/bin/celery -A omnium worker --loglevel=INFO --concurrency=1 --queues=$$queue-bulk --hostname=bulk@%h & \
	  $(EMBEDDED_ENV) $(VENV)/bin/celery -A omnium beat --loglevel=INFO --schedule=var/celerybeat-schedule & \
	  $(MANAGE) runserver $(HOST):$(PORT) & \
	  wait -n

stop-embedded: ## Stop the embedded PostgreSQL and Redis of this checkout (their data stays in var/embedded/)
	$(PY) -m omnium.embedded stop

web: services ## Start only the web server (development)
	DEBUG=$${DEBUG:-true} $(MANAGE) runserver $(HOST):$(PORT)

worker: services ## Start a Celery worker on both queues (interactive and bulk)
	DEBUG=$${DEBUG:-true} $(VENV)/bin/celery -A omnium worker --loglevel=INFO

beat: services ## Start the Celery scheduler (periodic collection, pruning, expiry)
	@mkdir -p var
	DEBUG=$${DEBUG:-true} $(VENV)/bin/celery -A omnium beat --loglevel=INFO --schedule=var/celerybeat-schedule

lint: install ## ruff lint and format check, and the import contract between apps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: install ## Apply ruff's formatting and safe fixes
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

check: services ## Django system checks and makemigrations --check
	DEBUG=true $(MANAGE) check
	DEBUG=true $(MANAGE) makemigrations --check --dry-run

# The apps that exist in this checkout: the list tolerates an app being added or folded away.
TYPECHECK_APPS := $(wildcard omnium accounts sports cricket catalogue curation discussions ingest)

typecheck: install ## mypy with django-stubs over every app (strict on services and selectors)
	DEBUG=$${DEBUG:-true} $(VENV)/bin/mypy $(TYPECHECK_APPS)

test: services lint typecheck ## Install, ensure services, lint, type-check, check migrations, run the whole suite
	DEBUG=true $(MANAGE) makemigrations --check --dry-run
	$(VENV)/bin/pytest $(PYTEST_ARGS)

verify-data: services ## The whole-data checks the suite samples (every dev league-season's table against the published one)
	$(VENV)/bin/pytest -m whole_data $(PYTEST_ARGS)

# The suite fuzzes every operation with a couple of examples each; this is the long run.
FUZZ_EXAMPLES ?= 100
fuzz: services ## schemathesis over the whole API (anonymous, a consumer key, a staff key) with FUZZ_EXAMPLES examples per operation
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(VENV)/bin/pytest tests/test_api_fuzz.py $(PYTEST_ARGS)

bench-tree: services ## Benchmark: every fixture under a Games root, MPTT range vs recursive CTE
	$(PY) bench/tree.py

bench-prices: services ## Benchmark: a product page's latest prices at 10M observations vs naive max-per-group
	$(PY) bench/prices.py

bench-suggest: services ## Benchmark: suggest over the dev catalogue vs reading its rows; collection with history vs without
	$(PY) bench/suggest.py
bench-identity: services ## Benchmark: identity recall and false merges on hand-labelled pairs of the dev feeds (collect + suggest)
	$(PY) bench/identity.py $(BENCH_ARGS)

bench-corrections: services ## Benchmark: one delivery correction vs the plain-SQL floor of the rows it writes
	$(PY) bench/corrections.py

bench-ingest: services ## Benchmark: import the Cricsheet dev corpus into an empty database vs parse + raw COPY, then re-import
	$(PY) bench/ingest.py $(BENCH_ARGS)

bench-api: services ## Benchmark: API endpoints under gunicorn vs a bare Django view (p50/p95, ratio)
	$(PY) bench/api.py $(BENCH_ARGS)

bench-pages: services ## Benchmark: every public page type under gunicorn vs a bare Django view
	$(PY) bench/pages.py $(BENCH_ARGS)

bench-stats: services ## Benchmark: cricket statistics full rebuild vs one fixture's refresh, career table read
	$(PY) bench/stats.py $(BENCH_ARGS)

bench-stats-query: services ## Benchmark: 20 Statsguru-style queries through the query object vs plain SQL over deliveries
	$(PY) bench/stats_query.py $(BENCH_ARGS)

bench-stats-as-of: services ## Benchmark: statistics views and records as of a moment before corrections vs today's stored lines
	$(PY) bench/stats_as_of.py $(BENCH_ARGS)

verify-stats: services ## Compare every cricket career, innings list, partnership, team record, record and points table in the database with a recomputation from the dev corpus files
	DEBUG=$${DEBUG:-true} $(MANAGE) verify_cricket_statistics $(VERIFY_ARGS)

bench-batches: services ## Benchmark: a reviewed batch (submit, validate, publish) vs the corpus import, per delivery
	$(PY) bench/batches.py $(BENCH_ARGS)

bench-search: services ## Benchmark: site search (dev data, 100k products) p50/p95 vs a plain ILIKE
	$(PY) bench/search.py $(BENCH_ARGS)

bench-scale: services ## Benchmark: 10M observations, 10x the dev corpus: busiest reads, a day's inserts vs flat tables
	$(PY) bench/scale.py $(BENCH_ARGS)

.PHONY: api-lists
api-lists: ## Rewrite docs/api.md's table of list endpoints from the URLconf (a test checks it)
	DEBUG=$${DEBUG:-true} $(MANAGE) api_lists --write
