"""The ASGI application of ``tablebase serve`` (Starlette): a JSON API for every game,
lichess's tablebase protocol for chess, and server-rendered pages with boards.

Every answer goes through the library's query layer (:class:`tablebase.read.query.Tablebase`)
over one store opened read-only in spirit: the app never writes. Each request looks its
tablebase up in the catalog afresh, so a build that completes or replaces a tablebase
while the server runs is served from then on (SQLite's WAL lets readers and a writer
share the file).

Handlers are ``async`` and call the library directly: a process serves its requests one
at a time on its event loop, so the store's held connection is never shared between
threads; ``tablebase serve --workers N`` runs N such processes (:func:`worker_app`).

Caching: an answer about positions (the JSON API, lichess's protocol, the plots) changes
only when a tablebase it reads is rebuilt with other metrics, so it is sent with
``Cache-Control: public, max-age=86400`` and an ``ETag`` that is a hash of its body; a
request whose ``If-None-Match`` names that tag is answered 304 with no body. Errors,
the catalog and the pages are ``no-cache``.

Batches: ``POST /standard`` and ``POST /api/{game}`` take a JSON array of up to
:data:`MAX_BATCH` FENs or positions and answer an array of as many objects, each what
the ``GET`` would answer or ``{"error": ...}`` for a position that is bad or not stored
(lila-tablebase declined such an endpoint: lichess-org/lila-tablebase#41).

Errors: a bad game, parameter or position is a 400, a tablebase or position that is not
stored a 404, a failing database a 503; each with a one-line JSON ``{"error": ...}`` (or
an HTML page for the pages). Nothing a user sends gives a 500.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from tablebase.core.errors import NotBuiltError, NotInTablebaseError, StoreError, TablebaseError, UsageError
from tablebase.core.game import Game
from tablebase.core.values import StoredKind
from tablebase.faces.web import lichess
from tablebase.faces.web.boards import board_html, outcome_class
from tablebase.read.catalog import listings
from tablebase.read.query import DEFAULT_LINE_BOUND, Tablebase
from tablebase.solve.registry import game_class, load_game
from tablebase.store import COMPLETE, Store, TablebaseRow, open_store
from tablebase.store.block_threads import share_cores
from tablebase.tools.plot import histogram_image
from tablebase.tools.stats import dtz_histogram, extremes, remoteness_histogram

WORKER_DATABASE = "TABLEBASE_SERVE_DATABASE"
"""The environment variable that hands the database's location to worker processes."""

WORKER_COUNT = "TABLEBASE_SERVE_WORKERS"
"""The environment variable that tells each worker process how many there are."""

RESERVED = ("position", "fen", "flip", "line", "histogram")
"""Query-string names that are not game parameters."""

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))

Handler = Callable[[Request], Awaitable[Response]]

MAX_BATCH = 1000
"""The most FENs or positions one batch request may hold."""

CACHED = "public, max-age=86400"
"""``Cache-Control`` of an answer about positions: it changes only with a rebuild."""


def status_of(error: TablebaseError) -> int:
    """The HTTP status of a library error: 400 for bad input, 404 for what is not stored,
    503 for a failing database, 500 for anything else."""
    if isinstance(error, UsageError):
        return 400
    if isinstance(error, (NotBuiltError, NotInTablebaseError)):
        return 404
    return 503 if isinstance(error, StoreError) else 500


def game_of(name: str, query: dict[str, str]) -> Game:
    """The game named in a URL with the parameters of its query string.

    :raises UsageError: for an unknown game or a bad parameter (a ``file`` parameter
        included: the server reads no file named by a client).
    """
    params = tuple(sorted((key, value) for key, value in query.items() if key not in RESERVED))
    return _loaded_game(name, params)


@functools.lru_cache(maxsize=128)
def _loaded_game(name: str, params: tuple[tuple[str, str], ...]) -> Game:
    """:func:`game_of`, remembered: loading a game reads the entry points, and a chess
    game keeps its endings' games, so a server loads each game once."""
    given = dict(params)
    if any(parameter.kind == "file" and parameter.name in given for parameter in game_class(name).parameters):
        raise UsageError("file parameters cannot be given over HTTP")
    return load_game(name, given)


