from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"
    verbose_name = "Site search"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # App registry: the catalogue's list searches through the site search, which it
        # cannot import (search sits above it); the selectors read other apps' models.
        from catalogue.search_hook import product_finder_register
        from search.selectors import products_found  # app registry, as above

        product_finder_register(products_found)
