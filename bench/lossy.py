"""Solves over a lossy link: the virtual board and the fake device side by side, at 0.1 %,
1 % and 5 % of the bytes damaged.

The board engine's stream (:func:`host.engines.board.solve_stream`, with its default
timing and ``--retries``, the device's queue kept full, at the fastest rate the device
offers) talks to the device -- the fake device (:mod:`host.fakedevice`, a 10x10 build,
searching in a thread like the board) or the virtual board (:mod:`sim.vboard`, the real
SoC, firmware and UART) -- through :class:`host.lossy.LossyLink`, which drops or corrupts
each byte with the given probability in both directions (half dropped, half corrupted;
seeded).  A connection to the virtual board through the lossy link is watched as every
connection to it is (:func:`host.device.connect_to`): the board's simulated time scales the
host's waits, so a busy machine does not make the link look silent, and a board that died
or hung is reported as such.  Every answer is compared with the corpus's ``.sol``: a wrong
answer is the one thing that must never happen; a clean failure (one line, an exit code)
within the bound of its puzzle is allowed.

    python -m slitherlink.bench.lossy                       # 50 puzzles, 0.1 %, 1 %, 5 %
    python -m slitherlink.bench.lossy --devices fake --losses 0.01 --puzzles 20 --seed 3
    python -m slitherlink.bench.lossy --baud 115200 --depth 1   # the start rate, one in flight

Prints one row per device and loss rate: solved right, wrong, failed (by exit code), the
puzzles whose time (from the answer before) went past their bound
(:meth:`host.device.link.LinkTiming.puzzle_bound`), the median and maximum wall time per
puzzle.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from slitherlink.host import device as B
from slitherlink.host import corpus
from slitherlink.host.engines import checked_stream
from slitherlink.host.engines.board import solve_stream
from slitherlink.host.errors import HostError
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host.lossy import LossyLink
from slitherlink.host.result import Status

PUZZLES = corpus.root()


def SearchingFakeDevice(**options):  # noqa: N802 -- a device kind, as a class is
    """The fake device with its search in a thread, as on the board: while it runs, a PING
    or a resend is answered (searches are remembered by their request, so the SOLVEs a
    lossy link makes the host repeat cost nothing more)."""
    return FakeDevice(threaded=True, **options)


DEFAULT_LOSSES = (0.001, 0.01, 0.05)
#: the devices a run may use, by their name on the command line
DEVICES = {"fake": "fake device", "vboard": "virtual board"}


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


def _device(kind):
    """``(pty path, stop, board)`` of a device of ``kind``: "fake" (the fake device of a
    10x10 build, searching in a thread; board None) or "vboard" (the virtual board of the
    default build, its :class:`sim.vboard.VirtualBoard`)."""
    if kind == "fake":
        return (*SearchingFakeDevice(max_rows=10, max_cols=10).serve_pty(), None)
    from slitherlink.sim.vboard import VirtualBoard
    board = VirtualBoard("soc", quiet=True)
    board.start()
    return board.port, board.stop, board


def _opener(board, port, opened, *, baud, retries):
    """The stream's opener of connections to the virtual board ``board`` through the lossy
    link's ``port``: watched as every connection to a virtual board is
    (:func:`host.device.connect_to`: its waits scaled from the board's simulated time, so
    that a busy machine does not make the link look silent; a board that died or hung
    reported as such); each one connected is appended to ``opened``, the one before closed
    (the stream asks for a new one after a failure)."""
    def opener():
        if opened:
            opened[-1].close()
        connection = B.connect_to(board, port=port, rate=baud, retries=retries)
        try:
            connection.connect()
        except BaseException:
            connection.close()
            raise
        opened.append(connection)
        return connection
    return opener


def _bound(connection, puzzle, retries):
    """The documented bound of a puzzle after the one before it on ``connection``'s link
    (:meth:`host.device.link.LinkTiming.puzzle_bound`), with its queue and rate switch."""
    from slitherlink.host.device.rates import known_rates
    v = connection.version
    return connection.timing.puzzle_bound(
        puzzle.rows, puzzle.cols, v.clock_hz, connection.retries if retries is None
        else retries, depth=connection.depth, switch=True, max_payload=v.max_payload,
        others=len(known_rates()))


def run(loss, puzzles, *, seed=1, retries=None, mode="paper", kind="fake", baud=None,
        depth=None):
    """Solve every puzzle over a link with ``loss`` in ``mode`` on a device of ``kind``,
    as one stream (``depth`` SOLVEs in flight, the device's queue by default; at ``baud``,
    the fastest the device offers by default); a list of records."""
    device_path, stop_device, board = _device(kind)
    link = LossyLink(device_path, loss=loss, seed=seed)
    port = link.start()
    records, bounds, opened = [], [], []
    solve = checked_stream(solve_stream)
    opener = None if board is None else _opener(board, port, opened, baud=baud,
                                                 retries=retries)
    try:
        last = time.monotonic()
        items = [((puzzle, solution), puzzle) for puzzle, solution in puzzles]
        for (puzzle, solution), outcome in solve(items, unique=True, port=port, retries=retries,
                                                 mode=mode, counters=False, baud=baud,
                                                 depth=depth, opener=opener):
            now = time.monotonic()
            record = {"name": puzzle.name, "size": puzzle.size, "loss": loss, "device": kind,
                      "seconds": now - last}
            last = now
            if isinstance(outcome, HostError):
                record.update(outcome="failed", exit_code=int(outcome.exit_code),
                              message=str(outcome))
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                right = outcome.status is Status.SOLVED_UNIQUE and outcome.solution == solution
                if right:
                    record.update(outcome="right", exit_code=0)
                elif outcome.status is Status.ERROR:  # the rules checker caught it
                    record.update(outcome="failed", exit_code=7, message=outcome.message)
                else:
                    record.update(outcome="wrong", exit_code=0,
                                  message=f"status {outcome.status.name}")
            for connection in (opened or B.connections())[-1:]:
                bounds.append(_bound(connection, puzzle, retries))
                record["bound"] = bounds[-1]
            records.append(record)
    finally:
        connections = opened or B.connections()
        resends = sum(connection.resends for connection in connections)
        rate = connections[-1].baud if connections else None
        for connection in opened:
            connection.close()
        B.close_all()
        link.stop()
        stop_device()
    for record in records:
        record.setdefault("bound", max(bounds, default=float("inf")))
    records.append({"summary": True, "loss": loss, "device": kind, "link": dict(link.stats),
                    "resends_open_session": resends, "baud": rate})
    return records


def table(all_records, meta=None):
    """The Markdown table of the runs (one row per device and loss rate), with ``meta``'s
    line (date, command, commit, load) above it when given."""
    lines = []
    if meta:
        lines += [f"Run of {meta['date']}: `{meta['command']}`; source {meta['commit']}; "
                  f"load average at the start {meta['load']:.1f}.", ""]
    lines += ["| device | rate (baud) | damaged bytes | puzzles | right | wrong | failed | "
              "past bound | median s | max s | resends | failures (exit code: n) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (kind, loss), records in all_records.items():
        rows = [r for r in records if not r.get("summary")]
        summary = next((r for r in records if r.get("summary")), {})
        past = sum(r["seconds"] > r["bound"] for r in rows)
        right = sum(r["outcome"] == "right" for r in rows)
        wrong = sum(r["outcome"] == "wrong" for r in rows)
        failed = [r for r in rows if r["outcome"] == "failed"]
        codes = {}
        for r in failed:
            codes[r["exit_code"]] = codes.get(r["exit_code"], 0) + 1
        times = [r["seconds"] for r in rows] or [0.0]
        rate = summary.get("baud")
        lines.append(f"| {DEVICES[kind]} | {f'{rate:,}' if rate else '-'} | {100 * loss:g} % "
                     f"| {len(rows)} | {right} | {wrong} | {len(failed)} | {past} | "
                     f"{statistics.median(times):.3f} | {max(times):.2f} | "
                     f"{summary.get('resends_open_session', '-')} | "
                     + (", ".join(f"{c}: {k}" for c, k in sorted(codes.items())) or "-")
                     + " |")
    return "\n".join(lines)


def _meta(argv):
    import os
    from datetime import datetime, timezone

    from slitherlink.bench.hardware import git_state
    args = sys.argv[1:] if argv is None else list(argv)
    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": " ".join(["python -m slitherlink.bench.lossy", *args]),
            "commit": git_state(), "load": os.getloadavg()[0]}


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
    parser.add_argument("--devices", default="fake,vboard",
                        help="comma-separated: fake (the fake device), vboard (the virtual "
                             "board); default %(default)s")
    parser.add_argument("--baud", type=int, default=None,
                        help="the rate to switch to (default: the fastest the device offers)")
    parser.add_argument("--depth", type=int, default=None,
                        help="SOLVEs in flight (default: the device's queue)")
    parser.add_argument("--json", metavar="FILE", help="write every record as JSON")
    parser.add_argument("--update-docs", action="store_true",
                        help="write the table into docs/benchmark.md (block 'lossy')")
    args = parser.parse_args(argv)
    try:
        losses = [float(x) for x in args.losses.split(",")]
    except ValueError:
        parser.error(f"--losses {args.losses!r} is not a list of numbers")
    puzzles = pick_puzzles(args.puzzles)
    meta = _meta(argv)   # the load at the start
    all_records = {}
    kinds = [k for k in args.devices.split(",") if k]
    if not kinds or set(kinds) - set(DEVICES):
        parser.error(f"--devices {args.devices!r}: choose from fake, vboard")
    for kind in kinds:
        for loss in losses:
            start = time.monotonic()
            all_records[kind, loss] = run(loss, puzzles, seed=args.seed, retries=args.retries,
                                          mode=args.mode, kind=kind, baud=args.baud,
                                          depth=args.depth)
            print(f"{kind}, loss {100 * loss:g} %: {time.monotonic() - start:.1f} s",
                  file=sys.stderr, flush=True)
    text = table(all_records, meta)
    print(text)
    if args.update_docs:
        from slitherlink.bench.hardware import update_docs
        update_docs(text, None, print, "lossy", writer=__spec__.name)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {f"{k[0]} {k[1]}": v for k, v in all_records.items()}, indent=1))
    wrong = sum(r.get("outcome") == "wrong" for rs in all_records.values() for r in rs)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
