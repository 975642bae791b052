from django.apps import AppConfig


class DiscussionsConfig(AppConfig):
    name = "discussions"
    verbose_name = "Discussions"
    default_auto_field = "django.db.models.BigAutoField"
