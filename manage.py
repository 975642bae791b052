#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "omnium.settings")
    # A development checkout without any SECRET_KEY runs commands in debug mode (with the
    # development key). A deployment sets SECRET_KEY, so this never applies there and the
    # settings stay strict; an explicit DEBUG in the environment always wins.
    if not os.environ.get("SECRET_KEY"):
        os.environ.setdefault("DEBUG", "true")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
