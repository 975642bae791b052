"""The omnium console for the sports spine.

Every write with an invariant goes through ``sports.services``: the competition tree only
changes through ``competition_create`` / ``competition_move`` / ``competition_archive``
(django-mptt corrupts trees under concurrent writes, and the services serialise writers), a
fixture's structure only through ``fixture_create`` / ``fixture_amend`` (which record the
amendment, pin the field and log it), participants only through ``participant_create`` /
``participant_merge``. Append-only and derived tables are read-only here.

The pages live in one module per part of the spine; importing them here registers them all
when the admin autodiscovers ``sports.admin``.
"""

from sports.admin import fixtures, home, logs, participants, reference, tree  # noqa: F401
