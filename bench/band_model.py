"""Benchmark of the deduction engine's golden model: its search and its cycles per band height.

Runs the band model (:func:`model.deduce.solve` on a :class:`model.band.BandEngine`, the
search of the reference semantics counted in the engine's band passes; docs/deduce.md
sections 6 and 7) on the puzzle corpus, no hardware: unique mode (the search goes on for
a second solution), every answer checked against the puzzle's ``.sol``, the manifest's
``unique`` column and the rules checker.  Prints per size class (the builds of the
hardware benchmark, :mod:`bench.builds`, a puzzle in the smallest that holds it; and
the exact sizes of the engine's goals) the puzzles, the wrong answers, the limits, those
solved with no branch, the median and max decisions, probes and sweeps, and the
engine's cycles (:class:`model.band.BandCycleModel`) for each band height of
``--bands``; then the same cycles without sweep spans, where the cycles go, and the
probes skipped as implied.  Puzzles that hit a limit are left out of the medians and
maxima (counted in "limit").

    .venv/bin/python -m slitherlink.bench.band_model --max-cells 100      # up to 10x10
    .venv/bin/python -m slitherlink.bench.band_model --max-cells 720 --time-limit 30
    .venv/bin/python -m slitherlink.bench.band_model --bands 1,2,4 --csv out.csv
    .venv/bin/python -m slitherlink.bench.band_model --max-cells 100 --labels-after-floods
    .venv/bin/python -m slitherlink.bench.band_model --names 30x30 --no-implied
"""

import argparse
import csv
import dataclasses
import statistics
import sys
import time

from slitherlink.bench.builds import DEFAULT_CLASSES, class_for, grid_name, parse_classes
from slitherlink.bench.summary import GOAL_MAX_CYCLES, GOAL_MEDIANS
from slitherlink.host.check import check as rules_check
from slitherlink.host.corpus import CorpusMissing, load, manifest
from slitherlink.model.band import BandCycleModel, band_engine
from slitherlink.model.deduce import solve

#: the search's figures of the table, beside the cycles per band height
SEARCH = ("decisions", "probes", "sweeps")


def run(row, *, bands, latency, max_decisions, time_limit, check=False, probing=True,
        early_loop=True, beside=True, implied=True, partial_labels=True):
    """One puzzle in unique mode: its verdict, the search's counters, the band passes and
    the cycles of every band height of ``bands`` (``band{N}``, ``whole{N}`` without sweep
    spans, ``snapshot{N}``)."""
    puzzle, solution = load(row["name"])
    start = time.perf_counter()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    engine = band_engine(puzzle, check=check, span_bands=bands, beside=beside,
                         partial_labels=partial_labels, implied=implied, probing=probing,
                         early_loop=early_loop, deadline=deadline)
    outcome = solve(puzzle, max_solutions=2, max_decisions=max_decisions, deadline=deadline,
                    probing=probing, early_loop=early_loop, engine=engine)
    seconds = time.perf_counter() - start
    verdict = "limit" if outcome.limit_reached else \
        {0: "unsat", 1: "yes", 2: "no"}[len(outcome.solutions)]
    right = (verdict == row["unique"]
             and all(rules_check(puzzle, s).ok for s in outcome.solutions)
             and (verdict != "yes" or outcome.solutions[0] == solution))
    c, b = outcome.counters, engine.band_counters
    result = {"name": row["name"], "size": row["size"], "cells": row["cells"],
              "verdict": verdict, "right": right or verdict == "limit",
              "branch_free": outcome.branch_free, **c.as_dict(), **b.as_dict(),
              "sweep_spans": {band: tuple(v) for band, v in b.sweep_spans.items()},
              **{f"implied_{k}": v for k, v in engine.skipped.items()},
              "branch_cycles": BandCycleModel().branch * (c.decisions + c.backtracks),
              "seconds": round(seconds, 3)}
    whole = dataclasses.replace(b, sweep_spans={})
    for band in bands:
        model = BandCycleModel(band, latency)
        result[f"band{band}"] = model.cycles(c, b, puzzle.rows)
        result[f"whole{band}"] = model.cycles(c, whole, puzzle.rows)
        result[f"snapshot{band}"] = model.snapshot_cycles(c, b, puzzle.rows)
    return result


