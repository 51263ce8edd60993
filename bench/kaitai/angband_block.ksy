meta:
  id: angband_block
  title: Angband 3.1+/4.x block savefile (the container)
  file-extension: sav
  endian: le
  license: CC0-1.0
doc: |
  The container of an Angband 3.1+/4.x savefile as savecraft's `walk` reads it:
  an 8-byte header ("Save" + a 4-letter variant id, or PWMAngband's 4 version
  bytes + "PWMG"), then blocks of a 28-byte header (NUL-padded name, version,
  data size, checksum), the data, and padding to 4 bytes. Kaitai has no
  expression that adds up a byte array, so checksums are not checked here; the
  bench adds them up with numpy after the parse for the like-for-like figure.
  Kept for bench/bench_angband.py, which compares Kaitai's generated Python
  parser with savecraft on the same files.
seq:
  - id: magic
    size: 4
  - id: variant
    type: str
    size: 4
    encoding: ASCII
  - id: blocks
    type: block
    repeat: eos
types:
  block:
    seq:
      - id: name
        type: strz
        size: 16
        encoding: ASCII
      - id: version
        type: u4
      - id: len_data
        type: u4
      - id: checksum
        type: u4
      - id: data
        size: len_data
      - id: padding
        size: (4 - len_data % 4) % 4
