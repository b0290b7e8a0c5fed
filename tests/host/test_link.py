"""The board engine on bad links and bad devices: a lossy link (host/lossy.py), a silent
or frozen device, a virtual board that dies, and the frame log of --verbose.

No simulator: the fake device (host/fakedevice.py; bench/lossy.py's variant that
searches in a thread and answers BUSY meanwhile, as the board does) on a pty, and
for the virtual board a small stand-in process that prints ``PTY /dev/pts/N`` like
the real one and then dies.  Where the waits themselves are the point, the host and
the device run on a clock of the test's own (the device as the host's line), so that
the verdict never depends on the machine's speed.
"""

import collections
import io
import os
import re
import stat
import sys
import textwrap
import time
from types import SimpleNamespace

import pytest

from slitherlink.bench.lossy import SearchingFakeDevice, pick_puzzles
from slitherlink.host import device as B
from slitherlink.host.device import link as L
from slitherlink.host import protocol as P
from slitherlink.host.cli import main
from slitherlink.host.engines import get_engine
from slitherlink.host.engines.board import solve, solve_on
from slitherlink.host.errors import HostError
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host.lossy import LossyLink
from slitherlink.host.result import Status
from tests.conftest import REPO, load
from tests.host.clock import Clock


# -- a lossy link ----------------------------------------------------------------------------

@pytest.mark.parametrize("seed, drop_share", [(1, 0.5), (2, 1.0), (3, 0.0)],
                         ids=["drop+corrupt", "drop", "corrupt"])
def test_lossy_link_gives_right_answers_or_clean_failures(serve, seed, drop_share):
    """1 % of the bytes damaged both ways: every solve ends in the right answer or in a
    one-line error within its bound; never a wrong answer."""
    puzzles = pick_puzzles(12)
    link = LossyLink(serve(SearchingFakeDevice()), loss=0.01, seed=seed,
                     drop_share=drop_share)
    port = link.start()
    solve = get_engine("board")
    right, failed = 0, []
    try:
        for puzzle, solution in puzzles:
            start = time.monotonic()
            try:
                result = solve(puzzle, unique=True, port=port, mode="paper")
            except HostError as error:
                assert "\n" not in str(error) and error.exit_code in (7, 9, 10)
                failed.append(str(error))
            else:
                assert result.status is Status.SOLVED_UNIQUE, result.message
                assert result.solution == solution  # never a wrong answer
                right += 1
            # bound: a connection and the SOLVE, at the longest (uncalibrated) waits
            timing = L.LinkTiming(115200, slowdown=L.VIRTUAL_SLOWDOWN)
            bound = timing.puzzle_bound(puzzle.rows, puzzle.cols, 37_000_000,
                                        B.DEFAULT_RETRIES, switch=True)
            assert time.monotonic() - start < bound
    finally:
        B.close_all()
        link.stop()
    damaged = sum(v for k, v in link.stats.items() if not k.endswith("_bytes"))
    assert damaged > 0  # the link did damage bytes
    assert right >= len(puzzles) - 1, failed


def test_lossy_link_damages_reproducibly():
    """The damage depends only on the seed and the byte's position."""
    a, b = LossyLink("/dev/null", loss=0.2, seed=7), LossyLink("/dev/null", loss=0.2, seed=7)
    data = bytes(range(256)) * 4
    assert a.damage(data, "to_device") == b.damage(data, "to_device")
    assert a.damage(data, "to_device") != data
    assert LossyLink("/dev/null", loss=0.0).damage(data, "to_host") == data


# -- silent and frozen devices ---------------------------------------------------------------

def on_clock(device, port="/dev/fake-board", **options):
    """A :class:`host.device.Connection` with ``device`` (made with ``timer=clock``) as
    its line, on ``clock``."""
    return B.Connection(port, line=device, clock=device.timer, **options)


