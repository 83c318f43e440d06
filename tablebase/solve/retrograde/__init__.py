"""Batched retrograde analysis over a move graph held in numpy arrays.

The pass is the classic one for games on arbitrary graphs (e-maxx, "Games on arbitrary
graphs"; algorithmica, "Игры на графах"): every position keeps a counter of moves not yet
known to lead to a win for the opponent. Terminal positions are resolved at level 0.
Level by level, each predecessor of a loss at level ``d`` becomes a win at ``d + 1`` (if
still unresolved), and each predecessor of a win has its counter decremented; when the
counter reaches zero, it is a loss at ``d + 1``. Processing whole levels at once gives the
remoteness rules of docs/design.md exactly:

- a win is 1 + the smallest remoteness among its moves to a loss;
- a loss is 1 + the largest remoteness among its moves (all to wins);
- whatever is never resolved is a draw, including every position whose best play cycles.

A draw then gets a remoteness only where no draw-keeping line from it can cycle: it is
1 + the smallest remoteness among its moves to draws, once all of those are known
(a peel from the drawn terminals). In a game without cycles, such as tic-tac-toe, every
draw gets one; a draw that can cycle keeps none (``-1`` in the arrays, null in storage).

Each level costs O(moves into that level's positions). The pass
(:mod:`tablebase.solve.retrograde.solver`) reads the moves through a
:class:`~tablebase.solve.retrograde.solver.MoveSource`: the predecessor lists of
:mod:`tablebase.solve.predecessors`, or un-moves generated on the fly
(:mod:`tablebase.solve.unmoves`), which store no graph. What it keeps of each position is a
:class:`~tablebase.solve.retrograde.state.PositionState`, moves into other tablebases folded
into it as exit codes (:mod:`tablebase.solve.retrograde.exit_codes`); its compiled loops are
those of the win/loss levels (:mod:`~tablebase.solve.retrograde.wins_losses`) and of the draw
peel (:mod:`~tablebase.solve.retrograde.draw_peel`), the sweeps over every position cut into
ranges swept in threads (:mod:`~tablebase.solve.retrograde.sweeps`).
"""
