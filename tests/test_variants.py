"""Atomic and antichess: the compiled rules against python-chess's variant boards, and
whole tables against the Syzygy generator's statistics.

``tests/data/variants/{atomic,antichess}.json.gz`` hold what the generator's variant
programs printed with ``-s`` for every ending of 3 and 4 pieces (syzygy1/tb: ``atbgen``
and ``gtbgen``/``gtbgenp`` of master, 0bb8aee; ``atbgenp``, which master does not compile,
of 70287e7 built with ``-fcommon``): per ending, per side to move, the positions that win
or lose at each DTZ in plies and the totals of each category. A whole table compared in
seconds. The default run compares the 3-piece endings and a few of 4; every ending with

    TABLEBASE_VARIANTS_ALL=1 pytest tests/test_variants.py
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tablebase.build.builder import build
from tablebase.core.batches import LevelSplit
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.chess.statistics import Counts, count_positions, differing
from tablebase.generators.variants import game as variant_game
from tablebase.generators.variants.game import DTZ_ALONE_FROM, Antichess
from tablebase.generators.variants.material import ENDED, variant_endings
from tablebase.read.query import Tablebase
from tablebase.solve.kinds import kind_of
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tests.reference import solve_graph

STATISTICS = Path(__file__).parent / "data" / "variants"
ALL = os.environ.get("TABLEBASE_VARIANTS_ALL") == "1"


def generator_counts(variant: str) -> dict[str, Counts]:
    """The generator's statistics of every 3- and 4-piece ending of a variant."""
    with gzip.open(STATISTICS / f"{variant}.json.gz", "rt") as file:
        tables = json.load(file)
    return {material: Counter({(side, what, ply): n for side, what, ply, n in cells}) for material, cells in tables.items()}