def written_by(device):
    """The writes of the host to ``device``, each as one bytes object, in order."""
    writes, write = [], device.write

    def record(data):
        writes.append(bytes(data))
        return write(data)

    device.write = record
    return writes


@pytest.mark.parametrize("port, within", [("/dev/pts/fake", 40.0), ("/dev/fake-usb", 2.0)],
                         ids=["pty", "serial"])
def test_silent_device_is_reported_within_its_bound(port, within):
    """No --timeout: the waits come from the baud rate and the frame lengths (a pty is
    assumed to be a slow virtual board until measured): three silent attempts, the quiet
    flush before the second and the third (before VERSION no zeros are sent: the wait
    covers the device's inter-byte timeout instead), and one attempt at every other rate
    the device may have been left at.  Seconds on a real serial port, well under a minute
    on a pty (the flush of the protocol's largest request took minutes of a virtual
    board)."""
    clock = Clock()
    device = FakeDevice(misbehave="silent", timer=clock)
    writes = written_by(device)
    board = on_clock(device, port=port)
    slowdown = L.VIRTUAL_SLOWDOWN if port.startswith("/dev/pts/") else 1.0
    timing = L.LinkTiming(115200, slowdown=slowdown)
    lengths = L.frame_lengths()
    expected = timing.answer_time(lengths["abort"], lengths["error"])
    waits = sum(timing.attempt_wait(lengths["abort"], lengths["error"], k, None if k else 0)
                for k in range(3))
    others = board.candidate_rates()[1:]
    waits += sum(L.LinkTiming(rate, slowdown=slowdown).attempt_wait(
        lengths["abort"], lengths["error"], 0) for rate in others)
    with pytest.raises(B.NoAnswer) as error:
        board.connect()
    assert clock.now == pytest.approx(waits, abs=0.01)
    assert waits < within
    assert expected < 1.0 and "not a byte back in 3 attempts" in str(error.value)
    assert error.value.exit_code == 9
    assert {len(data) for data in writes} == {lengths["abort"]}   # ABORTs, no flush


def test_a_device_left_inside_a_frame_answers_a_new_connection():
    """A device whose receiver holds a candidate (a SOLVE header announcing the build's
    largest payload, then nothing: a host that went away, or a LEN damaged upward) swallows
    the first ABORT of a connection that has never heard its VERSION.  The quiet flush ends
    it: the resend's wait outlasts the device's inter-byte timeout (at 2400 baud, 1.07 s:
    longer than the first attempt's wait), the device drops the candidate and its rescan
    answers the ABORT inside it.  No zeros are sent."""
    clock = Clock()
    device = FakeDevice(timer=clock, baud=2400, max_baud=2400)
    header = P.encode_solve(load("janko_1165")[0], mode="deduce", seq=3)[:P.FrameHeader.SIZE]
    assert int.from_bytes(header[1:3], "little") == device.max_payload
    device.write(header)
    writes = written_by(device)
    board = on_clock(device, baud=2400)
    timing = L.LinkTiming(2400)
    lengths = L.frame_lengths()
    assert timing.attempt_wait(lengths["abort"], lengths["error"], 0) \
        < timing.device_byte_timeout
    version = board.connect()
    assert version.max_payload == device.max_payload
    assert [f.type for f in device.requests[:2]] == [P.MsgType.ABORT, P.MsgType.ABORT]
    assert device.stats["frames_bad"] == 1         # the candidate, dropped by its timeout
    assert board.resends >= 1
    assert not any(data == bytes(len(data)) for data in writes)   # no flush of zeros
    assert clock.now <= timing.connect_bound(version.clock_hz, board.retries, switch=False)


class FreezesOnSolve(FakeDevice):
    """Answers ABORT and PING, then freezes (no byte ever again) when the SOLVE comes."""

    def _request(self, frame, at):
        if frame.type == P.MsgType.SOLVE:
            self.misbehave = frozenset({"silent"})
        return super()._request(frame, at)


