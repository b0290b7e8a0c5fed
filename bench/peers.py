"""Benchmark the software peers on a sample of the puzzle corpus.

Every engine (``model``, ``sat``, ``z3``, ``ip``, ``cpsat``) solves every
sampled puzzle in *unique* mode (find a solution and prove there is no
other, as the corpus' ``ref_seconds``), under a per-puzzle time limit, each
run in its own process (``--jobs`` at a time) that is killed if it overruns
the limit by more than a grace period (the ``model`` engine has a step limit,
not a time limit).  Every answer is checked against the ``.sol`` file and the
manifest's ``unique`` column; the engines themselves already verified every
solution with the rules checker.

Prints one row per size class with, for every engine, the median and the
maximum wall time (an engine's own ``Result.seconds``; a time-out counts as
the limit), the number of time-outs and the number of wrong answers (which
must be 0), then a total per engine; writes every run as CSV and JSON under
``build/bench/`` and prints the paths.

    python -m slitherlink.bench.peers                       # the default sample (10-20 min, 2 cores)
    python -m slitherlink.bench.peers --sizes 10x10 --per-class 20 --engines sat,cpsat
    python -m slitherlink.bench.peers --sources janko.at --time-limit 5

This is a benchmark, not a test.
"""

import argparse
import csv
import json
import multiprocessing
import multiprocessing.connection
import os
import random
import statistics
import sys
import time
from pathlib import Path

from slitherlink.paths import build_root


from slitherlink.host import corpus
from slitherlink.host.engines import ALIASES, ENGINES, EngineUnavailable, get_engine
from slitherlink.host.puzzle import Puzzle, PuzzleError, parse_colouring, parse_plain

DEFAULT_PUZZLES = corpus.root()
#: every software engine of the registry (not the board, not an alias)
DEFAULT_ENGINES = tuple(e for e in ENGINES if e != "board" and e not in ALIASES)
#: the mode of the engines that have two (host.engines.MODAL): ``model`` here is the
#: golden model of the paper's search (the deduction engine's has bench/band_model.py)
PEER_MODE = "paper"
#: The default sample: every size class up to this many cells (20x36) ...
DEFAULT_MAX_CELLS = 20 * 36
#: ... and this many puzzles of each larger size class.
DEFAULT_LARGER = 1
#: A run may overrun its time limit by this share of it (at least 3 s) before it is killed.
GRACE_SHARE = 0.25


def grace(time_limit):
    return max(3.0, GRACE_SHARE * time_limit)

EXPECTED = {"yes": "SOLVED_UNIQUE", "no": "MULTIPLE", "unsat": "NO_SOLUTION"}


class UsageError(Exception):
    """A bad command line: one line for the user, exit status 2."""


def read_manifest(puzzles):
    """The corpus's rows (:func:`host.corpus.manifest`); a usage error without it."""
    try:
        return corpus.manifest(puzzles)
    except corpus.CorpusMissing as error:
        raise UsageError(f"{error} (or use --puzzles DIR)") from None


def choose(rows, *, sizes, sources, per_class, larger, max_cells, seed):
    """The sample: ``per_class`` puzzles of each size class (seeded choice)."""
    if sources:
        known = {r["source"] for r in rows}
        unknown = [s for s in sources if s not in known]
        if unknown:
            raise UsageError(f"unknown source {unknown[0]!r}; the corpus has: "
                             f"{', '.join(sorted(known))}")
        rows = [r for r in rows if r["source"] in sources]
    classes = {}
    for row in rows:
        classes.setdefault(row["size"], []).append(row)
    if sizes:
        unknown = [s for s in sizes if s not in classes]
        if unknown:
            raise UsageError(f"no puzzle of size {unknown[0]!r} in the selection; sizes: "
                             f"{', '.join(sorted(classes, key=_cells))}")
        wanted = {s: per_class for s in sizes}
    else:
        wanted = {s: (per_class if _cells(s) <= max_cells else larger) for s in classes}
    rng = random.Random(seed)
    sample = []
    for size in sorted(wanted, key=_cells):
        members = sorted(classes[size], key=lambda r: r["name"])
        sample += rng.sample(members, min(wanted[size], len(members)))
    return sample


