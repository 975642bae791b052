"""Price alerts: following a product, and what a new price sets off."""

import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from accounts.models import OutboxMessage
from catalogue.alert_records import Follow, PriceAlert
from catalogue.models import PriceObservation
from catalogue.services import (
    alert_check,
    alert_queue,
    follow_remove,
    follow_set,
    price_observation_record,
    product_merge,
)
from catalogue.tests.factories import (
    FxRateFactory,
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
)
from discussions.models import Notification

pytestmark = pytest.mark.django_db

JAN = datetime(2026, 1, 5, 9, tzinfo=UTC)


@pytest.fixture
def lhr():
    return LocationFactory(code="lhr-alerts", iata="LHR", currency="GBP", name="LHR Duty Free")


@pytest.fixture
def listing(lhr):
    listing = ListingFactory(location=lhr, product=ProductFactory(name="Sauvage EDT 100 ml"))
    PriceObservationFactory(listing=listing, price=Decimal("100.00"), observed_at=JAN)
    return listing


def observe(listing, price, *, day=6, currency="GBP"):
    return price_observation_record(
        listing=listing,
        price=Decimal(price),
        currency=currency,
        observed_at=JAN.replace(day=day),
    )


def alerts_for(user):
    return Notification.objects.filter(recipient=user, kind="price_alert")


def test_a_price_at_or_below_the_target_alerts_once(viewer, listing):
    follow_set(
        user=viewer, product=listing.product, actor=viewer,
        target_price=Decimal("95"), target_currency="gbp",
    )  # fmt: skip
    report = alert_check(observation_ids=[observe(listing, "95.00").pk])
    assert (report.sent, report.already_sent) == (1, 0)
    notification = alerts_for(viewer).get()
    assert "95.00 GBP at LHR" in notification.body and "was 100.00 GBP" in notification.body
    assert notification.url == f"/catalogue/products/{listing.product.pk}/"
    assert PriceAlert.objects.get().reason == "target"


def test_a_price_staying_under_the_target_alerts_again_only_when_it_falls(
    viewer, listing, monkeypatch
):
    from catalogue.services import alerts

    follow_set(
        user=viewer, product=listing.product, actor=viewer,
        target_price=Decimal("95"), target_currency="GBP",
    )  # fmt: skip
    assert alert_check(observation_ids=[observe(listing, "90.00").pk]).sent == 1
    tomorrow = PriceAlert.objects.get().day + timedelta(days=1)
    monkeypatch.setattr(alerts.timezone, "localdate", lambda: tomorrow)
    assert alert_check(observation_ids=[observe(listing, "90.00", day=7).pk]).sent == 0
    assert alert_check(observation_ids=[observe(listing, "85.00", day=8).pk]).sent == 1
    assert alerts_for(viewer).count() == 2


def test_a_price_above_the_target_does_not_alert(viewer, listing):
    follow_set(
        user=viewer, product=listing.product, actor=viewer,
        target_price=Decimal("90"), target_currency="GBP",
    )  # fmt: skip
    assert alert_check(observation_ids=[observe(listing, "95.00").pk]).sent == 0
    assert not alerts_for(viewer).exists()


def test_a_target_in_another_currency_compares_in_usd_at_the_days_rates(viewer, listing):
    FxRateFactory(currency="GBP", rate_to_usd=Decimal("1.25"), as_of=JAN.date())
    FxRateFactory(currency="EUR", rate_to_usd=Decimal("1.10"), as_of=JAN.date())
    follow_set(
        user=viewer, product=listing.product, actor=viewer,
        target_price=Decimal("110"), target_currency="EUR",  # 121 USD
    )  # fmt: skip
    above = observe(listing, "98.00")  # 122.50 USD
    assert alert_check(observation_ids=[above.pk]).sent == 0
    below = observe(listing, "96.00", day=7)  # 120 USD
    assert alert_check(observation_ids=[below.pk]).sent == 1


def test_a_target_with_no_rate_for_its_currency_never_alerts(viewer, listing):
    follow_set(
        user=viewer, product=listing.product, actor=viewer,
        target_price=Decimal("1000"), target_currency="RSD",
    )  # fmt: skip
    assert alert_check(observation_ids=[observe(listing, "1.00").pk]).sent == 0


