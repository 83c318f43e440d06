"""Chess endgame tablebases: the game (:mod:`.game`), its index space (:mod:`.layout`),
material balances (:mod:`.material`), move generation (:mod:`.moves`) and attack tables
(:mod:`.tables`)."""
