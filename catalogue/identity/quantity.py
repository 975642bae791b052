"""Quantity: what one purchase contains, in its canonical unit (ml, g or pcs).

The key slot is a value with its unit (``100ml``, ``50g``, ``4pcs``), so 100 ml never
equals 100 g, and ``unknown`` when nothing could be read, which agrees with nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import TypedDict

from catalogue.identity.text import fold

ML_PER_US_FL_OZ = Decimal("29.5735")

# Sizes fragrance and spirits bottles really come in. Shops that print ounces print a
# rounded conversion of one of these (3.4 oz is the 100 ml bottle), so an ounce figure is
# snapped to the nearest within 3.5%; anything further off stays as the plain conversion.
BOTTLE_SIZES_ML = tuple(
    Decimal(s)
    for s in (
        "1", "1.2", "1.5", "2", "3", "4", "5", "7.5", "8", "9", "10", "11", "12", "15", "18",
        "20", "25", "30", "35", "40", "45", "50", "60", "65", "70", "75", "80", "90", "100",
        "110", "120", "125", "150", "175", "180", "200", "225", "250", "300", "350", "375",
        "400", "450", "500", "700", "750", "1000",
    )
)  # fmt: skip
SNAP_TOLERANCE = Decimal("0.035")


class Unit(StrEnum):
    ML = "ml"
    G = "g"
    PCS = "pcs"


class Form(StrEnum):
    SINGLE = "single"
    PACK = "pack"
    SET = "set"
    REFILL = "refill"


class State(StrEnum):
    STATED = "stated"
    NONE = "none"
    UNPARSED = "unparsed"


@dataclass(frozen=True)
class Quantity:
    state: State
    value: Decimal | None = None
    unit: Unit | None = None
    form: Form = Form.SINGLE
    pack_count: int | None = None
    pack_unit_value: Decimal | None = None
    set_contents: tuple[str, ...] | None = None
    # The stated metric volume as written (legacy size pair): ml, cl or l, never grams.
    size_value: Decimal | None = None
    size_unit: str | None = None
    promo_extra: Decimal | None = None
    tester: bool = False
    sample: bool = False
    problem: str = ""

    def key(self) -> str:
        if self.value is None or self.unit is None:
            return "unknown"
        return f"{_fmt(self.value)}{self.unit}"

    def form_part(self) -> str:
        """The match key's fifth part: what kind of purchase, beyond its total."""
        parts = []
        if self.form == Form.PACK:
            parts.append(f"pack{self.pack_count}x{_fmt(self.pack_unit_value)}{self.unit}")
        elif self.form == Form.SET:
            contents = "+".join(self.set_contents or ())
            parts.append(f"set:{contents}" if contents else f"set:{self.key()}")
        elif self.form == Form.REFILL:
            parts.append("refill")
        if self.tester:
            # A tester is sold without its box (often without a cap): not the retail item.
            parts.append("tester")
        return ",".join(parts)

    @property
    def size_ml(self) -> Decimal | None:
        if self.unit != Unit.ML:
            return None
        if self.form == Form.PACK:
            return self.pack_unit_value
        if self.form == Form.SET:
            return None
        return self.value

    def agrees_with(self, other: Quantity) -> bool:
        return self.key() != "unknown" and self.key() == other.key()


def _fmt(value: Decimal | None) -> str:
    if value is None:
        return "?"
    text = format(value.normalize(), "f")
    return text


def snap_ml(ml: Decimal) -> Decimal:
    best = min(BOTTLE_SIZES_ML, key=lambda size: abs(size - ml))
    if abs(best - ml) <= best * SNAP_TOLERANCE:
        return best
    step = Decimal("0.1") if ml < 10 else Decimal("1")
    return ml.quantize(step, rounding=ROUND_HALF_UP)


def ounces_to_ml(ounces: Decimal) -> Decimal:
    return snap_ml(ounces * ML_PER_US_FL_OZ)


_NUM = r"(?:\d+(?:\.\d+)?|\.\d+)"
_UNIT = r"(?:fl\.?\s*oz|oz|ml|mls|cl|litres?|liters?|ltr|lt|l|kg|gr|g|pcs|pc)"
_AMOUNT = re.compile(rf"(?<![\d.])(?P<num>{_NUM})\s*(?P<unit>{_UNIT})\.?(?![a-z])")
_PACK_BEFORE = re.compile(rf"(?<![\d.])(?P<count>\d+)\s*[x\u00d7*]\s*(?={_NUM}\s*{_UNIT}(?![a-z]))")
_PACK_AFTER = re.compile(rf"{_UNIT}\.?\s*[x\u00d7*]\s*(?P<count>\d+)(?![\d.]|\s*{_NUM}?\s*{_UNIT})")
_PROMO = re.compile(
    rf"(?P<base>{_NUM})\s*(?P<unit>ml|g)\s*\+\s*(?P<extra>{_NUM})\s*(?:ml|g)?\s*"
    r"(?:gratis|free|bonus|extra|besplatno)"
)
_SET_OF = re.compile(r"\bset\s+of\s+(?P<count>\d+)\b")
_PIECES_SLASH = re.compile(r"(?<![\d.])(?P<count>\d+)\s*/\s*pcs?\b")
_TESTER = re.compile(r"\btester\b")
_SAMPLE = re.compile(r"\b(samples?|sampler|vials?)\b")
_REFILL = re.compile(r"\brefill\b")
_SET_WORD = re.compile(r"\b(gift\s*set|giftset|set|kit|coffret)\b")

_TO_ML = {"ml": Decimal(1), "mls": Decimal(1), "cl": Decimal(10)}
_LITRES = {"l", "lt", "ltr", "litre", "litres", "liter", "liters"}


