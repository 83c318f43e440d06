"""Time chess tablebase builds stage by stage, with peak memory.

Usage:
  ``python benchmarks/chess_endgames.py``: KQvK, KRvK, KPvK, KQvKR and KRvKP, each built in a
  fresh process of its own on one shared database, its dependencies built before by
  another process (not timed), so each line is that ending's own build, storage included;
  ``python benchmarks/chess_endgames.py --material KRBvKR --metric dtm``: one ending so;
  ``--material all4``: every ending of up to 4 pieces at once, in one process;
  ``--material all5 --metric dtm --budget 3600``: the endings of up to 5 pieces that
  are done within the budget of seconds (an ending begun is finished), then the
  projection for the rest: each remaining ending's index keys times the seconds a key
  of the endings built so far of its kind (5 pieces with pawns, or without), counted
  from the endings of its number of pieces and pawns (or of all 5-piece ones) built;
  ``--metric dtm``: distance to mate only (``both``, the default, DTM and DTZ; ``dtz``);
  ``--unmoves``: solve by un-moves whatever the size of the index space;
  ``--byte-pass`` (with ``--metric dtz``): solve the ending by the one-byte DTZ pass of six
  pieces (:mod:`tablebase.solve.bytepass`) whatever its size;
  ``--syzygy /tmp/tb/src``: also run the Syzygy generator built there (syzygy1/tb,
  ``rtbgen``, or ``rtbgenp`` for an ending with pawns, two threads, WDL and DTZ files
  written compressed, statistics with ``-s``) on each ending in the same run, in a fresh
  directory (``--syzygy-tables DIR``: in DIR, its tables kept for later runs), the Syzygy
  files it needs read from ``../shared/oracle`` (``$RTBPATH``) or, where that lacks them
  (the 5-piece endings of a 6-piece one), generated first and not timed; print its wall
  seconds and peak memory beside ours (with ``--material all4``, on each of the
  collection's endings of 3 and 4 pieces in turn, and their sum), and whether its
  statistics equal our stored table's counts cell by cell
  (:mod:`tablebase.generators.chess.statistics`);
  ``--force``: rebuild the ending even where ``--db`` holds it.

Each line gives the seconds end to end, the CPU seconds of the building process, its peak
memory (``VmHWM`` of ``/proc/self/status``, the largest move-generating worker beside
it) and the peak bytes per key of the ending's index space.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablebase.build.builder import BuildResult, build
from tablebase.generators.chess.game import Chess
from tablebase.generators.chess.statistics import count_positions, differing, read_statistics
from tablebase.solve.kinds import dtz as dtz_kind
from tablebase.solve.kinds import wdl as wdl_kind
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.util.progress import StageTimer

ENDINGS = ["KQvK", "KRvK", "KPvK", "KQvKR", "KRvKP"]


def peak_bytes() -> int:
    """The peak resident memory of this process (``VmHWM``), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def build_one(material: str, metric: str, database: str, dependencies_only: bool, force: bool = False) -> None:
    """Build one ending (or only what it needs; ``force``: rebuild it even where it is
    stored) and print the figures of each build."""
    timer = StageTimer()
    started = time.perf_counter()
    cpu = time.process_time()

    def show(result: BuildResult) -> None:
        row = result.row
        if result.reused:
            return
        stages = "  ".join(f"{stage} {seconds:6.2f}s" for stage, seconds in timer.seconds.items())
        print(f"  {row.description:<32} {row.positions:>13,} positions  {row.build_seconds:7.2f} s   {stages}")
        timer.seconds.clear()

    game = load_game("chess", {"material": material, "metric": metric})
    with open_store(database) as store:
        if dependencies_only:
            for dependency in game.dependencies():
                build(dependency, store, stages=timer, report=show)
            return
        build(game, store, force=force, stages=timer, report=show)
    peak = peak_bytes()
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    per_key = f", {peak / game.size:.1f} bytes per index key ({game.size:,} keys)" if game.size else ""
    print(
        f"{material} metric={metric}: {time.perf_counter() - started:.1f} s in all "
        f"({time.process_time() - cpu:.1f} s CPU), peak memory {peak / 2**20:,.0f} MiB "
        f"(and {workers:,.0f} MiB in the largest move-generating worker){per_key}",
        flush=True,
    )


ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle"