def _med_max(values):
    if not values:
        return "-"
    return f"{statistics.median(values):,.0f} / {max(values):,}"


def table(results, bands, classes, whole=False):
    """Per size class: the answers, the search and the cycles of each band height
    (``whole``: without sweep spans, and no search columns)."""
    search = () if whole else SEARCH
    keys = [f"{'whole' if whole else 'band'}{b}" for b in bands]
    heads = [f"band {b}{' whole sweeps' if whole else ''}" for b in bands]
    lines = ["| size class | puzzles | wrong | limit | "
             + ("" if whole else "no branch | ")
             + " | ".join(f"{h} med / max" for h in [*search, *heads]) + " |",
             "|" + "---|" * (4 + (not whole) + len(search) + len(heads))]
    groups = [(f"{grid_name(g)} build", [r for r in results if r["class"] == grid_name(g)])
              for g in classes] + [("larger", [r for r in results if r["class"] == "larger"])]
    groups += [(f"exactly {size}", [r for r in results if r["size"] == size])
               for size in GOAL_MEDIANS]
    for label, rows in groups + [("all", results)]:
        if not rows:
            continue
        done = [r for r in rows if r["verdict"] != "limit"]
        free = sum(r["branch_free"] for r in rows)
        lines.append(f"| {label} | {len(rows)} | {sum(not r['right'] for r in rows)} | "
                     f"{len(rows) - len(done)} | "
                     + ("" if whole else f"{free} ({100 * free / len(rows):.0f} %) | ")
                     + " | ".join(_med_max([r[k] for r in done]) for k in [*search, *keys])
                     + " |")
    return "\n".join(lines)