def table_link(row: TablebaseRow) -> str | None:
    """The query string of a catalog row's parameters, or ``None`` for a tablebase made
    from a file (which the server cannot name)."""
    params = json.loads(row.params)
    shown = {}
    for name, value in params.items():
        if isinstance(value, str) and value.startswith("sha256:"):
            return None
        shown[name] = ",".join(map(str, value)) if isinstance(value, list) else "on" if value is True else "off" if value is False else value
    return urlencode(shown)


def game_link(path: str, game: Game) -> str | None:
    """``path`` + the game's name + its parameters as a query string; ``None`` for a game
    with a file parameter (which the server cannot name)."""
    if any(parameter.kind == "file" for parameter in game.parameters):
        return None
    return path + game.name + "?" + urlencode({p.name: p.show(game.params[p.name]) for p in game.parameters})


class Server:
    """The routes of ``tablebase serve`` over one open :class:`Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def tablebase(self, request: Request) -> Tablebase:
        return Tablebase(game_of(request.path_params["game"], dict(request.query_params)), self.store)

    @staticmethod
    def required(request: Request, name: str) -> str:
        """A query-string value that must be given. :raises UsageError: if it is not."""
        text = request.query_params.get(name, "").strip()
        if not text:
            raise UsageError(f"give a position: ?{name}=...")
        return text

    # ---- JSON

    async def api_query(self, request: Request) -> Response:
        return JSONResponse(_report(self.tablebase(request), self.required(request, "position")))

    async def api_line(self, request: Request) -> Response:
        text = self.required(request, "position")
        reader = self.tablebase(request).reader(text)
        return JSONResponse(reader.line_json(reader.play(reader.parse(text), DEFAULT_LINE_BOUND)))

    async def api_batch(self, request: Request) -> Response:
        report = functools.partial(_report, self.tablebase(request))
        return JSONResponse([_answer_or_error(report, text) for text in await batch_of(request, "positions")])

    async def api_tablebases(self, request: Request) -> Response:
        return JSONResponse([listing.json() for listing in listings(self.store)])

    async def standard(self, request: Request) -> Response:
        return JSONResponse(lichess.standard(self.chess(request), self.required(request, "fen")))

    async def standard_batch(self, request: Request) -> Response:
        chess = self.chess(request)
        return JSONResponse([_answer_or_error(functools.partial(lichess.standard, chess), fen) for fen in await batch_of(request, "FENs")])

    async def standard_mainline(self, request: Request) -> Response:
        return JSONResponse(lichess.mainline(self.chess(request), self.required(request, "fen")))

    def chess(self, request: Request) -> Tablebase:
        """The tablebases of the lichess variant the route names (``/standard``,
        ``/atomic``, ``/antichess``)."""
        return Tablebase(game_of(lichess.GAMES[request.url.path.strip("/").split("/")[0]], {}), self.store)

    # ---- pages

    async def index(self, request: Request) -> Response:
        rows = [(listing, table_link(listing.row)) for listing in listings(self.store)]
        return TEMPLATES.TemplateResponse(request, "index.html", {"rows": rows})

    async def position_page(self, request: Request) -> Response:
        tablebase = self.tablebase(request)
        text = request.query_params.get("position", "").strip() or "start"
        position = tablebase.parse(text)
        report = tablebase.report(position)
        params = {k: v for k, v in request.query_params.items() if k not in RESERVED}
        flip = request.query_params.get("flip") == "1"
        played = tablebase.line(position, DEFAULT_LINE_BOUND) if request.query_params.get("line") == "1" else None
        context = {
            "game": tablebase.game,
            "title": tablebase.game.table_of(position).describe(),
            "report": report,
            "text": tablebase.game.format(position),
            "board": board_html(tablebase.game, position, flip),
            "params": params,
            "flip": flip,
            "link": lambda **changes: "?" + urlencode({**params, "position": report["position"], **changes}),
            "move_link": lambda move: "?" + urlencode({**params, "position": move["position"], **({"flip": "1"} if flip else {})}),
            "line": None if played is None else [tablebase.move_json(m) for m in played],
            "table_link": game_link("/table/", tablebase.game.table_of(position)),
            "outcome_class": outcome_class,
        }
        return TEMPLATES.TemplateResponse(request, "position.html", context)

    async def table_page(self, request: Request) -> Response:
        game = game_of(request.path_params["game"], dict(request.query_params))
        try:
            row = Tablebase(game, self.store).row(game)
        except NotBuiltError as error:
            outdated = self.outdated(game)
            if outdated is None:
                raise
            return TEMPLATES.TemplateResponse(request, "table.html", {"row": outdated, "game": game, "outdated": str(error)})
        params = {k: v for k, v in request.query_params.items() if k not in RESERVED}
        context = {
            "row": row,
            "game": game,
            "histogram": remoteness_histogram(self.store, row),
            "has_dtz": row.value_kind == StoredKind.DTZ,
            "longest": extremes(game, self.store, row),
            "query": urlencode(params),
            "play_link": lambda text: "/play/" + game.name + "?" + urlencode({**params, "position": text}),
        }
        return TEMPLATES.TemplateResponse(request, "table.html", context)

    def outdated(self, game: Game) -> TablebaseRow | None:
        """The newest complete tablebase of a game's parameters built for another version
        of the game, which is listed but not served; None if there is none."""
        rows = self.store.catalog(game.name, game.identity())
        old = [row for row in rows if row.status == COMPLETE and row.game_version != game.version]
        return old[-1] if old else None

    async def plot(self, request: Request) -> Response:
        image_format = request.path_params["format"]
        game = game_of(request.path_params["game"], dict(request.query_params))
        row = Tablebase(game, self.store).row(game)
        if request.query_params.get("histogram") == "dtz":
            if row.value_kind != StoredKind.DTZ:
                raise NotInTablebaseError(f"{row.description} stores no DTZ")
            image = histogram_image(dtz_histogram(self.store, row), row.description, image_format, "DTZ (plies)")
        else:
            image = histogram_image(remoteness_histogram(self.store, row), row.description, image_format)
        return Response(image, media_type="image/png" if image_format == "png" else "image/svg+xml")


def _report(tablebase: Tablebase, text: str) -> dict:
    """The JSON object of ``query``: a position's value and its moves ranked."""
    reader = tablebase.reader(text)
    return reader.report(reader.parse(text))