def test_device_frozen_mid_solve_is_reported_quickly():
    """Reported after the search's first wait and two short attempts (each the flush, the
    SOLVE again and a probe), not later."""
    clock = Clock()
    board = on_clock(FreezesOnSolve(timer=clock), port="/dev/pts/fake")
    board.connect()
    assert board.timing.calibrated  # the PING after the ABORT measured the link
    puzzle, _ = load("janko_0002")
    start = clock.now
    with pytest.raises(B.NoAnswer, match="SOLVE"):
        solve_on(board, puzzle, mode="paper")
    lengths = L.frame_lengths(puzzle.rows, puzzle.cols)
    waits = board.timing.search_wait(lengths["solve"], lengths["result"],
                                     board.version.clock_hz)
    flush = L.flush_length(board.version.max_payload)
    waits += sum(board.timing.attempt_wait(lengths["solve"] + lengths["ping"],
                                           lengths["result"], k, flush) for k in (1, 2))
    assert clock.now - start == pytest.approx(waits, abs=0.01)
    assert waits < 4.0


class SlowDevice(FakeDevice):
    """A device far slower than its baud rate, as a large virtual board is (a 20x36 one
    simulates some 20,000 times slower than 50 MHz): it answers its requests in order,
    each ``per_request`` seconds after the later of its arrival and the answer before it.
    It is silent until it has booted, which happens when frame number ``booted_by``
    arrives (a stand-in, exact to the frame, for a boot that ends just after a new
    connection's first ABORT went out); the first request's answer goes out at once then
    (it was worked out while booting)."""

    def __init__(self, per_request, booted_by=1, **kwargs):
        super().__init__(**kwargs)
        self.per_request, self.booted_by = per_request, booted_by
        self._frames = P.FrameDecoder()
        self._inbox = collections.deque()  # (arrival, frame)
        self._booted = self._last = None

    def write(self, data):
        with self._lock:
            now = time.monotonic()
            for event in self._frames.feed_events(self._hear(bytes(data))):
                if isinstance(event, P.Frame):
                    self._inbox.append((now, event))
                    self.booted_by -= 1
            if self._booted is None and self.booted_by <= 0:
                self._booted = now
            return len(data)

    def _tick(self, now):
        while self._booted is not None and self._inbox:
            arrived, frame = self._inbox[0]
            due = self._booted if self._last is None else \
                max(arrived, self._last) + self.per_request
            if now < due:
                break
            self._inbox.popleft()
            self._last = due
            self._handle([frame], due)
        super()._tick(now)


def test_late_replies_of_a_connection_that_gave_up_teach_no_fast_link(serve):
    """A connection gives up on a slowly booting device after three ABORTs (at the start
    rate, one more at the other rate the device may be at); the next one (as ``solve``
    opens after a failure) sends its ABORT, and the replies to the *first* ABORTs come back
    at once.  Timed, such an exchange would make the link's slowdown 1 where the device
    needs some 350.  The host learns the link only from a reply that is certainly its
    request's own, by its SEQ: the PING's VERSION, after the late replies; the SOLVE that
    follows is answered at the first attempt."""
    per_request = 0.8
    device = SlowDevice(per_request, booted_by=4)
    port = serve(device)
    with B.Connection(port, timeout=0.2, rate=device.start_baud) as first:  # gives up early
        with pytest.raises(B.NoAnswer, match="ABORT"):
            first.connect()
    board = B.open_connection(port, baud=device.start_baud)  # no switch: one rate
    lengths = L.frame_lengths()
    ping_exchange = (lengths["ping"] + lengths["version"]) * L.BITS_PER_BYTE / board.baud
    assert board.timing.calibrated
    assert board.timing.slowdown >= per_request / ping_exchange  # never faster than it is
    puzzle, solution = load("janko_0002")
    result = solve_on(board, puzzle, mode="paper")
    assert result.status is Status.SOLVED and result.solution == solution
    assert board.resends == 0
    kinds = collections.Counter(P.MsgType(f.type).name for f in device.requests)
    assert kinds == {"ABORT": 4, "PING": 1, "SOLVE": 1}


