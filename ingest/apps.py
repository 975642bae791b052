from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = "Ingest"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # App registry: the readers name the pipelines' models, loaded only once every app is.
        from ingest.readable import register

        register()
