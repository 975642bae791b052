from django.apps import AppConfig


class SportsConfig(AppConfig):
    name = "sports"
    verbose_name = "Sports"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # App registry: the participant level of the merge-candidate queue needs the spine's
        # models, which are loaded only once every app is.
        from sports import readable  # app registry: the readers name the spine's models
        from sports.services.participant_candidates import register  # app registry, as above

        register()
        readable.register()

        # The home page's panel (omnium imports no app; each app registers its own).
        from sports.home import register as home_register

        home_register()
