"""Quest for Glory 5 savegames: the ``qfg5-save`` format.

See :mod:`.codec` for the layout and :mod:`.model` for the values; :mod:`.save`
is the plugin (it registers the format when imported) and :mod:`.detection`
tells the registry how to recognise a file before importing it. No real
savegame was available, so :mod:`.sample` makes realistic ones for the demo,
the tests and the benchmark.

Importing this package alone registers nothing and costs nothing: detection
imports it to read :mod:`.detection`.
"""
