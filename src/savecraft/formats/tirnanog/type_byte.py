"""The game type byte of a TirNanoG game header, declared once for the game file and the server's
hello (which carries the game header's bytes 16-56): one member list both descriptions spread.

A module of its own beside ``game`` and ``save``: the protocol imports it without the game
file's package (its sections and assets, a third of a second of start-up).
"""

from __future__ import annotations

from ...layout import U8, Check, Computed, Member, Stored


def type_byte(tile: str, game_type: str, found: str) -> list[Member]:
    """Bytes 33-35 of the header (and of a server's hello, which carries them): the game type
    byte, with the type in bits 0-3 and bits 8-9 of the tile width and height in bits 4-5 and
    6-7 (NOTES.md), then the low bytes of the tile sizes; seen as the model's ``game_type``,
    ``tile_width`` and ``tile_height``, which the writer refuses beyond 4 and 10 bits. ``tile``
    and ``game_type`` word the refusals, ``found`` shows the value (``"{}"`` or ``"repr({})"``)."""
    return [
        Check("type(tile_width) is int and 0 <= tile_width < 1024", "tile_width", tile,
              found.format("tile_width"), on_write=True, on_read=False),
        Check("type(tile_height) is int and 0 <= tile_height < 1024", "tile_height", tile,
              found.format("tile_height"), on_write=True, on_read=False),
        Check("type(game_type) is int and 0 <= game_type < 16", "game_type", game_type,
              found.format("game_type"), on_write=True, on_read=False),
        Stored("type_byte", U8, "game_type | (tile_width >> 8) << 4 | (tile_height >> 8) << 6"),
        Stored("tile_width_low", U8, "tile_width & 0xFF"), Stored("tile_height_low", U8, "tile_height & 0xFF"),
        Computed("game_type", "type_byte & 0x0F"),
        Computed("tile_width", "tile_width_low | (type_byte >> 4 & 3) << 8"),
        Computed("tile_height", "tile_height_low | (type_byte >> 6 & 3) << 8"),
    ]