def _random_keys(game, count: int, seed: int) -> np.ndarray:
    """Up to ``count`` distinct legal keys of a game, drawn at random."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, game.size, 40 * count))
    return keys[game.legal(keys)][:count]


RULE_SAMPLES = [
    ("atomic", "KQvKR"), ("atomic", "KRvKN"), ("atomic", "KBBvK"), ("atomic", "KPvK"), ("atomic", "KQvKP"), ("atomic", "KRvKR"),
    ("antichess", "RvN"), ("antichess", "KBvN"), ("antichess", "BBvK"), ("antichess", "QvP"), ("antichess", "NPvK"), ("antichess", "RvR"),
    ("atomic", "KPvKP"), ("antichess", "PvP"), ("antichess", "NPvP"),
]


@pytest.mark.parametrize(("variant", "material"), RULE_SAMPLES)
def test_moves_and_ends_equal_python_chess(variant, material):
    """Every move of random positions, as the compiled kernel finds them (successors by
    ending and canonical key) and python-chess's variant board (each legal move pushed,
    its successor keyed), and every terminal value."""
    game = load_game(variant, {"material": material})
    keys = _random_keys(game, 300, seed=len(material))
    assert len(keys) > 100
    moves = game.expand(keys)
    dependencies = game.dependencies()
    for row, key in enumerate(keys.tolist()):
        position = game.decode(key)
        ours = Counter((material, int(d)) for d in moves.dst[moves.src == row])
        these = moves.exits[0] == row
        ours.update((dependencies[t].material, int(k)) for t, k in zip(moves.exits[1][these].tolist(), moves.exits[2][these].tolist()))
        theirs = Counter()
        for _move, child in game.moves(position):
            table, child_key = game.stored_key(child)
            theirs[table.material, child_key] += 1
        outcome = game.terminal(position)
        assert moves.terminal[row] == (NOT_TERMINAL if outcome is None else int(outcome)), game.format(position)
        if outcome is None:
            assert ours == theirs, game.format(position)


@pytest.mark.parametrize(("variant", "material"), RULE_SAMPLES)
def test_un_moves_are_the_moves_backwards(variant, material):
    """For random positions: each is among the predecessors of each of its successors
    within the ending, and each predecessor listed that is a position has it among its
    successors."""
    game = load_game(variant, {"material": material})
    keys = _random_keys(game, 200, seed=len(material) + 1)
    moves = game.expand(keys)
    src, pred = game.predecessors(moves.dst)
    listed = set(zip(moves.dst[src].tolist(), pred.tolist()))
    missing = [(int(k), int(d)) for k, d in zip(keys[moves.src].tolist(), moves.dst.tolist()) if (d, k) not in listed]
    assert missing == [], [game.format(game.decode(k)) for k, _d in missing[:3]]
    src, pred = game.predecessors(keys)
    real = game.legal(pred)
    back = game.expand(pred[real])
    forward = set(zip(pred[real][back.src].tolist(), back.dst.tolist()))
    wrong = [(int(p), int(k)) for p, k in zip(pred[real].tolist(), keys[src[real]].tolist()) if (p, k) not in forward]
    assert wrong == [], [(game.format(game.decode(p)), game.format(game.decode(k))) for p, k in wrong[:3]]


@pytest.mark.parametrize(("variant", "material"), RULE_SAMPLES)
def test_the_survey_equals_the_moves(variant, material):
    """The compiled survey (``survey_batch``: legality, terminal values, distinct
    successors counted, exits) of random keys and of the first keys (pieces on the
    long diagonal, where symmetric moves meet in one key) equals what ``legal`` and
    ``expand`` give, each successor within the ending counted once; over one progress
    level of a pawn ending, the successors at another level listed instead, each once."""
    game = load_game(variant, {"material": material})
    rng = np.random.default_rng(len(material))
    keys = np.unique(np.concatenate([rng.integers(0, game.size, 20000), np.arange(min(game.size, 20000))]))
    surveyed = game.survey_batch(keys)
    legal = game.legal(keys)
    assert (surveyed.legal == legal).all()
    moves = game.expand(keys[legal])
    rows = np.flatnonzero(legal)
    assert (surveyed.terminal[legal] == moves.terminal).all()
    distinct = Counter(zip(moves.src.tolist(), moves.dst.tolist()))
    counts = np.bincount(np.array([src for src, _dst in distinct], dtype=np.int64), minlength=len(rows))
    assert (surveyed.moves[legal] == counts).all()
    assert (surveyed.moves[~legal] == 0).all()
    src, tables, found = moves.exits
    theirs = Counter(zip(rows[src].tolist(), tables.tolist(), found.tolist()))
    assert Counter(zip(*(a.tolist() for a in surveyed.exits))) == theirs
    if material in ("KRvKR", "RvR"):  # like sides: some positions' moves meet in one key
        assert len(distinct) < len(moves.src)
    if game.zeroing_inside():  # a DTZ pass over one progress level: the pawns' pushes listed, not counted
        block = game.progress_block()
        levels = np.asarray(game.progress(np.arange(0, game.size, block, dtype=np.int64)), dtype=np.int64)
        split = LevelSplit(block, levels, int(levels[keys[rows[0]] // block]))
        by_level = game.survey_batch(keys, split)
        pairs = np.array(list(distinct), dtype=np.int64).reshape(-1, 2)
        elsewhere = split.elsewhere(pairs[:, 1])
        assert elsewhere.any() and (by_level.legal == legal).all()
        assert (by_level.moves[legal] == np.bincount(pairs[~elsewhere, 0], minlength=len(rows))).all()
        crossing = Counter(zip(rows[pairs[elsewhere, 0]].tolist(), pairs[elsewhere, 1].tolist()))
        assert Counter(zip(*(a.tolist() for a in by_level.crossing))) == crossing
        assert Counter(zip(*(a.tolist() for a in by_level.exits))) == theirs


@pytest.mark.parametrize(("variant", "material"), [("atomic", "KRvKN"), ("atomic", "KPvKP"), ("antichess", "BvN"), ("antichess", "NPvP")])
def test_legal_keys_are_python_chess_s_valid_positions(variant, material):
    """A key is legal exactly where its placement has no two pieces on a square, is a
    valid position of the variant for python-chess with the side not to move not in
    check, a key with an en passant right one where an en passant capture is a legal move,
    and the key is its canonical key."""
    game = load_game(variant, {"material": material})
    keys = np.unique(np.random.default_rng(7).integers(0, game.size, 6000))
    legal = game.legal(keys)
    _stm, _ep, squares = game.layout.decode(keys)
    for key, ok, placed in zip(keys.tolist(), legal.tolist(), squares):
        if len(set(placed.tolist())) < len(placed):
            assert not ok
            continue
        position = game.decode(key)
        board = game.board_class(game.format(position))
        other = board.copy()
        other.turn = not other.turn  # python-chess's atomic status takes the side not to move in check for valid
        takes = position.ep_square is None or any(board.is_en_passant(move) for move in board.legal_moves)
        expected = board.is_valid() and not other.is_check() and takes and game.canonical_key(position) == key
        assert ok == expected, game.format(position)
    assert legal.any()


def stored_counts(store, game) -> Counts:
    """The generator's counts over a stored table."""
    row = store.require(game.name, game.identity(), game.build_command(), game.version)
    parts = ((keys, outcome, dtz) for keys, outcome, _remoteness, dtz in store.read_parts(row, extra=True))
    return count_positions(game.layout, parts)


