"""Cricket on the sports spine: ball-by-ball Cricsheet events (seed 001).

The signed-off exception to "no sport-specific tables": the eight source properties O1-O8
force innings, deliveries (with revisions), wickets, fielders and their side tables. Every
table hangs off ``sports.Fixture`` and ``sports.Participant``.
"""
