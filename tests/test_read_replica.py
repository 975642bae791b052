"""Read replicas against a real streaming replica (omnium/replica.py).

The module starts its own pair of PostgreSQL 15 clusters on free local ports: a primary
(``initdb`` with replication on) holding a copy of the test database, and a hot standby made
from it with ``pg_basebackup`` that streams its WAL. The system server is not used as the
primary because it accepts no replication connections (its ``pg_hba.conf`` has no
``replication`` entry, and changing it needs root and a reload of a shared server).

The site runs in one process of its own, started once for the module with ``DATABASE_URL``
on the primary and ``DATABASE_REPLICA_URL`` on the standby (the settings read them once, at
start). Each test sends it a scenario, which drives the site with Django's test client and
answers what it saw as JSON: statuses, which alias each request's queries went to, and
whether a row written to the primary was on the page. Staleness is made on purpose by
pausing the standby's replay.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from omnium.dbroles import admin_url
from omnium.testing import REPO_ROOT

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
SERVER_USER = "postgres"
DB_NAME = "omnium"

pytestmark = pytest.mark.skipif(
    not all((PG_BIN / name).exists() for name in ("initdb", "pg_ctl", "pg_basebackup")),
    reason=f"PostgreSQL server binaries not found in {PG_BIN}",
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_server_user(command: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root.
    return ["runuser", "-u", SERVER_USER, "--", *command] if os.geteuid() == 0 else command


def _pg(program: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(
        _as_server_user([str(PG_BIN / program), *args]),
        capture_output=True, text=True, timeout=120, **kwargs,
    )  # fmt: skip
    assert done.returncode == 0, f"{program} {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


class Clusters:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.primary, self.standby = root / "primary", root / "standby"
        self.primary_port, self.standby_port = _free_port(), _free_port()

    def psql(self, port: int, sql: str, *, db: str = DB_NAME) -> str:
        return _pg(
            "psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", db,
            "-v", "ON_ERROR_STOP=1", "-At", "-c", sql,
        ).stdout.strip()  # fmt: skip

    def start_standby(self) -> None:
        _pg(
            "pg_ctl", "-D", str(self.standby), "-l", str(self.root / "standby.log"), "-w",
            "-o", f"-p {self.standby_port}", "start",
        )  # fmt: skip

    def stop_standby(self) -> None:
        _pg("pg_ctl", "-D", str(self.standby), "-m", "fast", "-w", "stop")

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "omnium.settings_test",
            "DATABASE_URL": f"postgres://127.0.0.1:{self.primary_port}/{DB_NAME}",
            "DATABASE_REPLICA_URL": f"postgres://127.0.0.1:{self.standby_port}/{DB_NAME}",
            "PRIMARY_ADMIN_PORT": str(self.primary_port),
            "STANDBY_ADMIN_PORT": str(self.standby_port),
            "REPLICA_CHECK_SECONDS": "0",
            "REPLICA_RETRY_SECONDS": "0",
            "REPLICA_MAX_LAG_SECONDS": "3600",
            "REPLICA_PIN_SECONDS": "5",
            **extra,
        }
        for name in ("DATABASE_OWNER_URL", "DATABASE_ADMIN_URL"):
            env.pop(name, None)
        return env


@pytest.fixture(scope="module")
def clusters(django_db_setup, django_db_blocker):
    from django.conf import settings

    # Not under pytest's tmp_path (mode 700): the server runs as its own user when root.
    root = Path(tempfile.mkdtemp(prefix="omnium-replica-", dir="/tmp"))
    root.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(root, SERVER_USER)
    pair = Clusters(root)
    started: list[Path] = []
    try:
        _pg(
            "initdb", "-D", str(pair.primary), "-U", "postgres", "-A", "trust", "-E", "UTF8",
            "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        with (pair.primary / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nunix_socket_directories = '{root}'\n"
                "wal_level = replica\nmax_wal_senders = 4\nhot_standby = on\n"
                "wal_receiver_status_interval = 1s\nfsync = off\nmax_connections = 40\n"
                "shared_buffers = 16MB\n"
            )
        _pg(
            "pg_ctl", "-D", str(pair.primary), "-l", str(root / "primary.log"), "-w",
            "-o", f"-p {pair.primary_port}", "start",
        )  # fmt: skip
        started.append(pair.primary)
        # The test database's roles, schema and rows, copied from the system server.
        test_db = settings.DATABASES["default"]
        owner, app = settings.DATABASE_OWNER["USER"], test_db["USER"]
        for statement in (
            f'CREATE ROLE "{owner}" LOGIN CREATEDB',
            f'CREATE ROLE "{app}" LOGIN NOINHERIT',
            f'CREATE DATABASE "{DB_NAME}" OWNER "{owner}" TEMPLATE template0',
        ):
            pair.psql(pair.primary_port, statement, db="postgres")
        # As the suite's administrator (DATABASE_ADMIN_URL, or a local superuser), who may
        # read every table.
        admin = urlsplit(admin_url(settings.DATABASE_URL, os.environ.get("DATABASE_ADMIN_URL")))
        source = urlunsplit(admin._replace(path=f"/{test_db['NAME']}"))
        dump = subprocess.run(
            [str(PG_BIN / "pg_dump"), "--dbname", source],
            capture_output=True,
            timeout=120,
            check=True,
        )
        subprocess.run(
            _as_server_user([
                str(PG_BIN / "psql"), "-h", "127.0.0.1", "-p", str(pair.primary_port),
                "-U", "postgres", "-d", DB_NAME, "-q", "-v", "ON_ERROR_STOP=1",
            ]),
            input=dump.stdout, capture_output=True, timeout=120, check=True,
        )  # fmt: skip
        _pg(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(pair.primary_port), "-U", "postgres",
            "-D", str(pair.standby), "-R", "-X", "stream", "-c", "fast", "--no-sync",
        )  # fmt: skip
        pair.start_standby()
        started.append(pair.standby)
        assert pair.psql(pair.standby_port, "SELECT pg_is_in_recovery()") == "t"
        yield pair
    finally:
        for data in reversed(started):
            subprocess.run(
                _as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate",
                                 "stop"]),
                capture_output=True, timeout=60, check=False,
            )  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


SITE = """
import json, os, random, sys, time, traceback
import django
import django.utils.timezone
django.setup()
import factory
import psycopg
from django.db import connections
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from omnium import replica

