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
        "20", "25", "30", "35", "40", "45", "50", "60", "65", "70", "75", "80", "90",
        "100", "105", "110", "118", "120", "125", "150", "175", "180", "200", "225", "250",
        "300", "350", "375", "400", "450", "500", "700", "750", "1000",
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
    # Set when the text states an amount no purchase can have (negative, zero, written as
    # a float exponent, beyond ``MAX_PER_UNIT``): the row is refused with this rule.
    rule: str = ""

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
        # A tester (or a bottle sold without its box) is the same product: it keys with the
        # retail item and is marked on the listing's product attributes only.
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


# A number may start with its point (".5 oz") only where no word ends right before it: in
# "Botanic T.400ml" the point closes an abbreviation and the amount is 400 ml.
_NUM = r"(?:[0-9]+(?:\.[0-9]+)?|(?<![a-z])\.[0-9]+)"
_UNIT = r"(?:fl\.?\s*oz|oz|ml|mls|cl|litres?|liters?|ltr|lt|l|kg|gr|g|pcs|pc|kom)"
_AMOUNT = re.compile(rf"(?<![0-9])(?<![0-9]\.)(?P<num>{_NUM})\s*(?P<unit>{_UNIT})\.?(?![a-z])")
# A bare decimal a fragrance seller means as ounces ("Khadlaj ... 3.4 EDP"): only the US
# bottle sizes, and only when the name states no other amount.
_BARE_OUNCES = re.compile(r"(?<![\w.])(?P<num>[0-9]\.[0-9]{1,2})(?![\w.%/])")
BARE_OUNCE_SIZES = frozenset(
    Decimal(s) for s in ("1.0", "1.6", "1.7", "2.0", "2.5", "3.0", "3.3", "3.4", "4.2", "5.0",
                         "6.7", "6.8")
)  # fmt: skip
_PACK_BEFORE = re.compile(
    rf"(?<![0-9.])(?P<count>[0-9]+)\s*[x\u00d7*]\s*(?={_NUM}\s*{_UNIT}(?![a-z]))"
)
_PACK_AFTER = re.compile(
    rf"{_UNIT}\.?\s*[x\u00d7*]\s*(?P<count>[0-9]+)(?![0-9.]|\s*{_NUM}?\s*{_UNIT})"
)
_PROMO = re.compile(
    rf"(?P<base>{_NUM})\s*(?P<unit>ml|g)\s*\+\s*(?P<extra>{_NUM})\s*(?:ml|g)?\s*"
    r"(?:gratis|free|bonus|extra|besplatno)"
)
_SET_OF = re.compile(r"\bset\s+of\s+(?P<count>[0-9]+)\b")
_PIECES_SLASH = re.compile(r"(?<![0-9.])(?P<count>[0-9]+)\s*/\s*pcs?\b")
_TESTER = re.compile(r"\btester\b")
_SAMPLE = re.compile(r"\b(samples?|sampler|vials?)\b")
_REFILL = re.compile(r"\brefill\b")
_SET_WORD = re.compile(r"\b(gift\s*set|giftset|set|kit|coffret)\b")
# "Lot of 4", "Pack of 12": that many of the stated item in one purchase.
_LOT_OF = re.compile(r"\b(?:lot|pack)\s+of\s+(?P<count>[0-9]{1,4})\b")

_TO_ML = {"ml": Decimal(1), "mls": Decimal(1), "cl": Decimal(10)}
_LITRES = {"l", "lt", "ltr", "litre", "litres", "liter", "liters"}


def _normalise(text: str) -> str:
    text = fold(text)
    # Decimal commas ("0,7 l") become points; thousands separators are not used for sizes.
    return re.sub(r"(?<=[0-9]),(?=[0-9])", ".", text)


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


# The most any one purchase holds, per canonical unit (a 50 l keg, a 100 kg sack, ten
# thousand pieces): an amount beyond it is no size at all.
MAX_PER_UNIT = {Unit.ML: Decimal(100_000), Unit.G: Decimal(100_000), Unit.PCS: Decimal(10_000)}
# Tighter bounds where a vertical's purchases are small: a 50 l perfume is a typo. A
# vertical or unit not named here is bounded by MAX_PER_UNIT alone.
VERTICAL_MAX = {
    "fragrance": {Unit.ML: Decimal(5_000), Unit.G: Decimal(5_000)},
    "beauty": {Unit.ML: Decimal(10_000), Unit.G: Decimal(10_000)},
}
# Digits an amount or count may have before it is no size at all (and before arithmetic
# on it could overflow).
_MAX_DIGITS = 7


class QuantityRule(StrEnum):
    NEGATIVE = "quantity_negative"
    NOT_POSITIVE = "quantity_not_positive"
    NOT_A_NUMBER = "quantity_not_a_number"
    OUT_OF_BOUNDS = "quantity_out_of_bounds"


def _refused(rule: QuantityRule, problem: str, flags: _Flags) -> Quantity:
    return Quantity(state=State.UNPARSED, problem=problem, rule=rule, **flags)


def _amount_rule(t: str, m: re.Match[str], *, dedicated: bool) -> tuple[QuantityRule, str] | None:
    """What is wrong with one amount as written, if anything. A minus sign counts only in
    a quantity column: in a name a dash separates words ("... for Men -100ml")."""
    start, written = m.start(), m.group(0).strip()
    before = t[start - 1] if start else ""
    if dedicated and before == "-" and (start < 2 or not t[start - 2].isalnum()):
        return QuantityRule.NEGATIVE, f"a negative amount: -{written}"
    if before == "e" and start >= 2 and t[start - 2] in "0123456789.":
        return QuantityRule.NOT_A_NUMBER, f"an amount written as an exponent: ...e{written}"
    if len(m["num"].split(".")[0]) > _MAX_DIGITS:
        return QuantityRule.OUT_OF_BOUNDS, f"an amount beyond any size: {written[:40]}"
    if Decimal(m["num"]) <= 0:
        return QuantityRule.NOT_POSITIVE, f"an amount of zero: {written}"
    return None