async def batch_of(request: Request, what: str) -> list[str]:
    """The body of a batch request: a JSON array of at most :data:`MAX_BATCH` strings.

    :raises UsageError: for any other body.
    """
    try:
        items = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        items = None
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise UsageError(f"the body must be a JSON array of {what} (strings)")
    if len(items) > MAX_BATCH:
        raise UsageError(f"a batch holds at most {MAX_BATCH} {what}, not {len(items)}")
    return items


def _answer_or_error(answer: Callable[[str], dict], text: str) -> dict:
    """One answer of a batch: ``answer(text)``, or ``{"error": ...}`` where the position
    is bad or not stored (a failing database fails the whole request)."""
    try:
        return answer(text)
    except (UsageError, NotBuiltError, NotInTablebaseError) as error:
        return {"error": str(error)}


def cached(request: Request, response: Response) -> Response:
    """``response`` with :data:`CACHED` and an ``ETag`` hashing its body, or a 304 with
    neither body nor other headers where the request's ``If-None-Match`` names the tag."""
    tag = '"' + hashlib.blake2b(response.body, digest_size=16).hexdigest() + '"'
    headers = {"ETag": tag, "Cache-Control": CACHED}
    if tag in (part.strip().removeprefix("W/") for part in request.headers.get("if-none-match", "").split(",")):
        return Response(status_code=304, headers=headers)
    response.headers.update(headers)
    return response