def test_a_drop_of_the_followed_percentage_alerts(viewer, editor, listing):
    follow_set(user=viewer, product=listing.product, actor=viewer, drop_percent=Decimal("10"))
    follow_set(user=editor, product=listing.product, actor=editor, drop_percent=Decimal("20"))
    report = alert_check(observation_ids=[observe(listing, "90.00").pk])
    assert report.sent == 1
    assert alerts_for(viewer).count() == 1 and not alerts_for(editor).exists()
    assert PriceAlert.objects.get().previous_price == Decimal("100.00")


def test_a_follow_with_no_terms_alerts_on_any_drop_but_not_a_rise(viewer, listing):
    follow_set(user=viewer, product=listing.product, actor=viewer)
    assert alert_check(observation_ids=[observe(listing, "101.00").pk]).sent == 0
    assert alert_check(observation_ids=[observe(listing, "99.00", day=7).pk]).sent == 1


def test_a_price_at_an_airport_outside_the_set_does_not_alert(viewer, listing):
    follow_set(
        user=viewer, product=listing.product, actor=viewer,
        drop_percent=Decimal("5"), airports=["dxb", "cdg"],
    )  # fmt: skip
    assert alert_check(observation_ids=[observe(listing, "50.00").pk]).sent == 0
    dxb = ListingFactory(product=listing.product, location=LocationFactory(iata="DXB"))
    PriceObservationFactory(listing=dxb, price=Decimal("100.00"), observed_at=JAN)
    assert alert_check(observation_ids=[observe(dxb, "50.00").pk]).sent == 1


def test_alerts_are_sent_once_per_product_and_day(viewer, listing):
    follow_set(user=viewer, product=listing.product, actor=viewer, drop_percent=Decimal("5"))
    first = observe(listing, "90.00")
    assert alert_check(observation_ids=[first.pk]).sent == 1
    # The same batch again (a retried task), then a lower price the same day.
    assert alert_check(observation_ids=[first.pk]).already_sent == 1
    report = alert_check(observation_ids=[observe(listing, "80.00", day=7).pk])
    assert (report.sent, report.already_sent) == (0, 1)
    assert alerts_for(viewer).count() == 1
    alert = PriceAlert.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        PriceAlert.objects.create(
            user=viewer, product=listing.product, day=alert.day,
            observation=alert.observation, reason="drop",
        )  # fmt: skip


def test_an_older_price_arriving_late_does_not_alert(viewer, listing):
    follow_set(user=viewer, product=listing.product, actor=viewer, drop_percent=Decimal("5"))
    late = observe(listing, "50.00", day=4)
    assert alert_check(observation_ids=[late.pk]).sent == 0


def test_a_follow_of_a_merged_product_alerts_on_its_survivor(viewer, editor, listing):
    loser = ProductFactory()
    follow_set(user=viewer, product=loser, actor=viewer, drop_percent=Decimal("5"))
    middle = ProductFactory()
    product_merge(loser=loser, survivor=middle, actor=editor, note="same bottle")
    product_merge(loser=middle, survivor=listing.product, actor=editor, note="same bottle")
    assert alert_check(observation_ids=[observe(listing, "90.00").pk]).sent == 1
    assert PriceAlert.objects.get().product == listing.product
    # Following the survivor again is the same follow, with new terms.
    follow = follow_set(user=viewer, product=listing.product, actor=viewer)
    assert Follow.objects.get() == follow and follow.product == listing.product
    assert follow_remove(user=viewer, product=loser, actor=viewer) is True
    assert not Follow.objects.exists()


def test_bad_terms_name_each_field_and_write_nothing(viewer, listing):
    with pytest.raises(ValidationError) as error:
        follow_set(
            user=viewer, product=listing.product, actor=viewer,
            target_price=Decimal("-1"), target_currency="GBP",
            drop_percent=Decimal("150"), airports=["LONDON"],
        )  # fmt: skip
    assert set(error.value.message_dict) == {"target_price", "drop_percent", "airports"}
    assert not Follow.objects.exists()


