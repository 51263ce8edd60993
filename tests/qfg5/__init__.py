"""Quest for Glory V saves."""
