"""Measure the SoC in paper mode: solve cycles per puzzle next to the golden model's checks.

``python -m slitherlink.bench.soc_cycles [--puzzles a,b,...] [--out FILE]`` (``make
bench-soc``) solves the puzzles in paper mode on the default virtual board (``sim.vboard``,
the SoC compiled by Verilator, the default target's clock and UART) through the hardware
benchmark's board (:class:`bench.hardware.BoardWorker`); fast enough for 10x10 puzzles of
tens of thousands of checks.  It checks every counter against the golden model
(:func:`model.paper.search`) and writes a Markdown table: checks, floods, solve cycles (the
SoC's cycle counter, from "puzzle loaded" to "answer ready"), cycles per check, and
milliseconds at 50 MHz, the paper's clock (its 0.1578 s average per 10x10 is 7.9 M
cycles).
"""

import argparse
import sys
import time
from pathlib import Path

from slitherlink.bench import paper
from slitherlink.spec.target import DEFAULT_TARGET

SMALL = ["edge_2x4_global_unsat", "edge_1x3_two_solutions", "janko_0008", "janko_0002",
         "janko_0011", "janko_1165", "janko_0751", "janko_0454", "janko_0891",
         "loopy_7x7_normal_03", "janko_0748", "janko_1142", "janko_0921", "janko_0071"]
PAPER_10X10 = paper.hardware_average_10x10()   # 0.1578 s at 50 MHz (Table 8)


def sample_10x10(count=20):
    """Every k-th real 10x10 puzzle of the corpus, by name: a fixed, spread sample."""
    from slitherlink.host.corpus import manifest
    names = sorted(r["name"] for r in manifest()
                   if (r["rows"], r["cols"]) == (10, 10) and r["source"] != "synthetic")
    return names[::max(1, len(names) // count)][:count]


def table(rows):
    out = ["| puzzle | size | status | checks | floods | flood iterations | solve cycles | "
           "cycles/check | ms at 50 MHz |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['name']} | {r['rows']}x{r['cols']} | {r['status']} | {r['checks']} | "
                   f"{r['floods']} | {r['flood_iterations']} | {r['cycles']} | "
                   f"{r['cycles'] / max(1, r['checks']):.1f} | "
                   f"{1e3 * r['cycles'] / paper.CLOCK_HZ:.3f} |")
    checks = sum(r["checks"] for r in rows)
    cycles = sum(r["cycles"] for r in rows)
    per = cycles / max(1, checks)
    tens = [r for r in rows if (r["rows"], r["cols"]) == (10, 10) and r["status"] != "LIMIT"]
    out += ["", f"Over these {len(rows)} puzzles: {checks} checks in {cycles} cycles, "
            f"{per:.1f} cycles per check."]
    if tens:
        mean = sum(r["cycles"] for r in tens) / len(tens)
        out.append(f"The {len(tens)} solved 10x10 puzzles: {mean / 1e6:.2f} M cycles on average "
                   f"({mean / paper.CLOCK_HZ:.4f} s at 50 MHz); the paper: "
                   f"{PAPER_10X10['seconds']} s = {PAPER_10X10['cycles_at_50mhz'] / 1e6:.2f} M "
                   f"cycles.")
    return "\n".join(out) + "\n"


def run_vboard(names, *, max_checks, timeout):
    """Solve ``names`` on the default virtual board in paper mode (the hardware
    benchmark's board and golden model, :mod:`bench.hardware`, :data:`bench.modes.PAPER`);
    every counter is checked against the model's."""
    from slitherlink.bench.hardware import BoardWorker
    from slitherlink.bench.modes import PAPER
    from slitherlink.host.corpus import load
    from slitherlink.host.device import BoardError
    from slitherlink.sim.vboard import build_design
    bound = max_checks or (1 << 32) - 1
    rows = []
    worker = BoardWorker(build_design("soc"))
    try:
        for name in names:
            puzzle, _ = load(name)
            start = time.monotonic()
            try:
                result = worker.solve(PAPER, puzzle, bound, timeout)
            except BoardError as error:
                raise RuntimeError(f"{name}: {error}") from None
            expected = PAPER.expect(puzzle, bound, band=None)
            counters = {k: result.counters[k] for k in PAPER.counters}
            if counters != expected["counters"] or result.status.name != expected["status"]:
                raise RuntimeError(f"{name}: the SoC says {result.status.name} {counters}, "
                                   f"the model {expected['status']} {expected['counters']}")
            cycles = result.counters["cycles"]
            rows.append({"name": name, "rows": puzzle.rows, "cols": puzzle.cols,
                         "status": result.status.name, **counters, "cycles": cycles,
                         "wall_seconds": round(time.monotonic() - start, 1)})
            print(f"{name}: {result.status.name}, {counters['checks']} checks, {cycles} cycles "
                  f"({cycles / max(1, counters['checks']):.1f}/check), "
                  f"{rows[-1]['wall_seconds']} s", file=sys.stderr)
    finally:
        worker.close()
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--puzzles", help="comma-separated names (default: a few small ones "
                        "and 20 10x10 puzzles spread over the corpus)")
    parser.add_argument("--max-checks", type=int, default=1_000_000,
                        help="check limit per puzzle (default 1M; 0: none)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per puzzle")
    parser.add_argument("--out", help="write the Markdown table here")
    args = parser.parse_args(argv)
    names = [n for n in args.puzzles.split(",") if n] if args.puzzles \
        else SMALL[:5] + sample_10x10()
    try:
        rows = run_vboard(names, max_checks=args.max_checks, timeout=args.timeout)
        how = (f"the virtual board (Verilator), the default target "
               f"({DEFAULT_TARGET.max_rows}x{DEFAULT_TARGET.max_cols}, "
               f"{DEFAULT_TARGET.clock_hz / 1e6:g} MHz, {DEFAULT_TARGET.baud} baud)")
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    text = ("<!-- Generated by python -m slitherlink.bench.soc_cycles (make bench-soc). -->\n\n"
            "# Solve cycles of the SoC\n\n"
            f"Measured on {how}; every counter equals model.paper.search's.\n\n" + table(rows))
    if args.out:
        Path(args.out).write_text(text)
        from slitherlink.bench import readme
        if Path(args.out).resolve() == readme.SOC_CYCLES.resolve():
            readme.update()   # the README quotes its average
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