def run_syzygy(source: Path, material: str, tables: Path, metric: str = "dtz", database: str | None = None) -> float | None:
    """Time the Syzygy generator on one ending (see the module docstring), print it and
    return its seconds (None if it failed); on a collection (``all4``), on each of its
    endings of 3 pieces or more in turn, and print their sum.

    Its tables go to ``tables``; the endings it needs that no folder on ``$RTBPATH``
    holds are generated there first, not timed. Its statistics (``-s``) are compared
    cell by cell with the ending stored in ``database``, where given and with DTZ."""
    if material.startswith("all"):
        endings = [member.material for member in load_game("chess", {"material": material}).members() if len(member.material) > 3]
        seconds = [run_syzygy(source, ending, tables, metric, database) for ending in endings]
        if None not in seconds:
            print(f"{material} Syzygy generator: {len(endings)} endings in {sum(seconds):.1f} s", flush=True)
        return None
    folders = [tables, ORACLE / "syzygy", ORACLE / "syzygy5"]
    for dependency in _missing(load_game("chess", {"material": material}), folders):
        if _generate(source, dependency, folders)[0] is None:
            return None
        print(f"  {dependency} by the Syzygy generator, before (not timed)", flush=True)
    seconds, peak = _generate(source, material, folders)
    if seconds is None:
        return None
    print(f"{material} Syzygy generator ({_program(material)} -t 2, WDL+DTZ compressed): {seconds:.1f} s, peak memory {peak / 2**20:,.0f} MiB", flush=True)
    if database and metric != "dtm":
        _compare_statistics(material, metric, database, tables / f"{material}.txt")
    return seconds


def _program(material: str) -> str:
    return "rtbgenp" if "P" in material else "rtbgen"


def _missing(game: Chess, folders: list[Path]) -> list[str]:
    """The endings ``game`` needs, dependencies first, that no folder holds a table of."""
    missing: list[str] = []
    for dependency in game.dependencies():
        if dependency.layout.count > 2 and not any((folder / f"{dependency.material}.rtbw").exists() for folder in folders):
            missing += [m for m in _missing(dependency, folders) + [dependency.material] if m not in missing]
    return missing


