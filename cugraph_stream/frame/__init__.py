"""Frame layer helpers: reading and validating user tables, building result frames."""
