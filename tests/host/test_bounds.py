"""Every run of the host ends within its bound, whatever the port sends (host/device/link.py,
"The bound"; docs/host.md, "How long the host waits").

Two kinds of test.  On a clock of the test's own (no wall time at all): the device
session (:class:`host.device.Connection`, its clock a parameter) talks to a line whose
bytes come from a source that is a function of that clock -- seeded noise at the line
rate, an echo, an endless stream of well-formed ERROR frames, valid RESULT frames that
answer no request, a device that answers only some frames -- and the test asserts the
error, its exit code, its one line, and that the clock at the end is within the
documented bound.  On a pseudo-terminal, as a user meets it: ``host/solve.py --port``
against a thread that writes such bytes at the line rate and never stops; there the
end is asserted within the bound plus a generous margin (a busy machine makes the host
slower to notice, never the source faster).
"""

import io
import os
import random
import threading
import time
import tty

import pytest

from slitherlink.host import device as D
from slitherlink.host import protocol as P
from slitherlink.host.cli import main
from slitherlink.host.device import link as L
from slitherlink.host.engines.board import solve_on
from slitherlink.host.errors import ExitCode
from slitherlink.host.result import Status
from tests.conftest import REPO, load
from tests.host.clock import Clock

BAUD = 115200
RATE = BAUD / L.BITS_PER_BYTE  # bytes a second on the line


# -- a line on a clock of the test's own ------------------------------------------------------

class Line:
    """A pyserial-like port on :class:`Clock`: the bytes that arrive in the clock's
    interval [a, b) are ``source(a, b)``; a read with nothing waiting lets the clock
    run on by the read's timeout; every frame written goes to ``answer(frame)``, whose
    bytes arrive at once."""

    def __init__(self, clock, source=None, answer=None):
        self.clock, self.source, self.answer = clock, source, answer
        self.timeout, self.write_timeout = 0.02, None
        self.waiting = bytearray()
        self.seen = clock()
        self.frames = []        # every good frame written, decoded
        self._decoder = P.FrameDecoder()

    def _arrive(self):
        now = self.clock()
        if now > self.seen and self.source is not None:
            self.waiting += self.source(self.seen, now)
        self.seen = max(self.seen, now)

    @property
    def in_waiting(self):
        self._arrive()
        return len(self.waiting)

    def read(self, size=1):
        self._arrive()
        if not self.waiting and self.timeout:
            self.clock.sleep(self.timeout)
            self._arrive()
        data = bytes(self.waiting[:size])
        del self.waiting[:size]
        return data

    def write(self, data):
        for frame in self._decoder.feed(bytes(data)):
            self.frames.append(frame)
            if self.answer is not None:
                self.waiting += self.answer(frame)
        return len(data)

    def flush(self):
        pass

    def reset_input_buffer(self):
        self._arrive()
        self.waiting.clear()

    def close(self):
        pass


def at_line_rate(stream):
    """A source that sends the bytes of the endless ``stream`` (an iterator) at the line
    rate: byte n arrives at n / RATE seconds."""
    sent = 0

    def source(_, now):
        nonlocal sent
        due = int(now * RATE)
        out = bytes(next(stream) for _ in range(due - sent))
        sent = due
        return out
    return source


def noise(seed):
    rng = random.Random(seed)
    while True:
        yield rng.randrange(256)


def repeated(frames):
    """The bytes of ``frames``, one after the other, again and again."""
    while True:
        for frame in frames:
            yield from frame


def error_frames(seed, count=64):
    """Well-formed ERROR frames a device sends of its own accord, in a seeded order: its
    reports of damaged frames (BAD_CRC, TIMEOUT, OVERRUN, BAD_LENGTH), BUSY and NOT_BUSY,
    and UNKNOWN_TYPE for a type the host never sends.  (An ERROR that refuses the very
    request, say BAD_CLUE for the SOLVE, is its answer: exit 7.)"""
    rng = random.Random(seed)
    kinds = [(code, 0) for code in (P.ErrorCode.BAD_CRC, P.ErrorCode.TIMEOUT,
                                    P.ErrorCode.OVERRUN, P.ErrorCode.BAD_LENGTH)]
    kinds += [(P.ErrorCode.BUSY, P.MsgType.SOLVE), (P.ErrorCode.NOT_BUSY, P.MsgType.ABORT),
              (P.ErrorCode.UNKNOWN_TYPE, 0x42)]
    return [P.encode_error(code, request_type, rng.randrange(1 << 16))
            for code, request_type in (rng.choice(kinds) for _ in range(count))]


