"""Celery adapters of the catalogue: ids in, one service call."""

from celery import shared_task

from catalogue.services.alerts import alert_check


@shared_task(name="catalogue.price_alerts_check", acks_late=True)
def price_alerts_check(observation_ids: list[int]) -> dict[str, int]:
    """Check new prices against the follows of their products (safe to run twice)."""
    report = alert_check(observation_ids=observation_ids)
    return {"checked": report.checked, "sent": report.sent, "already_sent": report.already_sent}
