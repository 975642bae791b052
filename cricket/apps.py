from django.apps import AppConfig


class CricketConfig(AppConfig):
    name = "cricket"
    label = "cricket"
    verbose_name = "Cricket"
    default_auto_field = "django.db.models.BigAutoField"
