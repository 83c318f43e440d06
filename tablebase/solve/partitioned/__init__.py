"""The retrograde pass of :func:`tablebase.solve.retrograde.solver.solve_positions`, split
into P partitions of the positions that exchange only the updates crossing between them.

Partition ``p`` owns the positions ``bounds[p] <= i < bounds[p + 1]`` (a key range, since
positions are numbered in key order) and holds their
:class:`~tablebase.solve.retrograde.state.PositionState`, the same four bytes a position as
the single pass (outcome, move counter, exit code then remoteness), updated by the same
compiled loops. Each level runs as the rounds of a bulk-synchronous parallel program
(Valiant, "A bridging model for parallel computation", CACM 1990):

1. every partition applies its exits of the level
   (:meth:`~tablebase.solve.retrograde.sweeps.Sweeps.exit_events`), then walks back from
   the losses it resolved at the previous level, a chunk of them a round
   (:data:`~tablebase.solve.partitioned.partition.FRONTIER_CHUNK`), and sends each
   predecessor to its owner, who marks it won;
2. once every win of the level is in, each walks back from its wins the same way, and
   each owner counts the predecessors down, marking those that reach zero lost.

The draw peel runs the same way, each predecessor sent with its drawn successor's
remoteness. A partition applies the updates it sends itself at once; the others go to
their owners as the owner's own offsets (uint32), routed by the driver, and
:class:`~tablebase.solve.partitioned.rounds.Traffic` counts their bytes, round by round.
Values come out exactly those of the single pass, position by position.

Partitions are plain objects:
:func:`~tablebase.solve.partitioned.in_process.solve_partitioned` drives them in one
process, and the same objects can be held by other processes (a Dask actor per partition,
:mod:`tablebase.build.cluster`) with the driver routing the messages of each round.
"""
