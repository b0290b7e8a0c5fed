"""Benchmark of the deduction engine's band model (model/band.py) for several band heights.

Runs the deduction engine's golden model on the puzzle corpus exactly as
``bench/deduce.py`` (unique mode, every answer checked; its ``run``), on a
:class:`model.band.BandEngine` that also counts the band passes (the search is
the same), and prints per size class (the smallest build of 10x10, 15x15,
20x20, 20x36, 30x25 that holds the puzzle, else "larger"; and the exact 10x10
and 20x36 sizes) the median and max cycles of the engine
(:class:`model.band.BandCycleModel`) for each band height.  A pass streams the
puzzle's own framed rows (R+2).  Puzzles that hit a limit are left out of the
medians and maxima (counted in "limit").

    .venv/bin/python -m slitherlink.bench.band --max-cells 720 --time-limit 30
    .venv/bin/python -m slitherlink.bench.band --bands 1,2,4 --latency 2 --csv out.csv
    .venv/bin/python -m slitherlink.bench.band --max-cells 100 --labels-after-floods
    .venv/bin/python -m slitherlink.bench.band --max-cells 1200 --names 30x30 --no-implied
"""

import argparse
import csv
import dataclasses
import statistics
import sys

from slitherlink.bench.board_deduce import GOALS, class_for, grid_name, parse_classes
from slitherlink.bench.deduce import run
from slitherlink.model.band import BandCycleModel, band_engine
from slitherlink.host.corpus import CorpusMissing, manifest

BUILDS = "10x10,15x15,20x20,20x36,30x25"
EXACT = ("10x10", "20x36")


def size_label(row, builds):
    grid = class_for(row, builds)
    return grid_name(grid) if grid else "larger"


def run_band(row, *, bands, latency, max_decisions, time_limit, check, beside=True,
             implied=True, partial_labels=True):
    made = []

    def make_engine(puzzle, **options):
        made.append(band_engine(puzzle, check=check, span_bands=bands, beside=beside,
                                partial_labels=partial_labels,
                                implied=implied, **options))
        return made[-1]

    result = run(row, max_decisions=max_decisions, time_limit=time_limit,
                 make_engine=make_engine)
    engine = made[0]
    b, c = engine.band_counters, engine.counters
    result.update(b.as_dict())
    result["sweep_spans"] = {band: tuple(v) for band, v in b.sweep_spans.items()}
    result.update(floods=c.floods, label_runs=c.label_runs, saves=c.saves,
                  restores=c.restores, backtracks=c.backtracks)
    result.update({f"implied_{k}": v for k, v in engine.skipped.items()})
    rows = engine.geo.rows
    whole = dataclasses.replace(b, sweep_spans={})
    for band in bands:
        result[f"band{band}"] = BandCycleModel(band, latency).cycles(c, b, rows)
        result[f"whole{band}"] = BandCycleModel(band, latency).cycles(c, whole, rows)
    for band in bands:   # the probes' snapshot words (section 12.14) and the trail's rows
        result[f"snapshot{band}"] = BandCycleModel(band, latency).snapshot_cycles(c, b, rows)
    result["branch_cycles"] = BandCycleModel().branch * (c.decisions + c.backtracks)
    return result


def _med_max(values):
    if not values:
        return "-"
    return f"{statistics.median(values):,.0f} / {max(values):,}"


def table(results, bands, builds, latency, whole=False):
    cols = [f"band {b}" for b in bands]
    keys = [f"band{b}" for b in bands]
    if whole:
        cols = [f"band {b} whole sweeps" for b in bands]
        keys = [f"whole{b}" for b in bands]
    lines = ["| size class | puzzles | wrong | limit | " + " | ".join(
        f"{c} med / max" for c in cols) + " |", "|" + "---|" * (4 + len(cols))]
    labels = [grid_name(g) for g in builds] + ["larger"]
    groups = [(f"{label} build", [r for r in results if r["class"] == label]) for label in labels]
    groups += [(f"exactly {size}", [r for r in results if r["size"] == size]) for size in EXACT]
    groups += [("all", results)]
    for label, rows in groups:
        if not rows:
            continue
        done = [r for r in rows if r["verdict"] != "limit"]
        lines.append(f"| {label} | {len(rows)} | {sum(not r['right'] for r in rows)} | "
                     f"{len(rows) - len(done)} | "
                     + " | ".join(_med_max([r[k] for r in done]) for k in keys) + " |")
    return "\n".join(lines)