def quantity_refusal(quantity: Quantity, *, vertical: str) -> tuple[str, str] | None:
    """(rule, sentence) when ``quantity`` is one no purchase of ``vertical`` has: the
    parser's own rule, or an amount beyond the vertical's bound for its unit."""
    if quantity.rule:
        return quantity.rule, quantity.problem
    if quantity.value is None or quantity.unit is None:
        return None
    ceiling = VERTICAL_MAX.get(vertical, {}).get(quantity.unit)
    if ceiling is not None and quantity.value > ceiling:
        return (
            QuantityRule.OUT_OF_BOUNDS,
            f"{_fmt(quantity.value)} {quantity.unit} is beyond any {vertical} purchase "
            f"(at most {_fmt(ceiling)} {quantity.unit})",
        )
    return None


def _too_long(*counts: str | None) -> bool:
    return any(count is not None and len(count) > _MAX_DIGITS for count in counts)


class _Flags(TypedDict):
    """The markers every reading carries, whatever else it found."""

    tester: bool
    sample: bool


def parse_quantity(
    text: str | None, *, dedicated: bool = False, bare_ounces: bool = False
) -> Quantity:
    """Read the quantity out of ``text``.

    ``dedicated`` means the text is a quantity field (a bottle-size column) rather than a
    product name: there, failing to read anything is ``unparsed``; in a name it is ``none``.
    Conflicting amounts are ``unparsed``: a size is never guessed. An amount no purchase
    can have (negative, zero, an exponent, beyond ``MAX_PER_UNIT``) is ``unparsed`` with
    its ``rule``. Any text gives a Quantity: this never raises.

    ``bare_ounces`` (fragrance names) reads a bare US bottle size with no unit ("3.4 EDP")
    as ounces when the name states no other amount.
    """
    quantity = _parse(text, dedicated=dedicated, bare_ounces=bare_ounces)
    if quantity.value is not None and quantity.unit is not None:
        ceiling = MAX_PER_UNIT[quantity.unit]
        if quantity.value > ceiling:
            return Quantity(
                state=State.UNPARSED,
                problem=f"{_fmt(quantity.value)} {quantity.unit} is beyond any size "
                f"(at most {_fmt(ceiling)} {quantity.unit})",
                rule=QuantityRule.OUT_OF_BOUNDS,
                tester=quantity.tester,
                sample=quantity.sample,
            )
    return quantity


def _parse(text: str | None, *, dedicated: bool, bare_ounces: bool = False) -> Quantity:
    if not text or not text.strip():
        return Quantity(state=State.NONE)
    t = _normalise(text)
    flags: _Flags = {
        "tester": bool(_TESTER.search(t)),
        "sample": bool(_SAMPLE.search(t)),
    }
    refill = bool(_REFILL.search(t))

    promo = _PROMO.search(t)
    if promo and _too_long(promo["base"].split(".")[0], promo["extra"].split(".")[0]):
        return _refused(QuantityRule.OUT_OF_BOUNDS, "an amount beyond any size", flags)
    if promo:
        base, extra = Decimal(promo["base"]), Decimal(promo["extra"])
        unit = Unit.ML if promo["unit"] == "ml" else Unit.G
        return Quantity(
            state=State.STATED, value=base + extra, unit=unit, promo_extra=extra, **flags
        )

    amounts = []
    for m in _AMOUNT.finditer(t):
        wrong = _amount_rule(t, m, dedicated=dedicated)
        if wrong is not None:
            return _refused(*wrong, flags)
        value, unit, family = _canonical(Decimal(m["num"]), m["unit"])
        amounts.append((value, unit, family, m))

    pieces = _PIECES_SLASH.search(t)
    set_of = _SET_OF.search(t)
    counts_written = (
        pieces["count"] if pieces else None,
        set_of["count"] if set_of else None,
        *(m["count"] for m in (_PACK_BEFORE.search(t), _PACK_AFTER.search(t)) if m),
    )
    if _too_long(*counts_written):
        return _refused(QuantityRule.OUT_OF_BOUNDS, "a count beyond any pack", flags)
    if pieces:
        amounts.append((Decimal(pieces["count"]), Unit.PCS, "count", pieces))

    volumes = [a for a in amounts if a[2] == "metric"] or [a for a in amounts if a[2] == "ounce"]
    weights = [a for a in amounts if a[2] == "weight"]
    counts = [a for a in amounts if a[2] == "count"]

    if not amounts and not set_of and bare_ounces:
        bare = {Decimal(m["num"]) for m in _BARE_OUNCES.finditer(t)} & BARE_OUNCE_SIZES
        if len(bare) == 1:
            ounces = bare.pop()
            return Quantity(state=State.STATED, value=ounces_to_ml(ounces), unit=Unit.ML, **flags)
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
        if _SET_WORD.search(t):
            # A set with one stated item ("2 Piece Set 3.4 oz EDT + Deodorant"): a set of
            # its own, never the single bottle.
            return Quantity(
                state=State.STATED,
                value=single,
                unit=unit,
                form=Form.SET,
                set_contents=(f"{_fmt(single)}{unit}",),
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
    lot = _LOT_OF.search(t)
    if lot:
        return int(lot["count"])
    before = _PACK_BEFORE.search(t)
    if before:
        return int(before["count"])
    after = _PACK_AFTER.search(t)
    if after:
        return int(after["count"])
    return None
