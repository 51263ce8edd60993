"""Format plugins, one folder each (docs/architecture.md).

Each folder's ``detection`` module declares its formats' light entries (name,
plugin module, magic pre-check, tables, order); :mod:`savecraft.registry`
finds those folders on disk, and a plugin module registers its format with the
registry when imported.
"""
