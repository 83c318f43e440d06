"""The blocks storage layouts: where keys are placed, block encoding, writes in any
batches, probes, damaged blocks, and whole chess tablebases read back exactly as the
packed layout stores them."""

from __future__ import annotations

import multiprocessing
import threading

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tablebase.build.builder import build
from tablebase.core.errors import UsageError
from tablebase.core.values import TO_DERIVE
from tablebase.solve.registry import load_game
from tablebase.store import Storing, block_codec, block_reader, block_threads, open_store
from tablebase.store.block_codec import block_parts, decode_symbols, encode_symbols
from tablebase.store.block_writer import BlockWriter
from tablebase.store.blocks import BLOCK_KEYS, BY_KEY, BY_SIDE, PLAIN, BlockFormat
from tablebase.store.codecs import XZ, ZSTD
from tablebase.store.packed import extra_codes, split_codes, value_codes
from tablebase.store.schema import BLOCKS, PACKED, SIDED


@st.composite
def tables(draw):
    """Distinct ascending keys over a few blocks, value codes and extra codes, and the
    places where a build's writes would split them."""
    block = draw(st.integers(0, 2**20))
    offsets = draw(st.lists(st.integers(0, 3 * BLOCK_KEYS), min_size=1, max_size=300, unique=True))
    keys = block * BLOCK_KEYS + np.array(sorted(offsets), np.int64)
    codes = np.array(draw(st.lists(st.integers(0, 3000), min_size=len(keys), max_size=len(keys))), np.int64)
    extra = np.array(draw(st.lists(st.integers(0, 2**40), min_size=len(keys), max_size=len(keys))), np.int64)
    cuts = sorted(draw(st.lists(st.integers(0, len(keys)), max_size=4)))
    return keys, codes, extra, cuts


