from django.apps import AppConfig


class CricketConfig(AppConfig):
    name = "cricket"
    label = "cricket"
    verbose_name = "Cricket"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The home page's panel (omnium imports no app; each app registers its own).
        from cricket.home import register as home_register

        home_register()