DEFAULT_TABLES = {"atomic": ["KQvK", "KPvK", "KRvKN"], "antichess": ["KvK", "RvN", "BvP", "PvP", "KNvR"]}


def _materials(variant: str) -> list[str]:
    """The endings compared: all with statistics, or the default few."""
    if ALL:
        return [m for m in variant_endings(4, royal=variant == "atomic") if m in generator_counts(variant)]
    return DEFAULT_TABLES[variant]


@pytest.mark.parametrize("variant", ["atomic", "antichess"])
def test_tables_equal_the_syzygy_generator_s_statistics(variant, tmp_path_factory):
    """Each table's positions counted per side to move, outcome and DTZ as the generator
    counts them, cell by cell."""
    theirs = generator_counts(variant)
    database = tmp_path_factory.getbasetemp() / f"{variant}.sqlite"
    wrong = {}
    for material in _materials(variant):
        game = load_game(variant, {"material": material})
        with open_store(database) as store:
            build(game, store)
            ours = stored_counts(store, game)
        assert sum(n for (_side, what, _ply), n in theirs[material].items() if what in ("win", "lose")) > 0
        if differing(ours, theirs[material]):
            wrong[material] = differing(ours, theirs[material])
    assert wrong == {}


BYTE_PASS_TABLES = ["KvK", "RvN", "KNvR", "QvBB", "NNvK"]


@pytest.mark.parametrize("material", [m for m in variant_endings(4, royal=False) if "P" not in m] if ALL else BYTE_PASS_TABLES)
def test_antichess_dtz_alone_goes_through_the_one_byte_pass_equal_to_the_generator(material, tmp_path_factory):
    """Antichess without pawns builds DTZ alone (``metric=dtz``) through the one-byte
    pass at every size; its tables count as the generator's, cell by cell."""
    game = load_game("antichess", {"material": material, "metric": "dtz"})
    assert kind_of(game).uses_byte_pass(game)
    with open_store(tmp_path_factory.getbasetemp() / "antichess_dtz.sqlite") as store:
        build(game, store)
        assert differing(stored_counts(store, game), generator_counts("antichess")[game.material]) == {}


def test_an_ending_of_five_pieces_defaults_to_dtz_and_its_dependencies_to_their_own_defaults():
    """What Syzygy's variant tables hold, WDL and DTZ, is a 5-piece ending's default; a
    smaller ending's and a collection's is both; a named metric holds for every table
    a build reaches."""
    five = load_game("antichess", {"material": "RBNvKQ"})
    assert (DTZ_ALONE_FROM, five.metric, five.build_command()) == (5, "dtz", "tablebase build antichess -p material=RBNvKQ -p metric=dtz")
    assert {d.metric for d in five.dependencies() if d.material != ENDED} == {"both"}
    assert {d.metric for d in load_game("antichess", {"material": "RBNvKQ", "metric": "dtz"}).dependencies()} == {"dtz"}
    assert load_game("atomic", {"material": "KRvKN"}).metric == "both"
    collection = load_game("atomic", {"material": "all5"})
    assert collection.metric == "both"
    assert {(sum(letter.isupper() for letter in m.material), m.metric) for m in collection.members()} == {(2, "both"), (3, "both"), (4, "both"), (5, "dtz")}
    named = load_game("atomic", {"material": "all5", "metric": "dtm"})
    assert {m.metric for m in named.members()} == {"dtm"}


def test_a_build_and_a_query_that_name_no_metric_find_each_table_in_its_default(monkeypatch, tmp_path):
    """With the dtz default lowered to 3 pieces (its own table cache, so that no other
    test sees it): RNvN builds DTZ alone over its 2-piece dependencies' DTZ and DTM, and a
    query naming no metric reads each position from the table of its own default."""
    monkeypatch.setattr(variant_game, "DTZ_ALONE_FROM", 3)
    monkeypatch.setattr(Antichess, "_tables", {})
    with open_store(tmp_path / "defaults.sqlite") as store:
        build(load_game("antichess", {"material": "RNvN"}), store)
        tablebase = Tablebase(load_game("antichess", {}), store)
        three = tablebase.probe("8/8/8/8/8/8/8/RN5n w - - 0 1")
        two = tablebase.probe("8/8/8/8/8/8/8/R5n1 b - - 0 1")
        assert (three.remoteness is None, three.dtz is not None) == (True, True)
        assert (two.remoteness is None, two.dtz is not None) == (False, True)
        line = tablebase.line("8/8/8/8/8/8/8/RN5n w - - 0 1", metric="dtz")
        assert line and tablebase.probe(line[-1].position).outcome != 0


