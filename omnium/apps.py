from django.apps import AppConfig


class OmniumConfig(AppConfig):
    name = "omnium"
    verbose_name = "omnium"