def result_frames():
    """Valid RESULT and DEDUCE_RESULT frames that answer no request of the host's."""
    solution = ((True, True), (True, True))
    return [P.encode_result(Status.SOLVED, 2, 2, solution=solution, unique=True),
            P.encode_deduce_result(Status.NO_SOLUTION, 3, 1),
            P.encode_result(Status.LIMIT, 7, 7, aborted=True)]


#: ``then`` of :func:`device_answers`: the device freezes (answers nothing more)
FROZEN = "frozen"


def device_answers(kinds, then=None):
    """``answer`` of a device that answers ABORT (NOT_BUSY) and PING (a 10x10 build with
    the deduction engine, which offers no faster rate) when their type is in ``kinds``,
    and else nothing; once it has been sent a SOLVE, ``then`` (a source, or None: silence)
    takes over the line; ``then=FROZEN``: the device answers nothing more."""
    frozen = False

    def answer(frame, line):
        nonlocal frozen
        if frame.type == P.MsgType.SOLVE and then is not None:
            if then is FROZEN:
                frozen = True
            else:
                line.source = then(line.clock())
        if frame.type not in kinds or frozen:
            return b""
        if frame.type == P.MsgType.ABORT:
            return P.encode_error(P.ErrorCode.NOT_BUSY, P.MsgType.ABORT, seq=frame.seq)
        if frame.type == P.MsgType.PING:
            return P.encode_version(max_rows=10, max_cols=10, clock_hz=50_000_000,
                                    baud=BAUD, deduce_ok=True, seq=frame.seq)
        return b""
    return answer


def starting_at(start, make):
    """A source of ``make()``'s bytes at the line rate from ``start`` on."""
    source = at_line_rate(make())
    return lambda a, b: source(max(0.0, a - start), max(0.0, b - start))


def connection(line, *, timeout=None, retries=None, port="/dev/fake-port"):
    return D.Connection(port, baud=BAUD, timeout=timeout, retries=retries, line=line,
                        clock=line.clock)


def one_line_error(error, exit_code):
    message = str(error.value)
    assert "\n" not in message and message
    assert error.value.exit_code == exit_code
    return message


# -- what arrives: the error, its code, its line, and the bound --------------------------------

ABORT_LENGTHS = (L.frame_lengths()["abort"], L.frame_lengths()["error"])


def abort_bound(link):
    """The bound of a connection's ABORT: at the start rate (the quiet flush before each
    resend: no VERSION yet), then one attempt at each other rate the device may have been
    left at (:meth:`host.device.Connection.candidate_rates`)."""
    others = len(link.candidate_rates()) - 1
    return link.timing.request_bound(*ABORT_LENGTHS, link.retries, None) + \
        link.timing.elsewhere_bound(others)


@pytest.mark.parametrize("timeout", [0.5, 5.0, None])
@pytest.mark.parametrize("retries", [0, 3, None])
def test_noise_is_garbled_within_the_bound(timeout, retries):
    """Seeded random bytes at the line rate, never a frame: exit 10, one line, and the
    end within (retries + 1) attempt waits of the first request (ABORT)."""
    clock = Clock()
    line = Line(clock, at_line_rate(noise(seed=1)))
    link = connection(line, timeout=timeout, retries=retries)
    with pytest.raises(D.GarbledAnswer) as error:
        link.connect()
    message = one_line_error(error, ExitCode.GARBLED)
    assert "never forms a frame" in message or "garbled answers" in message
    bound = abort_bound(link)
    assert clock.now <= bound
    if timeout is not None:  # the bound, said plainly
        others = len(link.candidate_rates()) - 1
        assert bound == pytest.approx((link.retries + 1 + others) * timeout)
    assert {f.type for f in line.frames} == {P.MsgType.ABORT}


def test_noise_ends_a_run_of_the_default_retries_in_three_attempts():
    """Noise is told from a lossy link (whose damaged replies end in silence) in as many
    attempts as silence is, not after all the resends: with --timeout 5, 15 s."""
    clock = Clock()
    line = Line(clock, at_line_rate(noise(seed=2)))
    link = connection(line, timeout=5.0)
    with pytest.raises(D.GarbledAnswer, match="never forms a frame") as error:
        link.connect()
    assert "3 attempts in a row" in str(error.value)
    others = len(link.candidate_rates()) - 1
    assert clock.now <= (3 + others) * 5.0
    assert len(line.frames) == 3 + others