def shares(results, bands, latency):
    """Where the band engine's cycles go (all finished puzzles), per band height."""
    done = [r for r in results if r["verdict"] != "limit"]
    lines = ["| band | sweep passes | flood passes | label passes after the floods | snapshots "
             "| branches |",
             "|---|---|---|---|---|---|"]
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
    lines.append("")
    lines.append(f"flood passes per flood run: {sum(r['flood_passes'] for r in done) / runs:.2f} "
                 f"(reference flood iterations per run: "
                 f"{sum(r['flood_iterations'] for r in done) / runs:.2f}); "
                 f"label passes per label run used (with the passes of dropped runs): "
                 f"{sum(r['label_passes'] for r in done) / label_runs:.2f}, "
                 f"of which after the flood run: "
                 f"{sum(r['late_label_passes'] for r in done) / label_runs:.2f} "
                 f"(parallel label clocks per run: "
                 f"{sum(r['label_iterations'] for r in done) / label_runs:.2f})")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-cells", type=int, default=None, help="skip larger puzzles")
    parser.add_argument("--names", default="", help="only puzzles whose name contains this")
    parser.add_argument("--skip", default="", help="comma-separated puzzle names to leave out")
    parser.add_argument("--max-decisions", type=int, default=20_000)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per puzzle")
    parser.add_argument("--bands", default="1,2,4", help="band heights (rows per word)")
    parser.add_argument("--latency", type=int, default=2, help="pipeline clocks per pass")
    parser.add_argument("--check", action="store_true",
                        help="also check the label registers against the model's (slower)")
    parser.add_argument("--labels-after-floods", action="store_true",
                        help="run the label stage after the flood stage instead of beside "
                             "it (the engine before docs/deduce.md section 12.12), to compare")
    parser.add_argument("--no-implied", action="store_true",
                        help="probe every colour, implied or not (the sequencer before "
                             "docs/deduce.md section 12.15), to compare")
    parser.add_argument("--whole-label-passes", action="store_true",
                        help="every label pass over every word (the engine before "
                             "docs/deduce.md section 12.18), to compare")
    parser.add_argument("--csv", help="write one row per puzzle to this file")
    parser.add_argument("--quiet", action="store_true", help="no line per puzzle")
    args = parser.parse_args(argv)
    bands = [int(b) for b in args.bands.split(",") if b]
    builds = parse_classes(BUILDS)
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
        result = run_band(row, bands=bands, latency=args.latency,
                          max_decisions=args.max_decisions, time_limit=args.time_limit,
                          check=args.check, beside=not args.labels_after_floods,
                          implied=not args.no_implied, partial_labels=not args.whole_label_passes)
        result["class"] = size_label(row, builds)
        results.append(result)
        if not args.quiet:
            print(f"{result['name']:36} {result['size']:>6} {result['verdict']:5} "
                  f"{'ok' if result['right'] else 'WRONG'} dec={result['decisions']} "
                  f"parallel={result['cycles']} "
                  + " ".join(f"band{b}={result[f'band{b}']}" for b in bands)
                  + f" {result['seconds']:.2f} s", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(results[0]))
            writer.writeheader()
            writer.writerows(results)
    print(f"\ncycles, latency L = {args.latency} (a pass: ceil((R+2)/band) + L clocks); "
          f"issue 12's goals: 10x10 median <= {GOALS['median_10x10']:,}, "
          f"20x36 median <= {GOALS['median_20x36']:,}, max <= {GOALS['max_cycles']:,}\n")
    print(table(results, bands, builds, args.latency))
    print("\nwithout sweep spans (every sweep pass over every word, as before the "
          "spans):\n")
    print(table(results, bands, builds, args.latency, whole=True))
    print()
    print(shares(results, bands, args.latency))
    done = [r for r in results if r["verdict"] != "limit"]
    print(f"probes: {sum(r['probes'] for r in done):,}; skipped as implied (section 12.15): "
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