@given(st.lists(st.integers(0, 2**62), min_size=1, max_size=200, unique=True))
def test_a_blocking_places_each_key_in_one_slot_of_one_block(keys):
    """Every key has its own (block, slot), the slots in range, the keys found again from
    them, and an array of keys placed as its keys are one by one; the sided blocking keeps
    each block to one side to move (the lowest bit) and one span of keys."""
    array = np.array(keys, dtype=np.int64)
    for blocking in (BY_KEY, BY_SIDE):
        places = [blocking.place(key) for key in keys]
        assert len(set(places)) == len(keys)
        assert all(0 <= slot < BLOCK_KEYS for _block, slot in places)
        assert [int(blocking.keys(block, np.array([slot]))[0]) for block, slot in places] == keys
        blocks, slots = blocking.place(array)
        assert list(zip(blocks.tolist(), slots.tolist())) == places
    blocks = BY_SIDE.place(array)[0]
    assert (blocks % 2 == array % 2).all() and (blocks // 2 == array // BY_SIDE.span).all()


FORMATS = [
    PLAIN,
    BlockFormat(draw_extra=1),
    BlockFormat(gaps=True),
    BlockFormat(draw_extra=2**40 + 1, gaps=True),
    PLAIN._replace(codec=XZ),
    BlockFormat(draw_extra=1, gaps=True, codec=XZ),
]


_SPAN_SKIPPED = np.concatenate([np.arange(200), 2 * BY_SIDE.span + np.arange(200)]).astype(np.int64)
"""Keys dense enough that the writer finds its spans by binary search, and a span
without any between them."""


@settings(max_examples=100, deadline=None)
@given(tables(), st.sampled_from([BY_KEY, BY_SIDE]), st.sampled_from(FORMATS))
@example((_SPAN_SKIPPED, np.arange(400, dtype=np.int64) % 7, np.arange(400, dtype=np.int64), [150]), BY_SIDE, FORMATS[0])
def test_blocks_written_in_any_batches_read_back_what_was_written(table, blocking, form):
    """What was written is read back, in every format, except that with ``draw_extra``
    every draw's extra code (a value code 1 modulo 3) reads as ``draw_extra``; only the
    keys written are stored."""
    keys, codes, extra, cuts = table
    writer = BlockWriter(blocking, form=form)
    rows = []
    for begin, end in zip([0, *cuts], [*cuts, len(keys)]):
        rows += list(writer.add(keys[begin:end], codes[begin:end], extra[begin:end]))
    rows += list(writer.finish())
    assert [row[0] for row in rows] == sorted({blocking.place(int(k))[0] for k in keys})
    parts = list(block_parts(rows, blocking, form))
    if form.draw_extra is not None:
        extra = np.where(codes % 3 == 1, form.draw_extra, extra)
    for got, wanted in zip(map(np.concatenate, zip(*parts)), (keys, codes, extra)):
        np.testing.assert_array_equal(got, wanted)
    stored = set(keys.tolist())
    for number, *blobs in rows:
        decoded = block_codec.decode_block(*blobs, form)
        slots = np.arange(-2, decoded.first + decoded.length + 2)
        these = blocking.keys(number, np.clip(slots, 0, None))
        expected = [0 <= slot < BLOCK_KEYS and int(key) in stored for slot, key in zip(slots.tolist(), these.tolist())]
        assert [decoded.stored(slot) for slot in slots.tolist()] == expected
        assert decoded.stored_many(slots - decoded.first).tolist() == expected


def test_a_draw_s_extra_code_left_out_is_read_back_and_costs_less():
    """A block of 256 distinct non-draw extra codes and draws between them: the draws'
    extra code, which is none of the 256, is read back, all at once and one at a time;
    left out, the extra blob is smaller than with the draws' codes stored."""
    rng = np.random.default_rng(5)
    slots = np.arange(0, 4 * 4096, 4, dtype=np.int64)
    codes = np.where(rng.random(len(slots)) < 0.5, 1, 3 * rng.integers(1, 200, len(slots)))  # 1: a draw
    extra = np.where(codes == 1, 1, 2 + np.arange(len(slots)) // 16 * 2)  # runs of 16 around the draws
    stored = block_codec.encode_block(slots, codes, extra)
    left_out = block_codec.encode_block(slots, codes, np.where(codes == 1, 999, extra), form=BlockFormat(draw_extra=1))
    assert stored[:2] == left_out[:2] and len(left_out[2]) < len(stored[2])
    decoded = block_codec.decode_block(*left_out, form=BlockFormat(draw_extra=1))
    np.testing.assert_array_equal(decoded.extra.codes(decoded.present()), extra)
    assert [decoded.extra.code(int(at)) for at in decoded.present()] == extra.tolist()
    seven = BlockFormat(draw_extra=7)
    every_draw = block_codec.decode_block(*block_codec.encode_block(slots, np.ones_like(codes), extra, form=seven), form=seven)
    assert set(every_draw.extra.codes().tolist()) == {7}


def test_symbols_take_the_narrowest_width_and_the_table_its_distinct_codes():
    for distinct, width in ((1, 1), (256, 1), (257, 2), (70_000, 4)):
        codes = np.arange(distinct, dtype=np.int64) * 7 + 2**50 * (distinct > 60_000)
        decoded = decode_symbols(encode_symbols(codes))
        assert decoded.symbols.itemsize == width
        np.testing.assert_array_equal(decoded.table, np.unique(codes))
        np.testing.assert_array_equal(decoded.codes(), codes)


@pytest.mark.parametrize("codec", [ZSTD, XZ])
@pytest.mark.parametrize("damage", ["empty", "garbage", "cut", "appended", "other codec"])
def test_damaged_blobs_are_refused(codec, damage):
    """A blob cut short, with bytes after its stream, not compressed at all or by the
    other codec is refused, never read as values."""
    whole = encode_symbols(np.arange(300), codec=codec)
    other = XZ if codec is ZSTD else ZSTD
    blob = {
        "empty": b"",
        "garbage": b"not compressed",
        "cut": whole[:-3],
        "appended": whole + b"\0",
        "other codec": encode_symbols(np.arange(300), codec=other),
    }[damage]
    with pytest.raises(ValueError, match="damaged block"):
        decode_symbols(blob, codec)


def test_each_codec_reads_back_what_it_wrote_and_xz_keeps_a_periodic_block_smaller():
    """Values with the board's periods (a run of 64 keys in a pattern of 4,096, with
    noise): both codecs give them back, xz in fewer bytes at its default level."""
    rng = np.random.default_rng(7)
    codes = np.tile(np.repeat(rng.integers(0, 40, 64), 64), 16) + (rng.random(BLOCK_KEYS) < 0.05)
    sizes = {}
    for codec in (ZSTD, XZ):
        blob = encode_symbols(codes, codec=codec)
        np.testing.assert_array_equal(decode_symbols(blob, codec).codes(), codes)
        sizes[codec.name] = len(blob)
    assert sizes["xz"] < sizes["zstd"]


def _written_rows(seed: int, step: int, count: int, form: BlockFormat) -> tuple[list[list[int]], list[tuple]]:
    """``count`` blocks of random value codes (every ``step``-th slot stored, extra codes
    beside), and their rows as a build writes them in ``form``."""
    rng = np.random.default_rng(seed)
    slots = np.arange(0, BLOCK_KEYS, step, dtype=np.int64)
    written = [(rng.integers(0, 9, len(slots)) * 3 + 2).tolist() for _block in range(count)]
    rows = [(number, *block_codec.encode_block(slots, np.array(codes), np.array(codes) + 5, form=form)) for number, codes in enumerate(written)]
    return written, rows


def _decoded_codes(rows: list[tuple], form: BlockFormat) -> list[list[int]]:
    """The value codes of the stored keys of fetched rows, decoded as a read decodes them."""
    decoded = [block_threads.decoded_rows(rows, form)[row[0]] for row in rows]
    return [block.codes.codes(block.present()).tolist() for block in decoded]


@pytest.mark.parametrize("form", [PLAIN, BlockFormat(draw_extra=1, gaps=True, codec=XZ)])
def test_blocks_are_decoded_in_threads_here_and_in_a_forked_child(form):
    """Several blocks fetched at once are decoded in threads, one block alone (xz: its two
    blobs side by side) too, to what was written; a child forked after this process made
    its threads (as ``query -``'s workers are) makes its own instead of waiting for its
    parent's, which it does not have."""
    written, rows = _written_rows(3, 3, 6, form)
    assert _decoded_codes(rows, form) == written
    assert _decoded_codes(rows[:1], form) == written[:1]
    with multiprocessing.get_context("fork").Pool(1) as child:
        assert child.apply_async(_decoded_codes, (rows, form)).get(timeout=60) == written


@pytest.mark.parametrize("form", [PLAIN, BlockFormat(draw_extra=1, gaps=True, codec=XZ)])
def test_a_worker_that_shares_the_cores_decodes_in_its_own_thread(monkeypatch, form):
    """``share_cores``: one of 4 readers on 4 cores decodes every block of a read in the
    reading thread; one of 2 (two cores each) hands them to decoding threads again; the
    codes alike either way."""
    monkeypatch.setattr(block_threads, "usable_cores", lambda: 4)
    monkeypatch.setattr(block_threads, "_DECODING_ASIDE", True)
    decoders: set[str] = set()
    decode = block_codec.decode_symbols

    def noted(*args: object) -> block_codec.Symbols:
        decoders.add(threading.current_thread().name)
        return decode(*args)

    monkeypatch.setattr(block_codec, "decode_symbols", noted)
    written, rows = _written_rows(4, 5, 4, form)
    block_threads.share_cores(4)
    assert _decoded_codes(rows, form) == written and _decoded_codes(rows[:1], form) == written[:1]
    assert decoders == {threading.current_thread().name}
    block_threads.share_cores(2)
    decoders.clear()
    assert _decoded_codes(rows, form) == written
    assert decoders - {threading.current_thread().name}  # decoding threads did some


@pytest.mark.parametrize("form", [PLAIN, BlockFormat(gaps=True), BlockFormat(gaps=True, codec=XZ)])
def test_a_damaged_present_blob_is_refused(form):
    present, codes, _extra = block_codec.encode_block(np.array([3, 5, 9]), np.array([1, 4, 7]), None, form=form)
    with pytest.raises(ValueError, match="damaged block"):
        block_codec.decode_block(present[:-1], codes, None, form)


@pytest.mark.parametrize("layout", ["blocks", "sided"])
def test_keys_between_stored_ones_are_not_found_and_blocks_are_evicted(tmp_path, monkeypatch, layout):
    """A key left out of a block (its value a don't-care filled in) probes absent, as do
    keys past a block's last stored key and in blocks that hold none."""
    monkeypatch.setattr(block_reader, "CACHED_KEYS", BLOCK_KEYS)  # blocks get evicted
    rng = np.random.default_rng(5)
    keys = np.unique(rng.integers(0, 4 * BLOCK_KEYS, size=50_000))
    keys = keys[(keys // BLOCK_KEYS) != 2]  # block 2 holds nothing
    outcome = rng.integers(-1, 2, size=len(keys)).astype(np.int8)
    remoteness = rng.integers(-1, 300, size=len(keys)).astype(np.int32)
    with open_store(tmp_path / "tb.sqlite", storing=Storing(layout=layout)) as store:
        row = store.begin_build("test", "{}", "test")
        store.write(row, keys, outcome, remoteness, batch_size=7_000)
        row = store.complete(row, outcome, remoteness, 0.0)
        for got, wanted in zip(store.read_values(row), (keys, outcome, remoteness)):
            np.testing.assert_array_equal(got, wanted)
        picks = rng.choice(len(keys), size=300, replace=False)
        stored = set(keys.tolist())
        absent = [k for k in rng.integers(0, 5 * BLOCK_KEYS, size=300).tolist() if k not in stored]
        probed = store.probe(row, [int(keys[i]) for i in picks] + absent)
    assert probed == {int(keys[i]): (int(outcome[i]), int(remoteness[i]) if remoteness[i] >= 0 else None) for i in picks}


def test_chess_tablebases_in_blocks_hold_what_the_packed_layout_holds_in_less_space(tmp_path):
    """KQvK and KPvK with DTM and DTZ, built in each layout (``auto``: sided, chess's keys
    alternating sides to move): the same keys, values and DTZ, probes alike, the blocks
    about half the packed layout (1 KiB pages, which leave the packed chunks less unused
    space than 4 KiB ones did), and the sided blocks smaller still."""
    games = [load_game("chess", {"material": material}) for material in ("KQvK", "KPvK")]
    layouts = ("packed", "blocks", "auto")
    stores = {layout: open_store(tmp_path / f"{layout}.sqlite", storing=Storing(layout=layout)) for layout in layouts}
    try:
        for game in games:
            rows = {layout: build(game, store).row for layout, store in stores.items()}
            assert [rows[layout].format_version for layout in layouts] == [PACKED, BLOCKS, SIDED]
            read = {layout: (*stores[layout].read_values(row), *stores[layout].read_extra(row)) for layout, row in rows.items()}
            some = read["packed"][0][:: max(1, len(read["packed"][0]) // 500)].tolist() + [game.size + 5]
            for layout in ("blocks", "auto"):
                for got, wanted in zip(read[layout], read["packed"]):
                    np.testing.assert_array_equal(got, wanted)
                assert stores[layout].probe(rows[layout], some) == stores["packed"].probe(rows["packed"], some)
                assert stores[layout].probe_extra(rows[layout], some) == stores["packed"].probe_extra(rows["packed"], some)
    finally:
        for store in stores.values():
            store.close()
    sizes = {layout: (tmp_path / f"{layout}.sqlite").stat().st_size for layout in stores}
    assert sizes["auto"] < sizes["blocks"] < sizes["packed"] * 0.6, sizes


def test_the_cache_of_decoded_blocks_takes_its_size_from_the_environment(tmp_path, monkeypatch):
    """``$TABLEBASE_CACHE_MIB`` bounds a reader's decoded blocks (about two bytes a key);
    a value that is no whole number of MiB is refused when the store opens."""
    rng = np.random.default_rng(6)
    keys = np.unique(rng.integers(0, 40 * BLOCK_KEYS, size=200_000))
    outcome = rng.integers(-1, 2, size=len(keys)).astype(np.int8)
    remoteness = rng.integers(0, 100, size=len(keys)).astype(np.int32)
    path = tmp_path / "tb.sqlite"
    with open_store(path, storing=Storing(layout="blocks")) as store:
        row = store.begin_build("test", "{}", "test")
        store.write(row, keys, outcome, remoteness, batch_size=50_000)
        row = store.complete(row, outcome, remoteness, 0.0)
    monkeypatch.setenv("TABLEBASE_CACHE_MIB", "1")  # 2^19 keys: 8 blocks
    with open_store(path, create=False) as store:
        found = store.probe(row, keys[:: 97].tolist())
        assert len(found) == len(keys[:: 97])
        assert 0 < store._reader.blocks._cached <= 1 << 19 < 40 * BLOCK_KEYS
    for bad in ("0", "lots", "-3"):
        monkeypatch.setenv("TABLEBASE_CACHE_MIB", bad)
        with pytest.raises(UsageError, match="TABLEBASE_CACHE_MIB"):
            open_store(path, create=False)


def test_a_block_that_leaves_its_dtm_out_gives_wdl_and_dtz_and_marks_the_dtm_to_derive():
    """One blob of DTZ codes: a win, a mated side (DTZ 0, a loss), a draw and a loss,
    with unstored slots between them; their outcomes and DTZ come back, a mated side's
    remoteness 0 and every other one :data:`TO_DERIVE`."""
    form = BlockFormat(draw_extra=1, gaps=True, dtm_left_out=True)
    slots = np.array([3, 4, 7, 9])
    outcome, remoteness, dtz = np.array([1, -1, 0, -1]), np.array([5, 0, 2, 8]), np.array([3, 0, 0, -7])
    present, codes, extra = block_codec.encode_block(slots, value_codes(outcome, remoteness), extra_codes(dtz), form=form, dtm_left_out=True)
    assert extra is None
    decoded = block_codec.decode_block(present, codes, None, form, dtm_left_out=True)
    np.testing.assert_array_equal(decoded.present() + decoded.first, slots)
    assert [decoded.stored(slot) for slot in range(12)] == [slot in slots for slot in range(12)]
    got_outcome, got_remoteness = split_codes(decoded.codes.codes(decoded.present()))
    np.testing.assert_array_equal(got_outcome, outcome)
    np.testing.assert_array_equal(got_remoteness, [TO_DERIVE, 0, TO_DERIVE, TO_DERIVE])
    np.testing.assert_array_equal(decoded.extra.codes(decoded.present()), extra_codes(dtz))
    assert not form.leaves_dtm_out(6) and form.leaves_dtm_out(7) and not BlockFormat(gaps=True).leaves_dtm_out(7)