# The factories' sequences start afresh in this process: start them somewhere unused.
from sports.tests import factories as sports_f
from catalogue.tests import factories as catalogue_f
from discussions.tests import factories as discussions_f
from accounts.tests import factories as accounts_f
for module in (sports_f, catalogue_f, discussions_f, accounts_f):
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, factory.django.DjangoModelFactory):
            try:
                value.reset_sequence(random.randrange(10**6, 10**9))
            except ValueError:
                pass  # a subclass: its root's sequence is the one that counts

PRIMARY, STANDBY = os.environ["PRIMARY_ADMIN_PORT"], os.environ["STANDBY_ADMIN_PORT"]


def server(port):
    return psycopg.connect(host="127.0.0.1", port=int(port), user="postgres",
                           dbname="omnium", autocommit=True)


def wait_for(column):
    # The standby has received (or replayed) everything the primary has written so far.
    with server(PRIMARY) as conn:
        target = conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
    with server(STANDBY) as conn:
        for _ in range(200):
            if conn.execute(f"SELECT {column} >= %s::pg_lsn", [target]).fetchone()[0]:
                return
            time.sleep(0.05)
    raise AssertionError(f"standby's {column} never reached {target}")


def get(client, url):
    # The request's queries on each alias, leaving out the replica's lag probe.
    with CaptureQueriesContext(connections["default"]) as primary:
        with CaptureQueriesContext(connections["replica"]) as standby:
            response = client.get(url)
    reads = [q["sql"] for q in standby.captured_queries if "pg_last_wal" not in q["sql"]]
    return response, len(primary.captured_queries), len(reads)


# One scenario per line on stdin (JSON: code and settings); one JSON answer per line.
print("ready", flush=True)
for line in sys.stdin:
    request = json.loads(line)
    out = {}
    replica._forget()
    try:
        with override_settings(**request["settings"]):
            exec(request["code"], {**globals(), "out": out})
        answer = {"out": out}
    except Exception:
        answer = {"error": traceback.format_exc()}
    finally:
        for alias in connections:
            connections[alias].close()
    print(json.dumps(answer), flush=True)
"""


@pytest.fixture(scope="module")
def replica_site(clusters):
    """The site in a process of its own, started once with both URLs: it runs each test's
    scenario and answers what it saw."""
    process = subprocess.Popen(
        [sys.executable, "-c", SITE], cwd=REPO_ROOT, env=clusters.env(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"

    def run(code: str, **settings: object) -> dict:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"code": code, "settings": settings}) + "\n")
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        assert "error" not in answer, answer["error"]
        return answer["out"]

    yield run
    process.stdin.close()  # type: ignore[union-attr]
    process.wait(timeout=30)


@pytest.fixture
def replay_paused(clusters):
    """The standby keeps receiving WAL but replays none of it: stale on purpose."""
    clusters.psql(clusters.standby_port, "SELECT pg_wal_replay_pause()")
    yield
    clusters.psql(clusters.standby_port, "SELECT pg_wal_replay_resume()")


def test_a_visitors_page_is_read_from_the_replica_and_the_write_before_it_from_the_primary(
    replica_site,
):
    seen = replica_site(
        """