def _cells(size):
    r, c = size.split("x")
    return int(r) * int(c)


def peer_engine(engine):
    """The checked solve of ``engine``; one with modes runs :data:`PEER_MODE`."""
    from slitherlink.host.engines import MODAL
    return get_engine(engine, mode=PEER_MODE if engine in MODAL else None)


def solve_one(engine, name, puzzles, time_limit):
    """Solve one puzzle (in a worker process); a dict for the parent."""
    try:
        puzzle = parse_plain((puzzles / f"{name}.txt").read_text(), name=name)
        result = peer_engine(engine)(puzzle, unique=True, time_limit=time_limit)
        return {"status": result.status.name, "seconds": result.seconds,
                "solution": result.solution, "message": result.message,
                "counters": result.counters}
    except Exception as error:  # a crash is a result of the benchmark, not of this script
        return {"status": "CRASH", "seconds": 0.0, "solution": None,
                "message": f"{type(error).__name__}: {error}", "counters": {}}


def worker(conn, puzzles, time_limit):
    """A worker process: solve the tasks that come down ``conn`` until ``None``."""
    while True:
        task = conn.recv()
        if task is None:
            break
        conn.send(solve_one(*task, puzzles, time_limit))
    conn.close()


def judge(row, answer, puzzles):
    """``ok``, ``timeout`` or ``wrong`` for one answer, and a note."""
    status = answer["status"]
    expected = EXPECTED[row["unique"]]
    if status in ("LIMIT", "KILLED"):
        return "timeout", ""
    if status == "SOLVED":        # found one, time ran out proving uniqueness
        verdict = "timeout"
    elif status != expected:
        return "wrong", f"expected {expected}, got {status}: {answer['message']}"
    else:
        verdict = "ok"
    if row["unique"] == "yes" and status in ("SOLVED", "SOLVED_UNIQUE"):
        sol = parse_colouring((puzzles / f"{row['name']}.sol").read_text())
        if tuple(map(tuple, answer["solution"])) != sol:
            return "wrong", "the solution differs from the .sol file"
    return verdict, ""


def run_all(tasks, *, jobs, time_limit, puzzles, progress):
    """Run ``(engine, row)`` tasks on ``jobs`` worker processes; yield records.

    The workers are forked from this process once the engines are imported and
    warmed up, and live for many tasks, so no run pays for imports or start-up.
    A worker whose run overruns the time limit by :func:`grace` is killed and
    replaced.
    """
    context = multiprocessing.get_context("fork")

    def spawn():
        parent, child = context.Pipe()
        process = context.Process(target=worker, args=(child, puzzles, time_limit), daemon=True)
        process.start()
        child.close()
        return {"process": process, "conn": parent, "task": None, "start": 0.0}

    pending = list(tasks)
    slots = [spawn() for _ in range(min(jobs, len(pending)))]
    done = 0
    try:
        while pending or any(slot["task"] for slot in slots):
            for slot in slots:
                if slot["task"] is None and pending:
                    slot["task"] = pending.pop(0)
                    slot["start"] = time.perf_counter()
                    slot["conn"].send((slot["task"][0], slot["task"][1]["name"]))
            ready = multiprocessing.connection.wait(
                [slot["conn"] for slot in slots if slot["task"]], timeout=0.5)
            for i, slot in enumerate(slots):
                if slot["task"] is None:
                    continue
                answer = None
                if slot["conn"] in ready:
                    try:
                        answer = slot["conn"].recv()
                    except EOFError:
                        answer = {"status": "CRASH", "seconds": 0.0, "solution": None,
                                  "message": "the solver process died", "counters": {}}
                        slots[i] = _replace(slot, spawn)
                elif time.perf_counter() - slot["start"] > time_limit + grace(time_limit):
                    answer = {"status": "KILLED", "seconds": time_limit, "solution": None,
                              "message": f"killed after {time_limit + grace(time_limit):g} s",
                              "counters": {}}
                    slots[i] = _replace(slot, spawn)
                if answer is None:
                    continue
                engine, row = slot["task"]
                slot["task"] = None
                slots[i]["task"] = None
                verdict, note = ("wrong", answer["message"]) if answer["status"] == "CRASH" \
                    else judge(row, answer, puzzles)
                seconds = answer["seconds"] if verdict != "timeout" else \
                    max(answer["seconds"], time_limit)
                done += 1
                record = {"engine": engine, "name": row["name"], "size": row["size"],
                          "cells": row["cells"], "source": row["source"],
                          "difficulty": row["difficulty"], "unique": row["unique"],
                          "ref_seconds": float(row["ref_seconds"]),
                          "status": answer["status"], "verdict": verdict,
                          "seconds": round(seconds, 6), "note": note or answer["message"],
                          "counters": answer["counters"]}
                progress(done, record)
                yield record
        for slot in slots:
            slot["conn"].send(None)
            slot["process"].join(timeout=5)
    finally:
        for slot in slots:
            if slot["process"].is_alive():
                slot["process"].kill()
                slot["process"].join()


