"""The link benchmark: puzzles streamed through the virtual board at each rate a build offers.

docs/design.md section 4.  For each size class (a build per class, :mod:`bench.builds`) and
each rate the build offers (:func:`spec.uart.offered_bauds`: its start rate and the rates
its board's USB-UART bridge makes that its clock carries), the host streams the class's
puzzles through the virtual board with the device's queue kept full
(:func:`host.engines.board.solve_stream`, plain answers: no counters), and the board's own
clock says how long it took: the virtual board stamps, in its simulated cycles, the start
bit of the first byte it received and the stop bit of the last byte it sent
(:meth:`sim.vboard.VirtualBoard.stamp`), so

* **throughput** = puzzles / ((last stop bit - first start bit) / the design clock);
* **latency** of one puzzle = its first byte's start bit to its answer's last stop bit,
  the puzzle sent alone; of it **on the board**: what its request's and its answer's bytes
  do not take on the line;

both exact device time at the build's clock, whatever the machine's speed.  The host runs
faster than the simulation, so these figures assume a host that keeps up; the **host's
cost** per puzzle (parse, encode, decode, the result, the rules check, the JSON record:
what a streaming run of ``--format jsonl`` does for each puzzle, through the functions it
calls, :func:`host_cost`), in wall time on this machine, and the **whole run's host CPU**
per puzzle (the command itself against the fake device: :func:`cli_cost`, which adds the
files, the pipeline, the terminal and the output) are measured apart and must stay below
the link's time per puzzle for a real board to reach them.  Beside them, in the same run,
the ``sat`` engine's throughput on the same puzzles, on one core and on two (two
processes), in wall time.

    python -m slitherlink.bench.stream                         # the 10x10 class, default build
    python -m slitherlink.bench.stream --classes 10x10,30x30 --per-class 20
    python -m slitherlink.bench.stream --update-docs           # write the table into docs/benchmark.md

With ``--profile`` the board is the profiling build (:mod:`sim.vboard.profile`: the same
cycles) and each rate's stream is followed by the table of the firmware's functions that
took its cycles, per puzzle.

A benchmark, not a test (tests/bench/test_stream.py runs it on a few puzzles).
"""

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from datetime import datetime, timezone

from slitherlink.bench.builds import (DEDUCE_CORES, DEFAULT_GRID, EVIDENCE, class_for,
                                      class_target, fmax_for, grid_name, parse_classes,
                                      parse_fmax, vboard_params)
from slitherlink.host import corpus
from slitherlink.host import protocol as P
from slitherlink.spec.target import BOARDS, DEFAULT_TARGET, LABEL_NETWORKS
from slitherlink.spec.uart import offered_bauds

#: puzzles of each class streamed, and of those sent alone for the latency
DEFAULT_PER_CLASS = 40
LATENCY_PUZZLES = 5
#: the peer measured beside the board
PEER = "sat"
#: the classes of the default run: the default build's grid
DEFAULT_CLASSES = grid_name(DEFAULT_GRID)
#: the blocks of docs/benchmark.md a run may write: the default build's, the larger classes'
DOC_BLOCKS = ("stream", "stream-classes")


def sample(classes, per_class, seed=1, names=()):
    """``{grid: [name, ...]}``: ``per_class`` puzzles of each class (the smallest build that
    holds them), chosen with ``seed`` from the corpus' puzzles with one solution (each
    answer must be the corpus' solution), in name order."""
    rows = corpus.manifest()
    chosen = {grid: [] for grid in classes}
    for row in rows:
        if (names and row["name"] not in names) or (not names and row["unique"] != "yes"):
            continue
        grid = class_for({"rows": int(row["rows"]), "cols": int(row["cols"])}, classes)
        if grid is not None:
            chosen[grid].append(row["name"])
    rng = random.Random(seed)
    return {grid: sorted(rng.sample(found, min(per_class, len(found))) if not names else found)
            for grid, found in chosen.items()}


# -- the peer ------------------------------------------------------------------------------

def _peer_solve(name):
    from slitherlink.host.engines import get_engine
    puzzle, _ = corpus.load(name)
    return get_engine(PEER)(puzzle).status.name


def _peer_warm(name):
    """A worker's start: the engine imported and run once, so no timed solve pays for it."""
    _peer_solve(name)


