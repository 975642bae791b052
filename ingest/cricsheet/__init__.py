"""The Cricsheet JSON importer: read files and archives, validate a whole file
against the submission contract, then hand a new match to ``cricket.loading.match_load``
(one match per transaction) or a revised one to ``cricket.source_revisions``. ``verify``
recomputes careers straight from the files. Data from cricsheet.org (ODC-By 1.0)."""
