"""The Angband part of ``savecraft demo``: generated saves and copies of the real block saves.

The real files (Ponyband saves, see ``samples/README.md``) are not part of the
package; they are copied when the samples folder is found: ``$SAVECRAFT_SAMPLES``,
else ``../shared/samples`` next to the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

from ... import api
from ...fileio import atomic_write
from . import sample


def samples_folder() -> Path | None:
    env = os.environ.get("SAVECRAFT_SAMPLES")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[4].parent / "shared" / "samples")
    for c in candidates:
        if (c / "angband-block").is_dir():
            return c
    return None


def write_samples(folder: Path) -> list[Path]:
    modular = folder / "angband-modular.sav"
    block = folder / "angband-block.sav"
    api.save(sample.modular_save(), modular)
    api.save(sample.block_save(), block)
    written = [modular, block]
    real = samples_folder()
    if real is not None:
        for src in sorted((real / "angband-block").glob("*.sav")):
            dest = folder / f"angband-real-{src.name}"
            atomic_write(dest, src.read_bytes())
            written.append(dest)
    return written