#: timed passes over the puzzles per peer measurement (the fastest is reported: the peer's
#: best, so the board's ratio to it errs low; one pass of 40 puzzles is a fraction of a
#: second, and passes on this machine differ by up to 2x)
PEER_PASSES = 5


def peer_throughput(names, processes):
    """Puzzles a second of :data:`PEER` on ``names`` with ``processes`` worker processes
    (wall time on this machine; every worker started and warm before the clock; the fastest
    of :data:`PEER_PASSES` passes)."""
    with multiprocessing.get_context("spawn").Pool(processes, initializer=_peer_warm,
                                                   initargs=(names[0],)) as pool:
        rates = []
        for _ in range(PEER_PASSES):
            start = time.perf_counter()
            pool.map(_peer_solve, names, chunksize=1)
            rates.append(len(names) / (time.perf_counter() - start))
        return max(rates)


# -- the host ------------------------------------------------------------------------------

#: the counters of the DEDUCE_RESULT :func:`host_cost` decodes, and its cycles (numbers of
#: the board's sizes: their values do not change the host's work)
COST_COUNTERS, COST_CYCLES = dict.fromkeys(P.DEDUCE_RESULT_COUNTERS, 4_321), 87_654


def host_cost(names):
    """The host's own wall time per puzzle, median over ``names``: what a streaming run
    (``host/solve.py --engine board --format jsonl``, which asks for the counters) does
    for every puzzle besides the link's waiting and reading the puzzle's file, through
    the functions that run calls: read the puzzle's text
    (:func:`host.formats.parse_puzzles`), make its job and encode its SOLVE
    (:class:`host.device.pipeline.Job`), take the bytes of a DEDUCE_RESULT carrying its
    solution through the receiver (one for the run, as a connection has), decode it and
    match it to the job, make its result (:func:`host.engines.board.answer_result`), the
    rules check (:func:`host.engines.verified`) and the outcome's JSON record
    (:func:`host.cli.json_line`).  Like the peer's, the fastest of :data:`PEER_PASSES`
    passes over ``names`` (each pass's median)."""
    receiver = P.FrameDecoder()
    (frame,) = receiver.feed(P.encode_version(
        max_rows=P.MAX_GRID, max_cols=P.MAX_GRID, clock_hz=DEFAULT_TARGET.clock_hz,
        baud=DEFAULT_TARGET.baud, deduce_ok=True))
    version = P.decode_version(frame)
    root = corpus.root()
    inputs = []
    for name in names:
        path = root / f"{name}.txt"
        puzzle, solution = corpus.load(name)
        inputs.append((name, path, path.read_text(), P.encode_deduce_result(
            P.Status.SOLVED, puzzle.rows, puzzle.cols, solution=solution,
            counters=COST_COUNTERS, cycles=COST_CYCLES, seq=1)))
    return min(_host_pass(inputs, receiver, version) for _ in range(PEER_PASSES))


def _host_pass(inputs, receiver, version):
    """One pass of :func:`host_cost`: the median wall time a puzzle."""
    from slitherlink.host.cli import json_line, streamed_outcome
    from slitherlink.host.device.pipeline import Job
    from slitherlink.host.engines import verified
    from slitherlink.host.engines.board import answer_result
    from slitherlink.host.formats import parse_puzzles
    costs = []
    for name, path, text, answer in inputs:
        start = time.perf_counter()
        (puzzle,) = parse_puzzles(text, source=str(path), name=name)
        job = Job(puzzle, mode=P.Mode.DEDUCE, counters=True, label=f"{puzzle.size} puzzle")
        job.encode(1)
        (frame,) = receiver.feed(answer)
        reply = P.decode_reply(frame)
        accepted = job.accepts(reply)
        result = verified(puzzle, answer_result(reply, version))
        json_line(streamed_outcome(puzzle, result, str(path), "board", 0.0), "board")
        costs.append(time.perf_counter() - start)
        if not accepted or result.status is not P.Status.SOLVED:
            raise SystemExit(f"stream: {name}: the corpus' solution is not taken "
                             f"({result.message or 'not the answer its SOLVE asked for'})")
    return statistics.median(costs)


#: at least how many puzzles :func:`cli_cost`'s long run has beyond its short one (a run's
#: start, some 0.3 s of CPU, varies by some tens of ms; the puzzles must outweigh that)
CLI_EXTRA = 960
#: seconds a request of the first run of :func:`cli_cost` may wait for its answer: the fake
#: device works each answer out there (the deduction model takes seconds for a hard 20x36)
#: and remembers it, so that the measured runs get their answers at the line's speed
CLI_WORK_OUT_WAIT = 600


