from __future__ import annotations

from functools import cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from sports.plugins.base import SportPlugin


@cache
def get_plugin(key: str) -> SportPlugin:
    try:
        path = settings.SPORT_PLUGINS[key]
    except KeyError:
        raise ImproperlyConfigured(
            f"SPORT_PLUGINS has no plugin {key!r}; "
            f"known: {', '.join(sorted(settings.SPORT_PLUGINS))}."
        ) from None
    plugin = import_string(path)()
    if plugin.key != key:
        raise ImproperlyConfigured(
            f"SPORT_PLUGINS[{key!r}] points at a plugin keyed {plugin.key!r}."
        )
    return plugin