competition = sports_f.CompetitionFactory(name="Replicated League")
wait_for("pg_last_wal_replay_lsn()")
response, on_primary, on_replica = get(Client(), "/competitions/")
out.update(status=response.status_code, primary=on_primary, replica=on_replica,
           listed="Replicated League" in response.content.decode())
""",
    )
    assert seen == {"status": 200, "primary": 0, "replica": seen["replica"], "listed": True}
    assert seen["replica"] > 0


def test_staff_never_read_a_replica_that_is_behind(replica_site, replay_paused):
    seen = replica_site(
        """
from accounts.services.api_keys import api_key_issue
sports_f.CompetitionFactory(name="Fresh League")
editor = accounts_f.StaffFactory(role="admin", is_superuser=True)
_key, plaintext = api_key_issue(
    consumer=accounts_f.ApiConsumerFactory(owner=editor), actor=editor
)
wait_for("pg_last_wal_receive_lsn()")
staff = Client()
staff.force_login(editor)
program = Client(HTTP_AUTHORIZATION=f"Api-Key {plaintext}")
for name, client, url in (
    ("visitor page", Client(), "/competitions/"),
    ("visitor api", Client(), "/api/v1/competitions/"),
    ("staff page", staff, "/competitions/"),
    ("staff api", staff, "/api/v1/competitions/"),
    ("console", staff, "/admin/sports/competition/"),
    ("staff key", program, "/api/v1/competitions/"),
):
    response, _on_primary, on_replica = get(client, url)
    out[name] = [response.status_code, "Fresh League" in response.content.decode(), on_replica]
""",
    )
    # The visitor's reads came from the paused standby, without the new competition; every
    # staff read, by session or by a key an administrator owns, from the primary.
    visitor = {name: answer for name, answer in seen.items() if name.startswith("visitor")}
    assert [answer[:2] for answer in visitor.values()] == [[200, False], [200, False]]
    assert all(answer[2] > 0 for answer in visitor.values())
    staff = {name: answer for name, answer in seen.items() if name not in visitor}
    assert staff == {name: [200, True, 0] for name in staff}


def test_a_replica_further_behind_than_the_limit_is_not_read_and_healthz_says_so(
    replica_site, replay_paused
):
    seen = replica_site(
        """
sports_f.CompetitionFactory(name="Late League")
wait_for("pg_last_wal_receive_lsn()")
time.sleep(1.1)
response, on_primary, on_replica = get(Client(), "/competitions/")
health = Client().get("/healthz")
out.update(listed="Late League" in response.content.decode(), replica=on_replica,
           health=health.status_code, entry=health.json()["replica"])
""",
        REPLICA_MAX_LAG_SECONDS=1,
    )
    assert (seen["listed"], seen["replica"], seen["health"]) == (True, 0, 200)
    assert seen["entry"]["state"] == "lagging"
    assert seen["entry"]["lag_seconds"] > 1
    assert "public reads go to the primary" in seen["entry"]["warning"]


def test_a_session_that_wrote_reads_its_write_from_the_primary_until_the_pin_ends(
    replica_site, replay_paused
):
    seen = replica_site(
        """
product = catalogue_f.ProductFactory(name="Pinned Perfume 50 ml")
wait_for("pg_last_wal_receive_lsn()")
reader = Client()
reader.force_login(accounts_f.UserFactory(role="viewer"))
before = get(reader, "/catalogue/follows/")
followed = reader.post(f"/catalogue/products/{product.pk}/follow/")
pinned = get(reader, "/catalogue/follows/")
time.sleep(2.1)
unpinned = get(reader, "/catalogue/follows/")
out.update(
    before_on_replica=before[2] > 0,
    followed=followed.status_code,
    pinned=["Pinned Perfume" in pinned[0].content.decode(), pinned[2]],
    unpinned=["Pinned Perfume" in unpinned[0].content.decode(), unpinned[2] > 0],
)
""",
        REPLICA_PIN_SECONDS=2,
    )
    assert seen["before_on_replica"] is True
    assert seen["followed"] in {200, 302, 303}
    # Pinned: the follow is listed, read from the primary. Unpinned: the paused replica
    # answers again, without it.
    assert seen["pinned"] == [True, 0]
    assert seen["unpinned"] == [False, True]


def test_an_api_key_that_wrote_reads_its_write_from_the_primary_until_the_pin_ends(
    replica_site, replay_paused
):
    # A key has no session to pin: the account that owns it is pinned instead.
    seen = replica_site(
        """
