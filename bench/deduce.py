"""Benchmark of the deduction engine's golden model (model/deduce.py, docs/deduce.md).

Runs the model on the puzzle corpus (unique mode: the search goes on for a
second solution), checks every answer against the puzzle's ``.sol`` and the
manifest's ``unique`` column, and prints one row per size class: puzzles,
wrong answers, limits, solved with no branch, and the median / max of
decisions, probes, sweeps and the cycles of the default build's engine (band 1,
:class:`model.band.BandCycleModel`).

    .venv/bin/python -m slitherlink.bench.deduce                    # the whole corpus
    .venv/bin/python -m slitherlink.bench.deduce --max-cells 100    # up to 10x10
    .venv/bin/python -m slitherlink.bench.deduce --csv out.csv      # one row per puzzle too
"""

import argparse
import csv
import statistics
import sys
import time

from slitherlink.host.check import check
from slitherlink.model.band import BandCycleModel, band_engine
from slitherlink.model.deduce import solve
from slitherlink.host.corpus import CorpusMissing, load, manifest

#: size classes: (label, largest cell count)
CLASSES = [("up to 7x7", 49), ("up to 10x10", 100), ("up to 15x15", 225),
           ("up to 20x20", 400), ("up to 20x36", 720), ("larger", 10 ** 9)]

COLUMNS = ("decisions", "probes", "sweeps", "cycles")


def size_class(cells):
    return next(label for label, most in CLASSES if cells <= most)


def run(row, *, max_decisions, time_limit, probing=True, early_loop=True, make_engine=None):
    """One puzzle in unique mode; ``make_engine(puzzle, probing=, early_loop=, deadline=)``
    makes the :class:`model.band.BandEngine` to search on (default: band 1, unchecked)."""
    puzzle, solution = load(row["name"])
    start = time.perf_counter()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    make_engine = make_engine or (lambda puzzle, **options: band_engine(puzzle, check=False,
                                                                         **options))
    engine = make_engine(puzzle, probing=probing, early_loop=early_loop, deadline=deadline)
    outcome = solve(puzzle, max_solutions=2, max_decisions=max_decisions, deadline=deadline,
                    probing=probing, early_loop=early_loop, engine=engine)
    seconds = time.perf_counter() - start
    if outcome.limit_reached:
        verdict = "limit"
    else:
        verdict = {0: "unsat", 1: "yes", 2: "no"}[len(outcome.solutions)]
    right = (verdict == row["unique"]
             and all(check(puzzle, s).ok for s in outcome.solutions)
             and (verdict != "yes" or outcome.solutions[0] == solution))
    c = outcome.counters
    return {"name": row["name"], "size": f"{row['rows']}x{row['cols']}", "cells": row["cells"],
            "verdict": verdict, "right": right or verdict == "limit",
            "branch_free": outcome.branch_free, "decisions": c.decisions, "probes": c.probes,
            "sweeps": c.sweeps, "flood_iterations": c.flood_iterations,
            "label_iterations": c.label_iterations,
            "cycles": BandCycleModel(1).cycles(c, engine.band_counters, puzzle.rows),
            "seconds": round(seconds, 3)}


def table(results):
    head = (f"| size class | puzzles | wrong | limit | no branch | "
            + " | ".join(f"{c} med / max" for c in COLUMNS) + " |")
    lines = [head, "|" + "---|" * (5 + len(COLUMNS))]
    groups = [(label, [r for r in results if size_class(r["cells"]) == label])
              for label, _ in CLASSES] + [("all", results)]
    for label, rows in groups:
        if not rows:
            continue
        done = [r for r in rows if r["verdict"] != "limit"]
        free = sum(r["branch_free"] for r in rows)
        cells = []
        for col in COLUMNS:
            values = [r[col] for r in done] or [0]
            cells.append(f"{statistics.median(values):,.0f} / {max(values):,}")
        lines.append(f"| {label} | {len(rows)} | {sum(not r['right'] for r in rows)} | "
                     f"{len(rows) - len(done)} | {free} ({100 * free / len(rows):.0f} %) | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-cells", type=int, default=None, help="skip larger puzzles")
    parser.add_argument("--names", default="", help="only puzzles whose name contains this")
    parser.add_argument("--max-decisions", type=int, default=20_000)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per puzzle")
    parser.add_argument("--no-probing", action="store_true")
    parser.add_argument("--no-early-loop", action="store_true")
    parser.add_argument("--csv", help="write one row per puzzle to this file")
    parser.add_argument("--quiet", action="store_true", help="no line per puzzle")
    args = parser.parse_args(argv)
    try:
        rows = manifest()
    except CorpusMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    rows = [r for r in rows if (args.max_cells is None or r["cells"] <= args.max_cells)
            and args.names in r["name"]]
    if not rows:
        print("error: no puzzle matches", file=sys.stderr)
        return 2
    results = []
    for row in sorted(rows, key=lambda r: (r["cells"], r["name"])):
        result = run(row, max_decisions=args.max_decisions, time_limit=args.time_limit,
                     probing=not args.no_probing, early_loop=not args.no_early_loop)
        results.append(result)
        if not args.quiet:
            print(f"{result['name']:36} {result['size']:>6} {result['verdict']:5} "
                  f"{'ok' if result['right'] else 'WRONG'} dec={result['decisions']} "
                  f"probes={result['probes']} cycles={result['cycles']} "
                  f"{result['seconds']:.2f} s", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(results[0]))
            writer.writeheader()
            writer.writerows(results)
    print(table(results))
    print(f"model time: {sum(r['seconds'] for r in results):.0f} s for {len(results)} puzzles")
    return 0 if all(r["right"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
