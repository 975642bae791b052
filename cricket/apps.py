from django.apps import AppConfig


class CricketConfig(AppConfig):
    name = "cricket"
    label = "cricket"
    verbose_name = "Cricket"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # App registry: the readers name cricket's models, loaded only once every app is.
        from cricket.readable import register

        register()
