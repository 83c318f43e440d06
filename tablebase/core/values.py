"""The names of the stored value kinds: a tablebase row's ``value_kind``, which says
which extra column its positions have. Shared by the store and the solver's kinds
(:mod:`tablebase.solve.kinds`) without either importing the other."""

WDL = "wdl"
"""``value_kind`` of a tablebase of outcomes and remoteness only."""
GRUNDY = "grundy"
"""``value_kind`` of a tablebase that also stores each position's Grundy value."""
SCORE = "score"
"""``value_kind`` of a tablebase that also stores each position's negamax score."""
DTZ = "dtz"
"""``value_kind`` of a chess tablebase that also stores each position's DTZ under the
50-move rule (signed plies, python-chess's convention; see :mod:`tablebase.solve.dtz`)."""

TO_DERIVE = -3
"""The remoteness a reader of stored values gives a position whose DTM its tablebase
does not store but a reader values from the position's moves (the sided layout's
one-sided formats, ``--dtm-sides``; :mod:`tablebase.read.derived`)."""
