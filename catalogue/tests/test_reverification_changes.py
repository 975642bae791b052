"""Listings whose shop changed what it says the product is enter the reverification queue;
working a row records a verification run with a check per listing read, audited."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from accounts.models import AuditEntry
from accounts.services import account_groups_sync
from catalogue import services
from catalogue.identity import RULES_VERSION
from catalogue.identity.keys import Listed
from catalogue.models import Reverification, VerificationCheck, VerificationRun
from catalogue.services.reverify import DATA_CHANGED, OLD_RULES
from catalogue.tests.factories import (
    ListingFactory,
    LocationFactory,
    PriceObservationFactory,
    ProductFactory,
)

pytestmark = pytest.mark.django_db
SEEN = datetime(2026, 1, 5, 9, tzinfo=UTC)
NAME = "Vireo Brisant EDT Men 100 ml"


def see(location, name=NAME, gtin=None, price=None):
    return services.listing_record_sighting(
        sighting=services.Sighting(
            location=location,
            source_sku="brisant-100",
            listed=Listed(brand="Vireo", name=name, gtin=gtin),
            vertical="fragrance",
            seen_at=SEEN,
            identity_mode="gtin_then_key",
        ),
        price=price,
    )


@pytest.fixture
def lhr():
    return LocationFactory(code="lhr", iata="LHR")


@pytest.fixture
def changed(lhr):
    """A listing whose title the shop changed on the next collection."""
    see(lhr)
    return see(lhr, name="Vireo Brisant Intense EDP Men 100 ml").listing


def test_a_recollection_changing_the_title_stamps_the_listing(lhr):
    first = see(lhr).listing
    assert first.listed_changed_at is None
    again = see(lhr, name="Vireo Brisant Intense EDP Men 100 ml").listing
    assert again.listed_changed_at is not None


def test_a_recollection_changing_only_the_price_is_no_change(lhr):
    see(lhr)
    price = services.ObservedPrice(price=Decimal("80.00"), currency="GBP", observed_at=SEEN)
    assert see(lhr, price=price).listing.listed_changed_at is None


def test_a_barcode_published_later_is_a_change(lhr):
    see(lhr)
    assert see(lhr, gtin="3348901250146").listing.listed_changed_at is not None


def test_a_changed_listing_never_checked_is_queued_once(changed):
    assert services.reverifications_queue_changed_data() == 1
    assert services.reverifications_queue_changed_data() == 0
    row = Reverification.objects.get()
    assert (row.reason, row.listing, row.product_id) == (
        DATA_CHANGED,
        changed,
        changed.product_id,
    )
    assert row.detail["listed"]["listed_name"] == "Vireo Brisant Intense EDP Men 100 ml"
    assert row.detail["last_checked_at"] is None


def test_an_unchanged_listing_is_not_queued(lhr):
    see(lhr)
    see(lhr)
    assert services.reverifications_queue_changed_data() == 0


def test_a_listing_checked_after_its_change_is_not_queued(changed, editor):
    services.verification_record(
        checks=[services.CheckRead(listing=changed, verdict="agrees")],
        mode="sample",
        actor=editor,
    )
    assert services.reverifications_queue_changed_data() == 0


def test_a_change_after_the_last_check_is_queued_with_what_the_check_saw(changed, lhr, editor):
    services.verification_record(
        checks=[services.CheckRead(listing=changed, verdict="agrees")],
        mode="sample",
        actor=editor,
    )
    see(lhr, name="Vireo Brisant Elixir Men 100 ml")
    assert services.reverifications_queue_changed_data() == 1
    row = Reverification.objects.get()
    assert row.detail["was"]["listed_name"] == "Vireo Brisant Intense EDP Men 100 ml"
    assert row.detail["listed"]["listed_name"] == "Vireo Brisant Elixir Men 100 ml"


def test_an_ignored_listing_is_not_queued(changed, editor):
    services.listing_ignore(listing=changed, actor=editor, reason="a tester, not sold")
    assert services.reverifications_queue_changed_data() == 0


def test_a_run_records_each_check_with_its_verdict_and_the_listed_baseline(editor):
    seen = PriceObservationFactory()
    other = ListingFactory(listed_gtin="3348901250146")
    run = services.verification_record(
        checks=[
            services.CheckRead(listing=seen.listing, verdict="agrees"),
            services.CheckRead(
                listing=other, verdict="size_differs", live_size_ml=Decimal("50"), note="page"
            ),
        ],
        mode="full",
        actor=editor,
    )
    checks = {check.listing_id: check for check in run.checks.all()}
    assert (run.mode, run.n, run.finished_at is not None) == ("full", 2, True)
    assert checks[seen.listing_id].observation_id == seen.pk
    assert checks[other.pk].verdict == "size_differs"
    assert checks[other.pk].live_size_ml == Decimal("50")
    assert checks[other.pk].detail["listed"]["listed_gtin"] == "3348901250146"


def test_a_run_is_audited_with_its_verdicts(editor):
    listing = ListingFactory()
    run = services.verification_record(
        checks=[services.CheckRead(listing=listing, verdict="gone")], mode="sample", actor=editor
    )
    entry = AuditEntry.objects.get(action="verification.record")
    assert (entry.actor, entry.entity_key, entry.detail["verdicts"]) == (
        editor,
        str(run.pk),
        {"gone": 1},
    )


def test_a_run_with_an_unknown_verdict_writes_nothing(editor):
    listing = ListingFactory()
    with pytest.raises(ValidationError, match="'fine' is not one of"):
        services.verification_record(
            checks=[services.CheckRead(listing=listing, verdict="fine")],
            mode="sample",
            actor=editor,
        )
    assert not VerificationRun.objects.exists()
    assert not AuditEntry.objects.filter(action="verification.record").exists()


def test_a_run_of_no_checks_is_refused(editor):
    with pytest.raises(ValidationError, match="at least one listing"):
        services.verification_record(checks=[], mode="sample", actor=editor)


def test_working_a_product_row_checks_each_kept_listing_of_the_product(editor):
    product = ProductFactory(identity_rules_version=RULES_VERSION - 1)
    kept = ListingFactory.create_batch(2, product=product)
    ignored = ListingFactory(product=product)
    services.listing_ignore(listing=ignored, actor=editor, reason="wrong shop")
    services.reverifications_queue_old_rules()
    row = services.reverification_done(
        reverification=Reverification.objects.get(), result="one product", actor=editor,
        note="read both pages", verdict="agrees",
    )  # fmt: skip
    run = VerificationRun.objects.get(pk=row.detail["run"])
    assert run.mode == VerificationRun.Mode.EDITOR
    assert {c.listing_id for c in run.checks.all()} == {listing.pk for listing in kept}


def test_working_a_changed_row_checks_its_listing_and_it_stays_out_of_the_queue(changed, editor):
    services.reverifications_queue_changed_data()
    services.reverification_done(
        reverification=Reverification.objects.get(), result="renamed, same bottle",
        actor=editor, note="shop page", verdict="agrees",
    )  # fmt: skip
    check = VerificationCheck.objects.get()
    assert (check.listing, check.verdict) == (changed, "agrees")
    assert services.reverifications_queue_changed_data() == 0


def test_a_product_worked_under_the_current_rules_is_not_queued_again(editor):
    ProductFactory(identity_rules_version=RULES_VERSION - 1)
    services.reverifications_queue_old_rules()
    services.reverification_done(
        reverification=Reverification.objects.get(reason=OLD_RULES), result="fine",
        actor=editor, note="read it",
    )  # fmt: skip
    assert services.reverifications_queue_old_rules() == 0


def test_an_unknown_verdict_leaves_the_row_waiting(changed, editor):
    services.reverifications_queue_changed_data()
    row = Reverification.objects.get()
    with pytest.raises(ValidationError, match="'maybe' is not one of"):
        services.reverification_done(
            reverification=row, result="x", actor=editor, note="y", verdict="maybe"
        )
    row.refresh_from_db()
    assert row.done_at is None and not VerificationRun.objects.exists()


def test_the_command_queues_both_reasons(changed, capsys):
    ProductFactory(identity_rules_version=RULES_VERSION - 1)
    call_command("reverifications_queue")
    assert "old_rules=1 data_changed=1" in capsys.readouterr().out


def test_an_editor_works_a_changed_listing_in_the_console(client, editor, changed):
    """The editor's round: the home queue, the queue's list, the action with a verdict."""
    services.reverifications_queue_changed_data()
    account_groups_sync(user=editor)
    client.force_login(editor)
    url = reverse("admin:catalogue_reverification_changelist")
    listing_page = client.get(url, {"done_at__isempty": "1"})
    assert DATA_CHANGED in listing_page.content.decode()
    row = Reverification.objects.get()
    chosen = {"action": "mark_done", "_selected_action": [row.pk]}
    assert client.post(url, chosen).status_code == 200  # the confirmation page
    client.post(
        url,
        {**chosen, "confirm": "yes", "verdict": "product_differs",
         "result": "now the Intense, another product", "note": "read the shop's page"},
    )  # fmt: skip
    row.refresh_from_db()
    check = VerificationCheck.objects.get()
    assert row.done_at is not None and row.detail["verdict"] == "product_differs"
    assert (check.listing, check.verdict, check.run.mode) == (changed, "product_differs", "editor")
    assert AuditEntry.objects.get(action="verification.record").actor == editor
    assert AuditEntry.objects.get(action="reverification.done").actor == editor
