"""Stand-in for loom-py (see ../README.md)."""
