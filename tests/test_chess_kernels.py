"""The compiled chess kernels give exactly what the numpy generator gives: the same
legal keys, terminal values, moves within the tablebase, captures and promotions, and
un-moves, on random keys of 3-, 4- and 5-piece layouts, those with the en passant bit
(one pawn on each side) among them; and the compiled FENs of exports are those of the
positions one by one."""

from __future__ import annotations

import numpy as np
import pytest

from tablebase.core.batches import LevelSplit
from tablebase.generators.chess.game import Chess, table
from tablebase.generators.chess.layout import NO_KEY
from tablebase.solve.unmoves.pairs import distinct_pairs
from tablebase.solve.unmoves.survey import Survey, survey
from tests.numpy_chess import NumpyChess

MATERIALS = ["KQvK", "KPvK", "KBBvK", "KQvKR", "KRvKN", "KPvKN", "KPPvK", "KQRvK", "KRBvKR", "KRPvKR", "KRvKNN", "KRRRvK", "KPPvKP", "KRvKR", "KBPvKB", "KPvKP", "KRPvKP"]


def numpy_twin(game: Chess) -> Chess:
    """The same tablebase, generating with numpy."""
    return NumpyChess(material=game.material, metric="dtm")


def moves(src: np.ndarray, dst: np.ndarray) -> list[tuple[int, int]]:
    return sorted(zip(src.tolist(), dst.tolist()))


def pairs(src: np.ndarray, other: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(*(a.tolist() for a in distinct_pairs(np.asarray(src, np.int64), np.asarray(other, np.int64)))))


def exits_of(part: Survey) -> list[tuple[int, int, int]]:
    return sorted(zip(*(a.tolist() for a in (part.exits.src, part.exits.table, part.exits.key))))


