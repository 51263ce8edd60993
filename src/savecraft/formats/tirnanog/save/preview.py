"""The PRVW picture: 256 x 256 pixels of 15-bit hi-colour, deflated, to and from PNG.

A pixel is a little-endian u16 with red in bits 10-14, green in bits 5-9 and
blue in bits 0-4 (bit 15 unused). The spec names the depth but not the order;
this is the one place that decides it. Channels widen to 8 bits by repeating
their top bits, so white stays white.
"""

from __future__ import annotations

import io

import numpy as np
import numpy.typing as npt
from PIL import Image

from ....compression import compress, inflate
from ....errors import FormatError
from .model import PREVIEW_SIZE, Preview

PIXEL_BYTES = PREVIEW_SIZE * PREVIEW_SIZE * 2


def decode_pixels(preview: Preview) -> npt.NDArray[np.uint8]:
    """The picture as an (256, 256, 3) RGB array."""
    raw = inflate(preview.image, path="preview.image", limit=PIXEL_BYTES).data
    if len(raw) != PIXEL_BYTES:
        raise FormatError(None, "preview.image", f"{PIXEL_BYTES} bytes of pixels", f"{len(raw)} bytes")
    v = np.frombuffer(raw, dtype="<u2").reshape(PREVIEW_SIZE, PREVIEW_SIZE)
    rgb5 = np.stack(((v >> 10) & 31, (v >> 5) & 31, v & 31), axis=-1).astype(np.uint8)
    out: npt.NDArray[np.uint8] = ((rgb5 << 3) | (rgb5 >> 2)).astype(np.uint8)
    return out


def to_png(preview: Preview) -> bytes:
    out = io.BytesIO()
    Image.fromarray(decode_pixels(preview), "RGB").save(out, format="PNG")
    return out.getvalue()


def encode_image(image: Image.Image | npt.NDArray[np.uint8]) -> bytes:
    """Any picture, scaled to 256 x 256 and reduced to 15 bits, as the PRVW deflate stream."""
    if isinstance(image, np.ndarray):
        image = Image.fromarray(image)
    img = image.convert("RGB")
    if img.size != (PREVIEW_SIZE, PREVIEW_SIZE):
        img = img.resize((PREVIEW_SIZE, PREVIEW_SIZE), Image.Resampling.LANCZOS)
    a = np.asarray(img, dtype=np.uint16) >> 3
    v = (a[..., 0] << 10) | (a[..., 1] << 5) | a[..., 2]
    return compress(v.astype("<u2").tobytes())


def from_png(data: bytes, play_time: int = 0) -> Preview:
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except (OSError, ValueError) as exc:
        raise FormatError(None, "preview", "a picture Pillow can read", str(exc)) from None
    return Preview(play_time=play_time, image=encode_image(img))
