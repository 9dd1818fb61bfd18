"""Stand-in for loom-py's loom.etl."""
