"""The Cricsheet JSON importer (seed 001): validate a whole file against the submission
contract, then write one match per transaction. Data from cricsheet.org (ODC-By 1.0)."""