def test_an_echo_is_garbled_within_the_bound():
    """The port sends back what it is sent (a loopback plug, a terminal): exit 10."""
    clock = Clock()
    line = Line(clock, answer=lambda frame: frame.encode())
    link = connection(line, timeout=1.0)
    with pytest.raises(D.GarbledAnswer, match="sends back our own frames") as error:
        link.connect()
    one_line_error(error, ExitCode.GARBLED)
    assert clock.now <= abort_bound(link)
    assert len(line.frames) == L.SILENT_ATTEMPTS + len(link.candidate_rates()) - 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_endless_stream_of_error_frames_is_garbled_within_the_bound(seed):
    clock = Clock()
    line = Line(clock, at_line_rate(repeated(error_frames(seed))))
    link = connection(line, timeout=2.0)
    with pytest.raises(D.GarbledAnswer) as error:
        link.connect()
    one_line_error(error, ExitCode.GARBLED)
    assert clock.now <= abort_bound(link)


def test_valid_results_that_answer_no_request_are_garbled_within_the_bound():
    clock = Clock()
    line = Line(clock, at_line_rate(repeated(result_frames())))
    link = connection(line, timeout=2.0)
    with pytest.raises(D.GarbledAnswer, match="answer no request") as error:
        link.connect()
    one_line_error(error, ExitCode.GARBLED)
    assert clock.now <= abort_bound(link)
    assert len(link.stale) <= L.UNASKED_REPLIES + len(line.frames)


def test_silence_is_no_answer_within_the_bound():
    clock = Clock()
    line = Line(clock)
    link = connection(line, timeout=0.5, retries=10)
    with pytest.raises(D.NoAnswer, match="not a byte back in 3 attempts") as error:
        link.connect()
    one_line_error(error, ExitCode.TIMEOUT)
    assert clock.now <= (3 + len(link.candidate_rates()) - 1) * 0.5


@pytest.mark.parametrize("then, error, code", [
    (FROZEN, D.NoAnswer, ExitCode.TIMEOUT),
    (lambda now: starting_at(now, lambda: noise(seed=4)), D.GarbledAnswer, ExitCode.GARBLED),
    (lambda now: starting_at(now, lambda: repeated(error_frames(5))), D.GarbledAnswer,
     ExitCode.GARBLED),
    (lambda now: starting_at(now, lambda: repeated(result_frames())), D.GarbledAnswer,
     ExitCode.GARBLED),
], ids=["silent", "noise", "errors", "results"])
@pytest.mark.parametrize("timeout", [1.0, None])
def test_a_device_that_answers_only_some_frames(then, error, code, timeout):
    """ABORT and PING are answered, the SOLVE is not: the device freezes (silence), or
    sends a stream of noise, of ERROR frames or of RESULTs for other puzzles.  The puzzle
    ends within the bound of its exchange (the first wait allows for a search of 2^25
    device cycles)."""
    clock = Clock()
    line = Line(clock)
    answer = device_answers({P.MsgType.ABORT, P.MsgType.PING}, then)
    line.answer = lambda frame: answer(frame, line)
    link = connection(line, timeout=timeout)
    link.connect()
    puzzle, _ = load("janko_0002")
    start = clock.now
    with pytest.raises(error) as failure:
        solve_on(link, puzzle)
    one_line_error(failure, code)
    lengths = L.frame_lengths(puzzle.rows, puzzle.cols)
    resend = link.timing.resend_length(lengths["solve"], 1, link.version.max_payload)
    bound = link.timing.solve_bound(resend, lengths["deduce_result"], link.version.clock_hz,
                                    link.retries)
    assert clock.now - start <= bound
    if timeout is not None:
        assert bound == pytest.approx((link.retries + 1) * timeout)


