"""Identity rules: pure functions from what a shop listed to what the catalogue keys on.

Nothing here touches the database. Callers pass in what a person decided (brand spellings
of a house, variation aliases) so the same function serves ingest, rederive and tests.
``RULES_VERSION`` is written to ``Product.identity_rules_version`` for every row these rules
resolve; bump it whenever a change here could change a key.
"""

RULES_VERSION = 2
"""v2: houses read from the title by the house table (``houses``), known lines and flankers
per house, look-alikes, body products and samples keyed apart, testers keyed with the retail
item, bare ounce sizes, and one canonical variation subsumes the parsed concentration."""
