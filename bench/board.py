"""Benchmark the hardware solver on the virtual board, beside the software peers.

``make bench`` (``python -m slitherlink.bench.board``) solves a selection of the puzzle
corpus on the virtual board (:mod:`sim.vboard`: the whole SoC -- PicoRV32,
firmware, accelerator, UART -- in Verilator, talking the UART protocol over a
pseudo-terminal through :class:`host.device.Connection`), in *unique* mode (find a
solution and prove there is no other, like the corpus' ``ref_seconds``), and
records for every puzzle:

* the SoC's own solve cycles (``cycles``: the firmware reads the SoC's cycle
  counter at "puzzle loaded" and "answer ready", DESIGN.md section 5; exact,
  the simulation is cycle-accurate) and the search's counters (checks,
  backtracks, candidates, floods, flood iterations), which must equal those
  of the golden model :func:`model.paper.search` (column ``golden_match``);
* the solve time at the design clock and at the paper's 50 MHz;
* the end-to-end time at real baud rates (``--bauds``, default 115200 and
  3 Mbaud)::

      e2e = 10 * (len(SOLVE frame) + len(RESULT frame)) / baud + cycles / clock

  the frames being the exact bytes of :mod:`host.protocol` for that puzzle
  (8N1: 10 bit times per byte).  Not included: the firmware's few thousand
  cycles to check the request and load the clues before the counter starts
  (and to format the reply, which overlaps the transmission), and the host's
  and the USB bridge's latency;
* whether the answer is right: the status against the manifest's ``unique``
  column, the colouring against the ``.sol`` file (:func:`bench.peers.judge`;
  the board engine also passed every colouring through the rules checker);
* the wall time of every software engine (:mod:`bench.peers`: model, sat, z3,
  ip, cpsat) on the same puzzle in the same run, each in its own process with
  a time limit (run after the hardware, so they do not share the cores with
  the simulations).

A puzzle is bounded by ``--max-checks`` (sent in the SOLVE request: the
firmware stops with status LIMIT, exactly at that check); a time-out is a row
of its own (verdict ``timeout``), never dropped.  Puzzles larger than the Arty
A7 build's grid (10x10) run on a virtual board built for the largest of them.

Writes ``build/bench/board-<stamp>.{csv,json,md,png}`` (and ``board-latest.*``):
one row per puzzle, a Markdown summary per size class with the paper's figures
(:mod:`bench.paper`) beside ours, and a plot (:mod:`bench.plot`); with
``--update-docs`` also ``docs/benchmark.md``'s results section and
``docs/benchmark.png``.

    python -m slitherlink.bench.board                  # up to 10 per source and size class up to 10x10
    python -m slitherlink.bench.board --sizes 10x10 --per-class all --per-source 0   # all 277 10x10s
    python -m slitherlink.bench.board --names janko_0889,janko_0291 --no-peers      # a 12x14 build
    python -m slitherlink.bench.board --from-json build/bench/board-latest.json --update-docs

Modes (``--mode``): ``paper`` (the default: the paper's search, as above), ``deduce``
(the deduction engine, :mod:`bench.board_deduce`: one virtual board per size class of
``--classes``, built with a fast simulated UART (``--sim-baud``, default
:data:`spec.uart.FAST_BAUD`), every DEDUCE_RESULT counter against
:func:`model.deduce.solve`, the peers, the speed-up over sat at 50 MHz and at
``--fmax``, the goals of issue 12; writes ``build/bench/board-deduce-<stamp>.*`` and,
with ``--update-docs``, the docs' section ``deduce``) and ``both`` (deduce mode, and on
the same boards the paper's search on the puzzles of up to ``--paper-max-cells`` cells
that its golden model finishes within ``--max-checks``; the paper part is written as
``board-<stamp>.*``, and only the deduce section goes into the docs).

    python -m slitherlink.bench.board --mode deduce --sizes 10x10,15x15 --per-class 10
    python -m slitherlink.bench.board --from-json build/bench/board-deduce-latest.json --fmax 62.5

This is a benchmark, not a test.
"""

import argparse
import csv
import json
import os
import queue
import random
import re
import shlex
import statistics
import sys
import threading
import time
from functools import partial
from pathlib import Path

from slitherlink.paths import build_root, checkout

REPO = checkout() or Path.cwd()  # the docs the benchmark updates

from slitherlink.bench import board_deduce as D
from slitherlink.bench import paper
from slitherlink.bench.peers import (DEFAULT_ENGINES, DEFAULT_PUZZLES, UsageError, _cells, choose,
                         judge, peer_engine, read_manifest, run_all)
from slitherlink.host import protocol as P
from slitherlink.host.puzzle import Puzzle, PuzzleError, parse_plain
from slitherlink.host.result import Status
from slitherlink.spec.uart import DEFAULT_BAUD, FAST_BAUD

#: The default per-puzzle bound: checks (about 85 cycles each on the SoC).
DEFAULT_MAX_CHECKS = 200_000
#: Baud rates for the end-to-end time: the Arty build's, and a fast rate an FT2232H reaches.
DEFAULT_BAUDS = (DEFAULT_BAUD, 3_000_000)
#: The grid of the default virtual board (the Arty A7 build), if the build cannot say.
DEFAULT_GRID = (10, 10)
#: Bits on the line per byte (8N1).
BITS_PER_BYTE = 10
#: Counters of the search that the golden model must reproduce exactly.
SEARCH_COUNTERS = ("checks", "backtracks", "candidates", "floods", "flood_iterations")
#: Wall-time guard per puzzle on the virtual board (an ABORT after this long).
DEFAULT_SIM_TIMEOUT = 3600.0
#: Seconds a starting virtual board may take to answer the first request (per attempt;
#: a 20x36 build with the deduction engine answers its first ABORT after 4-5 s).
CONNECT_WAIT = 120.0
#: docs/benchmark.md's generated sections: between these two lines (``{}``: the section name)
DOC_BEGIN = "<!-- bench:{}:begin (generated by python -m slitherlink.bench.board --update-docs) -->"
DOC_END = "<!-- bench:{}:end -->"


# -- the selection -------------------------------------------------------------------------

def select(rows, args):
    """The puzzles to run (manifest rows), in a stable order."""
    if args.names:
        by_name = {r["name"]: r for r in rows}
        unknown = [n for n in args.names if n not in by_name]
        if unknown:
            raise UsageError(f"no puzzle named {unknown[0]!r} in the manifest")
        sample = [by_name[n] for n in args.names]
    elif args.per_source:
        # at most per_source puzzles of each (size class, source), then per_class of each class
        sources = args.sources or sorted({r["source"] for r in rows})
        sample = []
        for source in sources:
            try:
                sample += choose(rows, sizes=args.sizes, sources=[source],
                                 per_class=min(args.per_class, args.per_source),
                                 larger=min(args.larger, args.per_source),
                                 max_cells=args.max_cells, seed=args.seed)
            except UsageError:
                if args.sources or not args.sizes:
                    raise
                # a source without puzzles of some of the chosen sizes: take those it has
                for size in args.sizes:
                    try:
                        sample += choose(rows, sizes=[size], sources=[source],
                                         per_class=min(args.per_class, args.per_source),
                                         larger=0, max_cells=args.max_cells, seed=args.seed)
                    except UsageError:
                        pass
        classes = {}
        for row in sample:
            classes.setdefault(row["size"], []).append(row)
        rng = random.Random(args.seed)
        sample = [row for members in classes.values()
                  for row in (members if len(members) <= args.per_class
                              else rng.sample(members, args.per_class))]
        if args.sizes and not sample:
            raise UsageError("no puzzle of the chosen sizes and sources")
    else:
        sample = choose(rows, sizes=args.sizes, sources=args.sources,
                        per_class=args.per_class, larger=args.larger,
                        max_cells=args.max_cells, seed=args.seed)
    return sorted(sample, key=lambda r: (r["cells"], r["size"], r["name"]))


# -- the golden model ------------------------------------------------------------------------