def cli_cost(names, grid=DEFAULT_GRID):
    """The host's CPU time per puzzle in a whole streaming run as a user makes it:
    ``python -m slitherlink --engine board --format jsonl DIR`` (the counters asked for, the
    records written to ``/dev/null``) against the fake device (:mod:`host.fakedevice`, a
    ``grid`` build at the Arty's rates) on a pseudo-terminal served by this process; the
    difference between the CPU of the command (user and system, its whole process) over a
    directory of ``names`` taken as many times as make :data:`CLI_EXTRA` puzzles more and
    over ``names`` once, per extra puzzle, so that its start, its imports and the connection
    cancel out; each run the fastest of :data:`PEER_PASSES`, after a first run in which the
    device works out its answers (so that those runs get them at the line's speed).  Beside
    :func:`host_cost` it holds what that leaves out: listing and reading the files, the
    pipeline's bookkeeping and threads, the terminal's reads and writes, the output."""
    import os
    import resource
    import shutil
    import subprocess
    import tempfile
    from slitherlink.host.fakedevice import FakeDevice
    device = FakeDevice(max_rows=grid[0], max_cols=grid[1])
    port, stop = device.serve_pty()
    root = corpus.root()
    copies = 1 + math.ceil(CLI_EXTRA / len(names))

    def command_cpu(folder, *options):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "slitherlink", "--engine", "board",
                               "--port", port, "--format", "jsonl", "--output", os.devnull,
                               "--quiet", *options, folder], capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise SystemExit(f"stream: the CLI's run over {folder} ended with exit code "
                             f"{done.returncode}: {done.stderr.strip()[-300:]}")
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    try:
        with tempfile.TemporaryDirectory(prefix="stream-cli-") as work:
            folders = {}
            for times in (1, copies):
                folders[times] = os.path.join(work, str(times))
                os.mkdir(folders[times])
                for k in range(times):
                    for name in names:
                        shutil.copy(root / f"{name}.txt",
                                    os.path.join(folders[times], f"{k:04d}_{name}.txt"))
            # the first run: the device works out every answer, and remembers it
            command_cpu(folders[1], "--timeout", str(CLI_WORK_OUT_WAIT))
            runs = {times: min(command_cpu(folder) for _ in range(PEER_PASSES))
                    for times, folder in folders.items()}
            return (runs[copies] - runs[1]) / (len(names) * (copies - 1))
    finally:
        stop()


# -- the board -----------------------------------------------------------------------------

def _frames(puzzle):
    """Bytes of the puzzle's SOLVE and of its ANSWER (no counters), from the encoders."""
    from slitherlink.host.device.link import frame_lengths
    return len(P.encode_solve(puzzle, mode="deduce")), \
        frame_lengths(puzzle.rows, puzzle.cols)["answer"]


def _line_seconds(frame, rate):
    """Seconds a request and its answer (:func:`_frames`) take on the line at ``rate`` (10
    bits a byte)."""
    return 10 * sum(frame) / rate


def _solved(outcome, solution, name):
    from slitherlink.host.engines import Status
    if isinstance(outcome, BaseException):
        raise SystemExit(f"stream: {name}: {outcome}")
    if outcome.status not in (Status.SOLVED, Status.SOLVED_UNIQUE) or \
            outcome.solution != solution:
        raise SystemExit(f"stream: {name}: a wrong answer ({outcome.status.name})")


