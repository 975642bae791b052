"""Cricket statistics, derived and never entered: per-fixture lines derived from the live
deliveries, aggregates folded from them for any scope, one refresh path, dataset releases.

Modules: ``models`` (line, version, snapshot, refresh and release tables, app label
``cricket``), ``engine`` (set-based rebuild of one fixture's lines), ``aggregates`` (scoped
folds and snapshots), ``refresh`` (the one path every write to statistic inputs takes),
``release`` (CSV datasets). The independent recomputation straight from Cricsheet files
lives with the files' reader, in ``ingest.cricsheet.verify``."""