def model_expectation(puzzle, max_checks):
    """What the golden model does with the same request (unique mode, same bound):
    ``{"status": name, "counters": {...}, "limit": bool}``; the hardware must agree."""
    from slitherlink.host.result import Result
    from slitherlink.model.paper import search
    outcome = search(puzzle, max_solutions=2, max_checks=max_checks)
    status = Result.status_for(len(outcome.solutions), wanted_unique=True,
                               exhausted=outcome.exhausted)
    return {"status": status.name, "counters": outcome.counters.as_dict(),
            "limit": outcome.limit_reached}


def compare_with_model(record, expected):
    """Set ``golden_status``, ``golden_checks`` and ``golden_match`` of a board record."""
    record["golden_status"] = expected["status"]
    record["golden_checks"] = expected["counters"]["checks"]
    record["golden_match"] = record["status"] == expected["status"] and all(
        record[k] == expected["counters"][k] for k in SEARCH_COUNTERS)
    mark = "counters differ from the golden model's"
    record["note"] = "; ".join(n for n in record["note"].split("; ") if n and mark not in n)
    if not record["golden_match"] and record["status"] != "CRASH":
        record["note"] = "; ".join(filter(None, [
            record["note"], f"{mark} ({expected['status']}, {expected['counters']})"]))
    return record


def model_reach(sample, max_checks):
    """Per size class: how many puzzles the paper-faithful search (the golden model,
    whose check counts the hardware reproduces exactly) finishes within the bound."""
    classes = {}
    for row in sample:
        classes.setdefault(row["size"], []).append(row)
    lines = [f"| size | n | finished within {max_checks:,} checks | median checks | "
             f"max checks of the finished |", "|---|---|---|---|---|"]
    for size in sorted(classes, key=_cells):
        rows = classes[size]
        done = [r["model"]["counters"]["checks"] for r in rows if not r["model"]["limit"]]
        median = statistics.median(r["model"]["counters"]["checks"] for r in rows)
        limited = sum(r["model"]["limit"] for r in rows)  # a lower bound in the median?
        lines.append(f"| {size} | {len(rows)} | {len(done)} | "
                     f"{'≥ ' if 2 * limited >= len(rows) else ''}{median:,.0f} | "
                     f"{max(done) if done else '-':,} |" if done else
                     f"| {size} | {len(rows)} | 0 | ≥ {median:,.0f} | - |")
    return "\n".join(lines)


# -- frame sizes and the end-to-end time ----------------------------------------------------

def frame_bytes(puzzle, status, max_checks):
    """(bytes of the SOLVE frame, bytes of its RESULT frame), from host.protocol itself."""
    solve = P.encode_solve(puzzle, mode="paper", unique=True, max_checks=max_checks)
    solved = status in Status.__members__ and Status[status].solved
    blank = tuple(tuple(False for _ in range(puzzle.cols)) for _ in range(puzzle.rows))
    result = P.encode_result(Status[status] if solved else Status.LIMIT, puzzle.rows,
                             puzzle.cols, solution=blank if solved else None, unique=True)
    return len(solve), len(result)


def end_to_end(solve_bytes, result_bytes, cycles, clock_hz, baud):
    """Seconds from the first bit of the SOLVE to the last bit of the RESULT."""
    return BITS_PER_BYTE * (solve_bytes + result_bytes) / baud + cycles / clock_hz


# -- the hardware runs -------------------------------------------------------------------------

class BoardWorker:
    """One virtual board (its own Verilator process) and its connection, reused
    for many puzzles in a row."""

    def __init__(self, build, params, *, quiet=True):
        from slitherlink.sim.vboard import VirtualBoard
        self.vboard = VirtualBoard("soc", build=build, params=params, quiet=quiet)
        self.vboard.start()
        self.board = None
        try:
            self.version = self._connect()
        except BaseException:
            if self.board is not None:
                self.board.close()
            self.vboard.stop()
            raise

    def _connect(self):
        """The first contact, with :data:`CONNECT_WAIT` seconds per attempt; then the waits
        the host derives from the speed it measured on that contact.

        The generous first wait is still needed: before its first answer the host knows
        nothing of a board's speed, and a large build (with the deduction engine, a 20x20
        board simulates some 5,000 times slower than 50 MHz, a 20x36 one some 20,000
        times) boots and answers its first ABORT only after 4-5 s, where the host's prior
        for a pseudo-terminal gives up after three silent attempts in about 1.4 s at the
        fast simulated UART.  (The late replies to ABORTs sent again can no longer teach
        the host a far too fast link, should the first wait still run out: it learns only
        from a reply that is certainly the timed request's own,
        :meth:`host.device.Connection._learn`.)  One connection does it all: after the
        ABORT/PING handshake it drops the fixed wait and keeps the measured speed."""
        from slitherlink.host.device import Connection
        self.board = Connection(self.vboard.port, baud=self.vboard.baud, virtual=True,
                           timeout=CONNECT_WAIT)
        version = self.board.connect()
        self.board.timeout = None
        return version

    def solve(self, puzzle, max_checks, sim_timeout):
        from slitherlink.host.engines import checked  # the rules check every engine's answer gets
        from slitherlink.host.engines.board import solve_on
        solve = checked(partial(solve_on, self.board))
        return solve(puzzle, unique=True, max_checks=max_checks, time_limit=sim_timeout,
                     mode="paper")

    def solve_deduce(self, puzzle, max_decisions, sim_timeout):
        from slitherlink.host.engines import checked
        from slitherlink.host.engines.board import solve_on
        solve = checked(partial(solve_on, self.board))
        return solve(puzzle, unique=True, max_decisions=max_decisions, time_limit=sim_timeout,
                     mode="deduce")

    def close(self):
        try:
            self.board.close()
        finally:
            self.vboard.stop()


def grids_for(sample, default_grid, grid=None):
    """Group the sample by the virtual board it needs: the default build's grid, or one
    build for everything larger (sized to the largest of them)."""
    small = [r for r in sample if r["rows"] <= default_grid[0] and r["cols"] <= default_grid[1]]
    large = [r for r in sample if r not in small]
    groups = []
    if small:
        groups.append((None, small))
    if large:
        # one square build that holds every larger puzzle in either orientation is not
        # needed: puzzles are sent as they are, so size the build to the largest rows/cols
        need = (max(r["rows"] for r in large), max(r["cols"] for r in large))
        if grid is None:
            grid = (max(need[0], default_grid[0]), max(need[1], default_grid[1]))
        elif grid[0] < need[0] or grid[1] < need[1]:
            raise UsageError(f"--grid {grid[0]}x{grid[1]} is smaller than the largest "
                             f"selected puzzle ({need[0]}x{need[1]})")
        groups.append((grid, large))
    return groups


