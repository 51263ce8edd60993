"""``python -m savecraft.formats.angband.layouts``: write ``_registered.py`` (the index of which
module registers which layouts) from the layout modules as they are now."""

from pathlib import Path

from . import index_source

Path(__file__).with_name("_registered.py").write_text(index_source(), encoding="utf-8")
