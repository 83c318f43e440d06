"""Chess variants as lichess serves them: atomic and antichess endgame tablebases
(:mod:`.game`), over an index space of their own (:mod:`.layout`, :mod:`.keys`), with
compiled rules (:mod:`.rules`), batch kernels (:mod:`.kernels`) and un-moves
(:mod:`.unmoves`); the endings their captures and promotions lead into (:mod:`.exits`,
:mod:`.material`)."""

from tablebase.util.compile_cache import forget_stale

forget_stale(__file__)  # before any kernel is loaded from numba's cache