def run_pool(tasks, jobs, new_worker, solve, take):
    """Run ``solve`` on every task of ``tasks`` (a list, taken in its order) on up to ``jobs``
    threads, each with a board of its own, and return the failures (one line each).

    ``new_worker()`` makes a board (a :class:`BoardWorker`); a thread makes one when it
    first needs it and closes it when no task is left.  ``solve(worker, task)`` yields
    ``(kind, record)`` pairs, calling ``worker()`` for the board before each solve; a
    record whose status is CRASH closes that board, so the next solve starts afresh on a
    new one.  ``take(kind, record)`` receives every record, under a lock.  A board that
    cannot be made or fails outside a solve ends its thread: the error is among the
    failures (never lost), and the other threads go on with the tasks left."""
    from slitherlink.host.device import BoardError
    from slitherlink.sim.vboard import VirtualBoardError

    pending = queue.Queue()
    for task in tasks:
        pending.put(task)
    lock, failures = threading.Lock(), []

    def work():
        board = None

        def worker():
            nonlocal board
            if board is None:
                board = new_worker()
            return board

        try:
            while True:
                try:
                    task = pending.get_nowait()
                except queue.Empty:
                    return
                for kind, record in solve(worker, task):
                    if record["status"] == "CRASH":  # start afresh after a board failure
                        board.close()
                        board = None
                    with lock:
                        take(kind, record)
        except (BoardError, VirtualBoardError) as error:
            failures.append(str(error))
        except Exception as error:  # noqa: BLE001 -- reported by the caller, never lost
            failures.append(f"{type(error).__name__}: {error}")
        finally:
            if board is not None:
                board.close()

    threads = [threading.Thread(target=work, daemon=True)
               for _ in range(min(jobs, len(tasks)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(0.5)
    return failures


def run_board(sample, args, progress, log):
    """Solve every puzzle of ``sample`` on virtual boards; yields one record each."""
    from slitherlink.sim.vboard import BuildError, build_design
    from slitherlink.spec.target import DEFAULT_TARGET

    default_grid = (DEFAULT_TARGET.max_rows, DEFAULT_TARGET.max_cols)
    for grid, rows in grids_for(sample, default_grid, args.grid):
        params = {} if grid is None else {"max_rows": grid[0], "max_cols": grid[1]}
        if args.sim_baud:
            params["baud"] = args.sim_baud
        what = "the default (Arty A7) build" if grid is None else f"a {grid[0]}x{grid[1]} build"
        log(f"virtual board: {what}{', ' + str(args.sim_baud) + ' baud' if args.sim_baud else ''}"
            f" for {len(rows)} puzzle(s); building if needed ...")
        try:
            build = build_design("soc", params=params, quiet=args.quiet)
        except BuildError as error:
            raise UsageError(f"cannot build the virtual board ({what}): {error}") from None
        records = []

        def solve(worker, row, build=build, grid=grid):
            record = solve_on_board(worker(), row, args, build_grid=grid or default_grid)
            record["build"] = build.directory.name
            yield "paper", record

        def take(kind, record, records=records):
            records.append(record)
            progress(record)

        # the longest first (the golden model knows how long), for an even load
        failures = run_pool(sorted(rows, key=lambda r: -r["model"]["counters"]["checks"]),
                            args.jobs, lambda build=build, params=params:
                            BoardWorker(build, params, quiet=True), solve, take)
        if failures:
            raise UsageError(f"the virtual board failed: {failures[0]}")
        if len(records) != len(rows):  # never drop a puzzle silently
            missing = sorted({r["name"] for r in rows} - {r["name"] for r in records})
            raise UsageError(f"no result for {len(missing)} puzzle(s), e.g. {missing[0]}")
        yield from records


def solve_on_board(worker, row, args, *, build_grid):
    """One puzzle on one virtual board: a record (a dict)."""
    from slitherlink.host.device import BoardError
    puzzle = row["puzzle"]
    start = time.perf_counter()
    try:
        result = worker.solve(puzzle, args.max_checks, args.sim_timeout)
        answer = {"status": result.status.name, "solution": result.solution,
                  "message": result.message, "counters": result.counters}
    except BoardError as error:
        answer = {"status": "CRASH", "solution": None, "message": str(error), "counters": {}}
    wall = time.perf_counter() - start
    counters = answer["counters"]
    if answer["status"] == "CRASH" or answer["status"] == "ERROR":
        verdict, note = "wrong", answer["message"]
    else:
        verdict, note = judge(row, answer, args.puzzles)
    version = worker.version
    clock = version.clock_hz
    cycles = int(counters.get("cycles", 0))
    checks = int(counters.get("checks", 0))
    solve_bytes, result_bytes = frame_bytes(puzzle, answer["status"], args.max_checks)
    record = {
        "name": row["name"], "size": row["size"], "rows": row["rows"], "cols": row["cols"],
        "cells": row["cells"], "clues": int(row["clues"]), "source": row["source"],
        "difficulty": row["difficulty"], "unique": row["unique"],
        "ref_seconds": float(row["ref_seconds"]),
        "status": answer["status"], "verdict": verdict,
        **{name: int(counters.get(name, 0)) for name in SEARCH_COUNTERS},
        "cycles": cycles,
        "cycles_per_check": round(cycles / checks, 2) if checks else None,
        "clock_hz": clock,
        "seconds_at_clock": cycles / clock if clock else None,
        "seconds_at_50mhz": cycles / paper.CLOCK_HZ,
        "solve_frame_bytes": solve_bytes, "result_frame_bytes": result_bytes,
        **{f"e2e_{baud}": end_to_end(solve_bytes, result_bytes, cycles, clock, baud)
           for baud in args.bauds},
        "golden_status": None, "golden_checks": None, "golden_match": None,
        "build_grid": f"{build_grid[0]}x{build_grid[1]}",
        "sim_wall_seconds": round(wall, 3),
        "note": note,
        "peers": {},
    }
    return compare_with_model(record, row["model"])


# -- deduce mode (and both): a build per size class ---------------------------------------------

def prepare_deduce(sample, args, log):
    """Deduce and both modes: each puzzle's class (build grid) and the golden models'
    expectations; in ``both``, which puzzles the paper's search runs on."""
    unplaced = [r for r in sample if D.class_for(r, args.classes) is None]
    if unplaced:
        raise UsageError(f"{len(unplaced)} selected puzzle(s) fit no build of --classes, e.g. "
                         f"{unplaced[0]['name']} ({unplaced[0]['size']}); add a class")
    start = time.monotonic()
    for i, row in enumerate(sample):
        row["class"] = D.class_for(row, args.classes)
        row["deduce_model"] = D.model_expectation(row["puzzle"], args.max_decisions,
                                                  band=args.band)
        row["paper_run"] = False
        if args.mode == "both" and row["cells"] <= args.paper_max_cells:
            row["model"] = model_expectation(row["puzzle"], args.max_checks)
            row["paper_run"] = not row["model"]["limit"]
        if not args.quiet and (i + 1) % 25 == 0:
            log(f"golden models: {i + 1}/{len(sample)} ({time.monotonic() - start:.0f} s)")
    log(f"golden models of {len(sample)} puzzles in {time.monotonic() - start:.1f} s")


def _built_now(build, since):
    """Whether ``build`` was compiled after ``since`` (a wall time), not found cached."""
    try:
        return build.path.stat().st_mtime >= since - 1
    except OSError:
        return False


def run_classes(sample, args, progress, log):
    """Deduce (and both) mode: every puzzle on the virtual board of its class, one build
    per class.  Returns (deduce records, paper records, {class: build info}); a class whose
    build fails is reported (``error``) and its puzzles are not run."""
    from slitherlink.sim.vboard import BuildError, build_design

    groups = {}
    for row in sample:
        groups.setdefault(row["class"], []).append(row)
    deduce_records, paper_records, info = [], [], {}
    for grid in sorted(groups, key=lambda g: (g[0] * g[1], g)):
        rows, name = groups[grid], D.grid_name(grid)
        params = {"max_rows": grid[0], "max_cols": grid[1], "baud": args.sim_baud, "deduce": 1,
                  "band": args.band, "label_network": args.label_network}
        log(f"virtual board {name} ({args.sim_baud:,} baud, both engines) for {len(rows)} "
            f"puzzle(s); building if needed ...")
        since, start = time.time(), time.monotonic()
        try:
            build = build_design("soc", params=params, quiet=args.quiet)
        except BuildError as error:
            seconds = round(time.monotonic() - start, 1)
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            info[name] = {"n": len(rows), "build": None, "build_seconds": seconds,
                          "error": f"the {name} virtual board could not be built after "
                                   f"{seconds:.0f} s: {first}"}
            log(f"virtual board {name}: NOT BUILT: {first}")
            continue
        seconds = round(time.monotonic() - start, 1)
        fresh = _built_now(build, since)
        info[name] = {"n": len(rows), "build": build.directory.name,
                      "build_seconds": seconds if fresh else None, "cached": not fresh,
                      "error": None}
        log(f"virtual board {name}: {build.directory.name} "
            f"({'built in ' + str(round(seconds)) + ' s' if fresh else 'cached'})")

        def solve(worker, row, build=build, grid=grid):
            for kind in ("deduce", "paper") if row["paper_run"] else ("deduce",):
                if kind == "deduce":
                    rec = solve_deduce_on_board(worker(), row, args, grid)
                else:
                    rec = solve_on_board(worker(), row, args, build_grid=grid)
                rec["build"] = build.directory.name
                yield kind, rec

        def take(kind, rec):
            (deduce_records if kind == "deduce" else paper_records).append(rec)
            progress(kind, rec)

        # the longest first (the golden models say), for an even load
        failures = run_pool(sorted(rows, key=lambda r: -(r["deduce_model"]["cycles"] + (
                r["model"]["counters"]["checks"] * 60 if r["paper_run"] else 0))),
            args.jobs, lambda build=build, params=params: BoardWorker(build, params, quiet=True),
            solve, take)
        done = {r["name"] for r in deduce_records}
        missing = sorted(r["name"] for r in rows if r["name"] not in done)
        if failures or missing:  # never drop a puzzle silently
            info[name]["error"] = (f"the {name} virtual board failed"
                                   f"{': ' + failures[0] if failures else ''}; no result for "
                                   f"{len(missing)} puzzle(s){', e.g. ' + missing[0] if missing else ''}")
            info[name]["n"] = len(missing)
            log(f"virtual board {name}: {info[name]['error']}")
    return deduce_records, paper_records, info


def solve_deduce_on_board(worker, row, args, grid):
    """One puzzle in deduce mode on one virtual board: a record (bench.board_deduce)."""
    from slitherlink.host.device import BoardError
    start = time.perf_counter()
    try:
        result = worker.solve_deduce(row["puzzle"], args.max_decisions, args.sim_timeout)
        answer = {"status": result.status.name, "solution": result.solution,
                  "message": result.message, "counters": result.counters}
    except BoardError as error:
        answer = {"status": "CRASH", "solution": None, "message": str(error), "counters": {}}
    wall = time.perf_counter() - start
    rec = D.record(row, answer, puzzles=args.puzzles, clock_hz=worker.version.clock_hz,
                   bauds=args.bauds, max_decisions=args.max_decisions, grid=grid, wall=wall)
    return D.compare_with_model(rec, row["deduce_model"])


# -- the peers --------------------------------------------------------------------------------

def available_engines(requested, explicit, log):
    """The engines that run here, warmed up in this process (the workers are forked)."""
    from slitherlink.host.engines import EngineUnavailable
    ok = []
    for engine in requested:
        try:
            peer_engine(engine)(Puzzle([[None]]), unique=True, time_limit=10)
            ok.append(engine)
        except EngineUnavailable as error:
            if explicit:
                raise UsageError(str(error)) from None
            log(f"peers: {engine} left out: {error}")
    return ok


def run_peers(sample, records, engines, args, log):
    """Every engine on every puzzle (bench.peers.run_all); adds ``peers`` to the records."""
    by_name = {rec["name"]: rec for rec in records}
    tasks = [(engine, row) for row in sample for engine in engines]
    done = [0]

    def progress(count, rec):
        done[0] = count
        if not args.quiet:
            flag = "" if rec["verdict"] == "ok" else f"  <- {rec['verdict'].upper()}"
            print(f"[{count:>4}/{len(tasks)}] {rec['engine']:>5} {rec['name']:<28} "
                  f"{rec['status']:<13} {rec['seconds']:9.3f} s{flag}", flush=True)

    log(f"peers: {len(sample)} puzzles x {len(engines)} engines, time limit "
        f"{args.peer_time_limit:g} s, {args.jobs} jobs")
    for rec in run_all(tasks, jobs=args.jobs, time_limit=args.peer_time_limit,
                       puzzles=args.puzzles, progress=progress):
        by_name[rec["name"]]["peers"][rec["engine"]] = {
            "status": rec["status"], "verdict": rec["verdict"], "seconds": rec["seconds"],
            "note": rec["note"]}


# -- the summary ----------------------------------------------------------------------------

def _stats(values):
    if not values:
        return None
    return {"median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values), "min": min(values)}


def summarise(records, engines, bauds):
    """Per size class: the hardware's and every engine's statistics (a dict)."""
    classes = {}
    for rec in records:
        classes.setdefault(rec["size"], []).append(rec)
    out = {}
    for size in sorted(classes, key=_cells):
        recs = classes[size]
        checks = sum(r["checks"] for r in recs)
        cycles = sum(r["cycles"] for r in recs)
        entry = {
            "n": len(recs),
            "cells": recs[0]["cells"],
            "sources": sorted({r["source"] for r in recs}),
            "ok": sum(r["verdict"] == "ok" for r in recs),
            "timeouts": sum(r["verdict"] == "timeout" for r in recs),
            "wrong": sum(r["verdict"] == "wrong" for r in recs),
            "golden_mismatch": sum(not r["golden_match"] for r in recs),
            "cycles": _stats([r["cycles"] for r in recs]),
            "cycles_sum": cycles,
            "checks": _stats([r["checks"] for r in recs]),
            "checks_sum": checks,
            "cycles_per_check": cycles / checks if checks else None,
            "seconds_at_clock": _stats([r["seconds_at_clock"] for r in recs]),
            "seconds_at_50mhz": _stats([r["seconds_at_50mhz"] for r in recs]),
            "finished_seconds_at_50mhz": _stats([r["seconds_at_50mhz"] for r in recs
                                                 if r["verdict"] == "ok"]),
            **{f"e2e_{b}": _stats([r[f"e2e_{b}"] for r in recs]) for b in bauds},
            "peers": {},
        }
        for engine in engines:
            runs = [r["peers"][engine] for r in recs if engine in r["peers"]]
            if runs:
                entry["peers"][engine] = {
                    "n": len(runs), "seconds": _stats([p["seconds"] for p in runs]),
                    "timeouts": sum(p["verdict"] == "timeout" for p in runs),
                    "wrong": sum(p["verdict"] == "wrong" for p in runs)}
        out[size] = entry
    return out


def _t(seconds):
    """Seconds, readably: 0.00412 s -> '4.12 ms'."""
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    if seconds < 100:
        return f"{seconds:.3g} s"
    return f"{seconds:.0f} s"


def _n(value):
    """A count (or a statistic of counts): whole numbers, with thousands separators."""
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer() and value < 100:
        return f"{value:,.1f}"
    return f"{round(value):,}"


def markdown(summary, meta):
    """The Markdown summary: our figures per size class, the paper's beside them."""
    bauds, engines = meta["bauds"], meta["engines"]
    lines = [f"Run of {meta['date']}: `{meta['command']}`", "",
             f"{meta['puzzles']} puzzles; virtual board at {meta['clock_hz'] / 1e6:g} MHz "
             f"(the paper's clock is 50 MHz); unique mode; limit {meta['max_checks']:,} "
             f"checks per puzzle on the board, {meta['peer_time_limit']:g} s per puzzle and "
             f"engine for the peers; {meta['jobs']} jobs on {meta['cpus']} CPUs "
             f"(load average at the start {meta['load_start']}); source "
             f"{meta.get('git', 'unknown')}, virtual board build(s) "
             f"{', '.join(meta.get('builds', [])) or 'unknown'}.", "",
             "Statistics include time-outs at the value where they stopped (a lower bound; "
             "marked ≥). Wrong answers must be 0.", ""]
    lines += ["### The hardware (exact cycles on the virtual board)", "",
              "| size | n | ok | t/o | wrong | golden model = hw | checks median | checks mean | "
              "cycles median | cycles mean | cycles max | cycles/check | "
              "median at 50 MHz | mean at 50 MHz | max at 50 MHz | "
              + " | ".join(f"e2e median @ {_baud(b)}" for b in bauds) + " |",
              "|---" * (15 + len(bauds)) + "|"]
    for size, s in summary.items():
        ge = "≥ " if s["timeouts"] else ""
        cpc = f"{s['cycles_per_check']:.1f}" if s["cycles_per_check"] else "-"
        cells = [size, str(s["n"]), str(s["ok"]), str(s["timeouts"]), str(s["wrong"]),
                 f"{s['n'] - s['golden_mismatch']}/{s['n']}",
                 ge + _n(s["checks"]["median"]), ge + _n(s["checks"]["mean"]),
                 ge + _n(s["cycles"]["median"]), ge + _n(s["cycles"]["mean"]),
                 ge + _n(s["cycles"]["max"]), cpc,
                 ge + _t(s["seconds_at_50mhz"]["median"]), ge + _t(s["seconds_at_50mhz"]["mean"]),
                 ge + _t(s["seconds_at_50mhz"]["max"]),
                 *(ge + _t(s[f"e2e_{b}"]["median"]) for b in bauds)]
        lines.append("| " + " | ".join(cells) + " |")
    if engines:
        lines += ["", "### The software peers (wall time, same puzzles, same run)", "",
                  "| size | n | " + " | ".join(f"{e} median / mean / max (t/o, wrong)"
                                              for e in engines) + " |",
                  "|---|---|" + "---|" * len(engines)]
        for size, s in summary.items():
            cells = []
            for e in engines:
                p = s["peers"].get(e)
                if not p:
                    cells.append("-")
                    continue
                ge = "≥ " if p["timeouts"] else ""
                st = p["seconds"]
                cells.append(f"{ge}{_t(st['median'])} / {ge}{_t(st['mean'])} / "
                             f"{ge}{_t(st['max'])} ({p['timeouts']}, {p['wrong']})")
            lines.append(f"| {size} | {s['n']} | " + " | ".join(cells) + " |")
    rows = []
    for size, s in summary.items():
        for fig in paper.figures_for_size(size):
            ours = _ours_for(fig, s)
            rows.append(f"| {size} | {fig['what']} | {_t(fig['seconds'])}"
                        f"{' (n=' + str(fig['n']) + ')' if fig['n'] else ''} | "
                        f"{ours} | {fig['citation']} |")
    if rows:
        lines += ["", "### The paper's figures beside ours", "",
                  "| size | the paper's figure | paper | ours (this run) | citation |",
                  "|---|---|---|---|---|", *rows]
    lines += ["", f"Hardware: {meta['hardware_note']}"]
    return "\n".join(lines) + "\n"


def _ours_for(fig, s):
    """Our matching figure for one of the paper's (same statistic, same kind of solver)."""
    what = fig["what"]
    stat = "median" if "(median)" in what else "max" if "(max)" in what else "mean"
    if what.startswith("hardware"):
        ge = "≥ " if s["timeouts"] else ""
        text = f"{ge}{_t(s['seconds_at_50mhz'][stat])} hardware at 50 MHz ({stat}, n={s['n']})"
        finished = s.get("finished_seconds_at_50mhz")
        if s["timeouts"] and finished:
            text += f"; {_t(finished[stat])} over the {s['ok']} finished"
        return text
    if what.startswith("SMT"):
        p = s["peers"].get("z3")
        if p:
            ge = "≥ " if p["timeouts"] else ""
            return f"{ge}{_t(p['seconds'][stat])} z3 ({stat}, n={p['n']})"
        return "- (z3 not run)"
    if "integer programming" in what:
        p = s["peers"].get("ip")
        if p:
            ge = "≥ " if p["timeouts"] else ""
            return f"{ge}{_t(p['seconds'][stat])} ip ({stat}, n={p['n']})"
        return "- (ip not run)"
    return ""


def _baud(baud):
    return f"{baud / 1e6:g} Mbaud" if baud >= 1_000_000 else f"{baud:,} baud"


# -- the command line -------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="bench/board.py",
        description="Benchmark the hardware solver (virtual board: exact cycles) and the "
                    "software peers on the corpus.")
    parser.add_argument("--mode", choices=("paper", "deduce", "both"), default="paper",
                        help="paper: the paper's search (the default); deduce: the deduction "
                             "engine on a virtual board per size class (--classes); both: "
                             "deduce mode, and the paper's search beside it where its golden "
                             "model finishes within --max-checks (up to --paper-max-cells)")
    parser.add_argument("--puzzles", type=Path, default=DEFAULT_PUZZLES,
                        help="corpus directory (default: ../shared/puzzles)")
    parser.add_argument("--sizes", default="",
                        help="comma-separated size classes, e.g. 10x10,14x24 (default: every "
                             "class up to --max-cells cells)")
    parser.add_argument("--sources", default="",
                        help="comma-separated sources, e.g. janko.at,sgt-loopy (default: all)")
    parser.add_argument("--per-class", default="40",
                        help="puzzles per size class, a number or 'all' (default: %(default)s)")
    parser.add_argument("--max-cells", type=int, default=100,
                        help="without --sizes: every class up to this many cells "
                             "(default: %(default)s, the Arty A7 build's 10x10)")
    parser.add_argument("--larger", type=int, default=0,
                        help="without --sizes: also this many puzzles of each larger class "
                             "(default: %(default)s)")
    parser.add_argument("--per-source", type=int, default=10,
                        help="at most this many puzzles of each source in each size class, "
                             "a sample across sources; 0: no such bound (default: %(default)s)")
    parser.add_argument("--names", default="",
                        help="comma-separated puzzle names (instead of the options above)")
    parser.add_argument("--seed", type=int, default=1, help="sample seed (default: %(default)s)")
    parser.add_argument("--max-checks", type=int, default=DEFAULT_MAX_CHECKS,
                        help="per-puzzle bound on the board, in partial-condition checks "
                             "(exact; about 85 cycles each; default: %(default)s)")
    parser.add_argument("--sim-timeout", type=float, default=DEFAULT_SIM_TIMEOUT,
                        help="wall-time guard per puzzle on the virtual board, seconds "
                             "(an ABORT, reported as a time-out; default: %(default)s)")
    parser.add_argument("--sim-baud", type=int, default=None,
                        help="build the virtual board with this baud rate instead of the "
                             "Arty build's (faster simulation of the transfers; the solve "
                             f"cycles do not change; deduce and both: default {FAST_BAUD})")
    parser.add_argument("--classes", default=D.DEFAULT_CLASSES,
                        help="deduce and both: the builds (ROWSxCOLS, comma-separated); every "
                             "puzzle runs on the smallest that holds it (default: %(default)s)")
    parser.add_argument("--max-decisions", type=int, default=D.DEFAULT_MAX_DECISIONS,
                        help="deduce and both: per-puzzle bound on the board and in the golden "
                             "model, in decisions (exact; default: %(default)s)")
    parser.add_argument("--band", type=int, default=1, metavar="N",
                        help="deduce mode: the deduction engine's framed rows a word in the "
                             "builds (default: %(default)s, the boards' builds)")
    from slitherlink.hw.deduce.labels import NETWORKS
    parser.add_argument("--label-network", choices=NETWORKS, default="small",
                        help="the label stage's row network of the builds (the same cycles; "
                             "default: %(default)s)")
    parser.add_argument("--fmax", default=None, metavar="MHZ",
                        help="deduce and both: also give times and speed-ups at this clock "
                             "(e.g. the ECP5 post-route Fmax), or each class at its build's: "
                             "CLASS=MHZ,... (e.g. 10x10=39.4,20x20=30.1; default: none)")
    parser.add_argument("--paper-max-cells", type=int, default=100,
                        help="both: the paper's search only on puzzles of up to this many "
                             "cells (default: %(default)s, the paper's 10x10)")
    parser.add_argument("--bauds", default=",".join(map(str, DEFAULT_BAUDS)),
                        help="baud rates for the end-to-end time (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="virtual boards (and then peer processes) at a time "
                             "(default: %(default)s)")
    parser.add_argument("--engines", default=None,
                        help=f"comma-separated software peers (default: every available one "
                             f"of {','.join(DEFAULT_ENGINES)})")
    parser.add_argument("--no-peers", action="store_true", help="run no software peer")
    parser.add_argument("--peer-time-limit", type=float, default=20.0,
                        help="seconds per puzzle and peer (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=build_root() / "bench",
                        help="output directory (default: build/bench)")
    parser.add_argument("--no-plot", action="store_true", help="draw no plot")
    parser.add_argument("--update-docs", nargs="?", const="", default=None,
                        metavar="SECTION",
                        help="also write the summary and the plot into section SECTION "
                             "(default: results; deduce and both: deduce, and only the deduce "
                             "part) of docs/benchmark.md, and the plot into "
                             "docs/benchmark.png (docs/benchmark-SECTION.png)")
    parser.add_argument("--grid", default=None,
                        help="the grid (ROWSxCOLS) of the virtual board for the puzzles larger "
                             "than the Arty build's (default: the largest selected)")
    parser.add_argument("--from-json", type=Path, default=None,
                        help="no run: write the summary and the plot (and, with "
                             "--update-docs, the docs) again from an earlier run's JSON")
    parser.add_argument("--dry-run", action="store_true",
                        help="only list the selection and the golden model's check counts")
    parser.add_argument("--quiet", action="store_true", help="no per-puzzle progress lines")
    args = parser.parse_args(argv)

    def listed(text):
        return [s.strip() for s in text.split(",") if s.strip()]

    args.sizes = listed(args.sizes)
    for size in args.sizes:
        if not re.fullmatch(r"\d+x\d+", size):
            raise UsageError(f"bad size {size!r}: write ROWSxCOLS, e.g. 10x10")
    args.sources = listed(args.sources)
    args.names = listed(args.names)
    if args.per_class == "all":
        args.per_class = 10 ** 9
    else:
        try:
            args.per_class = int(args.per_class)
        except ValueError:
            raise UsageError(f"--per-class must be a number or 'all', not "
                             f"{args.per_class!r}") from None
        if args.per_class < 1:
            raise UsageError("--per-class must be at least 1")
    if args.per_source < 0:
        raise UsageError("--per-source must be at least 0")
    if args.larger < 0 or args.max_cells < 1:
        raise UsageError("--larger must be at least 0 and --max-cells at least 1")
    if not 1 <= args.max_checks < 1 << 32:
        raise UsageError("--max-checks must be from 1 to 2**32-1")
    if not args.sim_timeout > 0 or not args.peer_time_limit > 0:
        raise UsageError("--sim-timeout and --peer-time-limit must be positive")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    try:
        args.bauds = [int(b) for b in listed(args.bauds)]
    except ValueError:
        raise UsageError(f"--bauds takes numbers, e.g. 115200,3000000, not "
                         f"{args.bauds!r}") from None
    if not args.bauds or min(args.bauds) <= 0:
        raise UsageError("--bauds needs at least one positive baud rate")
    if args.sim_baud is not None and args.sim_baud <= 0:
        raise UsageError("--sim-baud must be positive")
    if args.update_docs and not re.fullmatch(r"[a-z0-9-]+", args.update_docs):
        raise UsageError(f"bad --update-docs section {args.update_docs!r}: use a-z, 0-9, -")
    args.docs_section = args.update_docs     # None: no docs; "": the mode's default section
    args.update_docs = _section(args, "paper") if args.mode == "paper" else None
    try:
        args.classes = D.parse_classes(args.classes)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not 1 <= args.max_decisions < 1 << 32:
        raise UsageError("--max-decisions must be from 1 to 2**32-1")
    if args.fmax is not None:
        try:
            args.fmax = D.parse_fmax(args.fmax)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if args.paper_max_cells < 0:
        raise UsageError("--paper-max-cells must be at least 0")
    if args.band < 1:
        raise UsageError("--band must be at least 1 (framed rows a clock)")
    if args.mode != "paper":
        if args.grid is not None:
            raise UsageError("--grid is for paper mode; deduce and both use --classes")
        if args.sim_baud is None:
            args.sim_baud = FAST_BAUD
    if args.grid is not None:
        match = re.fullmatch(r"(\d+)x(\d+)", args.grid)
        if not match:
            raise UsageError(f"bad --grid {args.grid!r}: write ROWSxCOLS, e.g. 14x24")
        args.grid = (int(match[1]), int(match[2]))
    from slitherlink.host.engines import ENGINES
    if args.no_peers:
        if args.engines:
            raise UsageError("--engines and --no-peers contradict each other")
        args.engines, args.engines_explicit = [], False
    else:
        args.engines_explicit = args.engines is not None
        default = D.DEDUCE_ENGINES if args.mode == "deduce" else DEFAULT_ENGINES
        args.engines = listed(args.engines) if args.engines_explicit else list(default)
        for engine in args.engines:
            if engine not in ENGINES:
                raise UsageError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
        if args.engines_explicit and not args.engines:
            raise UsageError("--engines is empty; use --no-peers to run no peer")
    return args


def _section(args, kind):
    """The docs section a run of ``kind`` (paper or deduce) fills, or None."""
    if args.docs_section is None:
        return None
    return args.docs_section or ("results" if kind == "paper" else "deduce")


def write_outputs(records, summary, meta, args, log):
    """CSV, JSON, Markdown and the plot under ``args.out``; returns their paths."""
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = meta["stamp"]
    base = args.out / f"board-{stamp}"
    paths = {"csv": base.with_suffix(".csv"), "json": base.with_suffix(".json"),
             "md": base.with_suffix(".md"), "png": base.with_suffix(".png")}
    fields = [k for k in records[0] if k != "peers"]
    for engine in meta["engines"]:
        fields += [f"{engine}_status", f"{engine}_verdict", f"{engine}_seconds"]
    with open(paths["csv"], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for rec in records:
            row = {k: v for k, v in rec.items() if k != "peers"}
            for engine in meta["engines"]:
                p = rec["peers"].get(engine, {})
                row.update({f"{engine}_status": p.get("status", ""),
                            f"{engine}_verdict": p.get("verdict", ""),
                            f"{engine}_seconds": p.get("seconds", "")})
            writer.writerow(row)
    text = markdown(summary, meta)
    paths["md"].write_text(text)
    paths["json"].write_text(json.dumps({**meta, "summary": summary, "markdown": text,
                                         "records": records}, indent=1, default=str))
    if args.no_plot:
        del paths["png"]
    else:
        from slitherlink.bench import plot
        plot.draw(records, meta, paths["png"])
    for kind, path in paths.items():   # the latest run under a fixed name
        latest = args.out / f"board-latest.{kind}"
        latest.write_bytes(path.read_bytes())
    if args.update_docs:
        update_docs(text, paths.get("png"), log, args.update_docs)
    return paths


def update_docs(text, png, log, section="results", doc=None):
    """Fill section ``section`` of docs/benchmark.md (or ``doc``) with ``text``, and put
    the plot beside it."""
    doc = Path(doc or REPO / "docs" / "benchmark.md")
    begin, end = DOC_BEGIN.format(section), DOC_END.format(section)
    body = doc.read_text() if doc.exists() else ""
    if begin not in body or end not in body:
        raise UsageError(f"{doc} has no section {section!r} to fill (the lines {begin!r} "
                         f"and {end!r})")
    head, rest = body.split(begin, 1)
    _, tail = rest.split(end, 1)
    name = "benchmark.png" if section == "results" else f"benchmark-{section}.png"
    image = f"\n![time per puzzle against its cells]({name})\n" if png else ""
    doc.write_text(f"{head}{begin}\n\n{text}{image}\n{end}{tail}")
    if png:
        (doc.parent / name).write_bytes(png.read_bytes())
    log(f"docs: section {section!r} of {doc} updated")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)

    def log(text):
        print(text, flush=True)

    try:
        args = parse_args(argv)
        if args.from_json:
            return rerender(args, log)
        rows = read_manifest(args.puzzles)
        sample = select(rows, args)
        if not sample:
            raise UsageError("the selection is empty")
        for row in sample:
            row["puzzle"] = parse_plain((args.puzzles / f"{row['name']}.txt").read_text(),
                                        name=row["name"])
        if args.mode != "paper":
            return main_deduce(args, argv, sample, log)
        for row in sample:
            row["model"] = model_expectation(row["puzzle"], args.max_checks)
        if args.dry_run:
            for row in sample:
                log(f"{row['name']:<32} {row['size']:>6} {row['source']:<18} "
                    f"{row['model']['counters']['checks']:>10,} checks"
                    f"{'  (reaches the limit)' if row['model']['limit'] else ''}")
            log(f"{len(sample)} puzzles ({', '.join(_class_counts(sample))}); "
                f"{sum(r['model']['counters']['checks'] for r in sample):,} checks in all")
            log("")
            log(model_reach(sample, args.max_checks))
            return 0
        engines = available_engines(args.engines, args.engines_explicit, log) \
            if args.engines else []
    except (UsageError, PuzzleError, OSError, ValueError) as error:
        print(f"bench/board.py: {error}", file=sys.stderr)
        return 2

    started, load, git = time.time(), os.getloadavg()[0], git_state()
    limited = sum(r["model"]["limit"] for r in sample)
    log(f"{len(sample)} puzzles ({', '.join(_class_counts(sample))}); limit "
        f"{args.max_checks:,} checks per puzzle ({limited} will reach it, says the golden "
        f"model); {args.jobs} virtual board(s); peers: {', '.join(engines) or 'none'}")

    done = [0]

    def progress(rec):
        done[0] += 1
        if not args.quiet:
            flag = "" if rec["verdict"] == "ok" else f"  <- {rec['verdict'].upper()}"
            if not rec["golden_match"] and rec["status"] != "CRASH":
                flag += "  <- COUNTERS DIFFER FROM THE MODEL"
            print(f"[{done[0]:>4}/{len(sample)}] board {rec['name']:<28} {rec['status']:<13} "
                  f"{rec['checks']:>9,} checks {rec['cycles']:>12,} cycles "
                  f"{_t(rec['seconds_at_50mhz']):>9} @50MHz  (sim {rec['sim_wall_seconds']:.1f} s)"
                  f"{flag}", flush=True)

    try:
        records = list(run_board(sample, args, progress, log))
        board_seconds = time.time() - started
        if engines:
            run_peers(sample, records, engines, args, log)
    except UsageError as error:
        print(f"bench/board.py: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench/board.py: interrupted", file=sys.stderr)
        return 130
    elapsed = time.time() - started
    records.sort(key=lambda r: (r["cells"], r["size"], r["name"]))
    meta = {
        "command": " ".join(["python -m slitherlink.bench.board"] + [shlex.quote(a) for a in argv]),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"), "stamp": time.strftime("%Y%m%d-%H%M%S"),
        "puzzles": len(records), "engines": engines, "bauds": args.bauds,
        "max_checks": args.max_checks, "peer_time_limit": args.peer_time_limit,
        "jobs": args.jobs, "cpus": os.cpu_count(), "load_start": f"{load:.1f}",
        "clock_hz": records[0]["clock_hz"], "elapsed_seconds": round(elapsed, 1),
        "board_seconds": round(board_seconds, 1),
        "builds": sorted({r.get("build", r["build_grid"]) for r in records}),
        "git": git,
        "hardware_note": HARDWARE_NOTE,
    }
    return finish(records, meta, args, log)


def main_deduce(args, argv, sample, log):
    """Deduce and both modes: the golden models, the boards per class, the peers, the files;
    the exit status."""
    try:
        prepare_deduce(sample, args, log)
        if args.dry_run:
            for row in sample:
                m = row["deduce_model"]
                paper_note = ""
                if "model" in row:
                    paper_note = (f"  paper {row['model']['counters']['checks']:,} checks"
                                  f"{' (over the bound: not run)' if not row['paper_run'] else ''}")
                log(f"{row['name']:<32} {row['size']:>6} on {D.grid_name(row['class']):>6} "
                    f"{row['source']:<18} {m['counters']['decisions']:>5} decisions "
                    f"{m['cycles']:>10,} cycles (model estimate)"
                    f"{'  (reaches the limit)' if m['limit'] else ''}{paper_note}")
            log(f"{len(sample)} puzzles ({', '.join(_class_counts(sample))}) on "
                f"{', '.join(D.grid_name(g) for g in sorted({r['class'] for r in sample}))} "
                f"build(s)")
            return 0
        engines = available_engines(args.engines, args.engines_explicit, log) \
            if args.engines else []
    except (UsageError, PuzzleError, OSError, ValueError) as error:
        print(f"bench/board.py: {error}", file=sys.stderr)
        return 2

    started, load, git = time.time(), os.getloadavg()[0], git_state()
    limited = sum(r["deduce_model"]["limit"] for r in sample)
    papers = sum(r["paper_run"] for r in sample)
    log(f"{len(sample)} puzzles ({', '.join(_class_counts(sample))}); deduce mode, limit "
        f"{args.max_decisions:,} decisions per puzzle ({limited} will reach it, says the "
        f"golden model)" + (f"; paper mode on {papers} of them" if args.mode == "both" else "")
        + f"; {args.jobs} virtual board(s) at a time; peers: {', '.join(engines) or 'none'}")
    total = len(sample) + papers
    done = [0]

    def progress(kind, rec):
        done[0] += 1
        if args.quiet:
            return
        flag = "" if rec["verdict"] == "ok" else f"  <- {rec['verdict'].upper()}"
        if not rec["golden_match"] and rec["status"] != "CRASH":
            flag += "  <- COUNTERS DIFFER FROM THE MODEL"
        if kind == "deduce":
            work = (f"{rec['decisions']:>5,} dec {rec['cycles']:>10,} cycles "
                    f"{rec['engine_clocks']:>9,} engine")
        else:
            work = f"{rec['checks']:>9,} checks {rec['cycles']:>12,} cycles"
        print(f"[{done[0]:>4}/{total}] {kind:<6} {rec['name']:<28} {rec['status']:<13} {work} "
              f"{_t(rec['seconds_at_50mhz']):>9} @50MHz  (sim {rec['sim_wall_seconds']:.1f} s)"
              f"{flag}", flush=True)

    try:
        records, paper_records, classes = run_classes(sample, args, progress, log)
        board_seconds = time.time() - started
        if engines and records:
            ran = {r["name"] for r in records}
            run_peers([r for r in sample if r["name"] in ran], records, engines, args, log)
            peers = {r["name"]: r["peers"] for r in records}
            for rec in paper_records:
                rec["peers"] = peers.get(rec["name"], {})
    except UsageError as error:
        print(f"bench/board.py: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench/board.py: interrupted", file=sys.stderr)
        return 130
    if not records:
        print("bench/board.py: no puzzle ran: " + "; ".join(
            i["error"] for i in classes.values() if i.get("error")), file=sys.stderr)
        return 1
    elapsed = time.time() - started
    order = lambda r: (r["cells"], r["size"], r["name"])  # noqa: E731
    records.sort(key=order)
    paper_records.sort(key=order)
    common = {
        "command": " ".join(["python -m slitherlink.bench.board"] + [shlex.quote(a) for a in argv]),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"), "stamp": time.strftime("%Y%m%d-%H%M%S"),
        "engines": engines, "bauds": args.bauds, "peer_time_limit": args.peer_time_limit,
        "jobs": args.jobs, "cpus": os.cpu_count(), "load_start": f"{load:.1f}",
        "clock_hz": records[0]["clock_hz"], "elapsed_seconds": round(elapsed, 1),
        "board_seconds": round(board_seconds, 1), "git": git,
    }
    status = 0
    if paper_records:
        meta = {**common, "puzzles": len(paper_records), "max_checks": args.max_checks,
                "builds": sorted({r["build"] for r in paper_records}),
                "hardware_note": HARDWARE_NOTE}
        paper_args = argparse.Namespace(**{**vars(args), "update_docs": None})
        status = finish(paper_records, meta, paper_args, log)
    meta = {**common, "mode": "deduce", "puzzles": len(records),
            "max_decisions": args.max_decisions, "fmax_mhz": args.fmax,
            "sim_baud": args.sim_baud, "classes": classes,
            "not_reached": any(i.get("error") for i in classes.values()),
            "builds": sorted({r["build"] for r in records}),
            "paper_mode": args.mode == "both", "max_checks": args.max_checks,
            "paper_max_cells": args.paper_max_cells,
            "paper_over_bound": sorted(r["name"] for r in sample
                                       if "model" in r and not r["paper_run"]),
            "band": args.band, "label_network": args.label_network,
            "hardware_note": DEDUCE_HARDWARE_NOTE.format(band=args.band),
            "hardware_label": "deduce mode"}
    return max(status, finish_deduce(records, paper_records, meta, args, log))


DEDUCE_HARDWARE_NOTE = (
    "PicoRV32 SoC with the deduction engine (hw/deduce/engine.py, band {band}: "
    "its state in memories, {band} framed row(s) a clock; its golden model is "
    "`model.band.band_solve`, whose flood and label iterations are band passes) driven by "
    "the C firmware (firmware/src/deduce.c), simulated cycle by cycle (Verilator); `cycles` = "
    "the SoC's counter from 'puzzle loaded' to 'answer ready' (the firmware's branching "
    "included); `engine clocks` = the clocks the engine was busy, part of `cycles`.")


def finish_deduce(records, paper_records, meta, args, log):
    """Deduce mode's summary, files and closing lines; the exit status."""
    summary = D.summarise(records, meta["engines"], meta["bauds"], meta.get("fmax_mhz"),
                          paper_records, set(meta.get("paper_over_bound", ())))
    text = D.markdown(summary, meta, records)
    args.out.mkdir(parents=True, exist_ok=True)
    base = args.out / f"board-deduce-{meta['stamp']}"
    paths = {"csv": base.with_suffix(".csv"), "json": base.with_suffix(".json"),
             "md": base.with_suffix(".md"), "png": base.with_suffix(".png")}
    fmax = meta.get("fmax_mhz")
    fields = [k for k in records[0] if k != "peers"] + (["seconds_at_fmax"] if fmax else [])
    for engine in meta["engines"]:
        fields += [f"{engine}_status", f"{engine}_verdict", f"{engine}_seconds"]
    with open(paths["csv"], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for rec in records:
            row = {k: v for k, v in rec.items() if k != "peers"}
            mhz = D.fmax_for(fmax, rec["class"])
            if fmax:
                row["seconds_at_fmax"] = rec["cycles"] / (mhz * 1e6) if mhz else ""
            for engine in meta["engines"]:
                p = rec["peers"].get(engine, {})
                row.update({f"{engine}_status": p.get("status", ""),
                            f"{engine}_verdict": p.get("verdict", ""),
                            f"{engine}_seconds": p.get("seconds", "")})
            writer.writerow(row)
    paths["md"].write_text(text)
    paths["json"].write_text(json.dumps({**meta, "summary": summary, "markdown": text,
                                         "records": records, "paper_records": paper_records},
                                        indent=1, default=str))
    if args.no_plot:
        del paths["png"]
    else:
        from slitherlink.bench import plot
        plot.draw(records, meta, paths["png"])
    for kind, path in paths.items():
        (args.out / f"board-deduce-latest.{kind}").write_bytes(path.read_bytes())
    section = _section(args, "deduce")
    if section:
        update_docs(text, paths.get("png"), log, section)
    print()
    print(text)
    wrong = sum(r["verdict"] == "wrong" for r in records) + sum(
        p["verdict"] == "wrong" for r in records for p in r["peers"].values())
    mismatch = sum(not r["golden_match"] for r in records)
    log(f"deduce mode: {len(records)} puzzles in {meta['elapsed_seconds']:.0f} s (boards "
        f"{meta['board_seconds']:.0f} s); wrong answers: {wrong}; counters different from "
        f"the golden model: {mismatch}"
        + ("; NOT REACHED: " + "; ".join(i["error"] for i in meta["classes"].values()
                                         if i.get("error")) if meta.get("not_reached") else ""))
    for kind, path in paths.items():
        log(f"{kind:>4}: {path}")
    return 1 if wrong or mismatch or meta.get("not_reached") else 0


def git_state():
    """The commit the run was made from, and whether hw/, firmware/ or sim/ differed
    from it (the virtual board is built from the working tree)."""
    import subprocess
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True,
                              capture_output=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "hw", "firmware", "sim",
                                "host/protocol.py"], cwd=REPO, text=True, capture_output=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}{' + uncommitted changes in hw/firmware/sim' if dirty else ''}"


HARDWARE_NOTE = (
    "PicoRV32 SoC + accelerator (hw/soc.py) with the C firmware, simulated cycle by cycle "
    "(Verilator); `cycles` = the SoC's counter from 'puzzle loaded' to 'answer ready'; "
    "'e2e' adds the UART transfer of the SOLVE and RESULT frames at 10 bits per byte "
    "(the firmware's request and reply handling is not included). The paper's hardware "
    "times run from processor reset to the solution (a MIPS soft CPU at 50 MHz).")


def finish(records, meta, args, log):
    """Summary, files, the closing lines; the exit status."""
    summary = summarise(records, meta["engines"], meta["bauds"])
    paths = write_outputs(records, summary, meta, args, log)
    print()
    print(paths["md"].read_text())
    wrong = sum(r["verdict"] == "wrong" for r in records) + sum(
        p["verdict"] == "wrong" for r in records for p in r["peers"].values())
    mismatch = sum(not r["golden_match"] for r in records)
    log(f"{len(records)} puzzles in {meta['elapsed_seconds']:.0f} s (board "
        f"{meta['board_seconds']:.0f} s); wrong answers: {wrong}; counters different from "
        f"the golden model: {mismatch}")
    for kind, path in paths.items():
        log(f"{kind:>4}: {path}")
    return 1 if wrong or mismatch else 0


def rerender(args, log):
    """--from-json: the summary, the plot (and the docs) of an earlier run, again."""
    try:
        data = json.loads(args.from_json.read_text())
        records, meta = data["records"], {k: v for k, v in data.items()
                                          if k not in ("records", "summary", "markdown",
                                                       "paper_records")}
        meta["bauds"] = [int(b) for b in meta["bauds"]]
        meta.setdefault("hardware_note", HARDWARE_NOTE)
    except (OSError, ValueError, KeyError) as error:
        raise UsageError(f"cannot read the results {args.from_json}: {error}") from None
    if meta.get("mode") == "deduce":
        return rerender_deduce(data, meta, args, log)
    args.update_docs = _section(args, "paper")
    # compare with the golden model again (it is fast), with this version of the comparison
    for rec in records:
        for legacy in ("model_checks", "model_match"):  # the names of the first version
            rec.pop(legacy, None)
        try:
            text = (args.puzzles / f"{rec['name']}.txt").read_text()
        except OSError as error:
            raise UsageError(f"cannot read puzzle {rec['name']} to compare with the golden "
                             f"model: {error}") from None
        compare_with_model(rec, model_expectation(parse_plain(text, name=rec["name"]),
                                                  meta["max_checks"]))
    return finish(records, meta, args, log)


def rerender_deduce(data, meta, args, log):
    """--from-json of a deduce-mode run: compare with the golden models again (this version
    of the models and of the comparison), and write the summary (at ``--fmax`` if given)."""
    records, paper_records = data["records"], data.get("paper_records", [])
    if args.fmax is not None:
        meta["fmax_mhz"] = args.fmax
    meta["bauds"] = [int(b) for b in meta["bauds"]]
    for rec in records + paper_records:
        try:
            text = (args.puzzles / f"{rec['name']}.txt").read_text()
        except OSError as error:
            raise UsageError(f"cannot read puzzle {rec['name']} to compare with the golden "
                             f"model: {error}") from None
        puzzle = parse_plain(text, name=rec["name"])
        if "class" in rec:
            D.compare_with_model(rec, D.model_expectation(puzzle, meta["max_decisions"],
                                                          band=meta.get("band") or 1))
        else:
            compare_with_model(rec, model_expectation(puzzle, meta["max_checks"]))
    return finish_deduce(records, paper_records, meta, args, log)


def _class_counts(sample):
    counts = {}
    for row in sample:
        counts[row["size"]] = counts.get(row["size"], 0) + 1
    return [f"{n} of {size}" for size, n in sorted(counts.items(), key=lambda kv: _cells(kv[0]))]


if __name__ == "__main__":
    sys.exit(main())
