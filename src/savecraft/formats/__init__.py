"""Format plugins; each registers itself with :mod:`savecraft.registry` on import."""