def board_run(grid, names, rates, *, latency_count=LATENCY_PUZZLES, profile=False, log=print,
              target=None):
    """Per rate of ``rates``: the latency of the ``latency_count`` largest puzzles, each sent
    alone, and the throughput of all of ``names`` streamed, on a virtual board of
    ``grid``'s build started for that rate, in the board's own cycles; every answer checked
    against the corpus' solution; ``resends``: the requests the rate's connection sent
    again (0 on a clean run).  ``profile``: on the profiling board, each row's ``profile``
    is the stream's cycles per firmware function (:func:`sim.vboard.profile.by_function`),
    also logged as a table."""
    import tempfile
    from slitherlink.boards.design import firmware_image
    from slitherlink.host.device import Connection
    from slitherlink.host.device.connection import forget_links
    from slitherlink.host.engines import checked_stream
    from slitherlink.host.engines.board import solve_stream
    from slitherlink.sim.vboard import VirtualBoard, build_design
    from slitherlink.sim.vboard import profile as profiler
    target = target or class_target(grid)
    build = build_design("soc", params=vboard_params(target), profile=profile, quiet=True)
    loaded = [(name, *corpus.load(name)) for name in names]
    frames = {name: _frames(puzzle) for name, puzzle, _ in loaded}
    clock = build.clock_hz
    rows = []
    for rate in rates:
        # a board of its own per rate, met at its start rate: a board left at a fast rate
        # is found again only after the host's attempts at the start rate, whose flushes
        # take minutes of simulation
        forget_links()
        workdir = tempfile.TemporaryDirectory(prefix="stream-profile-")
        counts = f"{workdir.name}/counts"
        with workdir, VirtualBoard("soc", build=build,
                                   args=["--profile", counts] if profile else []) as board:
            connection = Connection(board.port, baud=build.baud, rate=rate, virtual=True,
                                    health=board.problem)
            try:
                # the waits from the board's measured speed (on a busy machine too), not
                # from the prior of a pseudo-terminal
                connection.simulated(board.slowdown())
                connection.connect()
                if connection.baud != rate:
                    raise SystemExit(f"stream: the board did not switch to {rate} baud "
                                     f"({connection.rate_note or 'no reason given'})")
                stream = checked_stream(solve_stream)
                latencies, on_board = [], []
                full = sorted(loaded, key=lambda item: -item[1].rows * item[1].cols)
                for name, puzzle, solution in full[:latency_count]:   # the largest
                    board.stamp()
                    ((_, outcome),) = stream([(name, puzzle)], opener=lambda: connection,
                                             counters=False, depth=1)
                    _, first, last, *_ = board.stamp()
                    _solved(outcome, solution, name)
                    latencies.append((last - first) / clock)
                    on_board.append(latencies[-1] - _line_seconds(frames[name], rate))
                board.stamp()
                solutions = {name: solution for name, _, solution in loaded}
                for name, outcome in stream([(name, puzzle) for name, puzzle, _ in loaded],
                                            opener=lambda: connection, counters=False):
                    _solved(outcome, solutions[name], name)
                _, first, last, *_ = board.stamp()
                device = connection.stats()   # after the stamp: not part of the stream
            finally:
                connection.close()
            seconds = (last - first) / clock
            row = {"rate": rate, "n": len(loaded), "clock_hz": clock, "stream_cycles": last - first,
                   "per_second": len(loaded) / seconds,
                   "bytes_in": statistics.median(f[0] for f in frames.values()),
                   "bytes_out": statistics.median(f[1] for f in frames.values()),
                   "latency_median": statistics.median(latencies),
                   "latency_max": max(latencies),
                   "on_board_median": statistics.median(on_board),
                   "link_seconds": statistics.median(_line_seconds(f, rate)
                                                     for f in frames.values()),
                   "found_at": connection.found_at,
                   "resends": connection.resends, "rx_overruns": device.rx_overruns,
                   "frames_bad": device.frames_bad}
            log(f"  {grid_name(grid)} @ {rate:>9,} baud: {row['per_second']:10,.0f} puzzles/s, "
                f"latency median {row['latency_median'] * 1e6:8,.1f} µs "
                f"({row['on_board_median'] * 1e6:,.1f} µs on the board)")
            if profile:
                elf = firmware_image(target).elf
                row["profile"] = profiler.by_function(profiler.read(counts), elf)
                log(profiler.table(row["profile"], per=len(loaded)))
            rows.append(row)
    return rows


# -- the run -------------------------------------------------------------------------------

def stream_target(grid, args=None):
    """The build class ``grid`` streams through: :func:`bench.builds.class_target`, with the
    core, label network and clock of ``args`` (``--core``, ``--label-network``,
    ``--clock``) where given."""
    target = class_target(grid, label_network=getattr(args, "label_network", None),
                          core=getattr(args, "core", None))
    clock = getattr(args, "clock", None)
    if clock == EVIDENCE:
        return target.replace(clock_hz=evidence_clock(target))
    mhz = fmax_for(clock, grid_name(grid))
    return target.replace(clock_hz=round(mhz * 1e6)) if mhz else target


