from django.apps import AppConfig


class SportsConfig(AppConfig):
    name = "sports"
    verbose_name = "Sports"
    default_auto_field = "django.db.models.BigAutoField"
