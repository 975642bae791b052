"""The admin app, with the console's own site (``accounts.console_home.ConsoleSite``).

Named in ``INSTALLED_APPS`` in place of ``django.contrib.admin``: every app's
``admin.register`` then registers with the console site, whose home page lists the queues
of the role at the keyboard. Kept in a module of its own because settings load it before
the app registry is ready (the site module reads the role table, which needs models).
"""

from django.contrib.admin.apps import AdminConfig


class ConsoleAdminConfig(AdminConfig):
    default_site = "accounts.console_home.ConsoleSite"
