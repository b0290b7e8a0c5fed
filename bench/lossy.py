"""Solves over a lossy link: success rate at 0.1 %, 1 % and 5 % of the bytes damaged.

The board engine (:mod:`host.engines.board`, with its default timing and ``--retries``)
talks to the fake device (:mod:`host.fakedevice`, a 10x10 build, the Arty's,
searching in a thread like the board: :class:`SearchingFakeDevice`)
through :class:`host.lossy.LossyLink`, which drops or corrupts each byte with
the given probability in both directions (half dropped, half corrupted;
seeded).  Every answer is compared with the corpus's ``.sol``: a wrong answer
is the one thing that must never happen; a clean failure (one line, an exit
code) within the time bound is allowed, but at 1 % at least 99 % must be solved.

    python -m slitherlink.bench.lossy                       # 50 puzzles, 0.1 %, 1 %, 5 %
    python -m slitherlink.bench.lossy --losses 0.01 --puzzles 20 --seed 3
    python -m slitherlink.bench.lossy --mode deduce         # DEDUCE_RESULT replies

The board engine runs in paper mode unless ``--mode deduce`` is given (the
table of docs/host.md was measured with RESULT frames).

Prints one row per loss rate: solved right, wrong, failed (by exit code), the
median and maximum wall time per puzzle, and the frames sent again.
"""

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path

from slitherlink.host import device as B
from slitherlink.host import corpus
from slitherlink.host.engines import get_engine
from slitherlink.host.errors import HostError
from slitherlink.host import protocol as P
from slitherlink.host.fakedevice import FakeDevice, solve_reply
from slitherlink.host.lossy import LossyLink

from slitherlink.host.result import Status

PUZZLES = corpus.root()


def SearchingFakeDevice(**options):  # noqa: N802 -- a device kind, as a class is
    """The fake device with its search in a thread, as on the board: while it runs, a PING
    or a resend is answered (searches are remembered by their request, so the SOLVEs a
    lossy link makes the host repeat cost nothing more)."""
    return FakeDevice(threaded=True, **options)


DEFAULT_LOSSES = (0.001, 0.01, 0.05)


def pick_puzzles(count, *, max_side=10, root=PUZZLES):
    """``count`` unique puzzles up to max_side x max_side with a solution, evenly spread
    over the corpus sorted by size and name (the same ones every run)."""
    rows = [r for r in corpus.manifest(root)
            if r["rows"] <= max_side and r["cols"] <= max_side
            and r["unique"] == "yes" and (root / f"{r['name']}.sol").exists()]
    rows.sort(key=lambda r: (r["cells"], r["name"]))
    if count < len(rows):
        step = len(rows) / count
        rows = [rows[int(i * step)] for i in range(count)]
    return [corpus.load(r["name"], root) for r in rows]


def run(loss, puzzles, *, seed=1, retries=None, mode="paper"):
    """Solve every puzzle over a link with ``loss`` in ``mode``; a list of records."""
    device = SearchingFakeDevice(max_rows=10, max_cols=10)
    device_path, stop_device = device.serve_pty()
    link = LossyLink(device_path, loss=loss, seed=seed)
    port = link.start()
    solve = get_engine("board")
    records = []
    try:
        for puzzle, solution in puzzles:
            start = time.monotonic()
            record = {"name": puzzle.name, "size": puzzle.size, "loss": loss}
            try:
                result = solve(puzzle, unique=True, port=port, retries=retries, mode=mode)
            except HostError as error:
                record.update(outcome="failed", exit_code=int(error.exit_code),
                              message=str(error))
            else:
                right = result.status is Status.SOLVED_UNIQUE and result.solution == solution
                if right:
                    record.update(outcome="right", exit_code=0)
                elif result.status is Status.ERROR:  # the rules checker caught it
                    record.update(outcome="failed", exit_code=7, message=result.message)
                else:
                    record.update(outcome="wrong", exit_code=0,
                                  message=f"status {result.status.name}")
            record["seconds"] = time.monotonic() - start
            records.append(record)
    finally:
        resends = sum(connection.resends for connection in B.connections())
        B.close_all()
        link.stop()
        stop_device()
    records.append({"summary": True, "loss": loss, "link": dict(link.stats),
                    "resends_open_session": resends})
    return records


def table(all_records):
    head = (f"{'loss':>6} | {'puzzles':>7} | {'right':>5} | {'wrong':>5} | {'failed':>6} | "
            f"{'success':>7} | {'median s':>8} | {'max s':>6} | failures (exit code: n)")
    lines = [head, "-" * len(head)]
    for loss, records in all_records.items():
        rows = [r for r in records if not r.get("summary")]
        n = len(rows)
        right = sum(r["outcome"] == "right" for r in rows)
        wrong = sum(r["outcome"] == "wrong" for r in rows)
        failed = [r for r in rows if r["outcome"] == "failed"]
        codes = {}
        for r in failed:
            codes[r["exit_code"]] = codes.get(r["exit_code"], 0) + 1
        times = [r["seconds"] for r in rows] or [0.0]
        lines.append(f"{100 * loss:>5.1f}% | {n:>7} | {right:>5} | {wrong:>5} | {len(failed):>6} "
                     f"| {100 * right / max(n, 1):>6.1f}% | {statistics.median(times):>8.3f} "
                     f"| {max(times):>6.2f} | "
                     + (", ".join(f"{c}: {k}" for c, k in sorted(codes.items())) or "-"))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.bench.lossy", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--puzzles", type=int, default=50, help="how many (default 50)")
    parser.add_argument("--losses", default=",".join(str(x) for x in DEFAULT_LOSSES),
                        help="comma-separated shares of damaged bytes (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--retries", type=int, default=None,
                        help=f"the board engine's --retries (default {B.DEFAULT_RETRIES})")
    parser.add_argument("--mode", choices=["paper", "deduce"], default="paper",
                        help="the board engine's mode (default %(default)s)")
    parser.add_argument("--json", metavar="FILE", help="write every record as JSON")
    args = parser.parse_args(argv)
    try:
        losses = [float(x) for x in args.losses.split(",")]
    except ValueError:
        parser.error(f"--losses {args.losses!r} is not a list of numbers")
    puzzles = pick_puzzles(args.puzzles)
    all_records = {}
    for loss in losses:
        start = time.monotonic()
        all_records[loss] = run(loss, puzzles, seed=args.seed, retries=args.retries,
                                mode=args.mode)
        print(f"loss {100 * loss:g} %: {time.monotonic() - start:.1f} s", file=sys.stderr,
              flush=True)
    print(table(all_records))
    if args.json:
        Path(args.json).write_text(json.dumps(
            {str(k): v for k, v in all_records.items()}, indent=1))
    wrong = sum(r.get("outcome") == "wrong" for rs in all_records.values() for r in rs)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