def test_the_statistics_hold_every_ending():
    """The data has every 3- and 4-piece ending the generators make (atomic's KvK, which
    ``atbgen`` refuses, aside)."""
    for variant, royal in (("atomic", True), ("antichess", False)):
        missing = set(variant_endings(4, royal)) - set(generator_counts(variant)) - ({"KvK"} if royal else set())
        assert not missing, (variant, sorted(missing))


def test_an_exploded_king_and_a_last_piece_taken_end_the_game():
    """Atomic: taking the rook beside the black king wins at once (the move's successor
    is the ended position, a loss for black); antichess: taking the last piece hands
    the other side the win."""
    atomic = load_game("atomic", {"material": "KQvKR"})
    position = atomic.parse("8/8/8/8/8/2kr4/8/K2Q4 w - - 0 1")
    ends = [move.san for move, child in atomic.moves(position) if atomic.table_of(child).material == "ended"]
    assert ends == ["Qxd3#"]
    antichess = load_game("antichess", {"material": "RvN"})
    position = antichess.parse("8/8/8/8/8/8/8/Rn6 w - - 0 1")
    assert [move.san for move, _child in antichess.moves(position)] == ["Rxb1#"]
    assert antichess.terminal(antichess.moves(position)[0][1]) == Outcome.WIN


def brute_force(game) -> dict[int, tuple]:
    """Outcome and DTM (plies) of every position of an ending whose captures all end the
    game, by the plain reference solver (``tests/reference.py``) over python-chess's
    moves and game ends (the variant board's), no kernel of ours but the keys."""
    keys = np.arange(game.size, dtype=np.int64)
    successors, terminal, exits = {}, {}, {}
    for key in keys[game.legal(keys)].tolist():
        position = game.decode(key)
        outcome = game.terminal(position)
        successors[key] = []
        if outcome is not None:
            terminal[key] = outcome
            continue
        for _move, child in game.moves(position):
            owner = game.table_of(child)
            if owner.material == game.material:
                successors[key].append(game.canonical_key(child))
            else:
                assert owner.material == "ended", owner.material
                exits.setdefault(key, []).append((owner.terminal(child), 0))
    return solve_graph(successors, terminal, exits)


BRUTE_FORCE = [("antichess", "RvN"), ("antichess", "QvB"), ("antichess", "NvN"), ("antichess", "KvB")] + [("atomic", "KQvK")] * ALL


@pytest.mark.parametrize(("variant", "material"), BRUTE_FORCE)
def test_dtm_equals_a_brute_force_solution(variant, material, tmp_path):
    """Every position's outcome and DTM against the reference solver: no public DTM
    exists for the variants (the Syzygy generator makes WDL and DTZ)."""
    game = load_game(variant, {"material": material, "metric": "both"})
    expected = brute_force(game)
    with open_store(tmp_path / "dtm.sqlite") as store:
        build(game, store)
        row = store.require(game.name, game.identity(), game.build_command(), game.version)
        ours = {}
        for keys, outcome, remoteness, _dtz in store.read_parts(row, extra=True):
            ours.update(zip(keys.tolist(), zip(outcome.tolist(), remoteness.tolist())))
    assert ours.keys() == expected.keys()
    wrong = [key for key, (outcome, plies) in expected.items() if ours[key][0] != outcome or (outcome != 0 and ours[key][1] != plies)]
    assert wrong == [], [game.format(game.decode(key)) for key in wrong[:5]]


@pytest.mark.parametrize(("variant", "material"), [("atomic", "KPvKP"), ("antichess", "NPvP"), ("antichess", "KKPvQ"), ("antichess", "PvN")])
def test_progress_is_constant_over_each_progress_block(variant, material):
    """The keys of an aligned progress block share their pawns' progress (the DTZ
    passes number a level block by block), and the block divides the index space."""
    game = load_game(variant, {"material": material})
    block = game.progress_block()
    assert block > 1 and game.size % block == 0
    keys = np.random.default_rng(3).integers(0, game.size, 20000)
    assert (game.progress(keys) == game.progress(keys // block * block)).all()
    assert len(np.unique(game.progress(keys))) > 1