def evidence_clock(target):
    """The clock (Hz) ``target``'s board may run its build at by its ECP5 evidence
    (:func:`boards.evidence.supported_clock`); ValueError (one line) without it."""
    from slitherlink.boards import evidence
    hz = evidence.supported_clock(target)
    if hz is None:
        raise ValueError(f"no ECP5 evidence for {evidence.describe(evidence.key(target))} "
                         f"(docs/boards.md, the table of builds): give --clock in MHz")
    return hz


def offered(target):
    """The rates ``target``'s build offers, fastest first."""
    return offered_bauds(target.uart_clock_hz, BOARDS[target.board].bridge_max_baud,
                         target.baud)


def default_rates(target):
    """The rates of a default run: the start rate, 1 and 3 Mbaud where offered, and the
    fastest the build offers."""
    rates = offered(target)
    start = target.baud
    return sorted({r for r in rates if r in (start, 1_000_000, 3_000_000)} | {rates[0]})


def rates_for(target, asked):
    """The rates of a run of ``target``'s build: ``asked`` ("all", comma-separated rates, or
    "" for :func:`default_rates`); ValueError (one line) for a rate the build does not offer."""
    if asked == "all":
        return list(offered(target))
    if not asked:
        return default_rates(target)
    rates, offers = [int(r) for r in asked.split(",") if r], offered(target)
    for rate in rates:
        if rate not in offers:
            raise ValueError(f"{rate:,} baud is not offered by the {target.name} build (its "
                             f"UART clock {target.uart_clock_hz / 1e6:g} MHz and its board's "
                             f"bridge): it offers {', '.join(f'{r:,}' for r in offers)}")
    return rates


