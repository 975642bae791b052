"""Cricket on the sports spine: ball-by-ball Cricsheet events.

The agreed exception to "no sport-specific tables": the quirks of the Cricsheet data
force innings, deliveries (with revisions), wickets, fielders and their side tables. Every
table hangs off ``sports.Fixture`` and ``sports.Participant``.
"""
