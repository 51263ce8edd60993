"""Angband savefiles: the modular v2 format, the real 3.1+/4.x block saves, and legacy refusal.

Three formats share the package because they share a lineage and one rule
for telling them apart by content (see :mod:`.sniffing`):

* ``angband-modular`` (:mod:`.modular`): "Save", version byte 2, status,
  description, vendor/type/version blocks and an end block;
* ``angband-block`` (:mod:`.block`): "Save" + a 4-letter variant id, then
  named blocks padded with 'x' (what Angband 3.1 to 4.x actually write);
  block contents are decoded by the layout table of :mod:`.layouts`
  (every block of Vanilla 4.2), the rest kept as bytes with the reason;
* ``angband-legacy`` (:mod:`.legacy`): the XOR-chained savefiles from before
  3.1, recognised so the user hears what the file is, then refused.

The submodules register themselves; importing this package alone does not.
"""
