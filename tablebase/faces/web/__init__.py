"""``tablebase serve``: the HTTP API and web pages over a tablebase database
(:mod:`tablebase.faces.web.app`), lichess's protocol (:mod:`tablebase.faces.web.lichess`) and the
boards of the pages (:mod:`tablebase.faces.web.boards`)."""