def _replace(slot, spawn):
    """Kill a worker (stuck or dead) and start a fresh one in its place."""
    if slot["process"].is_alive():
        slot["process"].kill()
    slot["process"].join()
    slot["conn"].close()
    return spawn()


def table(records, engines, time_limit):
    """The per-size-class table (text)."""
    by = {}
    for rec in records:
        by.setdefault((rec["size"], rec["engine"]), []).append(rec)
    sizes = sorted({rec["size"] for rec in records}, key=_cells)
    head = f"{'size':>7} {'n':>3} | " + " | ".join(f"{e:^24}" for e in engines)
    sub = f"{'':>7} {'':>3} | " + " | ".join(f"{'median':>7} {'max':>7} {'t/o':>3} {'bad':>3}"
                                             for _ in engines)
    lines = [head, sub, "-" * len(sub)]

    def cell(recs):
        if not recs:
            return f"{'-':>7} {'-':>7} {'-':>3} {'-':>3}"
        times = [r["seconds"] for r in recs]
        return (f"{_fmt(statistics.median(times)):>7} {_fmt(max(times)):>7} "
                f"{sum(r['verdict'] == 'timeout' for r in recs):>3} "
                f"{sum(r['verdict'] == 'wrong' for r in recs):>3}")

    for size in sizes:
        n = max(len(by.get((size, e), [])) for e in engines)
        lines.append(f"{size:>7} {n:>3} | " + " | ".join(cell(by.get((size, e), []))
                                                       for e in engines))
    lines.append("-" * len(sub))
    n_all = max(sum(1 for r in records if r["engine"] == e) for e in engines)
    lines.append(f"{'all':>7} {n_all:>3} | " + " | ".join(
        cell([r for r in records if r["engine"] == e]) for e in engines))
    lines.append(f"(seconds; unique mode; time limit {time_limit:g} s per puzzle, a time-out "
                 f"counts as the limit; t/o = time-outs, bad = wrong answers)")
    return "\n".join(lines)