def shares(results, bands, latency):
    """Where the band engine's cycles go (all finished puzzles), per band height."""
    done = [r for r in results if r["verdict"] != "limit"]
    lines = ["| band | sweep passes | flood passes | label passes after the floods | snapshots "
             "| branches |", "|---|---|---|---|---|---|"]
    for band in bands:
        model = BandCycleModel(band, latency)
        parts = [0, 0, 0, 0, 0]
        for r in done:
            per = model.pass_clocks(int(r["size"].split("x")[0]))
            words, inner = r["sweep_spans"][band]
            parts[0] += words + inner + r["sweep_passes"] * latency
            parts[1] += r["flood_passes"] * per
            parts[2] += r["late_label_passes"] * per   # the others run beside the floods
            parts[3] += r[f"snapshot{band}"]
            parts[4] += r["branch_cycles"]
        total = sum(parts) or 1
        lines.append(f"| {band} | " + " | ".join(f"{100 * p / total:.0f} %" for p in parts) + " |")
    runs = sum(r["floods"] for r in done) or 1
    label_runs = sum(r["label_runs"] for r in done) or 1
    lines += ["", f"flood passes per flood run: {sum(r['flood_passes'] for r in done) / runs:.2f} "
              f"(reference flood iterations per run: "
              f"{sum(r['flood_iterations'] for r in done) / runs:.2f}); label passes per label "
              f"run used (with the passes of dropped runs): "
              f"{sum(r['label_passes'] for r in done) / label_runs:.2f}, of which after the "
              f"flood run: {sum(r['late_label_passes'] for r in done) / label_runs:.2f} "
              f"(reference label iterations per run: "
              f"{sum(r['label_iterations'] for r in done) / label_runs:.2f})"]
    return "\n".join(lines)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-cells", type=int, default=None, help="skip larger puzzles")
    parser.add_argument("--names", default="", help="only puzzles whose name contains this")
    parser.add_argument("--skip", default="", help="comma-separated puzzle names to leave out")
    parser.add_argument("--max-decisions", type=int, default=20_000)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per puzzle")
    parser.add_argument("--bands", default="1,2,4", help="band heights (framed rows a word)")
    parser.add_argument("--latency", type=int, default=2, help="pipeline clocks per pass")
    parser.add_argument("--check", action="store_true",
                        help="also check the label registers against the model's (slower)")
    parser.add_argument("--no-probing", action="store_true", help="search without probing")
    parser.add_argument("--no-early-loop", action="store_true",
                        help="without the no-early-loop rule (the segment labels)")
    parser.add_argument("--labels-after-floods", action="store_true",
                        help="the label stage after the flood stage instead of beside it, "
                             "to compare")
    parser.add_argument("--no-implied", action="store_true",
                        help="probe every colour, implied or not, to compare")
    parser.add_argument("--whole-label-passes", action="store_true",
                        help="every label pass over every word, to compare")
    parser.add_argument("--csv", help="write one row per puzzle to this file")
    parser.add_argument("--quiet", action="store_true", help="no line per puzzle")
    args = parser.parse_args(argv)
    try:
        args.bands = sorted({int(b) for b in args.bands.split(",") if b.strip()})
    except ValueError:
        parser.error(f"--bands takes band heights, e.g. 1,2,4, not {args.bands!r}")
    if not args.bands or min(args.bands) < 1:
        parser.error("--bands needs at least one band height of at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    classes = parse_classes(DEFAULT_CLASSES)
    try:
        rows = manifest()
    except CorpusMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    skip = {s for s in args.skip.split(",") if s}
    rows = [r for r in rows if (args.max_cells is None or r["cells"] <= args.max_cells)
            and args.names in r["name"] and r["name"] not in skip]
    if not rows:
        print("error: no puzzle matches", file=sys.stderr)
        return 2
    results = []
    for row in sorted(rows, key=lambda r: (r["cells"], r["name"])):
        result = run(row, bands=args.bands, latency=args.latency,
                     max_decisions=args.max_decisions, time_limit=args.time_limit,
                     check=args.check, probing=not args.no_probing,
                     early_loop=not args.no_early_loop, beside=not args.labels_after_floods,
                     implied=not args.no_implied, partial_labels=not args.whole_label_passes)
        grid = class_for(row, classes)
        result["class"] = grid_name(grid) if grid else "larger"
        results.append(result)
        if not args.quiet:
            print(f"{result['name']:36} {result['size']:>6} {result['verdict']:5} "
                  f"{'ok' if result['right'] else 'WRONG'} dec={result['decisions']} "
                  f"probes={result['probes']} "
                  + " ".join(f"band{b}={result[f'band{b}']}" for b in args.bands)
                  + f" {result['seconds']:.2f} s", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(results[0]))
            writer.writeheader()
            writer.writerows(results)
    goals = ", ".join(f"{size} median at most {limit:,}" for size, limit in GOAL_MEDIANS.items())
    print(f"\ncycles, latency L = {args.latency} (a pass: ceil((R+2)/band) + L clocks); the "
          f"engine's goals: {goals}, any puzzle at most {GOAL_MAX_CYCLES:,}\n")
    print(table(results, args.bands, classes))
    print("\nwithout sweep spans (every sweep pass over every word):\n")
    print(table(results, args.bands, classes, whole=True))
    print()
    print(shares(results, args.bands, args.latency))
    done = [r for r in results if r["verdict"] != "limit"]
    print(f"probes: {sum(r['probes'] for r in done):,}; skipped as implied: "
          f"{sum(2 * r['implied_cell'] + r['implied_in'] + r['implied_out'] for r in done):,} "
          f"(cells with both colours implied: {sum(r['implied_cell'] for r in done):,}, "
          f"IN probes: {sum(r['implied_in'] for r in done):,}, "
          f"OUT probes: {sum(r['implied_out'] for r in done):,})")
    limited = [r["name"] for r in results if r["verdict"] == "limit"]
    if limited:
        print(f"\nlimit reached (left out of the medians): {', '.join(limited)}")
    if skip:
        print(f"skipped: {', '.join(sorted(skip))}")
    print(f"model time: {sum(r['seconds'] for r in results):.0f} s for {len(results)} puzzles")
    return 0 if all(r["right"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
