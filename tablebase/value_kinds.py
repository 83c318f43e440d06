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
