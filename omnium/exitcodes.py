"""What the exit status of an import, collect or submit command means: one table for all of
them (their ``--help`` and ``docs/architecture.md`` say the same).

- ``OK`` (0): everything was accepted, or was already there unchanged.
- ``FAILED`` (1): the command could not do its work (a bad argument, a missing path, no such
  account); nothing was read.
- ``PARTIAL`` (3): some input was rejected and the rest was written (each rejection is
  named on stderr).
- ``REJECTED`` (4): the input was rejected and nothing of it was written: every file or row
  rejected, a whole input refused, or ``--strict`` refusing a run that holds a bad file.
"""

from __future__ import annotations

from django.core.management.base import CommandError

OK = 0
FAILED = 1
PARTIAL = 3
REJECTED = 4

HELP = (
    "Exit status: 0 all accepted or unchanged; 1 the command could not run; 3 some input "
    "rejected, the rest written; 4 rejected, nothing written."
)


def outcome_error(*, accepted: int, rejected: int, noun: str = "file") -> CommandError | None:
    """The error a command ends with after ``accepted`` inputs were written or found unchanged
    and ``rejected`` were refused: None when nothing was refused; ``PARTIAL`` when some were
    and others went in; ``REJECTED`` when all were."""
    if not rejected:
        return None
    if accepted:
        return CommandError(
            f"{rejected} {noun}(s) rejected, {accepted} accepted", returncode=PARTIAL
        )
    return CommandError(f"all {rejected} {noun}(s) rejected; nothing written", returncode=REJECTED)


def refused(message: str) -> CommandError:
    """A whole input refused with nothing written."""
    return CommandError(message, returncode=REJECTED)
