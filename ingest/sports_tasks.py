"""Celery adapters for the sports importers: ids and paths in, one importer call, a summary
out. Registered through ``CELERY_IMPORTS`` (this module is not the app's ``tasks.py``)."""