def _json_errors(handler: Handler, cache: bool = False) -> Handler:
    """``handler`` with its library errors as JSON, and :func:`cached` applied to its
    successful answers where ``cache`` is true (``no-cache`` otherwise)."""

    async def answer(request: Request) -> Response:
        try:
            response = await handler(request)
        except TablebaseError as error:
            response = JSONResponse({"error": str(error)}, status_code=status_of(error))
        else:
            if cache and response.status_code == 200:
                return cached(request, response)
        response.headers["Cache-Control"] = "no-cache"
        return response

    return answer


def _page_errors(handler: Handler) -> Handler:
    """``handler`` with its library errors as an error page; every page ``no-cache``."""

    async def answer(request: Request) -> Response:
        try:
            response = await handler(request)
        except TablebaseError as error:
            response = TEMPLATES.TemplateResponse(request, "error.html", {"message": str(error)}, status_code=status_of(error))
        response.headers["Cache-Control"] = "no-cache"
        return response

    return answer


def warm_up(store: Store) -> None:
    """Answer the queries of each stored game's
    :meth:`~tablebase.core.game.Game.warm_up_positions` (the game as :func:`game_of` gives a
    request without parameters), so
    that this process loads the compiled code of its queries before its first request
    instead of during it: with 2 workers and 16 connections, the p99 of a fresh server's
    first seconds fell to a fraction (benchmarks/RESULTS.md). A position it cannot
    answer (a game not installed here, built with other parameters, an ending not
    stored) is passed over."""
    for name in sorted({row.game for row in store.catalog() if row.status == COMPLETE}):
        try:
            tablebase = Tablebase(game_of(name, {}), store)
        except TablebaseError:
            continue
        for text in tablebase.game.warm_up_positions():
            with contextlib.suppress(TablebaseError):
                _report(tablebase, text)


def create_app(store: Store, lifespan: Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]] | None = None) -> Starlette:
    """The ASGI app over an open store (which the caller closes after serving, or
    ``lifespan`` at shutdown), which :func:`warm_up` warms as it starts.

    Routes: ``/standard``, ``/standard/mainline`` (lichess protocol; ``POST /standard``
    a batch), the same for ``/atomic`` and ``/antichess``, ``/api/tablebases``, ``/api/{game}`` (``POST``: a batch),
    ``/api/{game}/line`` (JSON), ``/`` (catalog), ``/play/{game}`` (a position),
    ``/table/{game}`` (statistics), ``/plot/{game}.{png|svg}``.
    """
    server = Server(store)
    routes = [
        *(
            route
            for variant in lichess.GAMES
            for route in (
                Route(f"/{variant}", _json_errors(server.standard, cache=True), methods=["GET"]),
                Route(f"/{variant}", _json_errors(server.standard_batch), methods=["POST"]),
                Route(f"/{variant}/mainline", _json_errors(server.standard_mainline, cache=True)),
            )
        ),
        Route("/api/tablebases", _json_errors(server.api_tablebases)),
        Route("/api/{game}", _json_errors(server.api_query, cache=True), methods=["GET"]),
        Route("/api/{game}", _json_errors(server.api_batch), methods=["POST"]),
        Route("/api/{game}/line", _json_errors(server.api_line, cache=True)),
        Route("/plot/{game}.{format:str}", _json_errors(server.plot, cache=True)),
        Route("/", _page_errors(server.index)),
        Route("/play/{game}", _page_errors(server.position_page)),
        Route("/table/{game}", _page_errors(server.table_page)),
    ]

    @contextlib.asynccontextmanager
    async def warmed(app: Starlette) -> AsyncIterator[None]:
        warm_up(store)
        if lifespan is None:
            yield
        else:
            async with lifespan(app):
                yield

    return Starlette(routes=routes, lifespan=warmed)


def worker_app() -> Starlette:
    """The app of one worker process of ``tablebase serve --workers N``: over the database
    that :data:`WORKER_DATABASE` names, opened by this process and closed
    when it shuts down (a uvicorn app factory)."""

    share_cores(int(os.environ.get(WORKER_COUNT, "1")))
    store = open_store(os.environ[WORKER_DATABASE], create=False)

    @contextlib.asynccontextmanager
    async def close_at_shutdown(_app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            store.close()

    return create_app(store, close_at_shutdown)
