from django.apps import AppConfig


class CatalogueConfig(AppConfig):
    name = "catalogue"
    verbose_name = "Catalogue"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # App registry: the queue's levels need the catalogue's models, which are loaded only
        # once every app is.
        from catalogue import readable  # app registry: the readers name its models
        from catalogue.candidates import register  # app registry, as above

        register()
        readable.register()

        # The home page's panel (omnium imports no app; each app registers its own).
        from catalogue.home import register as home_register

        home_register()
