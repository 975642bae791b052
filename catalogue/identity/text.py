"""Text folds shared by every rule: accents off, case off, punctuation to spaces."""

from __future__ import annotations

import re
import unicodedata

# Letters NFKD does not decompose into a base letter plus a mark.
_SPECIAL_LETTERS = str.maketrans(
    {"đ": "dj", "Đ": "Dj", "ß": "ss", "æ": "ae", "Æ": "Ae", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L"}
)
# Numbers written as words read as digits ("One Million" is "1 Million").
NUMBER_WORDS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
_APOSTROPHES = re.compile(r"['\u2019\u2018`\u00b4]")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def strip_accents(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.translate(_SPECIAL_LETTERS))
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def fold(text: str | None) -> str:
    """Lower case, no accents, apostrophes dropped (so L'Oreal and LOreal agree)."""
    if not text:
        return ""
    return _APOSTROPHES.sub("", strip_accents(text)).lower()


def slug_fold(text: str | None) -> str:
    """A hyphenated fold: ``Dolce & Gabbana`` and ``Dolce&Gabbana`` both give
    ``dolce-and-gabbana``."""
    folded = fold(text).replace("&", " and ").replace("+", " and ")
    return _NON_ALNUM.sub("-", folded).strip("-")


def words(text: str | None) -> list[str]:
    return [w for w in slug_fold(text).split("-") if w]


def name_key(text: str | None) -> str:
    """The whole name folded to words: a cheap equality for "worded the same"."""
    return " ".join(words(text))