from accounts.services.api_keys import api_key_issue
from discussions.models import Notification, NotificationKind
viewer = accounts_f.UserFactory(role="viewer")
_key, plaintext = api_key_issue(
    consumer=accounts_f.ApiConsumerFactory(owner=viewer),
    actor=accounts_f.StaffFactory(role="admin", is_superuser=True),
)
Notification.objects.create(
    recipient=viewer, kind=NotificationKind.COMMENT, body="Pinned note",
    source_type="test", source_id="1", dedupe_key="replica-account-pin",
)
wait_for("pg_last_wal_receive_lsn()")
program = Client(HTTP_AUTHORIZATION=f"Api-Key {plaintext}")
before = get(program, "/api/v1/notifications/")
marked = program.post("/api/v1/notifications/read-all/")
program.cookies.clear()  # a program with a key keeps no session cookie
pinned = get(program, "/api/v1/notifications/")
time.sleep(2.1)
unpinned = get(program, "/api/v1/notifications/")

def read_at(response):
    return [row["read_at"] is not None for row in response.json()["results"]]

out.update(
    before=[read_at(before[0]), before[2] > 0],
    marked=[marked.status_code, marked.json()],
    pinned=[read_at(pinned[0]), pinned[2]],
    unpinned=[read_at(unpinned[0]), unpinned[2] > 0],
)
""",
        REPLICA_PIN_SECONDS=2,
    )
    # The paused replica has not replayed the notification: before, nothing to list.
    assert seen["before"] == [[], True]
    assert seen["marked"] == [200, {"marked": 1}]
    # Pinned: the notification, read, from the primary. Unpinned: the replica again.
    assert seen["pinned"] == [[True], 0]
    assert seen["unpinned"] == [[], True]


def test_every_public_page_works_with_the_replica_down_and_healthz_warns(replica_site, clusters):
    clusters.stop_standby()
    try:
        seen = replica_site(
            """
from django.urls import reverse
from omnium.api_lists import list_endpoints

league = sports_f.CompetitionFactory(name="Standby Down League")
fixture = sports_f.FixtureFactory(competition=league, sport=league.sport)
sports_f.publish(fixture)
listing = catalogue_f.ListingFactory()
product, location = listing.product, listing.location
article = discussions_f.ArticleFactory(status="published", published_at=django.utils.timezone.now())
pages = [
    reverse("home"),
    reverse("sports:competition-list"),
    reverse("sports:competition-detail", args=[league.pk]),
    reverse("sports:fixture-detail", args=[fixture.pk]),
    reverse("cricket_stats:leaderboards"),
    reverse("cricket_stats:record", args=["highest-innings"]),
    reverse("catalogue:product-list"),
    reverse("catalogue:product-detail", args=[product.pk]),
    reverse("catalogue:brand-detail", args=[product.brand.slug]),
    reverse("catalogue:location-detail", args=[location.code]),
    reverse("discussions:article-list"),
    reverse("discussions:article-detail", args=[article.slug]),
    reverse("search:results") + "?q=standby",
]
_, endpoints = list_endpoints()
api = [endpoint.path for endpoint in endpoints if "{" not in endpoint.path]
visitor = Client()
out["pages"] = {url: visitor.get(url).status_code for url in pages}
out["api"] = {url: visitor.get(url).status_code for url in api}
health = visitor.get("/healthz")
out.update(health=health.status_code, entry=health.json()["replica"])
""",
        )
    finally:
        clusters.start_standby()
    assert seen["pages"] == dict.fromkeys(seen["pages"], 200)
    assert len(seen["api"]) > 10
    assert [url for url, status in seen["api"].items() if status >= 500] == []
    assert seen["health"] == 200
    assert seen["entry"]["state"] == "unavailable"
    assert "public reads go to the primary" in seen["entry"]["warning"]


def test_healthz_reports_a_replica_that_keeps_up(replica_site):
    seen = replica_site(
        """
health = Client().get("/healthz")
out.update(status=health.status_code, entry=health.json()["replica"])
""",
    )
    assert seen["status"] == 200
    assert seen["entry"]["state"] == "ok"
    # Replay lags behind any write on the primary's cluster, another database's included
    # (a second test run, a bench): keeping up means within seconds, not exactly zero.
    assert 0 <= seen["entry"]["lag_seconds"] < 5


def test_without_a_replica_url_there_is_no_replica_alias_and_healthz_says_so(client, db):
    from django.conf import settings

    assert "replica" not in settings.DATABASES
    assert client.get("/healthz").json()["replica"] == "not configured"


def test_the_standby_really_streams_from_the_primary(clusters):
    clusters.psql(clusters.primary_port, "CREATE TABLE streamed AS SELECT 7 AS n")
    for _ in range(100):
        try:
            if clusters.psql(clusters.standby_port, "SELECT n FROM streamed") == "7":
                break
        except AssertionError:
            pass
        time.sleep(0.05)
    else:
        pytest.fail("the row never reached the standby")
    senders = clusters.psql(clusters.primary_port, "SELECT state FROM pg_stat_replication")
    assert senders == "streaming"
    clusters.psql(clusters.primary_port, "DROP TABLE streamed")
