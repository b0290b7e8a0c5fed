"""Streaming in the command line (host/cli.py, host/formats.py): a directory solved in file
name order, standard input read as a stream (one Loopy id, puzz.link URL or file name per
line) and answered as it comes, ``--format jsonl`` in input order, and the board asked for
its counters only when the format shows them (the fake device on a pseudo-terminal)."""

import io
import json
import shutil
import threading

from slitherlink.host import device as B
from slitherlink.host import protocol as P
from slitherlink.host.cli import ExitCode, main
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host.formats import format_loopy, format_puzzlink
from tests.conftest import PUZZLES, load

NAMES = ["janko_0002", "janko_0011", "janko_0003"]


def run_main(*args, stdin=None, stdout=None):
    out, err = stdout or io.StringIO(), io.StringIO()
    stdin = stdin if stdin is not None and not isinstance(stdin, str) else \
        io.StringIO(stdin or "")
    code = main([str(a) for a in args], stdin=stdin, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def records(text):
    return [json.loads(line) for line in text.splitlines()]


def test_a_directory_is_solved_in_file_name_order(tmp_path):
    for letter, name in zip("cab", NAMES):
        shutil.copy(PUZZLES / f"{name}.txt", tmp_path / f"{letter}.txt")
    code, out, err = run_main("-e", "model", "--format", "jsonl", tmp_path)
    assert code == ExitCode.OK, err
    got = records(out)
    assert [r["input"].rsplit("/", 1)[-1] for r in got] == ["a.txt", "b.txt", "c.txt"]
    assert all(r["status"] in ("solved", "solved_unique") for r in got)


def test_standard_input_is_a_stream_of_ids_urls_and_file_names():
    """One puzzle a line, in any of the three forms; comments and blank lines skipped; a
    line that is none of them is an input error of its own, and the stream goes on."""
    first, second, _ = (load(name)[0] for name in NAMES)
    lines = ["# three puzzles and a mistake", format_loopy(first), "",
             format_puzzlink(second), str(PUZZLES / f"{NAMES[2]}.txt"), "no-such-puzzle"]
    code, out, err = run_main("-e", "model", "--format", "jsonl", "-",
                              stdin="\n".join(lines) + "\n")
    assert code == ExitCode.INPUT
    got = records(out)
    assert len(got) == 4
    assert [r["status"] for r in got[:3]] == ["solved"] * 3
    assert got[3]["status"] == "input_error" and "line 6" in got[3]["message"]
    complaint, summary = err.splitlines()
    assert "line 6: no such file" in complaint and summary.startswith("summary: 4 puzzles")


class _Written(io.StringIO):
    """Standard output that tells when something was written."""

    def __init__(self):
        super().__init__()
        self.written = threading.Event()

    def write(self, text):
        count = super().write(text)
        self.written.set()
        return count


class _GatedInput(io.StringIO):
    """Standard input that gives its first line at once and the rest only once ``gate`` is
    set (or after ``patience`` seconds: then :attr:`waited_in_vain`)."""

    def __init__(self, first, rest, gate, patience=60.0):
        super().__init__()
        self.lines = [first, *rest]
        self.gate, self.patience = gate, patience
        self.waited_in_vain = False

    def readline(self, *_):
        if not self.lines:
            return ""
        if len(self.lines) < 3 and not self.gate.is_set():  # the second line on
            self.waited_in_vain = not self.gate.wait(self.patience)
        return self.lines.pop(0)


def test_standard_input_is_answered_as_it_comes():
    """The first answer is written before the second line is there: the run does not wait
    for the end of standard input."""
    ids = [format_loopy(load(name)[0]) + "\n" for name in NAMES]
    out = _Written()
    stdin = _GatedInput(ids[0], ids[1:], out.written)
    code, text, err = run_main("-e", "model", "--format", "jsonl", "-", stdin=stdin,
                               stdout=out)
    assert code == ExitCode.OK, err
    assert not stdin.waited_in_vain
    assert len(records(text)) == 3


def _served(device):
    path, stop = device.serve_pty()
    return path, stop


def test_jsonl_on_the_board_in_input_order_with_the_counters(tmp_path):
    """Several puzzles on the board, several in flight: one record each, in input order,
    with the counters (asked for: FLAG_COUNTERS)."""
    device = FakeDevice(threaded=True)
    path, stop = _served(device)
    try:
        files = [PUZZLES / f"{name}.txt" for name in NAMES]
        code, out, err = run_main("--port", path, "--format", "jsonl", "--unique", *files)
    finally:
        B.close_all()
        stop()
    assert code == ExitCode.OK, err
    got = records(out)
    assert [r["input"].rsplit("/", 1)[-1] for r in got] == [f"{n}.txt" for n in NAMES]
    assert all(r["status"] == "solved_unique" for r in got)
    assert all("decisions" in r["counters"] for r in got)
    solves = [f for f in device.requests if f.type == P.MsgType.SOLVE]
    assert len(solves) >= len(NAMES) and all(P.decode_solve(f).counters for f in solves)


def test_text_on_the_board_asks_for_no_counters():
    device = FakeDevice()
    path, stop = _served(device)
    try:
        files = [PUZZLES / f"{name}.txt" for name in NAMES[:2]]
        code, out, err = run_main("--port", path, "--unique", *files)
    finally:
        B.close_all()
        stop()
    assert code == ExitCode.OK, err
    assert "counters:" not in out and out.count("engine board: solved, unique") == 2
    solves = [f for f in device.requests if f.type == P.MsgType.SOLVE]
    assert solves and not any(P.decode_solve(f).counters for f in solves)


def test_standard_input_that_trickles_forever_ends_in_one_line(monkeypatch):
    """A byte now and then, never a whole line: refused INPUT_WAIT seconds after its first
    byte (here 0.3 s), one line, exit 6; the writer never stops, so only the bound ends it."""
    import os
    import sys
    import time

    from slitherlink.host import formats
    monkeypatch.setattr(formats, "INPUT_WAIT", 0.3)
    read, write = os.pipe()
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            try:
                os.write(write, b"6")
            except OSError:
                return
            time.sleep(0.02)
    writer = threading.Thread(target=trickle, daemon=True)
    writer.start()
    reader = os.fdopen(read, "r")
    monkeypatch.setattr(sys, "stdin", reader)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = main(["-e", "model", "-"], stdout=out, stderr=err)
    finally:
        stop.set()
        writer.join()
        reader.close()
        os.close(write)
    assert code == ExitCode.INPUT
    assert "no complete puzzle line within 0.3 s" in err.getvalue().splitlines()[0]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_line_on_a_terminal_after_a_second():
    """Nothing in the first PROGRESS_AFTER seconds; then one line, rewritten in place (at
    most ten times a second): done of all, how they ended, the rate; cleared at the end.
    Nothing at all when standard error is not a terminal."""
    from slitherlink.host.cli import PROGRESS_AFTER, Outcome, Progress, Tally
    from slitherlink.host.result import Result, Status
    now = [0.0]
    terminal = Terminal()
    progress = Progress(terminal, total=3, timer=lambda: now[0])
    puzzle = load("janko_1165")[0]
    solved = Outcome("a", puzzle, Result("sat", Status.SOLVED_UNIQUE))
    failed = Outcome("b", puzzle, None, ExitCode.INPUT, "bad")
    tally = Tally()
    tally.add(solved)
    progress.update(tally)
    assert terminal.getvalue() == ""                 # too early
    now[0] = PROGRESS_AFTER + 1.0
    tally.add(failed)
    progress.update(tally)
    line = "[2/3] 1 solved, 1 not; 1.0 puzzles/s"
    assert terminal.getvalue() == "\r" + line
    now[0] += 0.05
    tally.add(solved)
    progress.update(tally)
    assert terminal.getvalue() == "\r" + line        # at most ten times a second
    now[0] += 0.1
    progress.update(tally)
    assert terminal.getvalue().endswith("\r[3/3] 2 solved, 1 not; 1.4 puzzles/s")
    progress.close()
    assert terminal.getvalue().endswith("\r" + " " * len(line) + "\r")
    plain = io.StringIO()
    quiet = Progress(plain, total=3, timer=lambda: now[0] + 10.0)
    quiet.update(tally)
    quiet.close()
    assert plain.getvalue() == ""


def test_a_run_keeps_its_counts_not_its_outcomes():
    """The summary's counts are kept as the answers come; the outcomes themselves (the
    puzzle, its solution) are not, so a long stream on standard input stays small."""
    import gc
    import weakref
    from slitherlink.host.cli import Outcome, Tally
    from slitherlink.host.result import Result, Status
    tally = Tally()
    puzzle = load("janko_1165")[0]
    outcomes = [Outcome("a", puzzle, Result("sat", Status.SOLVED_UNIQUE)),
                Outcome("b", None, None, ExitCode.INPUT, "unreadable"),
                Outcome("c", puzzle, None, ExitCode.TIMEOUT, "no answer"),
                Outcome("d", puzzle, Result("sat", Status.SOLVED_UNIQUE))]
    for outcome in outcomes:
        tally.add(outcome)
    kept = [weakref.ref(o) for o in outcomes]
    del outcome, outcomes
    gc.collect()
    assert all(ref() is None for ref in kept)
    assert (tally.done, tally.solved, tally.worst) == (4, 2, ExitCode.TIMEOUT)
    assert tally.summary(1.5) == (f"summary: 4 puzzles: 2 {Status.SOLVED_UNIQUE.text}, "
                                  f"1 unreadable, 1 error; 1.500 s; exit "
                                  f"{int(ExitCode.TIMEOUT)} (timeout)")


def test_the_json_record_of_a_streamed_board_answer():
    """The record ``--format jsonl`` writes of an answer the board streams back (decoded,
    made a result, checked), with the counters (DEDUCE_RESULT, as jsonl asks) and without
    (ANSWER): the exact line, its fields written out here from the clues, the solution and
    the counters sent, for puzzles from 1x2 to 60x60."""
    from slitherlink.host.cli import json_line, streamed_outcome
    from slitherlink.host.engines import verified
    from slitherlink.host.engines.board import answer_result
    from slitherlink.spec.target import PAPER_CLOCK_HZ
    clock, cycles = 40_000_000, 98_765
    receiver = P.FrameDecoder()
    (version,) = receiver.feed(P.encode_version(max_rows=P.MAX_GRID, max_cols=P.MAX_GRID,
                                                clock_hz=clock, baud=115_200, deduce_ok=True))
    version = P.decode_version(version)
    sent = {name: 17 * i for i, name in enumerate(P.DEDUCE_RESULT_COUNTERS)}
    for name in ("edge_1x2_3", "janko_0011", "loopy_10x10_hard_10", "janko_0360",
                 "loopy_60x60_hard_02"):
        puzzle, solution = load(name)
        size = (P.Status.SOLVED, puzzle.rows, puzzle.cols)
        for answer, counters in (
                (P.encode_answer(*size, solution=solution, mode=P.Mode.DEDUCE, seq=9), {}),
                (P.encode_deduce_result(*size, solution=solution, counters=sent,
                                        cycles=cycles, seq=9),
                 {**sent, "cycles": cycles, "clock_hz": clock,
                  "seconds_at_clock": cycles / clock,
                  "seconds_at_50mhz": cycles / PAPER_CLOCK_HZ})):
            (frame,) = receiver.feed(answer)
            result = verified(puzzle, answer_result(P.decode_reply(frame), version))
            label = f"puzzles/{name}.txt"
            line = json_line(streamed_outcome(puzzle, result, label, "board", 0.25), "board")
            drawn = ["".join("#" if inside else "." for inside in row) for row in solution]
            assert line == json.dumps({
                "puzzle": name, "size": f"{puzzle.rows}x{puzzle.cols}", "rows": puzzle.rows,
                "cols": puzzle.cols,
                "clues": ["".join("." if clue is None else str(clue) for clue in row)
                          for row in puzzle.clues],
                "engine": "board", "mode": "deduce", "status": "solved",
                "status_text": "solved (uniqueness not checked)", "solution": drawn,
                "solutions": [drawn], "counters": counters, "engine_seconds": 0.0,
                "message": "", "input": label, "exit_code": 0,
                "wall_seconds": 0.25}) + "\n", name


def test_sigterm_ends_a_run_as_ctrl_c_does_and_leaves_the_board_idle(tmp_path):
    """SIGTERM (``timeout``, a job's end) in the middle of a streamed directory: exit code
    INTERRUPTED, one line, and the board's connection closed on the way out: the SOLVEs
    still queued ABORTed and the device back at its start rate."""
    import signal
    import subprocess
    import sys
    from tests.conftest import HANG_SECONDS, REPO
    for k in range(40):   # some 20 s of searches: the signal comes long before their end
        shutil.copy(PUZZLES / f"{NAMES[k % len(NAMES)]}.txt", tmp_path / f"p{k:02d}.txt")
    device = FakeDevice(delay=0.5)
    path, stop = device.serve_pty()
    try:
        run = subprocess.Popen([sys.executable, str(REPO / "host" / "solve.py"), "-e", "board",
                                "--port", path, "--format", "jsonl", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = run.stdout.readline()   # an answer: the stream is under way
        run.send_signal(signal.SIGTERM)
        rest, err = run.communicate(timeout=HANG_SECONDS)
        assert json.loads(first)["status"] == "solved"
        assert run.returncode == ExitCode.INTERRUPTED
        assert err.strip().splitlines()[-1] == "host/solve.py: interrupted"
        assert len((first + rest).splitlines()) < 40
        assert device.baud == device.start_baud and device.holding == 0
    finally:
        stop()
