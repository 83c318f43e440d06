"""Chess endgame tablebases: the game (:mod:`.game`, with its per-position API
:mod:`.position_api`, batch API :mod:`.batch_api` and ways out of an ending
:mod:`.events`), positions and python-chess boards (:mod:`.positions`), material balances
(:mod:`.material`), the index space (:mod:`.layout`), attack tables (:mod:`.tables`), and
the compiled kernels: a layout as they read it (:mod:`.spec`), keys (:mod:`.keys`),
board tests (:mod:`.attacks`), output arrays (:mod:`.buffers`), legality
(:mod:`.legality`), moves (:mod:`.moves`), the survey (:mod:`.survey`), un-moves
(:mod:`.unmoves`) and a position's moves for queries (:mod:`.children`)."""

from tablebase.util.compile_cache import forget_stale

forget_stale(__file__)  # before any kernel is loaded from numba's cache
