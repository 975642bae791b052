from celery import shared_task

from discussions import services


@shared_task(
    name="discussions.deliver_notification_mail",
    autoretry_for=(OSError,),
    retry_backoff=True,
    max_retries=5,
)
def deliver_notification_mail(notification_id: int) -> bool:
    return services.notification_mail_deliver(notification_id=notification_id)
