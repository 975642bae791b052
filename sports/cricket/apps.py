from django.apps import AppConfig


class CricketConfig(AppConfig):
    name = "sports.cricket"
    label = "cricket"
    verbose_name = "Cricket"
    default_auto_field = "django.db.models.BigAutoField"
