"""A worker ends with its parent (omnium.lifeline) by either of two ways, each enough alone:
the kernel's parent-death signal, and the watchdog that sees the worker reparented. Either
way the worker's main thread gets ``ParentGone`` (so its open transaction rolls back as the
exception leaves the atomic block) rather than being cut off."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from omnium.testing import REPO_ROOT

# The middle process forks the worker, writes its pid once the worker is set up, and dies at
# once running no cleanup, as a parent killed with SIGKILL would.
PARENT = """
import os, sys, time
import omnium.lifeline as lifeline
if sys.argv[2] == "watchdog-only":
    lifeline._death_signal = lambda signum: False  # as where prctl is missing
else:
    lifeline.POLL_SECONDS = 3600  # the kernel's signal alone
read, write = os.pipe()
if os.fork() == 0:
    try:
        lifeline.end_with_parent(os.getppid())
        os.write(write, b"%d\\n" % os.getpid())
        while True:
            time.sleep(0.05)
    except lifeline.ParentGone:
        with open(sys.argv[1], "w") as marker:
            marker.write("unwound")
        os._exit(0)
with open(sys.argv[3], "w") as pid:
    pid.write(os.read(read, 32).decode().strip())
os._exit(0)
"""


def _ended(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def _orphan_ends(tmp_path, mode: str) -> str:
    marker, pid = tmp_path / "marker", tmp_path / "pid"
    subprocess.run(
        [sys.executable, "-c", PARENT, str(marker), mode, str(pid)],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
        check=True,
    )
    worker = int(pid.read_text())
    try:
        deadline = time.monotonic() + 4  # less than the watchdog's grace before it cuts off
        while not _ended(worker):
            assert time.monotonic() < deadline, f"worker {worker} outlived its parent"
            time.sleep(0.05)
    finally:
        if not _ended(worker):
            os.kill(worker, signal.SIGKILL)
    return marker.read_text()


def test_the_parent_death_signal_alone_unwinds_an_orphaned_worker(tmp_path):
    assert _orphan_ends(tmp_path, "signal-only") == "unwound"


def test_the_watchdog_alone_unwinds_an_orphaned_worker(tmp_path):
    assert _orphan_ends(tmp_path, "watchdog-only") == "unwound"