def test_the_ledger_numbers_requests_and_skips_those_in_use():
    ledger = L.Ledger(first=254)
    a, b = ledger.take(), ledger.take()
    assert (a, b) == (254, 255)
    assert ledger.take() == 1  # 0 names no request: it is skipped
    ledger2 = L.Ledger(first=5)
    held = ledger2.take()
    for _ in range(254):
        ledger2.release(ledger2.take())
    assert ledger2.take() != held  # a SEQ in use is never given out again
    ledger2.release(held)
    ledger.sent(3)
    for _ in range(3 + L.UNASKED_REPLIES):
        ledger.received()
    assert not ledger.unasked
    ledger.received()
    assert ledger.unasked


def test_an_unmatched_exchange_only_slows_the_link_down():
    timing = L.LinkTiming(115200, slowdown=L.VIRTUAL_SLOWDOWN)
    timing.measured(16, 0.003, matched=False)  # maybe a late reply: says nothing
    assert timing.slowdown == L.VIRTUAL_SLOWDOWN and not timing.calibrated
    timing.measured(16, 3.0, matched=False)    # but the link is at least this slow
    assert timing.slowdown > 2000 and not timing.calibrated
    timing.measured(16, 0.3)                   # the first matched exchange replaces it
    assert timing.calibrated and 100 < timing.slowdown < 300


def test_retries_option_bounds_the_resends():
    device = FakeDevice(misbehave="bad_crc", timer=Clock())
    with pytest.raises(B.GarbledAnswer, match="6 attempts"):
        on_clock(device, retries=5).connect()
    # the request and five resends at the start rate (the device hears the one tried at
    # another rate garbled)
    assert len([f for f in device.requests if f.type == P.MsgType.ABORT]) == 6


def test_timing_follows_baud_and_frame_length():
    slow, fast = L.LinkTiming(9600), L.LinkTiming(1_000_000)
    assert slow.attempt_wait(63, 71, 0) > fast.attempt_wait(63, 71, 0)
    assert slow.attempt_wait(63, 71, 0) > slow.attempt_wait(6, 10, 0)
    assert slow.device_byte_timeout == pytest.approx(P.TIMEOUT_BYTE_TIMES * 10 / 9600)
    # doubling, up to the device's inter-byte timeout and more
    waits = [slow.attempt_wait(6, 10, k) for k in range(12)]
    assert waits == sorted(waits)
    assert waits[1] - L.LATENCY == pytest.approx(2 * (waits[0] - L.LATENCY))
    assert waits[-1] == pytest.approx(waits[0] + 1.5 * slow.device_byte_timeout)
    # a search may run 2^25 device cycles before it is probed: longer on a slow link
    assert slow.search_wait(63, 71, 50_000_000) == pytest.approx(
        slow.attempt_wait(63, 71, 0) + 2 ** 25 / 50e6)
    virtual = L.LinkTiming(115200, slowdown=100)
    assert virtual.search_allowance(50_000_000) == pytest.approx(100 * 2 ** 25 / 50e6)
    timing = L.LinkTiming(115200, slowdown=L.VIRTUAL_SLOWDOWN)
    timing.measured(16, 0.003)  # a fast device behind the pty
    assert timing.slowdown == 1.0
    timing.measured(16, 0.3)    # slower later: follows at once
    assert timing.slowdown > 100


# -- a virtual board that dies ---------------------------------------------------------------