def test_unfollowing_stops_alerts_and_a_second_unfollow_is_a_no_op(viewer, listing):
    follow_set(user=viewer, product=listing.product, actor=viewer)
    assert follow_remove(user=viewer, product=listing.product, actor=viewer) is True
    assert follow_remove(user=viewer, product=listing.product, actor=viewer) is False
    assert alert_check(observation_ids=[observe(listing, "50.00").pk]).sent == 0


def _checks_asked() -> list:
    return [
        message.args[0]
        for message in OutboxMessage.objects.filter(task="catalogue.price_alerts_check")
    ]


def test_a_new_price_queues_the_check_on_commit_only_when_followed(
    viewer, listing, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        observe(listing, "99.00")
    assert not callbacks and not _checks_asked()
    follow_set(user=viewer, product=listing.product, actor=viewer)
    with django_capture_on_commit_callbacks() as callbacks:
        observation = observe(listing, "98.00", day=7)
    # Asked for in the observation's transaction, sent once it commits.
    assert _checks_asked() == [[observation.pk]] and len(callbacks) == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_sends_one_notification_for_a_new_lower_price(
    celery_worker_process, settings, viewer, listing
):
    from catalogue.tasks import price_alerts_check

    settings.PRICE_ALERT_QUEUE = celery_worker_process.queue
    follow_set(user=viewer, product=listing.product, actor=viewer, drop_percent=Decimal("5"))
    # Committed on its own, so the check is sent to the worker on commit.
    lower = observe(listing, "90.00")
    deadline = time.monotonic() + 60
    while not alerts_for(viewer).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert alerts_for(viewer).count() == 1
    # A lower price the same day and the same check again send nothing more.
    again = price_alerts_check.apply_async(
        args=[[lower.pk, observe(listing, "80.00", day=7).pk]], queue=celery_worker_process.queue
    )
    assert again.get(timeout=60)["sent"] == 0
    assert alerts_for(viewer).count() == 1
    assert PriceAlert.objects.get().observation_id == lower.pk


def test_a_collection_run_queues_the_check_of_a_followed_products_new_price(
    viewer, tmp_path, django_capture_on_commit_callbacks
):
    from catalogue.collection_records import Source
    from ingest.collectors.services import source_collect

    source = Source.objects.create(
        slug="alerts-feed", name="Alerts feed", feed_format="generic_csv",
        location=LocationFactory(code="alerts-lhr", iata="LHR", currency="GBP"),
        mapping={"fields": {"sku": "sku", "name": "name", "price": "price",
                            "currency": "currency", "observed_at": "seen"},
                 "defaults": {"vertical": "fragrance"}},
    )  # fmt: skip
    feed = tmp_path / "feed.csv"
    row = "sku,name,price,currency,seen\nA1,Dior Sauvage EDT 100 ml,{price},GBP,{seen}\n"
    feed.write_text(row.format(price="92.00", seen="2026-01-05T09:00:00Z"))
    source_collect(source=source, path=feed)
    product = PriceObservation.objects.get().listing.product
    follow_set(user=viewer, product=product, actor=viewer, drop_percent=Decimal("5"))
    feed.write_text(row.format(price="80.00", seen="2026-01-06T09:00:00Z"))
    with django_capture_on_commit_callbacks():
        source_collect(source=source, path=feed)
    asked = _checks_asked()
    assert len(asked) == 1
    assert alert_check(observation_ids=asked[0]).sent == 1
    assert "80.00 GBP at LHR" in alerts_for(viewer).get().body


def test_the_quick_followed_check_agrees_with_the_follows_queryset(viewer, editor, listing):
    loser, other = ProductFactory(), ProductFactory()
    follow_set(user=viewer, product=loser, actor=viewer)
    product_merge(loser=loser, survivor=listing.product, actor=editor, note="same bottle")
    for product in (listing.product, loser, other):
        assert alert_queue.product_followed(product.pk) == (
            Follow.objects.of_products([product.pk]).exists()
        )
    assert alert_queue.product_followed(listing.product.pk)
    assert not alert_queue.product_followed(other.pk)
