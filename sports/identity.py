"""Fingerprints that recognise the same party written twice."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import date

_NOT_WORD = re.compile(r"[^\w]+")


def normalise_name(name: str) -> str:
    """Accents, case, punctuation and spacing folded away: 'Núñez, J.' -> 'nunez j'."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_NOT_WORD.sub(" ", stripped.casefold()).split())


def participant_fingerprint(
    *, type: str, name: str, country: str | None, born_on: date | None
) -> str:
    """sha256 of type, normalised name, country and birth date (where known)."""
    parts = [
        type,
        normalise_name(name),
        (country or "").upper(),
        born_on.isoformat() if born_on else "",
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
