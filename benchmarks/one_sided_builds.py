"""What the default ``--dtm-sides auto`` costs a build: an ending built onto dependencies
stored with both sides' DTM, and onto the same dependencies as the default stores them
(those :attr:`~tablebase.core.game.Game.dtm_left_out_by_default` names one-sided, so that
the build values the left-out DTM of the positions its captures and promotions reach,
:meth:`~tablebase.solve.tables.IndexedTable.remoteness_of`).

Usage: ``python benchmarks/one_sided_builds.py --both DB --auto DB --material KPvKP
[--runs 3]``, then ``--project`` for all5's projected hours by where the pawns are.

The two databases must hold the ending's dependencies, built (or repacked) with
``--dtm-sides both`` and by default; the ending is built again (``--force``) in each,
in turn, ``runs`` times, in a fresh process each (``tablebase build``), and the seconds
the build reports are printed with their ratio. ``--project`` prints
``solve/budget.py``'s projected build of all5 split by where the pawns are (none, white
alone with one or with more, black alone, both sides): a measured ratio applies to the
endings like the one measured.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys

from tablebase.solve.budget import estimate
from tablebase.solve.registry import load_game

BUILT = re.compile(r"built chess material=(\S+) .* in ([\d.]+) s")


def build_seconds(db: str, material: str, sides: str) -> float:
    """Seconds that ``tablebase build`` reports for rebuilding ``material`` in ``db``."""
    done = subprocess.run(
        [sys.executable, "-m", "tablebase", "build", "chess", "-p", f"material={material}", "--force", "--dtm-sides", sides, "--db", db],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(next(m[2] for m in BUILT.finditer(done.stdout) if m[1] == material))


def pawns_class(material: str) -> str:
    """Where an ending's pawns are: ``none``, ``white, one``, ``white, more``, ``black``, ``both``."""
    white, black = (side.count("P") for side in material.split("v"))
    if white and black:
        return "both"
    if white:
        return "white, one" if white == 1 else "white, more"
    return "black" if black else "none"


def projection() -> None:
    """all5's projected build hours by where the pawns are."""
    hours = dict.fromkeys(("none", "white, one", "white, more", "black", "both"), 0.0)
    for member in load_game("chess", {"material": "all5"}).members():
        found = estimate(member)
        assert found is not None
        hours[pawns_class(member.material)] += found.seconds / 3600
    split = "; ".join(f"{name} {value:.2f} h" for name, value in hours.items())
    print(f"all5 projected (solve/budget.py), pawns: {split}; in all {sum(hours.values()):.2f} h")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--both", help="a database of the dependencies with both sides' DTM")
    parser.add_argument("--auto", help="the same dependencies as the default stores them")
    parser.add_argument("--material", help="the ending to build, e.g. KPvKP")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--project", action="store_true", help="print all5's projected hours by pawns")
    args = parser.parse_args()
    if args.project:
        projection()
        return
    if not (args.both and args.auto and args.material):
        parser.error("--both, --auto and --material are needed (or --project)")
    times: dict[str, list[float]] = {"both": [], "auto": []}
    for run in range(args.runs):
        for sides, db in (("both", args.both), ("auto", args.auto)):
            times[sides].append(build_seconds(db, args.material, sides))
        print(f"run {run + 1}: both sides {times['both'][-1]:.2f} s, default {times['auto'][-1]:.2f} s", flush=True)
    both, auto = statistics.median(times["both"]), statistics.median(times["auto"])
    print(f"{args.material}: median both sides {both:.2f} s, default {auto:.2f} s, ratio {auto / both:.3f}")


if __name__ == "__main__":
    main()