def _fmt(seconds):
    if seconds < 10:
        return f"{seconds:.3f}"
    return f"{seconds:.1f}"


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="bench/peers.py", description="Benchmark the software peers on the corpus.")
    parser.add_argument("--puzzles", type=Path, default=DEFAULT_PUZZLES,
                        help="corpus directory (default: ../shared/puzzles)")
    parser.add_argument("--engines", default=",".join(DEFAULT_ENGINES),
                        help="comma-separated engines (default: %(default)s)")
    parser.add_argument("--sizes", default="",
                        help="comma-separated size classes, e.g. 10x10,20x36 "
                             "(default: every class up to 20x36, and --larger of the rest)")
    parser.add_argument("--sources", default="",
                        help="comma-separated sources, e.g. janko.at,sgt-loopy (default: all)")
    parser.add_argument("--per-class", type=int, default=2,
                        help="puzzles per size class (default: %(default)s)")
    parser.add_argument("--larger", type=int, default=DEFAULT_LARGER,
                        help="puzzles per size class above 20x36 in the default sample "
                             "(default: %(default)s)")
    parser.add_argument("--time-limit", type=float, default=15.0,
                        help="seconds per puzzle and engine (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="solver processes at a time (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="sample seed (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=build_root() / "bench",
                        help="output directory (default: build/bench)")
    parser.add_argument("--quiet", action="store_true", help="no per-run progress lines")
    args = parser.parse_args(argv)
    args.engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for engine in args.engines:
        if engine not in ENGINES:
            raise UsageError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if not args.engines:
        raise UsageError("no engine chosen")
    args.sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    for size in args.sizes:
        parts = size.split("x")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise UsageError(f"bad size {size!r}: write ROWSxCOLS, e.g. 10x10")
    args.sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    if args.per_class < 1 or args.larger < 0:
        raise UsageError("--per-class must be at least 1 and --larger at least 0")
    if not args.time_limit > 0:
        raise UsageError("--time-limit must be positive")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    return args


def main(argv=None):
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        rows = read_manifest(args.puzzles)
        sample = choose(rows, sizes=args.sizes, sources=args.sources,
                        per_class=args.per_class, larger=args.larger,
                        max_cells=DEFAULT_MAX_CELLS, seed=args.seed)
        for engine in args.engines:     # import and warm up in the parent: children are
            peer_engine(engine)(Puzzle([[None]]), unique=True, time_limit=10)  # forked
    except (UsageError, EngineUnavailable, PuzzleError) as error:
        print(f"bench/peers.py: {error}", file=sys.stderr)
        return 2
    if not sample:
        print("bench/peers.py: the selection is empty", file=sys.stderr)
        return 2
    tasks = [(engine, row) for row in sample for engine in args.engines]
    print(f"{len(sample)} puzzles x {len(args.engines)} engines = {len(tasks)} runs, "
          f"time limit {args.time_limit:g} s, {args.jobs} jobs", flush=True)

    def progress(done, rec):
        if not args.quiet:
            flag = "" if rec["verdict"] == "ok" else f"  <- {rec['verdict'].upper()}"
            print(f"[{done:>4}/{len(tasks)}] {rec['engine']:>5} {rec['name']:<28} "
                  f"{rec['status']:<13} {rec['seconds']:9.3f} s{flag}", flush=True)

    started = time.time()
    records = list(run_all(tasks, jobs=args.jobs, time_limit=args.time_limit,
                           puzzles=args.puzzles, progress=progress))
    elapsed = time.time() - started
    order = {e: i for i, e in enumerate(args.engines)}
    records.sort(key=lambda r: (r["cells"], r["size"], r["name"], order[r["engine"]]))
    text = table(records, args.engines, args.time_limit)
    print()
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    csv_path, json_path = args.out / f"peers-{stamp}.csv", args.out / f"peers-{stamp}.json"
    fields = ["engine", "name", "size", "cells", "source", "difficulty", "unique",
              "ref_seconds", "status", "verdict", "seconds", "note", "counters"]
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for rec in records:
            writer.writerow({**rec, "counters": json.dumps(rec["counters"], sort_keys=True)})
    meta = {"command": " ".join(["bench/peers.py"] + (sys.argv[1:] if argv is None else argv)),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "elapsed_seconds": round(elapsed, 1),
            "time_limit": args.time_limit, "jobs": args.jobs, "engines": args.engines,
            "cpus": os.cpu_count(), "table": text, "runs": records}
    json_path.write_text(json.dumps(meta, indent=1, default=str))
    wrong = sum(r["verdict"] == "wrong" for r in records)
    print(f"\n{len(records)} runs in {elapsed:.0f} s; wrong answers: {wrong}")
    print(f"results: {csv_path}")
    print(f"         {json_path}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
