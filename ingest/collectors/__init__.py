"""Retailer collectors: a feed adapter per source format, and the run that writes a feed."""
