"""The web studio."""
