from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"
    verbose_name = "Curation"
    default_auto_field = "django.db.models.BigAutoField"
