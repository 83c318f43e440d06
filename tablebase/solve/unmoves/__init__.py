"""Retrograde analysis driven by un-moves: no move graph is stored.

For a game that provides :meth:`~tablebase.core.game.Game.predecessors`, the engine keeps
about four bytes per position instead of the predecessor lists of
:mod:`tablebase.solve.predecessors`: the terminal value (which becomes the outcome), a
counter of the position's distinct successors (the moves still to be refuted), and the
code of its moves into other tablebases (two bytes), which becomes the remoteness, side
by side in a :class:`~tablebase.solve.retrograde.state.PositionState` filled in place by
the pass of :mod:`tablebase.solve.retrograde`. Un-moves are generated per batch of each
level's newly resolved positions, and the successors of the drawn positions that the draw
peel reaches are generated once more, to count their moves into draws. Moves into other
tablebases are looked up once, at the start, a batch at a time. The approach is that of the Syzygy
generator (R. de Man, syzygy1/tb, ``tbgen.c``), with a counter where it re-generates the
moves of a candidate loss.

Positions are numbered by key over the index space when the game has one (a key that is
no position is marked :data:`~tablebase.solve.solved.ABSENT`), else by rank among the
sorted keys that forward search finds from the start positions.
"""
