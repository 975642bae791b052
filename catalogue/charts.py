"""The product page's price-history chart: one line per shop in the reader's currency, each
line's latest point marked and labelled."""

from __future__ import annotations

from datetime import date, timedelta

from catalogue.rates import LISTED
from catalogue.selectors import PriceHistory, ShopHistory
from omnium.charts import Chart, Series


def shop_label(history: ShopHistory) -> str:
    location = history.listing.location
    return f"{location.iata or location.name} · {location.retailer.name}"


def price_history_chart(history: PriceHistory) -> Chart | None:
    """The chart of ``product_price_history``'s answer, or None when nothing is priced."""
    currency = history.currency
    priced = [shop for shop in history.shops if shop.points]
    if not priced:
        return None

    def bucket(day: date) -> date:
        return day - timedelta(days=day.weekday()) if history.weekly else day

    per_shop: list[dict[date, float | None]] = []
    for shop in priced:
        values: dict[date, float | None] = {}
        for point in shop.points:
            shown = point.display_price
            values[bucket(point.observed_at.date())] = None if shown is None else float(shown)
        per_shop.append(values)
    axis = sorted({day for values in per_shop for day in values})
    series = []
    for shop, values in zip(priced, per_shop, strict=True):
        points = [values.get(day) for day in axis]
        drawn = [i for i, v in enumerate(points) if v is not None]
        latest = shop.points[-1]
        label = shop_label(shop)
        if currency == LISTED:
            label = f"{label} ({latest.currency})"
        notes: list[str] = []
        marks: list[int] = []
        if drawn and latest.display_price is not None:
            marks = [drawn[-1]]
            notes = [""] * len(points)
            shown_currency = latest.currency if currency == LISTED else currency
            notes[drawn[-1]] = (
                f"latest: {latest.display_price} {shown_currency} on {latest.observed_at:%Y-%m-%d}"
            )
            # The legend (and the table's heading) names the latest price too.
            label = f"{label}: latest {latest.display_price}"
        series.append(Series(label, points, marks=marks, notes=notes))
    unit = "each shop's own currency" if currency == LISTED else currency
    missing = sum(1 for shop in priced for p in shop.points if p.display_price is None)
    first, last = axis[0], max(shop.points[-1].observed_at.date() for shop in priced)
    summary = (
        f"Prices at {len(priced)} shop{'s' if len(priced) != 1 else ''} from {first:%Y-%m-%d} "
        f"to {last:%Y-%m-%d} in {unit}"
        + (", one point per week (its last price)" if history.weekly else "")
        + ". The marked point of each line is its latest price."
        + (f" {missing} without a rate to {unit} are left out." if missing else "")
    )
    return Chart(
        key="price-history",
        title="Price history",
        summary=summary,
        labels=[day.isoformat() for day in axis],
        series=series,
        x_label="Week of" if history.weekly else "Day",
        y_label=f"Price ({unit})",
    )
