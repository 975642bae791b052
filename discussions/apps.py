from django.apps import AppConfig

from omnium.notify import notifier_register


class DiscussionsConfig(AppConfig):
    name = "discussions"
    verbose_name = "Discussions"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # App registry: the readers name the app's models, loaded only once every app is.
        from discussions.readable import register

        register()

        # The one sender of notifications, for apps of its own layer (the catalogue's price
        # alerts) that may not import this one. App registry: the services name the models.
        from discussions.services import notification_send

        notifier_register(notification_send)
