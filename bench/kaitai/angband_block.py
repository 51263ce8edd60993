# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class AngbandBlock(KaitaiStruct):
    """The container of an Angband 3.1+/4.x savefile as savecraft's `walk` reads it:
    an 8-byte header ("Save" + a 4-letter variant id, or PWMAngband's 4 version
    bytes + "PWMG"), then blocks of a 28-byte header (NUL-padded name, version,
    data size, checksum), the data, and padding to 4 bytes. Kaitai has no
    expression that adds up a byte array, so checksums are not checked here; the
    bench adds them up with numpy after the parse for the like-for-like figure.
    Kept for bench/bench_angband.py, which compares Kaitai's generated Python
    parser with savecraft on the same files.
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(AngbandBlock, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.magic = self._io.read_bytes(4)
        self.variant = (self._io.read_bytes(4)).decode(u"ASCII")
        self.blocks = []
        i = 0
        while not self._io.is_eof():
            self.blocks.append(AngbandBlock.Block(self._io, self, self._root))
            i += 1



    def _fetch_instances(self):
        pass
        for i in range(len(self.blocks)):
            pass
            self.blocks[i]._fetch_instances()


    class Block(KaitaiStruct):
        def __init__(self, _io, _parent=None, _root=None):
            super(AngbandBlock.Block, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.name = (KaitaiStream.bytes_terminate(self._io.read_bytes(16), 0, False)).decode(u"ASCII")
            self.version = self._io.read_u4le()
            self.len_data = self._io.read_u4le()
            self.checksum = self._io.read_u4le()
            self.data = self._io.read_bytes(self.len_data)
            self.padding = self._io.read_bytes((4 - self.len_data % 4) % 4)


        def _fetch_instances(self):
            pass



