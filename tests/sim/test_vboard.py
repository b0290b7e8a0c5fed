"""The virtual board (sim/vboard): the harness, and the whole system end to end.

Part 1 runs the harness on its self-test design (sim/vboard/echo.py: answers
each byte b with b + 1 at 16 clock cycles per bit): pty bridge, byte-level
UART timing, exact cycle counts, the idle pause, tracing, the build cache.
Part 2 runs the board engine (host/engines/board.py) and host/solve.py against the SoC's virtual board, in
paper mode (its counters are the paper search's; `mode="paper"` / `--mode paper`).

Builds go to build/verilator/ under a file lock (sim/verilator.py), so the
two pytest-xdist workers never compile the same board twice.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
import serial

from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.sim.vboard import builder as vbuild
from slitherlink.sim.vboard import echo
from tests.conftest import HANG_SECONDS, REPO

BIT = round(echo.ECHO_CLOCK_HZ / echo.ECHO_BAUD)  # clock cycles per bit


@pytest.fixture(scope="module")
def echo_build():
    return build_design("echo", quiet=True)


def cycles_now(board):
    """The board's exact cycle count (:meth:`sim.vboard.VirtualBoard.stamp`)."""
    return board.stamp()[0]


def test_echo_through_the_pty(echo_build):
    with VirtualBoard("echo", build=echo_build) as board:
        assert re.fullmatch(r"/dev/pts/\d+", board.port)
        with serial.Serial(board.port, echo_build.baud, timeout=5, exclusive=True) as port:
            data = bytes(range(256))
            port.write(data)
            assert port.read(256) == bytes((b + 1) % 256 for b in data)
    assert board.cycles > 256 * 10 * BIT
    assert "0 framing errors" in board.log and "256 bytes in, 256 bytes out" in board.log


def test_max_cycles_is_exact(echo_build):
    run = subprocess.run([str(echo_build.path), "--max-cycles", "12345", "--no-pause",
                          "--reset-cycles", "16"], capture_output=True, text=True,
                         timeout=HANG_SECONDS)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("PTY /dev/pts/")
    assert lines[-1] == "CYCLES 12345"


def test_clock_pauses_while_no_host_is_attached(echo_build):
    with VirtualBoard("echo", build=echo_build) as board:
        first = cycles_now(board)
        time.sleep(0.3)
        assert cycles_now(board) == first  # nobody has the port open: no cycles, no CPU
        with serial.Serial(board.port, echo_build.baud, timeout=5) as port:
            port.write(b"A")
            assert port.read(1) == b"B"
            moving = cycles_now(board)
            time.sleep(0.2)
            assert cycles_now(board) > moving  # attached: the clock runs
    assert board.cycles >= moving


def test_stops_when_its_parent_goes_away(echo_build):
    board = VirtualBoard("echo", build=echo_build).start()
    board.process.stdin.close()  # what happens when the Python process dies
    assert board.process.wait(HANG_SECONDS) == 0
    board.stop()


