"""DTZ under the 50-move rule in one byte a position: the retrograde pass of six pieces.

The pass keeps one code a key of the index space (:mod:`.codes`), sweeps it a ply at a
time for the positions decided at that ply (:mod:`.kernels`, :mod:`.solver`), and finds a
loss by generating the moves of a candidate again, not by counting its moves down, so it
holds no counter and no remoteness: the scheme of the Syzygy generator (R. de Man,
syzygy1/tb ``rtbgen.c``).
"""