@pytest.mark.parametrize("timeout", [1.0, None])
def test_a_device_that_answers_probes_but_never_the_solve(timeout):
    """A device that answers every PING is alive: to the host it is searching (protocol 2
    drops a SOLVE sent again while it is queued or solved), so only --time-limit ends the
    wait.  Its ABORT then finds no search running (NOT_BUSY): the SOLVE is sent again,
    and after ``retries + 1`` such rounds the puzzle ends with "no answer", within the
    time limit and as many rounds of an ABORT's and a SOLVE's waits."""
    clock = Clock()
    line = Line(clock)
    answer = device_answers({P.MsgType.ABORT, P.MsgType.PING})
    line.answer = lambda frame: answer(frame, line)
    link = connection(line, timeout=timeout, retries=3)
    link.connect()
    puzzle, _ = load("janko_0002")
    start = clock.now
    with pytest.raises(D.NoAnswer, match="NOT_BUSY") as failure:
        solve_on(link, puzzle, time_limit=5.0)
    one_line_error(failure, ExitCode.TIMEOUT)
    lengths = L.frame_lengths(puzzle.rows, puzzle.cols)
    solve = link.timing.attempt_wait(lengths["solve"], lengths["deduce_result"], 0)
    abort = link.timing.attempt_wait(*ABORT_LENGTHS, 0)
    assert clock.now - start <= 5.0 + (link.retries + 1) * (solve + abort) + abort
    kinds = [P.MsgType(f.type).name for f in line.frames]
    assert kinds.count("ABORT") - 1 == link.retries + 1  # the connection's first, then one a round


def test_a_device_that_answers_every_other_frame_is_answered():
    """Not every failure is one: a device that drops every other frame (a bad cable)
    is answered after a resend each time, and timed only on an answer at the first
    attempt."""
    clock = Clock()
    line = Line(clock)
    count = 0
    answer = device_answers({P.MsgType.ABORT, P.MsgType.PING})

    def every_other(frame):
        nonlocal count
        count += 1
        return answer(frame, line) if count % 2 == 0 else b""
    line.answer = every_other
    link = connection(line, timeout=1.0)
    assert link.connect().deduce_ok
    assert [P.MsgType(f.type).name for f in line.frames] == ["ABORT", "ABORT", "PING", "PING"]
    assert clock.now <= 2 * 1.0 + 2 * 1.0


def test_a_flood_of_busy_is_no_search():
    """A device that answers a probe with BUSY is searching; one that sends BUSY after
    BUSY, unasked, is not: exit 10 within the bound, not a wait without end."""
    clock = Clock()
    line = Line(clock)
    busy = P.encode_error(P.ErrorCode.BUSY, P.MsgType.SOLVE)
    answer = device_answers({P.MsgType.ABORT, P.MsgType.PING},
                            lambda now: starting_at(now, lambda: repeated([busy])))
    line.answer = lambda frame: answer(frame, line)
    link = connection(line, timeout=1.0)
    link.connect()
    with pytest.raises(D.GarbledAnswer, match="answer no request"):
        solve_on(link, load("janko_0002")[0])
    assert clock.now <= 2 * link.timing.request_bound(*ABORT_LENGTHS, link.retries)


def test_late_replies_start_a_wait_anew_once_each():
    """A device that works slowly through the frames it was sent (the replies of an
    earlier connection's ABORTs come first, in order, under the SEQs the PING takes): each
    late reply starts the wait anew, so the PING is answered at its first attempt -- and
    only as many times as frames were sent: a reply more is a frame that answers no
    request."""
    clock = Clock()
    per_reply = 0.8
    backlog = 3
    line = Line(clock)
    queue = []  # (due, bytes)

    def answer(frame):
        due = max([clock.now] + [d for d, _ in queue]) + per_reply
        reply = device_answers({P.MsgType.ABORT, P.MsgType.PING})(frame, line)
        queue.append((due, reply))
        return b""

    def source(_, now):
        out = b""
        while queue and queue[0][0] <= now:
            out += queue.pop(0)[1]
        return out
    line.answer, line.source = answer, source
    link = connection(line, timeout=1.0)
    # what an earlier connection sent and gave up on, under the SEQs this connection takes
    # next: the late ERRORs (NOT_BUSY to an ABORT) name the PING's SEQs, and are not its
    first = link.ledger._next = P.REQUEST_SEQS.start
    for seq in range(first, first + backlog):
        link.send(P.encode_abort(seq))
    assert link.ping().deduce_ok
    assert [P.MsgType(f.type).name for f in line.frames] == ["ABORT"] * backlog + ["PING"]
    assert clock.now <= (backlog + 1) * per_reply + 1.0