def test_trace_has_the_uart_waveform(echo_build, tmp_path):
    """A traced run: the byte 0x55 on uart_rx as 10 bits of exactly BIT cycles each."""
    trace = tmp_path / "echo.vcd"
    with VirtualBoard("echo", build=echo_build, trace=trace) as board:
        with serial.Serial(board.port, echo_build.baud, timeout=5) as port:
            port.write(b"\x55")
            assert port.read(1) == b"\x56"
    text = trace.read_text()
    half_ps = 10**12 // echo.ECHO_CLOCK_HZ // 2
    code = re.search(r"\$var wire\s+1 (\S+) uart_rx ", text).group(1)
    now, changes = 0, []
    for line in text.splitlines():
        if line.startswith("#"):
            now = int(line[1:])
        elif line in (f"0{code}", f"1{code}"):
            changes.append((now, line[0]))
    # 0x55 is 1,0,1,0,1,0,1,0 LSB first: after the start bit (0) the line toggles at
    # every bit boundary, up to the stop bit (1)
    start = next(i for i, (_, level) in enumerate(changes) if level == "0")
    assert [level for _, level in changes[start:]] == ["0", "1"] * 5
    edges = [t for t, _ in changes[start:]]
    periods = {(b - a) // (2 * half_ps) for a, b in zip(edges, edges[1:])}
    assert periods == {BIT}


def test_build_is_cached(echo_build, tmp_path):
    calls = []

    def factory():
        calls.append(1)
        return echo.design()

    again = vbuild.build(factory, name="echo", inputs=vbuild_inputs(), trace="vcd", quiet=True)
    assert again.path == echo_build.path and not calls  # same inputs: nothing generated


def test_a_source_edited_after_import_is_not_built(tmp_path, monkeypatch):
    """A process that imported a design's Python file and then sees it changed (a
    long benchmark while someone edits) would elaborate the old code under the new
    files' key: it refuses with a clear error instead, and builds nothing.  A changed
    file it has not imported, or an unchanged one, does not stop it."""
    src = tmp_path / "src"
    src.mkdir()
    used, unused = src / "slk_stale_probe.py", src / "slk_stale_other.py"
    used.write_text("WIDTH = 1\n")
    unused.write_text("DEPTH = 1\n")
    monkeypatch.syspath_prepend(str(src))
    monkeypatch.delitem(sys.modules, "slk_stale_probe", raising=False)
    import slk_stale_probe  # noqa: F401  (the process has imported it)
    from slitherlink.sim import verilator
    snapshot = verilator.source_snapshot([src])
    assert verilator.stale_sources([src], snapshot) == []
    unused.write_text("DEPTH = 2\n")
    assert verilator.stale_sources([src], snapshot) == []
    used.write_text("WIDTH = 2\n")
    assert verilator.stale_sources([src], snapshot) == [used.resolve()]

    def factory():
        raise AssertionError("no design may be elaborated")
    with pytest.raises(vbuild.BuildError, match=r"src/slk_stale_probe\.py changed after this "
                       r"process imported it: a vboard-probe build made now would be made "
                       r"from the old code; run again"):
        vbuild.build(factory, name="probe", inputs=[src], root=tmp_path / "vb",
                     snapshot=snapshot, quiet=True)
    assert not (tmp_path / "vb" / "inputs").exists()


def vbuild_inputs():
    from slitherlink.sim.vboard import DESIGNS
    return DESIGNS["echo"][1]


def test_harness_rejects_bad_options(echo_build):
    run = subprocess.run([str(echo_build.path), "--baud", "fast"], capture_output=True,
                         text=True, timeout=HANG_SECONDS)
    assert run.returncode == 2 and "--baud wants a non-negative integer" in run.stderr
    run = subprocess.run([str(echo_build.path), "--clock-hz", "100", "--baud", "99"],
                         capture_output=True, text=True, timeout=HANG_SECONDS)
    assert run.returncode == 2 and "at least twice the baud rate" in run.stderr


def test_untraced_build_refuses_a_trace(soc_build):
    run = subprocess.run([str(soc_build.path), "--trace", "x.vcd"], capture_output=True,
                         text=True, timeout=HANG_SECONDS)
    assert run.returncode == 2 and "no tracing" in run.stderr


# -- part 2: the SoC's virtual board, end to end ------------------------------------------

from slitherlink.host import device as B  # noqa: E402
from slitherlink.host import protocol as P  # noqa: E402
from slitherlink.host.device import sessions  # noqa: E402
from slitherlink.host.engines import board as board_engine  # noqa: E402
from slitherlink.host.engines.board import solve_on  # noqa: E402
from slitherlink.host.result import Status  # noqa: E402
from slitherlink.model.paper import search  # noqa: E402
from tests.conftest import load  # noqa: E402


@pytest.fixture(scope="module")
def soc_build():
    """The SoC's virtual board (the Arty build: 10x10, 50 MHz, 115200 baud)."""
    return build_design("soc", quiet=True)


@pytest.fixture(scope="module")
def soc_board(soc_build):
    """A running SoC virtual board, shared by the tests of this module."""
    with VirtualBoard("soc", build=soc_build) as board:
        yield board


@pytest.fixture
def connection(soc_board):
    """A :class:`host.device.Connection` to the shared virtual board."""
    # at the start rate (--baud): a host that closes does not switch a virtual board back,
    # and the next connection reaches it at the fast rate only after many attempts at the
    # start rate; the fast rate is the per-board tests' (and tests/sim/test_link_vboard.py's)
    board = B.connect_to(soc_board, rate=soc_board.baud)   # waits from its measured speed
    try:
        yield board
    finally:
        board.close()


@pytest.mark.parametrize("name, unique, status", [
    ("edge_1x2_3", True, Status.SOLVED_UNIQUE),
    ("edge_1x3_two_solutions", True, Status.MULTIPLE),
    ("edge_2x4_global_unsat", True, Status.NO_SOLUTION),
    ("puzzleloop_5x5_medium_8118588", True, Status.SOLVED_UNIQUE),
    ("janko_1165", True, Status.SOLVED_UNIQUE),      # 10x10, the build's largest
    ("janko_0751", False, Status.SOLVED),             # 10x10
])
def test_solves_like_the_model(soc_board, connection, name, unique, status):
    """The board engine on the virtual board: the firmware's counters are the model's."""
    puzzle, solution = load(name)
    version = connection.connect()
    assert (version.max_rows, version.max_cols) == (10, 10)
    assert (version.clock_hz, version.baud) == (soc_board.clock_hz, soc_board.baud)
    assert version.start_baud == soc_board.baud < version.max_baud
    assert version.accelerator_ok
    result = solve_on(connection, puzzle, unique=unique, mode="paper")
    model = search(puzzle, max_solutions=2 if unique else 1)
    assert result.status is status, result.message
    for key, value in model.counters.as_dict().items():
        assert result.counters[key] == value, key
    if status.solved:
        assert result.solution == model.solutions[0]
    if status is Status.SOLVED_UNIQUE:
        assert result.solution == solution
    cycles = result.counters["cycles"]
    assert 0 < cycles
    assert result.counters["seconds_at_50mhz"] == pytest.approx(cycles / 50e6)
    assert result.counters["seconds_at_clock"] == pytest.approx(cycles / soc_board.clock_hz)


def test_board_cycles_cover_the_solve(soc_build):
    """The harness's exact cycle count includes the firmware's solve cycles."""
    puzzle, _ = load("janko_0002")
    with VirtualBoard("soc", build=soc_build) as vboard:
        # at the start rate: the transfers below are counted at it
        with B.Connection(vboard.port, baud=vboard.baud, rate=vboard.baud,
                          virtual=True) as board:
            board.connect()
            result = solve_on(board, puzzle, unique=True, mode="paper")
    assert vboard.cycles > result.counters["cycles"] > 0
    # the transfers alone (ABORT, PING, SOLVE and their replies) take 10 bits of
    # clock_hz / baud cycles per byte
    frames = [P.encode_abort(), P.encode_error(P.ErrorCode.NOT_BUSY, P.MsgType.ABORT),
              P.encode_ping(), P.encode_version(max_rows=10, max_cols=10, clock_hz=1, baud=1),
              P.encode_solve(puzzle, mode="paper"), P.encode_result(Status.SOLVED, 4, 4,
                                                      solution=result.solution)]
    transfer = sum(map(len, frames)) * 10 * round(vboard.clock_hz / vboard.baud)
    assert vboard.cycles > transfer + result.counters["cycles"]


def test_too_large_for_the_build(connection):
    puzzle, _ = load("janko_0068")  # 12x16
    connection.connect()
    with pytest.raises(B.TooLarge, match="12x16.*10x10"):
        solve_on(connection, puzzle)
    # the firmware refuses it too, when sent anyway: its LEN is beyond the build's largest
    # request, so the header is dropped at once (BAD_LENGTH, SEQ 0)
    connection.send(P.encode_solve(puzzle, mode="paper"))
    reply = connection.receive(lambda r: r if isinstance(r, P.ErrorReply) else None, 60)
    assert reply is not None and (reply.code, reply.seq) == (P.ErrorCode.BAD_LENGTH, 0)


def test_a_new_program_reaches_a_board_left_inside_a_frame(soc_board):
    """A host left the board inside a frame (a SOLVE header announcing the build's largest
    payload, then nothing).  A new program, which has never heard this board's VERSION,
    connects: its first ABORT is swallowed by that candidate, and the resend's quiet flush
    (silence for the board's inter-byte timeout, no zeros) lets the firmware drop it and
    answer the ABORT inside it."""
    puzzle, _ = load("janko_1165")
    header = P.encode_solve(puzzle, mode="deduce", seq=3)[:P.FrameHeader.SIZE]
    with serial.Serial(soc_board.port, soc_board.baud) as line:
        line.write(header)
        line.flush()
    B.close_all()    # a new program: it forgets every link (no VERSION heard on this one)
    connection = B.connect_to(soc_board, rate=soc_board.baud)
    writes, write = [], connection.serial.write
    connection.serial.write = lambda data: writes.append(bytes(data)) or write(data)
    try:
        version = connection.connect()
        assert P.solve_length(puzzle.rows, puzzle.cols) == version.max_payload
        assert not any(data == bytes(len(data)) for data in writes)   # no flush of zeros
        assert solve_on(connection, puzzle, unique=True, mode="paper").status \
            is Status.SOLVED_UNIQUE
    finally:
        connection.close()


def test_a_program_interrupted_with_solves_queued_leaves_the_board_at_its_start_rate(
        soc_build):
    """A program that closes (Ctrl-C, say) with SOLVEs queued on the firmware, at the fast
    rate: the firmware refuses SET_BAUD back BUSY, so the host ABORTs them and asks again;
    the next program reaches the board at its start rate at its first attempt."""
    long_puzzle, _ = load("janko_0101")   # a paper-mode search of some 20 M cycles
    puzzle, solution = load("janko_0002")
    with VirtualBoard("soc", build=soc_build) as vboard:
        first = B.Connection(vboard.port, baud=vboard.baud, health=vboard.problem)
        first.connect()
        fast = first.baud
        assert fast > vboard.baud
        for seq in (1, 2, 3):
            first.send(P.encode_solve(long_puzzle, mode="paper", seq=seq))
        first.close()
        B.close_all()   # a new program: it forgets every link
        second = B.Connection(vboard.port, baud=vboard.baud, health=vboard.problem)
        try:
            second.connect()
            assert second.resends == 0 and second.baud == fast
            result = solve_on(second, puzzle, unique=True, mode="paper")
            assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
        finally:
            second.close()


def test_engine_starts_and_stops_its_own_virtual_board(soc_build):
    """solve() without a port: the virtual board is started, used, and stopped."""
    puzzle, solution = load("janko_0002")
    result = board_engine.solve(puzzle, unique=True, mode="paper")
    try:
        assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
        assert "virtual board" in result.message
        session = sessions._sessions[("virtual", None)]
        process = session.vboard.process
        assert process.poll() is None
    finally:
        B.close_all()
    assert process.poll() is not None  # stopped


def test_solve_cli_against_a_board_started_by_hand(soc_build):
    """`python -m slitherlink.sim.vboard run` in one process, `host/solve.py --port` in another."""
    board = subprocess.Popen([sys.executable, "-m", "slitherlink.sim.vboard", "run"], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        first = board.stdout.readline()
        assert first.startswith("PTY /dev/pts/"), board.stderr.read()
        port = first.split()[1]
        run = subprocess.run([sys.executable, str(REPO / "host" / "solve.py"), "--port", port,
                              "--mode", "paper", "--unique", "--format", "json",
                              str(REPO.parent / "shared" / "puzzles" / "janko_0002.txt")],
                             capture_output=True, text=True, timeout=HANG_SECONDS)
        assert run.returncode == 0, run.stdout + run.stderr
        record = json.loads(run.stdout)   # json asks the board for the counters
        assert record["status"] == "solved_unique", record
        assert record["counters"]["checks"] == 292 and "seconds_at_50mhz" in record["counters"]
    finally:
        os.killpg(board.pid, signal.SIGINT)
        out, err = board.communicate(timeout=HANG_SECONDS)
    assert board.returncode == 0, err
    assert re.search(r"^CYCLES \d+$", out, re.M)
    assert "framing errors" in err


def test_a_dead_board_is_noticed_at_once(echo_build):
    """The engine does not wait out its timeout when the virtual board has died."""
    vboard = VirtualBoard("echo", build=echo_build).start()

    def health():
        problem = vboard.problem()
        if problem:
            raise B.VirtualBoardFailed(problem)

    wait = 60.0
    board = B.Connection(vboard.port, timeout=wait, health=health)
    try:
        vboard.process.kill()
        vboard.process.wait(HANG_SECONDS)
        start = time.monotonic()
        with pytest.raises(B.BoardError):
            board.ping()
        assert time.monotonic() - start < wait  # the health check, not the timeout
        assert vboard.problem().startswith("the virtual board stopped")
    finally:
        board.close()
        vboard.stop()


def test_link_names_the_pty_while_running(echo_build, tmp_path):
    link = tmp_path / "slk-board"
    with VirtualBoard("echo", build=echo_build, args=["--link", str(link)]) as board:
        assert os.path.realpath(link) == board.port
        with serial.Serial(str(link), echo_build.baud, timeout=5) as port:  # as --port PATH
            port.write(b"x")
            assert port.read(1) == b"y"
    assert not link.exists()