STAND_IN = """\
#!{python}
# A stand-in for sim/vboard's program: prints its pty like the real one, serves the
# fake device on it, and dies the way argv[2] says when the SOLVE arrives.
import os, select, signal, sys, tty
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host import protocol as P
master, slave = os.openpty()
tty.setraw(slave)
print("PTY", os.ttyname(slave), flush=True)
device = FakeDevice()
while True:
    ready, _, _ = select.select([master], [], [], 0.01)
    if ready:
        device.write(os.read(master, 4096))
    if any(f.type == P.MsgType.SOLVE for f in device.requests):
        print("vboard: CPU trapped at pc 0x00000420 (illegal instruction)", file=sys.stderr,
              flush=True)
        if sys.argv[2] == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        sys.exit(3)
    out = device.read(device.in_waiting) if device.in_waiting else b""
    if out:
        os.write(master, out)
"""


@pytest.mark.parametrize("how, said", [("exit", "exited with status 3"),
                                       ("segv", "was killed by SIGSEGV")])
def test_dead_virtual_board_is_reported_as_such(tmp_path, monkeypatch, how, said):
    """The stand-in dies when it is sent the SOLVE; the host reports that (its exit status
    and last message), not a port error, and long before any wait of its own would have
    run out: every attempt waits a minute here, so that a slow start of the stand-in on
    a busy machine is never taken for silence, and only the health check can end the
    solve in time."""
    from slitherlink.sim.vboard import VirtualBoard
    script = tmp_path / "vboard"
    script.write_text(STAND_IN.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    build = SimpleNamespace(path=script, baud=115200, clock_hz=50_000_000)
    vboard = VirtualBoard("soc", build=build, args=[how])
    wait = 60.0
    try:
        board = B.open_connection(vboard=vboard, timeout=wait)
        start = time.monotonic()
        with pytest.raises(B.VirtualBoardFailed) as error:
            solve_on(board, load("janko_0002")[0])
        assert time.monotonic() - start < wait  # the health check, not a timeout
    finally:
        B.close_all()
        vboard.stop()
    message = str(error.value)
    assert said in message and "CPU trapped at pc 0x00000420" in message
    assert "\n" not in message and error.value.exit_code == 7
    assert not isinstance(error.value, B.PortError)


HUNG_STAND_IN = """\
#!{python}
# A stand-in for sim/vboard's program whose firmware hangs when the SOLVE arrives: its
# clock runs on (SIGUSR1 stamps, a million cycles more each), but it never serves its
# UART again (SERVED stays) and never answers.
import os, select, signal, sys, tty
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host import protocol as P
device = FakeDevice()
cycles = served = 1_000   # booted, and served its UART
def stamp(signum, frame):
    global cycles, served
    cycles += 1_000_000
    if not hung():
        served = cycles
    print(f"CYCLES {{cycles}} RX 0 TX 0 SERVED {{served}} GAP 1000", flush=True)
def hung():
    return any(f.type == P.MsgType.SOLVE for f in device.requests)
signal.signal(signal.SIGUSR1, stamp)   # before the pty is said, as the harness does
master, slave = os.openpty()
tty.setraw(slave)
print("PTY", os.ttyname(slave), flush=True)
while True:
    ready, _, _ = select.select([master], [], [], 0.01)
    if ready:
        data = os.read(master, 4096)
        if not hung():
            device.write(data)
    out = device.read(device.in_waiting) if device.in_waiting and not hung() else b""
    if out:
        os.write(master, out)
"""


def test_hung_virtual_board_firmware_is_reported_without_a_probe(tmp_path, monkeypatch):
    """The stand-in's firmware hangs at the SOLVE, its clock running on; the solve asks for
    the counters, so the host would probe the search only after its allowance of 2^25
    device cycles.  The stamps say that the firmware stopped serving its UART: the host
    reports a hung firmware once that stretch exceeds SERVICE_INTERVAL_CYCLES, long
    before any wait of its own would have run out (a minute an attempt here)."""
    from slitherlink.sim.vboard import VirtualBoard
    script = tmp_path / "vboard"
    script.write_text(HUNG_STAND_IN.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    build = SimpleNamespace(path=script, baud=115200, clock_hz=50_000_000)
    vboard = VirtualBoard("soc", build=build)
    wait = 60.0
    try:
        board = B.open_connection(vboard=vboard, timeout=wait)
        start = time.monotonic()
        with pytest.raises(B.VirtualBoardFailed) as error:
            solve_on(board, load("janko_0002")[0], mode="paper", counters=True)
        assert time.monotonic() - start < wait  # the stamps, not a timeout or a probe
    finally:
        B.close_all()
        vboard.stop()
    message = str(error.value)
    assert "firmware has not served its UART since cycle" in message
    assert message.endswith("it is hung") and "\n" not in message
    assert error.value.exit_code == 7


# -- --verbose --------------------------------------------------------------------------------

#: the wait per attempt of a test about the frames, not about their timing
WAIT = ["--timeout", "60"]


def test_verbose_logs_every_frame_in_hex(serve):
    port = serve(FakeDevice())
    out, err = io.StringIO(), io.StringIO()
    puzzle = REPO / "examples" / "loopy_7x7.txt"
    # (a minute per attempt: a slow answer on a busy machine is never sent for again)
    code = main(["-e", "board", "--mode", "paper", "--port", port, *WAIT, "-v", str(puzzle)],
                stdin=io.StringIO(), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    lines = err.getvalue().splitlines()
    sent = [line for line in lines if f"{port} <- " in line]
    received = [line for line in lines if f"{port} -> " in line]
    # connecting (at the fast rate), the SOLVE, and at the end the way back to the start rate
    assert [line.split(" <- ")[1].split(":")[0].split()[0] for line in sent] == \
        ["ABORT", "PING", "SET_BAUD", "PING", "SOLVE", "SET_BAUD"]
    assert [line.split(" -> ")[1].split()[0] for line in received] == \
        ["ERROR", "VERSION", "BAUD", "VERSION", "ANSWER", "BAUD"]
    solve_line = sent[4]
    seq = int(re.search(r"seq (\d+)", solve_line).group(1))
    frame = P.encode_solve(__import__("slitherlink.host.formats", fromlist=["load_puzzle"])
                           .load_puzzle(str(puzzle)), mode="paper", seq=seq)
    assert solve_line.endswith(frame.hex(" "))
    assert "SOLVE 7x7" in solve_line and f"ANSWER SOLVED 7x7 seq {seq}" in received[4]
    assert "ERROR NOT_BUSY" in received[0]
    # -vv adds the raw bytes read; without -v nothing is logged
    err2 = io.StringIO()
    main(["-e", "board", "--port", port, str(puzzle)], stdin=io.StringIO(), stdout=out,
         stderr=err2)
    assert err2.getvalue() == ""
    err3 = io.StringIO()
    main(["-e", "board", "--port", port, "-vv", str(puzzle)], stdin=io.StringIO(), stdout=out,
         stderr=err3)
    assert re.search(r"-> \d+ bytes: a5( |$)", err3.getvalue(), re.M)


def test_verbose_names_the_deduce_frames(serve):
    """Deduce mode: the SOLVE with its DEDUCE flag, VERSION's DEDUCE_OK and the
    DEDUCE_RESULT, decoded in the log."""
    port = serve(FakeDevice())
    err = io.StringIO()
    puzzle = REPO / "examples" / "loopy_7x7.txt"
    code = main(["-e", "board", "--port", port, *WAIT, "-u", "-v", str(puzzle)],
                stdin=io.StringIO(), stdout=io.StringIO(), stderr=err)
    assert code == 0, err.getvalue()
    lines = err.getvalue().splitlines()
    received = [line.split(" -> ")[1] for line in lines if f"{port} -> " in line]
    sent = [line.split(" <- ")[1] for line in lines if f"{port} <- " in line]
    assert [line.split()[0] for line in received] == ["ERROR", "VERSION", "BAUD", "VERSION",
                                                      "ANSWER", "BAUD"]
    assert re.match(r"SOLVE 7x7 unique deduce seq \d+ \(7x7 puzzle\): ", sent[4])
    assert re.search(r" queue 16 deduce seq \d+: ", received[1])   # a 10x10 build's
    assert re.match(r"ANSWER SOLVED_UNIQUE 7x7 deduce seq \d+: a5 ", received[4])
    # with the counters (--format json): DEDUCE_RESULT
    err = io.StringIO()
    code = main(["-e", "board", "--port", port, *WAIT, "-u", "-v", "-f", "json", str(puzzle)],
                stdin=io.StringIO(), stdout=io.StringIO(), stderr=err)
    received = [line.split(" -> ")[1] for line in err.getvalue().splitlines()
                if f"{port} -> " in line]
    assert any(re.match(r"DEDUCE_RESULT SOLVED_UNIQUE 7x7 decisions 0 cycles \d+ seq \d+: a5 ",
                        line) for line in received)


def test_frame_lengths_of_every_reply():
    lengths = L.frame_lengths(10, 10)
    # as docs/host.md says
    assert (lengths["solve"], lengths["answer"], lengths["result"]) == (65, 25, 73)
    assert lengths["deduce_result"] == len(P.encode_deduce_result(
        P.Status.SOLVED, 10, 10, solution=((False,) * 10,) * 10)) > lengths["result"]


def test_verbose_shows_retries(serve):
    class LosesFirstSolve(FakeDevice):
        lost = False

        def _request(self, frame, at):
            if frame.type == P.MsgType.SOLVE and not self.lost:
                self.lost = True
                return None
            return super()._request(frame, at)

    port = serve(LosesFirstSolve())
    err = io.StringIO()
    code = main(["-e", "board", "--port", port, "-v", str(REPO / "examples" / "loopy_7x7.txt")],
                stdin=io.StringIO(), stdout=io.StringIO(), stderr=err)
    assert code == 0
    assert "SOLVE looked for (silence for" in err.getvalue()
    assert "(7x7 puzzle: the device does not have it)" in err.getvalue()
    assert os.linesep not in "".join(line for line in err.getvalue().splitlines())


def test_a_reconnection_keeps_the_measured_timing(serve):
    """After a failure the session is opened again: it starts from the slowdown measured
    on that very device file, not from the pty prior; another pty does not inherit it."""
    device = FakeDevice()
    port = serve(device)
    first = B.open_connection(port)
    measured = first.timing.slowdown
    assert first.timing.calibrated
    B.drop(first)
    again = B.Connection(port)
    try:
        assert again.timing.calibrated and again.timing.slowdown == measured
    finally:
        again.close()
    B.close_all()  # forgets the measurements
    fresh = B.Connection(port)
    try:
        assert not fresh.timing.calibrated
        assert fresh.timing.slowdown == L.VIRTUAL_SLOWDOWN
    finally:
        fresh.close()


def test_a_read_sets_the_port_s_timeout_only_when_it_changes():
    """pyserial sets the port up again (termios calls) whenever its timeout is set: a read
    sets it only to a new value; the stream's answers still come, each in its wait."""
    class Recorded(FakeDevice):
        def __init__(self, **options):
            self.sets = []
            super().__init__(**options)

        @property
        def timeout(self):
            return self._timeout

        @timeout.setter
        def timeout(self, value):
            self.sets.append(value)
            self._timeout = value

    clock = Clock()
    device = Recorded(timer=clock)
    board = on_clock(device)
    board.connect()
    names = ("janko_0002", "janko_0011", "janko_0003")
    for name in names:
        puzzle, solution = load(name)
        result = solve_on(board, puzzle, mode="deduce")
        assert result.status is Status.SOLVED and result.solution == solution
    asked = device.sets[1:]   # (the first: the device's own, as it is made)
    assert asked and all(a != b for a, b in zip(asked, asked[1:]))
