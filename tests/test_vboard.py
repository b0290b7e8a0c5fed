"""The virtual board (sim/vboard): the harness, and the whole system end to end.

Part 1 runs the harness on its self-test design (sim/vboard/echo.py: answers
each byte b with b + 1 at 16 clock cycles per bit): pty bridge, byte-level
UART timing, exact cycle counts, the idle pause, tracing, the build cache.
Part 2 runs host/board.py and host/solve.py against the SoC's virtual board.

Builds go to build/vboard/ under a file lock (sim/vboard/builder.py), so the
two pytest-xdist workers never compile the same board twice.
"""

import os
import re
import signal
import subprocess
import sys
import time

import pytest
import serial

from sim.vboard import VirtualBoard, build_design
from sim.vboard import builder as vbuild
from sim.vboard import echo
from tests.conftest import REPO

BIT = round(echo.ECHO_CLOCK_HZ / echo.ECHO_BAUD)  # clock cycles per bit


@pytest.fixture(scope="module")
def echo_build():
    return build_design("echo", quiet=True)


def cycles_now(board):
    """Ask a running harness for its cycle count (SIGUSR1 -> a "CYCLES n" line)."""
    board.process.send_signal(signal.SIGUSR1)
    line = board._readline(5.0)
    match = re.fullmatch(r"CYCLES (\d+)\n", line)
    assert match, line
    return int(match.group(1))


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
                          "--reset-cycles", "16"], capture_output=True, text=True, timeout=30)
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
    assert board.process.wait(10) == 0
    board.stop()


def test_trace_has_the_uart_waveform(echo_build, tmp_path):
    """A traced run: the byte 0x55 on uart_rx as 10 bits of exactly BIT cycles each."""
    trace = tmp_path / "echo.vcd"
    with VirtualBoard("echo", trace=trace) as board:
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

    again = vbuild.build(factory, name="echo", inputs=vbuild_inputs(), quiet=True)
    assert again.path == echo_build.path and not calls  # same inputs: nothing generated


def vbuild_inputs():
    from sim.vboard import DESIGNS
    return DESIGNS["echo"][1]


def test_harness_rejects_bad_options(echo_build):
    run = subprocess.run([str(echo_build.path), "--baud", "fast"], capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 2 and "--baud wants a non-negative integer" in run.stderr
    run = subprocess.run([str(echo_build.path), "--trace", "x.vcd"], capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 2 and "no tracing" in run.stderr
