"""A forked worker process that ends when its parent does.

Killed with SIGKILL, a parent runs no cleanup: its workers would go on writing, then block
for ever on a queue nobody reads, each holding a database session. ``end_with_parent``,
called first thing in the worker, makes the parent's death reach it twice over:

- Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGTERM)``), delivered the moment
  the parent exits;
- a watchdog thread that polls ``os.getppid()`` (a reparented orphan sees another parent),
  for systems without ``prctl`` and for a parent that died before the call.

Either raises ``ParentGone`` in the worker's main thread, so the ``atomic`` block it is in
rolls its transaction back as the exception leaves it; the caller closes its connections and,
when ``os.getppid()`` shows the parent gone, must not wait on its queues
(``cancel_join_thread``). A SIGTERM sent to the worker alone raises the same exception while
the parent lives, and the caller tells the parent so. A worker that has not ended a few
seconds later (stuck in a call that never returns) is ended by the watchdog outright.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import threading
import time

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
POLL_SECONDS = 0.5
GRACE_SECONDS = 5.0


class ParentGone(BaseException):
    """The parent process has died. A BaseException, as KeyboardInterrupt is: the code it
    interrupts catches ``Exception`` to record a failed file and carry on, and must not."""


def _parent_died(signum, frame) -> None:
    # SIGTERM also comes from whoever stops this worker alone (the parent, an operator):
    # the caller tells the two apart by os.getppid().
    raise ParentGone(f"stopped by signal {signum}: the parent process died or stopped it")


def _death_signal(signum: int) -> bool:
    """Ask the kernel for ``signum`` when the parent dies (Linux only)."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    with contextlib.suppress(ProcessLookupError):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler raises ParentGone in the main thread
    time.sleep(GRACE_SECONDS)
    os._exit(1)  # the main thread is stuck: end without waiting for it


def end_with_parent(parent: int) -> None:
    """Make this process (a forked worker of ``parent``, in its main thread) end when
    ``parent`` does. Raises ``ParentGone`` at once if it already has."""
    signal.signal(signal.SIGTERM, _parent_died)
    _death_signal(signal.SIGTERM)
    threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()
    if os.getppid() != parent:  # died before the signal was asked for
        raise ParentGone("the parent process died before the worker started")