# -- as a user meets it: host/solve.py --port on a pty that never stops talking ------------------

class Talker:
    """A pseudo-terminal whose other side sends ``stream``'s bytes at the line rate, in
    chunks every 10 ms (catching up after a stall: the rate holds, whatever the
    machine's load), reads and drops what it is sent, and never stops."""

    def __init__(self, stream):
        self.stream = stream
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        import select
        start, sent = time.monotonic(), 0
        while not self._stop.is_set():
            due = int((time.monotonic() - start) * RATE)
            chunk = bytes(next(self.stream) for _ in range(min(due - sent, 4096)))
            sent += len(chunk)
            try:
                ready, writable, _ = select.select([self.master], [self.master], [], 0.01)
                if ready:
                    os.read(self.master, 4096)
                if chunk and writable:
                    os.write(self.master, chunk)
            except OSError:
                return
            self._stop.wait(0.01)

    def __enter__(self):
        self._thread.start()
        return self.path

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)
        for fd in (self.master, self._slave):
            os.close(fd)


#: generous, and only ever added: the bound is what must hold
MARGIN = 10.0
TIMEOUT, RETRIES = 0.5, 2


def run(args):
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    code = main(args, stdin=io.StringIO(), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue(), time.monotonic() - start


def per_puzzle_bound():
    """The documented bound of one puzzle with --timeout TIMEOUT --retries RETRIES: its
    connection (the ABORT also at every other rate the device may be at, the switch to the
    fast rate) and its SOLVE, each attempt a TIMEOUT (but SET_BAUD's, which waits out the
    device's confirmation window at least)."""
    from slitherlink.host.device.rates import known_rates
    timing = L.LinkTiming(BAUD, timeout=TIMEOUT)
    bound = timing.puzzle_bound(10, 10, 50_000_000, RETRIES, switch=True,
                                others=len(known_rates()))
    plain = timing.puzzle_bound(10, 10, 50_000_000, RETRIES)
    assert plain == pytest.approx(3 * (RETRIES + 1) * TIMEOUT)  # ABORT, PING, SOLVE
    return bound


@pytest.mark.parametrize("stream", [lambda: noise(seed=7), lambda: repeated(error_frames(8)),
                                    lambda: repeated(result_frames())],
                         ids=["noise", "errors", "results"])
def test_solve_on_a_pty_that_never_stops_talking(stream):
    """host/solve.py --port PTY: exit 10, one line on standard error, and the end within
    the bound; -v shows what arrived."""
    puzzle = str(REPO / "examples" / "loopy_7x7.txt")
    options = ["--port", "PTY", "--timeout", str(TIMEOUT), "--retries", str(RETRIES)]
    with Talker(stream()) as pty:
        options[1] = pty
        code, out, err, seconds = run(["-e", "board", *options, puzzle])
        assert code == ExitCode.GARBLED, err
        assert err.count("\n") == 1 and err.startswith("host/solve.py: loopy_7x7: garbled ")
        assert seconds < per_puzzle_bound() + MARGIN
        code, _, log, _ = run(["-e", "board", *options, "-v", puzzle])
    assert code == ExitCode.GARBLED
    lines = log.splitlines()
    assert lines[-1] == err.rstrip("\n") or lines[-1].startswith("host/solve.py: loopy_7x7: ")
    arrived = [line for line in lines if f"{pty} -> " in line]
    assert arrived, "-v shows nothing of what arrived"
    assert any("bytes outside any frame" in line or "bad frame" in line or
               "ERROR" in line or "RESULT" in line for line in arrived)


def test_the_bound_holds_for_every_puzzle_of_a_run(tmp_path):
    """A directory of three puzzles on a port full of noise: each ends within its bound
    (a failed connection is opened again for the next), one line each, and the run
    within their sum."""
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.txt").write_text((REPO / "examples" / "loopy_7x7.txt").read_text())
    with Talker(noise(seed=9)) as pty:
        code, out, err, seconds = run(["-e", "board", "--port", pty, "--timeout", str(TIMEOUT),
                                       "--retries", str(RETRIES), str(tmp_path)])
    assert code == ExitCode.GARBLED
    assert [line.split(":")[1].strip() for line in err.splitlines()] == ["a", "b", "c"]
    assert out.splitlines()[-1].startswith("summary: 3 puzzles: 3 error;")
    assert seconds < 3 * per_puzzle_bound() + MARGIN