def _time(seconds):
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def table(results, meta):
    """The Markdown of a run: a row per class and rate."""
    command = " ".join(["python -m slitherlink.bench.stream", *meta["argv"]])
    lines = [f"Run of {meta['date']}: `{command}`", "",
             f"Virtual boards, one build per class ("
             f"{', '.join(f'{c} `{b}`' for c, b in meta['builds'].items())}); "
             f"source {meta['commit']}; load average at the start {meta['load']:.1f}.", "",
             "| class | rate (baud) | n | bytes in / out a puzzle | link time a puzzle | "
             "streamed (puzzles/s) | latency median / max | of it on the board (median) | "
             "sat, 1 core (puzzles/s) | "
             "sat, 2 cores (puzzles/s) | streamed / sat on 2 cores | host's cost a puzzle | "
             "a whole run's host CPU a puzzle | resends; bytes the board lost |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for cls, entry in results.items():
        for row in entry["board"]:
            lines.append(
                f"| {cls} | {row['rate']:,} | {row['n']} | {row['bytes_in']:g} / "
                f"{row['bytes_out']:g} | {_time(row['link_seconds'])} | "
                f"{row['per_second']:,.0f} | {_time(row['latency_median'])} / "
                f"{_time(row['latency_max'])} | {_time(row['on_board_median'])} | "
                f"{entry['sat_1']:,.0f} | {entry['sat_2']:,.0f} | "
                f"{row['per_second'] / entry['sat_2']:.1f}x | {_time(entry['host_cost'])} | "
                f"{_time(entry['cli_cost'])} | "
                f"{row['resends']}; {row['rx_overruns']} |")
    lines += ["", "Streamed and latency: exact, in the board's cycles at its design clock "
              "(the virtual board's link stamps: first start bit in to last stop bit out), "
              "plain answers (no counters), the device's queue kept full (resends: the "
              "requests sent again; bytes lost: the UART's receive overruns, from STATS); "
              "latency: each of "
              f"the {LATENCY_PUZZLES} largest puzzles of the class sent alone; on the board: "
              "the latency less its request's and its answer's bytes on the line. "
              f"sat: wall time on this machine, the same puzzles, not unique, the fastest of "
              f"{PEER_PASSES} passes. "
              "Host's cost: parse, encode, decode, the result, the rules check and the "
              "JSON record of one puzzle as a streaming `--format jsonl` run makes them, "
              f"wall time (median), the fastest of {PEER_PASSES} passes. A whole run's host "
              "CPU: the CPU time of `python -m slitherlink --engine board --format jsonl` "
              "over a directory of the class's puzzles against the fake device on a "
              f"pseudo-terminal, per puzzle, between a run of some {CLI_EXTRA:,} puzzles more "
              "(the class's, each many times) and one of each once (the start and the imports "
              "cancel out), each the fastest "
              f"of {PEER_PASSES}: it adds the files' reading, the pipeline's bookkeeping, the "
              "terminal's reads and writes and the output; a real board's throughput is "
              "bounded by it too."]
    return "\n".join(lines) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m slitherlink.bench.stream",
                                description="Stream puzzles through the virtual board at the "
                                            "rates its build offers, beside the sat peer.")
    p.add_argument("--classes", default=DEFAULT_CLASSES,
                   help=f"the builds' grids (default: {DEFAULT_CLASSES})")
    p.add_argument("--per-class", type=int, default=DEFAULT_PER_CLASS,
                   help=f"puzzles streamed per class (default: {DEFAULT_PER_CLASS})")
    p.add_argument("--names", default="", help="comma-separated puzzle names instead")
    p.add_argument("--rates", default="",
                   help="comma-separated rates, or 'all' (default: the start rate, 1 and "
                        "3 Mbaud, and the fastest the build offers)")
    p.add_argument("--core", choices=DEDUCE_CORES,
                   help=f"the SoC variant (default: {DEFAULT_TARGET.core})")
    p.add_argument("--label-network", choices=LABEL_NETWORKS,
                   help="the deduction engine's label network (default: the class's, "
                        "spec.target.default_label_network)")
    p.add_argument("--clock", default=None,
                   help="the design clock in MHz, one for every class or per class "
                        "(10x10=39.375,30x30=31.875), or 'evidence': each class's build at "
                        "the clock its board may run it at by its ECP5 evidence; default: "
                        "the default target's")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--profile", action="store_true",
                   help="on the profiling board: print each stream's cycles per firmware "
                        "function")
    p.add_argument("--update-docs", action="store_true",
                   help="write the table into docs/benchmark.md (block --block)")
    p.add_argument("--block", default="stream", choices=DOC_BLOCKS,
                   help="the block of docs/benchmark.md it writes: 'stream' (the default "
                        "build) or 'stream-classes' (the larger classes' builds)")
    args = p.parse_args(argv)
    args.argv = list(argv)
    try:
        args.grids = parse_classes(args.classes)
        [int(r) for r in args.rates.split(",") if r and args.rates != "all"]
    except ValueError as error:
        p.error(str(error) if "class" in str(error) else f"bad --rates {args.rates!r}")
    try:
        if args.clock and args.clock != EVIDENCE:
            args.clock = parse_fmax(args.clock)
        targets = [stream_target(grid, args) for grid in args.grids]
    except ValueError as error:
        p.error(f"--clock: {error}")
    try:
        for target in targets:
            rates_for(target, args.rates)
    except ValueError as error:
        p.error(f"--rates: {error}")
    if args.per_class < 1:
        p.error("--per-class must be at least 1")
    return args


def run(args, log=print):
    """The run of ``args`` (:func:`parse_args`): ``(results, meta)``, per class its board
    rows (:func:`board_run`), ``sat``'s throughput on one and two cores and the host's
    cost."""
    import os

    from slitherlink.bench.hardware import git_state
    names = tuple(n for n in args.names.split(",") if n)
    chosen = sample(args.grids, args.per_class, args.seed, names)
    results, builds = {}, {}
    for grid in args.grids:
        picked = chosen[grid]
        if not picked:
            continue
        target = stream_target(grid, args)
        rates = rates_for(target, args.rates)
        cls = grid_name(grid)
        builds[cls] = target.name
        log(f"{cls}: {len(picked)} puzzles at {', '.join(f'{r:,}' for r in rates)} baud")
        board = board_run(grid, picked, rates, profile=args.profile, log=log, target=target)
        results[cls] = {"board": board, "sat_1": peer_throughput(list(picked), 1),
                        "sat_2": peer_throughput(list(picked), 2),
                        "host_cost": host_cost(picked), "cli_cost": cli_cost(picked, grid)}
    meta = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "argv": args.argv, "builds": builds, "commit": git_state(),
            "load": os.getloadavg()[0]}
    return results, meta


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    results, meta = run(args, log=lambda text: print(text, flush=True))
    text = table(results, meta)
    print(text)
    if args.update_docs:
        from slitherlink.bench.hardware import update_docs
        update_docs(text, None, print, args.block, writer=__spec__.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
