from django.apps import AppConfig


class CricketConfig(AppConfig):
    name = "cricket"
    label = "cricket"
    verbose_name = "Cricket"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # App registry: the readers name cricket's models, loaded only once every app is.
        from cricket.readable import register as readable_register

        readable_register()

        # The home page's panel (omnium imports no app; each app registers its own).
        from cricket.home import register as home_register

        home_register()

        # The spine never imports cricket: a cricket tree's league table becomes the
        # cricket points table through the spine's registry, once the apps are loaded.
        from cricket.points import COLUMNS, points_table  # models: the app registry is ready
        from sports.services import standings_provider_register  # likewise

        standings_provider_register("cricket", compute=points_table, columns=COLUMNS)
