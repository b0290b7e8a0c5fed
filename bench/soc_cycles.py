"""Measure the SoC in paper mode: solve cycles per puzzle next to the golden model's checks.

``python -m slitherlink.bench.soc_cycles [--puzzles a,b,...] [--out FILE]`` (``make
bench-soc``) solves the puzzles on the default virtual board (``sim.vboard``, the SoC
compiled by Verilator, the default target's clock and UART) over its pseudo-terminal,
with :mod:`host.protocol`; fast enough for 10x10 puzzles of tens of thousands of checks.
It checks every counter against :func:`model.paper.search` and writes a Markdown table: checks, floods, solve cycles (the SoC's cycle counter, from
"puzzle loaded" to "answer ready"), cycles per check, and milliseconds at
50 MHz, the paper's clock (its 0.1578 s average per 10x10 is 7.9 M cycles).
"""

import argparse
import sys
import time
from pathlib import Path

from slitherlink.spec.target import DEFAULT_TARGET

SMALL = ["edge_2x4_global_unsat", "edge_1x3_two_solutions", "janko_0008", "janko_0002",
         "janko_0011", "janko_1165", "janko_0751", "janko_0454", "janko_0891",
         "loopy_7x7_normal_03", "janko_0748", "janko_1142", "janko_0921", "janko_0071"]
PAPER_CYCLES = 0.1578 * 50e6


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
                   f"{r['cycles'] / max(1, r['checks']):.1f} | {r['cycles'] / 50e3:.3f} |")
    checks = sum(r["checks"] for r in rows)
    cycles = sum(r["cycles"] for r in rows)
    per = cycles / max(1, checks)
    tens = [r for r in rows if (r["rows"], r["cols"]) == (10, 10) and r["status"] != "LIMIT"]
    out += ["", f"Over these {len(rows)} puzzles: {checks} checks in {cycles} cycles, "
            f"{per:.1f} cycles per check."]
    if tens:
        mean = sum(r["cycles"] for r in tens) / len(tens)
        out.append(f"The {len(tens)} solved 10x10 puzzles: {mean / 1e6:.2f} M cycles on average "
                   f"({mean / 50e6:.4f} s at 50 MHz); the paper: 0.1578 s = "
                   f"{PAPER_CYCLES / 1e6:.2f} M cycles.")
    return "\n".join(out) + "\n"


def model_counters(puzzle, unique, max_checks):
    from slitherlink.host.result import Result
    from slitherlink.model.paper import search
    outcome = search(puzzle, max_solutions=2 if unique else 1,
                     max_checks=max_checks or (1 << 32) - 1)
    status = Result.status_for(len(outcome.solutions), wanted_unique=unique,
                               exhausted=outcome.exhausted)
    return status, outcome


def run_vboard(names, *, max_checks, timeout):
    """Solve ``names`` on the virtual board; every counter is checked against the model."""
    import serial
    from slitherlink.host import protocol as P
    from slitherlink.sim.vboard import VirtualBoard
    from slitherlink.host.corpus import load
    rows = []
    with VirtualBoard() as board, serial.Serial(board.port, board.baud, timeout=0.1) as port:
        decoder = P.FrameDecoder()
        for name in names:
            puzzle, solution = load(name)
            port.write(P.encode_solve(puzzle, mode="paper", unique=True, max_checks=max_checks))
            start, frames = time.monotonic(), []
            while not frames and time.monotonic() - start < timeout:
                frames = decoder.feed(port.read(256))
            if not frames:
                raise RuntimeError(f"{name}: no answer within {timeout} s")
            reply = P.decode_reply(frames[0])
            if not isinstance(reply, P.ResultReply):
                raise RuntimeError(f"{name}: {reply}")
            status, outcome = model_counters(puzzle, True, max_checks)
            if reply.counters != outcome.counters.as_dict() or reply.status != status:
                raise RuntimeError(f"{name}: the SoC says {reply.status.name} "
                                   f"{reply.counters}, the model {status.name} "
                                   f"{outcome.counters.as_dict()}")
            if status.solved and reply.solution != outcome.solutions[0]:
                raise RuntimeError(f"{name}: the colouring differs from the model's")
            rows.append({"name": name, "rows": puzzle.rows, "cols": puzzle.cols,
                         "status": reply.status.name, **reply.counters, "cycles": reply.cycles,
                         "wall_seconds": round(time.monotonic() - start, 1)})
            print(f"{name}: {reply.status.name}, {reply.counters['checks']} checks, "
                  f"{reply.cycles} cycles ({reply.cycles / max(1, reply.counters['checks']):.1f}"
                  f"/check), {rows[-1]['wall_seconds']} s", file=sys.stderr)
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
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