def assert_surveys_agree(game: Chess, twin: Chess, keys: np.ndarray) -> None:
    """The survey of int64[n] keys by the compiled ``survey_batch`` equals the engine's
    own from the numpy generator's members: legal keys, terminal values, distinct moves,
    exits; for an ending with pawns also over the keys of one progress level, the moves
    to other levels listed as exits into the tablebase itself."""
    splits = [None]
    if game.zeroing_inside():
        block = game.progress_block()
        levels = game.progress(np.arange(game.size // block, dtype=np.int64) * block)
        level = int(game.progress(keys[len(keys) // 2 : len(keys) // 2 + 1])[0])
        splits.append(LevelSplit(block, levels, level))
        keys = keys[levels[keys // block] == level]
    for split in splits:
        ours, theirs = survey(game, keys, split=split), survey(twin, keys, split=split)
        for name in ("keys", "terminal", "moves"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name))
        assert exits_of(ours) == exits_of(theirs)
    assert_existence_survey_agrees(game, keys)


def assert_existence_survey_agrees(game: Chess, keys: np.ndarray) -> None:
    """The survey without distinct successors (``distinct=False``, the one-byte pass's)
    gives the full survey's legal keys, terminal values and exits, and a count of moves
    nonzero exactly where the full survey's is."""
    existing, counted = game.survey_batch(keys, distinct=False), game.survey_batch(keys)
    np.testing.assert_array_equal(existing.legal, counted.legal)
    legal = counted.legal
    np.testing.assert_array_equal(existing.terminal[legal], counted.terminal[legal])
    np.testing.assert_array_equal(existing.moves > 0, counted.moves > 0)
    assert sorted(zip(*(a.tolist() for a in existing.exits))) == sorted(zip(*(a.tolist() for a in counted.exits)))


def assert_kernels_agree(game: Chess, keys: np.ndarray) -> None:
    """The kernels and the numpy generator agree on int64[n] keys: legal keys, terminal
    values, moves, captures and promotions of the live ones, un-moves of the legal ones,
    and the survey of them all."""
    twin = numpy_twin(game)
    assert_surveys_agree(game, twin, keys)
    legal = game.legal(keys)
    np.testing.assert_array_equal(legal, twin.legal(keys))
    keys = keys[legal]
    assert len(keys) > 1000
    terminal = game.terminal_batch(keys)
    np.testing.assert_array_equal(terminal, twin.terminal_batch(keys))
    assert set(terminal.tolist()) >= {2}
    live = keys[terminal == 2]
    assert moves(*game.successors(live)) == moves(*twin.successors(live))
    ours, theirs = game.exits(live), twin.exits(live)
    assert sorted(zip(*(a.tolist() for a in ours))) == sorted(zip(*(a.tolist() for a in theirs)))
    assert pairs(*game.predecessors(keys)) == pairs(*twin.predecessors(keys))
    src, pred = game.predecessors(keys)
    assert game.distinct_unmoves and not twin.distinct_unmoves
    assert len(set(zip(src.tolist(), pred.tolist()))) == len(src)  # no pair twice, as distinct_unmoves says


@pytest.mark.parametrize("material", MATERIALS)
def test_kernels_equal_the_numpy_generator(material):
    game = table(material, "dtm")
    rng = np.random.default_rng(13)
    assert_kernels_agree(game, np.unique(rng.integers(0, game.size, size=40000, dtype=np.int64)))


@pytest.mark.parametrize("material", ["KPvKP", "KRPvKP"])
@pytest.mark.parametrize("before", [False, True], ids=["after", "before"])
def test_kernels_equal_the_numpy_generator_around_double_pushes(material, before):
    """Keys rare among random ones, made on purpose: right after a double push (the
    pawn of the side not to move on its fourth rank, the en passant bit set), and right
    before one (the pawn of the side to move on its second rank, the other pawn on the
    rank beside where it lands, on a file next to it: the child gets the bit, and
    un-moves meet positions where the capture is legal)."""
    game = table(material, "dtm")
    layout = game.layout
    rng = np.random.default_rng(17)
    n = 200_000
    stm = rng.integers(0, 2, size=n, dtype=np.int64)
    squares = rng.integers(0, 64, size=(n, layout.count), dtype=np.int64)
    pawns = np.array([next(s for s in layout.slots(c) if layout.types[s] == "P") for c in (0, 1)])
    rows = np.arange(n)
    if before:
        file = rng.integers(0, 8, size=n)
        beside = np.clip(file + rng.choice([-1, 1], size=n), 0, 7)
        squares[rows, pawns[stm]] = np.where(stm == 0, 8, 48) + file
        squares[rows, pawns[1 - stm]] = np.where(stm == 0, 24, 32) + beside
    else:
        squares[rows, pawns[1 - stm]] = np.where(stm == 0, 32, 24) + rng.integers(0, 8, size=n)
    keys = layout.canonical_keys(stm, np.full(n, int(not before), dtype=np.int64), squares)
    assert_kernels_agree(game, np.unique(keys[keys != NO_KEY]))


@pytest.mark.parametrize("material", ["KPvKP", "KPPvK", "KBPvKP", "KPPvKP", "KQPvKP"])
def test_promotions_lead_into_the_window_read_of_each_dependency(material):
    """A build reads of a dependency reached only by promotions the keys with the new
    piece on the last rank (Chess.exit_window): every capture and promotion of random
    keys lands inside, and the windows take an eighth of those index spaces."""
    game = table(material, "dtm")
    rng = np.random.default_rng(19)
    keys = np.unique(rng.integers(0, game.size, size=200_000, dtype=np.int64))
    keys = keys[game.legal(keys)]
    live = keys[game.terminal_batch(keys) == 2]
    _src, tables, children = game.exits(live)
    windowed = 0
    for number, dependency in enumerate(game.dependencies()):
        window = game.exit_window(dependency)
        if window is None:
            continue
        windowed += 1
        assert window.size(dependency.size) * 4 <= dependency.size  # an eighth of a piece's squares, under a quarter of twins'
        reached = children[tables == number]
        assert len(reached) > 0 and window.contains(reached).all(), dependency.material
    assert windowed >= 4


def _random_positions(game: Chess, count: int, rng: np.random.Generator) -> list:
    """Random legal positions of the game's material, in either colouring, with an en
    passant right wherever one can be had, a fifth of them with one where both sides have
    pawns (python-chess boards made into positions)."""
    import chess

    pieces = [(letter, colour) for side, colour in zip(game.material.split("v"), (chess.WHITE, chess.BLACK)) for letter in side]
    wanted_ep = count // 5 if all("P" in side for side in game.material.split("v")) else 0
    found, with_ep = [], []
    while len(found) < count or len(with_ep) < wanted_ep:
        board = chess.Board(None)
        flip = bool(rng.integers(2))
        for (letter, colour), square in zip(pieces, rng.choice(64, size=len(pieces), replace=False).tolist()):
            board.set_piece_at(square, chess.Piece.from_symbol(letter if colour != flip else letter.lower()))
        board.turn = bool(rng.integers(2))
        for square in range(16, 48):
            board.ep_square = square
            if board.has_legal_en_passant():
                break
        else:
            board.ep_square = None
        if board.is_valid():
            (with_ep if board.ep_square is not None else found).append(game._position(board))
    return found[: count - wanted_ep] + with_ep[:wanted_ep]


@pytest.mark.parametrize("material", ["KQvKR", "KRvKR", "KPvKP", "KRRvK", "KBBvKN", "KQPvKP", "KPPvKP"])
def test_the_canonical_key_of_a_position_is_its_canonical_image_encoded(material):
    """``Chess.canonical_key`` (squares through the layout's canonical form) gives the key
    of ``canonical`` (python-chess's transforms of the board, the smallest key kept), for
    either colouring, identical pieces, colour-symmetric materials and en passant."""
    game = table(material, "both")
    rng = np.random.default_rng(11)
    for position in _random_positions(game, 150, rng):
        assert game.canonical_key(position) == game.encode(game.canonical(position)), game.format(position)


def test_an_en_passant_right_is_stored_only_where_the_keys_have_its_bit():
    """KPvKP keys carry the en passant bit; KPPvKP's do not, so a position of it with a
    legal en passant capture is valued from its moves (its key would lie outside the
    index space), and the board fast path refuses it rather than mis-key it."""
    import chess

    from tablebase.core.errors import PositionError

    for fen, material, stored in (
        ("4k3/8/8/3pP3/8/8/4P3/4K3 w - d6 0 1", "KPPvKP", False),
        ("4k3/8/8/3pP3/8/8/4P3/4K3 w - - 0 1", "KPPvKP", True),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "KPvKP", True),
    ):
        game = table(material, "both")
        position = game.parse(fen)
        assert (position.ep_square is not None) == ("d6" in fen)
        assert game.stored(position) is stored
        if stored:
            assert 0 <= game.board_key(chess.Board(fen))[1] < game.size
        else:
            with pytest.raises(PositionError, match="valued from its moves"):
                game.board_key(chess.Board(fen))


@pytest.mark.parametrize("material", ["KQvKR", "KRRvK", "KBBvK", "KRBvKR", "KPvKP", "KRPvKR"])
def test_surveys_count_moves_that_meet_in_one_successor_once(material):
    """Positions on squares that every symmetry of the board maps among themselves (the
    corners, the centre, the c3-f6 square's corners; files a, d, e, h with pawns), where
    two moves often lead to one canonical successor and the survey's count of moves
    without their keys (``_near_symmetric``) must step aside: the survey equals the
    numpy generator's."""
    game = table(material, "dtm")
    layout = game.layout
    rng = np.random.default_rng(19)
    pawnless = [0, 7, 56, 63, 27, 28, 35, 36, 18, 21, 42, 45]
    paired = [8 * rank + file for rank in range(1, 7) for file in (0, 3, 4, 7)]
    squares = rng.choice(pawnless if "P" not in material else paired, size=(100_000, layout.count))
    stm = rng.integers(0, 2, size=len(squares), dtype=np.int64)
    keys = layout.canonical_keys(stm, np.zeros(len(squares), dtype=np.int64), squares.astype(np.int64))
    assert_surveys_agree(game, numpy_twin(game), np.unique(keys[keys != NO_KEY]))  # kings side by side have no key


@pytest.mark.parametrize("material", ["KPvKP", "KBBvK", "KRvKR", "KRRRvK", "KRPvKP"])
def test_compiled_fens_are_the_fens_of_the_positions_one_by_one(material):
    """``format_keys`` (the export's FENs, compiled) writes for each legal key what
    ``format`` writes of its position decoded with python-chess, en passant squares
    (KPvKP's and KRPvKP's keys with the ``ep`` bit, half their keys) included."""
    game = table(material)
    rng = np.random.default_rng(3)
    keys = np.unique(np.concatenate([rng.integers(0, game.size // 2, 4000), rng.integers(game.size // 2, game.size, 4000)]))
    keys = keys[game.legal(keys)]
    expected = [game.format(game.decode(key)) for key in keys.tolist()]
    assert game.format_keys(keys) == expected
    assert any(" - - 0 1" not in fen for fen in expected) == game.layout.en_passant