def _generate(source: Path, material: str, folders: list[Path]) -> tuple[float | None, int]:
    """Run the generator on ``material`` in ``folders[0]``: ``(seconds, peak bytes)``, or
    ``(None, 0)`` when it fails (printed)."""
    started = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", str(source / _program(material)), "-t", "2", "-s", material],
        check=False, cwd=folders[0], env={"RTBPATH": ":".join(map(str, folders)), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        missing = [line for line in done.stdout.splitlines() if line.startswith("Missing table")]
        print(f"{material} Syzygy generator: failed ({'; '.join(missing) or done.stderr.strip()[-200:]})")
        return None, 0
    return seconds, int(done.stderr.strip().splitlines()[-1]) * 1024


def _compare_statistics(material: str, metric: str, database: str, path: Path) -> None:
    """Print whether the generator's statistics equal the stored ending's counts."""
    game = load_game("chess", {"material": material, "metric": metric})
    with open_store(database) as store:
        row = store.find(game.name, game.identity(), game.version)
        if row is None:
            return
        parts = ((keys, outcome, dtz) for keys, outcome, _remoteness, dtz in store.read_parts(row, extra=True))
        ours = count_positions(game.layout, parts)
    theirs = read_statistics(path)
    different = differing(ours, theirs)
    positions = sum(n for (_side, what, ply), n in theirs.items() if ply == -1)
    verdict = "equal" if not different else f"DIFFERENT in {len(different)} cells, e.g. {list(different.items())[:3]}"
    print(f"  statistics of {material}: {len(theirs)} cells, {positions:,} positions counted the generator's way: {verdict}", flush=True)


def build_collection(material: str, metric: str, database: str, budget: float | None) -> None:
    """Build a collection's endings in build order until ``budget`` seconds are spent,
    printing each build; then the projection of what is left (see the module docstring)."""
    timer = StageTimer()
    started = time.perf_counter()
    done: list[tuple[Chess, float]] = []
    left: list[Chess] = []
    collection = load_game("chess", {"material": material, "metric": metric})
    with open_store(database) as store:
        for member in collection.members():
            if budget is not None and time.perf_counter() - started > budget:
                left.append(member)
                continue
            began = time.perf_counter()
            result = build(member, store, stages=timer)
            seconds = time.perf_counter() - began
            timer.seconds.clear()
            if not result.reused:
                done.append((member, seconds))
                print(f"  {member.material:<8} {member.size:>13,} keys {seconds:8.1f} s", flush=True)
    elapsed = time.perf_counter() - started
    peak = peak_bytes()
    print(f"{material} metric={metric}: {len(done)} endings built in {elapsed:.1f} s, peak memory {peak / 2**20:,.0f} MiB")
    if left:
        projected = sum(member.size * _seconds_per_key(member, done) for member in left)
        print(f"  not built within the budget: {len(left)} endings, {sum(m.size for m in left):,} index keys, "
              f"projected {projected / 3600:.1f} h more ({(elapsed + projected) / 3600:.1f} h in all)")


def _kind(game: Chess) -> tuple[int, bool]:
    """An ending's pieces, and whether it has pawns."""
    return game.layout.count, "P" in game.layout.types


def _seconds_per_key(game: Chess, done: list[tuple[Chess, float]]) -> float:
    """The seconds a key of the built endings of ``game``'s kind (else of its number of
    pieces, else of all) took."""
    for alike in (lambda other: _kind(other) == _kind(game), lambda other: other.layout.count == game.layout.count, lambda _other: True):
        chosen = [(other.size, seconds) for other, seconds in done if alike(other)]
        if chosen:
            return sum(seconds for _size, seconds in chosen) / sum(size for size, _seconds in chosen)
    return 0.0


def main() -> None:
    """Run the builds asked for on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--material", help="one ending, or all3/all4, built in this process")
    parser.add_argument("--metric", default="both", choices=["both", "dtm", "dtz"])
    parser.add_argument("--db", help="database path or URL (default: a temporary file)")
    parser.add_argument("--unmoves", action="store_true", help="solve by un-moves whatever the size")
    parser.add_argument("--budget", type=float, help="seconds for a collection's endings, then a projection of the rest")
    parser.add_argument("--syzygy", type=Path, help="folder of the built Syzygy generator (syzygy1/tb's src), run beside")
    parser.add_argument("--syzygy-tables", type=Path, help="folder the Syzygy generator writes its tables to, kept (default: a temporary one)")
    parser.add_argument("--byte-pass", action="store_true", help="DTZ by the one-byte pass whatever the size")
    parser.add_argument("--force", action="store_true", help="rebuild the ending even where it is stored")
    parser.add_argument("--dependencies-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--here", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.unmoves:
        wdl_kind.GRAPH_UP_TO = 0
    if args.byte_pass and args.here:
        dtz_kind.BYTE_PASS_KEYS = 0
    with tempfile.TemporaryDirectory() as folder:
        database = args.db or str(Path(folder) / "chess.sqlite")
        tables = args.syzygy_tables or Path(folder)
        if args.budget is not None:
            build_collection(args.material, args.metric, database, args.budget)
            return
        if args.here or args.dependencies_only or (args.material or "").startswith("all"):
            build_one(args.material, args.metric, database, args.dependencies_only, args.force)
            if args.syzygy and not args.here and not args.dependencies_only:
                run_syzygy(args.syzygy, args.material, tables, args.metric, database)
            return
        command = [sys.executable, __file__, "--metric", args.metric, "--db", database] + ["--unmoves"] * args.unmoves
        command += ["--byte-pass"] * args.byte_pass + ["--force"] * args.force
        for material in [args.material] if args.material else ENDINGS:
            subprocess.run(command + ["--material", material, "--dependencies-only"], check=True)
            subprocess.run(command + ["--material", material, "--here"], check=True)
            if args.syzygy:
                run_syzygy(args.syzygy, material, tables, args.metric, database)


if __name__ == "__main__":
    main()
