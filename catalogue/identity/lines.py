"""Line keys and variations: which real product a listing is, and which variation of it.

The line key is a pure function of the collected name: the name minus the brand, the
sizes, the strength, the pack and edition tokens. Beauty also drops the concentration and
variation words but keeps the audience ("for Men" and "for Women" are different bottles);
drinks keep every expression word and fold "12 Year Old" / "12 years old" to "12".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from catalogue.identity import houses
from catalogue.identity import quantity as q
from catalogue.identity.text import NUMBER_WORDS, fold, words

BEAUTY_VERTICALS = frozenset({"fragrance", "beauty"})

_NUMBER_WORDS = NUMBER_WORDS

# Seller and shelf noise in any vertical: none of it tells two products apart.
_NOISE = frozenset(
    [
        "new",
        "us",
        "usa",
        "us1",
        "nwob",
        "brand",
        "sealed",
        "seald",
        "box",
        "boxed",
        "unboxed",
        "nib",
        "in",
        "with",
        "without",
        "no",
        "cap",
        "free",
        "shipping",
        "fast",
        "authentic",
        "original",
        "genuine",
        "and",
        "the",
        "a",
        "of",
        "for",
        "by",
        "as",
        "imaged",
        "image",
        "picture",
        "shown",
        "show",
    ]
)
_BEAUTY_NOISE = frozenset(
    [
        "spray",
        "vaporisateur",
        "vapo",
        "natural",
        "fragrance",
        "fragrances",
        "scent",
        "perfume",
        "perfum",
        "cologne",
        "tester",
        "sample",
        "samples",
        "sampler",
        "vial",
        "vials",
        "travel",
        "size",
        "mini",
        "miniature",
        "minature",
        "pour",
    ]
)
_EDITION = frozenset(
    [
        "limited",
        "edition",
        "gift",
        "set",
        "giftset",
        "collector",
        "collectors",
        "exclusive",
        "holiday",
        "christmas",
        "release",
        "lahjapakkaus",
        "lahjarasia",
        "pakkaus",
        "kit",
        "coffret",
        "display",
    ]
)
_DRINKS_PACKAGING = frozenset(
    [
        "muovipullo",
        "lasipullo",
        "pullo",
        "tolkki",
        "plastic",
        "bottle",
        "pet",
        "can",
        "flask",
        "hip",
        "tube",
    ]
)

AUDIENCE = {
    "men": "men",
    "mens": "men",
    "man": "men",
    "mans": "men",
    "homme": "men",
    "him": "men",
    "male": "men",
    "women": "women",
    "womens": "women",
    "woman": "women",
    "femme": "women",
    "her": "women",
    "ladies": "women",
    "lady": "women",
    "female": "women",
    "unisex": "unisex",
}

# Concentration phrases, longest first; each maps to its canonical name.
CONCENTRATIONS: tuple[tuple[str, str], ...] = (
    ("extrait de parfum", "extrait"),
    ("eau de parfum intense", "edp intense"),
    ("eau de perfume intense", "edp intense"),
    ("edp intense", "edp intense"),
    ("eau de toilette intense", "edt intense"),
    ("edt intense", "edt intense"),
    ("parfum intense", "parfum intense"),
    ("eau intense", "eau intense"),
    ("eau de parfum", "edp"),
    ("eau de perfume", "edp"),
    ("eau de perfum", "edp"),
    ("eau de toilette", "edt"),
    ("eau de cologne", "edc"),
    ("extrait", "extrait"),
    ("elixir", "elixir"),
    ("elixer", "elixir"),
    ("parfum", "parfum"),
    ("edp", "edp"),
    ("edt", "edt"),
    ("edc", "edc"),
)
# Flanker words: a variation of the line, not a line of its own ("1 Million Lucky").
FLANKERS = frozenset(
    [
        "royal",
        "lucky",
        "legend",
        "platinum",
        "victory",
        "absolu",
        "absolute",
        "extreme",
        "sport",
        "intense",
    ]
)
# Seller-entered type values that say nothing about the variation.
GENERIC_TYPES = frozenset(
    {"", "perfume", "perfumes", "fragrance", "fragrances", "cologne", "various", "other"}
)

_YEARS = re.compile(
    r"\b(?:aged\s+)?(\d{1,2})\s*-?\s*(?:years?|yrs?|yo|y\.o\.?|vuotta|vuotias|ans|anos|jahre)"
    r"(?:\s+old)?\b"
)
_STRENGTH = re.compile(r"(?<![\d.])\d+(?:[.,]\d+)?\s*%\s*(?:vol\.?|abv|alc\.?)?")
_BARE_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.%])")
_LONG_NUMBER = re.compile(r"(?<!\d)\d{8,14}(?!\d)")


@dataclass(frozen=True)
class Variation:
    """The canonical variation of a beauty product ("" for none, ``?...`` for unknown)."""

    canonical: str
    raw: str
    concentration: str | None
    kind: str = ""

    @property
    def unknown(self) -> bool:
        return self.canonical.startswith("?")


NO_VARIATION = Variation(canonical="", raw="", concentration=None)


def _strip_bare_sizes(text: str, ounces: list[Decimal]) -> str:
    """A bare decimal that is a size without its unit ("3.4 EDP", "2.6 oz 2.5") is no line
    word; one that is not ("Cupid 2.0" beside "1.7 oz") stays."""

    def size(m: re.Match[str]) -> str:
        value = Decimal(m.group(0))
        if ounces:
            near = any(abs(value - oz) <= Decimal("0.2") for oz in ounces)
        else:
            near = value in q.BARE_OUNCE_SIZES
        return " " if near else m.group(0)

    return _BARE_DECIMAL.sub(size, text)


def _strip_quantities(text: str) -> str:
    text = q._normalise(text)
    text = q._PROMO.sub(" ", text)
    text = q._PACK_BEFORE.sub(" ", text)
    text = re.sub(rf"({q._UNIT})\.?\s*[x\u00d7*]\s*\d+\b", r"\1", text)
    text = q._AMOUNT.sub(" ", text)
    text = q._PIECES_SLASH.sub(" ", text)
    text = q._SET_OF.sub(" ", text)
    text = re.sub(r"(?<![\d.])\d+\s*/\s*\d+(?![\d.])", " ", text)  # 24/48, 3.3 / 3.4
    text = re.sub(r"(?<![\w.])\d+(?:\.\d+)?\s*/\s*(?=\s|$)", " ", text)
    return text


def _remove_phrases(tokens: list[str], phrases: Iterable[list[str]]) -> list[str]:
    """Drop every occurrence of each phrase (and a "by" right before it)."""
    keep = [True] * len(tokens)
    for phrase in sorted(phrases, key=len, reverse=True):
        n = len(phrase)
        if not n:
            continue
        i = 0
        while i + n <= len(tokens):
            if all(keep[i + k] for k in range(n)) and tokens[i : i + n] == phrase:
                for k in range(n):
                    keep[i + k] = False
                if i > 0 and tokens[i - 1] == "by":
                    keep[i - 1] = False
                i += n
            else:
                i += 1
    return [t for t, k in zip(tokens, keep, strict=True) if k]


def _brand_phrases(brand_spellings: Iterable[str | None]) -> list[list[str]]:
    phrases = []
    for spelling in brand_spellings:
        w = words(spelling)
        if w:
            phrases.append(w)
            glued = "".join(w)
            if len(w) > 1:
                phrases.append([glued])
    return phrases


def _concentration_tokens() -> list[tuple[list[str], str]]:
    return [(phrase.split(), canonical) for phrase, canonical in CONCENTRATIONS]


def line_key(name: str | None, *, vertical: str, brand_spellings: Iterable[str | None] = ()) -> str:
    """The line key of a collected name; "" when nothing identifying is left."""
    return read_line(name, vertical=vertical, brand_spellings=brand_spellings).key


@dataclass(frozen=True)
class LineReading:
    key: str
    # The variation a known line's name states ("Code Profumo" is a parfum), else "".
    variation: str = ""
    known: bool = False


def _known_line(tokens: list[str], house: str) -> LineReading | None:
    """A house's known line in the words, with any word of another of its lines beside it
    ("1 Million" + "Lucky"): one meaningful word more is another product, kept in the key.
    The line names its audience, so "for Men" is dropped; "for Women" names another bottle.
    """
    found = houses.known_line(house, tokens)
    if found is None:
        return None
    line, start, end = found
    rest = tokens[:start] + tokens[end:]
    rest = _remove_phrases(rest, [p for p, _ in _concentration_tokens()])
    others = houses.line_words(house, besides=line.key)
    extra = [
        t for t in dict.fromkeys(rest) if t in others and t not in AUDIENCE and t not in _NOISE
    ]
    women = ["women"] if any(AUDIENCE.get(t) == "women" for t in rest) else []
    return LineReading(" ".join([line.key, *extra, *women]), line.variation, known=True)


def read_line(
    name: str | None,
    *,
    vertical: str,
    brand_spellings: Iterable[str | None] = (),
    house: str | None = None,
) -> LineReading:
    """The line of a collected name: a known line of ``house`` when the name has one, else
    the name minus the brand, the measures and the noise ("" when nothing is left)."""
    text = fold(name)
    if vertical == "drinks":
        text = _YEARS.sub(r" \1 ", text)
        text = _STRENGTH.sub(" ", text)
    text = _LONG_NUMBER.sub(" ", text)
    ounces = [
        Decimal(m["num"])
        for m in q._AMOUNT.finditer(q._normalise(text))
        if re.sub(r"[\s.]", "", m["unit"]) in ("oz", "floz")
    ]
    text = _strip_quantities(text)
    if vertical in BEAUTY_VERTICALS:
        text = _strip_bare_sizes(text, ounces)
        text = text.replace("*", "")
    tokens = [_NUMBER_WORDS.get(t, t) for t in words(text)]
    before = len(tokens)
    tokens = _remove_phrases(tokens, _brand_phrases(brand_spellings))
    removed = len(tokens) < before

    beauty = vertical in BEAUTY_VERTICALS
    if beauty and house:
        known = _known_line(tokens, house)
        if known is not None:
            return known
    audience: list[str] = []
    if beauty:
        tokens = _remove_phrases(tokens, [p for p, _ in _concentration_tokens()])
        kept = []
        for t in tokens:
            if t in AUDIENCE:
                if AUDIENCE[t] not in audience:
                    audience.append(AUDIENCE[t])
            elif t not in FLANKERS and t not in _BEAUTY_NOISE:
                kept.append(t)
        tokens = kept
    drop = _NOISE | _EDITION | (_DRINKS_PACKAGING if vertical == "drinks" else frozenset())
    tokens = [t for t in tokens if t not in drop]
    if beauty:
        # Sellers repeat the line ("One Million Royal ... 1 Million Royal"); once is enough.
        # dict keys keep the first occurrence's position.
        tokens = list(dict.fromkeys(tokens))
    if not tokens:
        # Nothing but the house ("Aramis by Aramis", "Bentley Intense by Bentley"): the
        # house's eponymous line.
        eponymous = next((" ".join(p) for p in _brand_phrases(brand_spellings) if p), "")
        return LineReading(eponymous if beauty and removed else "")
    return LineReading(" ".join(tokens + sorted(audience)))


def _find_concentration(tokens: list[str]) -> tuple[str | None, list[str]]:
    """The strongest concentration named in the tokens and the raw words that named it."""
    found: list[tuple[int, str, list[str]]] = []
    used = [False] * len(tokens)
    for phrase, canonical in _concentration_tokens():
        n = len(phrase)
        for i in range(len(tokens) - n + 1):
            if not any(used[i : i + n]) and tokens[i : i + n] == phrase:
                used[i : i + n] = [True] * n
                found.append((i, canonical, phrase))
    if not found:
        return None, []
    found.sort()
    canonicals = [c for _, c, _ in found]
    raw = [w for _, _, phrase in found for w in phrase]
    # Sellers stack concentrations ("Elixir Parfum", "EDP Eau de Parfum"): an elixir is an
    # elixir whatever else is said; otherwise the first one named is the claim.
    if "elixir" in canonicals:
        return "elixir", raw
    # "EDT ... Eau de Toilette Intense" claims the intense one, wherever it is named.
    for canonical in canonicals:
        if canonical.endswith(" intense") and canonical.split()[0] in canonicals:
            return canonical, raw
    return canonicals[0], raw


def read_variation(
    name: str | None,
    *,
    vertical: str,
    listed_variant: str | None = None,
    aliases: Mapping[str, str] | None = None,
) -> Variation:
    """The canonical variation of a beauty product, read by rule then through aliases.

    ``aliases`` maps a raw wording (folded, as in ``VariationAlias.raw``) to its canonical
    variation for this vertical. A wording the rules do not know keys apart as ``?<raw>``.
    """
    if vertical not in BEAUTY_VERTICALS:
        return NO_VARIATION
    aliases = aliases or {}
    tokens = [t for t in words(fold(name)) if t]
    concentration, raw_words = _find_concentration(tokens)
    flankers = [t for t in dict.fromkeys(tokens) if t in FLANKERS and t != "intense"]
    if "intense" in tokens and "intense" not in raw_words:
        flankers.append("intense")

    declared = " ".join(words(listed_variant))
    declared_concentration = None
    if declared and declared not in GENERIC_TYPES:
        declared_concentration, _ = _find_concentration(declared.split())
        unknown_type = declared_concentration is None and declared not in aliases
        if unknown_type and concentration is None:
            # A type the rules do not know ("Roll On", "Eau Fraiche"): never a guess.
            return Variation(canonical=f"?{declared}", raw=declared, concentration=None)
    if concentration is None:
        concentration = declared_concentration
        if declared in aliases:
            concentration = aliases[declared]

    raw = " ".join([*flankers, *raw_words]) or (declared if concentration else "")
    if raw in aliases:
        canonical = aliases[raw]
    elif flankers == ["intense"] and concentration in ("edp", "edt", "edc"):
        canonical = f"{concentration} intense"  # "Intense EDP" is "EDP Intense"
    else:
        canonical = " ".join([*flankers, concentration or ""]).strip()
    kind = "flanker" if flankers else ("concentration" if concentration else "")
    return Variation(
        canonical=canonical,
        raw=raw,
        concentration=declared_concentration or concentration,
        kind=kind,
    )