def _normalise(text: str) -> str:
    text = fold(text)
    # Decimal commas ("0,7 l") become points; thousands separators are not used for sizes.
    return re.sub(r"(?<=\d),(?=\d)", ".", text)


def _canonical(num: Decimal, unit: str) -> tuple[Decimal, Unit, str]:
    """(value, canonical unit, family) for one amount; family is volume, weight or count."""
    unit = re.sub(r"[\s.]", "", unit)
    if unit in _TO_ML:
        return num * _TO_ML[unit], Unit.ML, "metric"
    if unit in _LITRES:
        return num * 1000, Unit.ML, "metric"
    if unit in ("oz", "floz"):
        return ounces_to_ml(num), Unit.ML, "ounce"
    if unit == "kg":
        return num * 1000, Unit.G, "weight"
    if unit in ("g", "gr"):
        return num, Unit.G, "weight"
    return num, Unit.PCS, "count"


class _Flags(TypedDict):
    """The markers every reading carries, whatever else it found."""

    tester: bool
    sample: bool


def parse_quantity(text: str | None, *, dedicated: bool = False) -> Quantity:
    """Read the quantity out of ``text``.

    ``dedicated`` means the text is a quantity field (a bottle-size column) rather than a
    product name: there, failing to read anything is ``unparsed``; in a name it is ``none``.
    Conflicting amounts are ``unparsed``: a size is never guessed.
    """
    if not text or not text.strip():
        return Quantity(state=State.NONE)
    t = _normalise(text)
    flags: _Flags = {
        "tester": bool(_TESTER.search(t)),
        "sample": bool(_SAMPLE.search(t)),
    }
    refill = bool(_REFILL.search(t))

    promo = _PROMO.search(t)
    if promo:
        base, extra = Decimal(promo["base"]), Decimal(promo["extra"])
        unit = Unit.ML if promo["unit"] == "ml" else Unit.G
        return Quantity(
            state=State.STATED, value=base + extra, unit=unit, promo_extra=extra, **flags
        )

    amounts = []
    for m in _AMOUNT.finditer(t):
        num = Decimal(m["num"])
        if num <= 0:
            continue
        value, unit, family = _canonical(num, m["unit"])
        amounts.append((value, unit, family, m))

    pieces = _PIECES_SLASH.search(t)
    if pieces:
        amounts.append((Decimal(pieces["count"]), Unit.PCS, "count", pieces))

    volumes = [a for a in amounts if a[2] == "metric"] or [a for a in amounts if a[2] == "ounce"]
    weights = [a for a in amounts if a[2] == "weight"]
    counts = [a for a in amounts if a[2] == "count"]
    set_of = _SET_OF.search(t)

    if not amounts and not set_of:
        if dedicated:
            return Quantity(state=State.UNPARSED, problem="no amount with a unit", **flags)
        return Quantity(state=State.NONE, **flags)

    if volumes and weights:
        return Quantity(state=State.UNPARSED, problem="both a volume and a weight", **flags)

    measured = volumes or weights
    if measured:
        distinct = sorted({a[0] for a in measured}, reverse=True)
        unit = measured[0][1]
        joined = len(distinct) > 1 and "+" in t
        if joined:
            contents = tuple(
                f"{_fmt(v)}{unit}" for v in sorted((a[0] for a in measured), reverse=True)
            )
            return Quantity(
                state=State.STATED,
                value=sum((a[0] for a in measured), Decimal(0)),
                unit=unit,
                form=Form.SET,
                set_contents=contents,
                **flags,
            )
        if len(distinct) > 1:
            return Quantity(
                state=State.UNPARSED,
                problem="different amounts: " + ", ".join(f"{_fmt(v)}{unit}" for v in distinct),
                **flags,
            )
        single = distinct[0]
        size_value = size_unit = None
        metric = next((a for a in measured if a[2] == "metric"), None)
        if metric is not None:
            stated_unit = re.sub(r"[\s.]", "", metric[3]["unit"])
            size_value = Decimal(metric[3]["num"])
            size_unit = "l" if stated_unit in _LITRES else ("cl" if stated_unit == "cl" else "ml")
        count = _pack_count(t)
        if count and count > 1:
            return Quantity(
                state=State.STATED,
                value=single * count,
                unit=unit,
                form=Form.PACK,
                pack_count=count,
                pack_unit_value=single,
                size_value=size_value,
                size_unit=size_unit,
                **flags,
            )
        if set_of:
            return Quantity(
                state=State.STATED,
                value=single * int(set_of["count"]),
                unit=unit,
                form=Form.SET,
                set_contents=tuple([f"{_fmt(single)}{unit}"] * int(set_of["count"])),
                **flags,
            )
        return Quantity(
            state=State.STATED,
            value=single,
            unit=unit,
            form=Form.REFILL if refill else Form.SINGLE,
            size_value=size_value,
            size_unit=size_unit,
            **flags,
        )

    # Only counts: pieces in a box, vials in a sampler, items in a set.
    if set_of and not counts:
        items = int(set_of["count"])
        return Quantity(
            state=State.STATED, value=Decimal(items), unit=Unit.PCS, form=Form.SET, **flags
        )
    distinct_counts = {a[0] for a in counts}
    if len(distinct_counts) > 1:
        return Quantity(state=State.UNPARSED, problem="different piece counts", **flags)
    n = distinct_counts.pop()
    form = Form.SET if (set_of or _SET_WORD.search(t)) else Form.SINGLE
    return Quantity(state=State.STATED, value=n, unit=Unit.PCS, form=form, **flags)


def _pack_count(t: str) -> int | None:
    before = _PACK_BEFORE.search(t)
    if before:
        return int(before["count"])
    after = _PACK_AFTER.search(t)
    if after:
        return int(after["count"])
    return None
