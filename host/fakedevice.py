"""A fake solver device that speaks the UART protocol in pure Python.

It stands in for the board (paper Fig. 7: CPU + solver behind a UART) in host
tests that need no simulator.  It serves both modes of SOLVE with the golden
models, so its counters are exactly the models' (and hence the firmware's):

* paper mode (reply RESULT): :func:`model.paper.search`; only ``cycles`` is an
  estimate (:data:`CYCLES_PER_CHECK`, :data:`CYCLES_PER_FLOOD_ITERATION`);
* deduce mode (the DEDUCE flag; reply DEDUCE_RESULT): the band model of the
  default build (:func:`model.band.band_solve`, band 1), ``max_checks`` bounding
  its decisions, the flood and label iterations counted as passes as the
  engine counts them; ``cycles`` is the model's estimate
  (:class:`model.band.BandCycleModel`), not a count, and a counter only the
  hardware has (the engine's busy clocks, ``engine_clocks``) is the same
  estimate without the firmware's branch cycles.  The fake never
  reports TRAIL_FULL (it has no hardware trail).  ``deduce=False``
  makes it a build without the deduction engine: VERSION lacks DEDUCE_OK and a
  deduce-mode SOLVE is answered ERROR NO_DEDUCE.

It follows the protocol of :mod:`host.protocol` to the letter, including
resynchronisation, the inter-byte timeout, BUSY/NOT_BUSY and ABORT.

Use it like a ``serial.Serial``::

    dev = FakeDevice(max_rows=10, max_cols=10, timeout=1.0)
    dev.write(protocol.encode_solve(puzzle, mode="paper", unique=True))
    frames = protocol.FrameDecoder().feed(dev.read(1000))

or give a program a pseudo-terminal with :meth:`FakeDevice.serve_pty`.

It can be told to misbehave (``misbehave={...}``):

* ``"silent"``: never answer;
* ``"garbage"``: answer every request with random bytes instead of a frame;
* ``"bad_crc"``: corrupt the CRC of every reply;
* ``"truncate"``: send only the first half of every reply;
* ``delay=seconds``: a SOLVE's RESULT comes after that long (the search is
  "running" meanwhile: SOLVE gets BUSY, ABORT ends it, PING still answers).

Its time is ``timer()`` (default :func:`time.monotonic`).  A timer of the
test's own with a ``sleep(seconds)`` method makes reads wait on it instead of
on the wall clock: the host (:class:`host.device.Connection`, given the same
clock and the device as its ``line``) and the device then share a time that
passes only when the host waits, and no test depends on the machine's speed.
With deduce mode, the deduction model's rule tables are built when the device
is made, not at its first SOLVE: a board answers its first puzzle as quickly as
the next.
"""

import functools
import os
import random
import select
import threading
import time
import tty

from slitherlink.model.band import BandCycleModel, band_solve
from slitherlink.model.paper import search
from slitherlink.spec.target import DEFAULT_TARGET
from slitherlink.spec.protocol import FrameHeader

from . import protocol as P
from .puzzle import Puzzle
from .result import Result

__all__ = ["FakeDevice", "MISBEHAVIOURS", "CYCLES_PER_CHECK", "CYCLES_PER_FLOOD_ITERATION",
           "run_search", "run_deduce", "estimated_cycles", "solve_reply"]

MISBEHAVIOURS = frozenset({"silent", "garbage", "bad_crc", "truncate"})

#: Estimated SoC cycles per partial-condition check and per flood iteration
#: (the fake's ``cycles``; the real number comes from the SoC's cycle counter:
#: about 60-70 cycles per check on 10x10 puzzles, docs/soc-cycles.md).
CYCLES_PER_CHECK = 63
CYCLES_PER_FLOOD_ITERATION = 2


def run_search(request):
    """The model's search for a decoded SOLVE: (status, solution, counters dict)."""
    wanted = 2 if request.unique else 1
    outcome = search(request.puzzle(), max_solutions=wanted, max_checks=request.check_limit)
    found = len(outcome.solutions)
    status = Result.status_for(found, wanted_unique=request.unique, exhausted=outcome.exhausted)
    return status, (outcome.solutions[0] if found else None), outcome.counters.as_dict()


def run_deduce(request, max_decisions=None):
    """The deduction engine's model for a decoded SOLVE in deduce mode: (status, solution,
    counters dict, estimated cycles).  ``max_decisions`` defaults to the request's bound."""
    wanted = 2 if request.unique else 1
    banded = band_solve(request.puzzle(), band=1, check=False, max_solutions=wanted,
                        max_decisions=request.check_limit if max_decisions is None
                        else max_decisions)
    outcome = banded.outcome
    found = len(outcome.solutions)
    status = Result.status_for(found, wanted_unique=request.unique, exhausted=outcome.exhausted)
    counters = banded.counters()
    if "engine_clocks" in P.DEDUCE_RESULT_COUNTERS:  # the engine's clocks: no firmware
        counters["engine_clocks"] = BandCycleModel(1, branch=0).cycles(
            outcome.counters, banded.band, request.rows)
    return (status, (outcome.solutions[0] if found else None), counters, banded.cycles(1))


@functools.cache
def _ready_to_deduce():
    """Build the deduction model's rule tables now (once): they take seconds the first
    time, which a board never spends answering."""
    band_solve(Puzzle(((None,),)), band=1, check=False, max_solutions=1)


def estimated_cycles(counters):
    return (counters["checks"] * CYCLES_PER_CHECK
            + counters["flood_iterations"] * CYCLES_PER_FLOOD_ITERATION)


def solve_reply(request, *, limit=None, aborted=False):
    """The reply frame to a decoded SOLVE, in its mode (RESULT or DEDUCE_RESULT), and the
    search's length in steps (checks, or decisions in deduce mode).  ``limit`` replaces the
    request's bound (the steps done when an ABORT came)."""
    if request.mode is P.Mode.DEDUCE:
        status, solution, counters, cycles = run_deduce(request, limit)
        return (P.encode_deduce_result(status, request.rows, request.cols, solution=solution,
                                       counters=counters, cycles=cycles, aborted=aborted,
                                       unique=request.unique), counters["decisions"])
    if limit is None:
        status, solution, counters = run_search(request)
    else:
        outcome = search(request.puzzle(), max_solutions=2 if request.unique else 1,
                         max_checks=limit)
        counters = outcome.counters.as_dict()
        found = len(outcome.solutions)
        status = Result.status_for(found, wanted_unique=request.unique,
                                   exhausted=outcome.exhausted)
        solution = outcome.solutions[0] if found else None
    return (P.encode_result(status, request.rows, request.cols, solution=solution,
                            counters=counters, cycles=estimated_cycles(counters),
                            aborted=aborted, unique=request.unique), counters["checks"])


class FakeDevice:
    """The protocol's device side, with a pyserial-like interface."""

    def __init__(self, *, max_rows=DEFAULT_TARGET.max_rows, max_cols=DEFAULT_TARGET.max_cols,
                 clock_hz=DEFAULT_TARGET.clock_hz, baud=DEFAULT_TARGET.baud, misbehave=(),
                 delay=0.0, timeout=1.0, seed=0, deduce=True, timer=time.monotonic):
        misbehave = frozenset([misbehave] if isinstance(misbehave, str) else misbehave)
        unknown = misbehave - MISBEHAVIOURS
        if unknown:
            raise ValueError(f"unknown misbehaviour {sorted(unknown)}; choose from "
                             f"{sorted(MISBEHAVIOURS)}")
        if not (1 <= max_rows <= P.MAX_GRID and 1 <= max_cols <= P.MAX_GRID):
            raise ValueError(f"build size {max_rows}x{max_cols} is outside 1..{P.MAX_GRID}")
        if delay < 0:
            raise ValueError(f"delay must be >= 0, not {delay}")
        self.max_rows, self.max_cols = max_rows, max_cols
        self.clock_hz, self.baud = int(clock_hz), int(baud)
        self.deduce = bool(deduce)    # a build with the deduction engine
        if self.deduce:
            _ready_to_deduce()
        self.timer = timer
        self._sleep = getattr(timer, "sleep", time.sleep)
        self.misbehave, self.delay, self.timeout = misbehave, float(delay), timeout
        self.byte_timeout = P.TIMEOUT_BYTE_TIMES * 10 / self.baud  # inter-byte timeout, s
        self.requests = []            # every good frame received, for tests
        self.stats = dict.fromkeys(P.STATS_COUNTERS, 0)  # what STATS reports
        self._rng = random.Random(seed)
        self._decoder = P.FrameDecoder()
        self._last_rx = timer()
        self._out = bytearray()       # bytes ready to read
        self._running = None          # (ready_time, request, reply) of a "running" search
        self._lock = threading.RLock()
        self.is_open = True

    # -- the serial-like side ------------------------------------------------------------

    def write(self, data):
        with self._lock:
            now = self.timer()
            self._tick(now)
            self._last_rx = now
            self.stats["rx_bytes"] += len(data)
            self._handle(self._decoder.feed_events(bytes(data)))
            return len(data)

    @property
    def in_waiting(self):
        with self._lock:
            self._tick(self.timer())
            return len(self._out)

    def read(self, size=1):
        """Up to ``size`` bytes, waiting at most :attr:`timeout` seconds (None: forever)."""
        deadline = None if self.timeout is None else self.timer() + self.timeout
        while True:
            with self._lock:
                self._tick(self.timer())
                if len(self._out) >= size or (deadline is not None
                                              and self.timer() >= deadline):
                    data = bytes(self._out[:size])
                    del self._out[:size]
                    return data
            self._sleep(0.001)

    def reset_input_buffer(self):
        with self._lock:
            self._out.clear()

    def flush(self):
        pass

    def close(self):
        self.is_open = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the device side -----------------------------------------------------------------

    def _tick(self, now):
        """Finish a "running" search whose time has come; fire the inter-byte timeout."""
        if self._running and now >= self._running[0]:
            self._send(self._running[2])
            self._running = None
        if self._decoder.pending and now - self._last_rx > self.byte_timeout:
            self._handle(self._decoder.timeout())

    def _send(self, frame):
        if frame[FrameHeader.offset("type")] == P.MsgType.ERROR:
            self.stats["errors_sent"] += 1
        if "silent" in self.misbehave:
            return
        if "garbage" in self.misbehave:
            frame = bytes(self._rng.randrange(256) for _ in range(len(frame)))
        if "bad_crc" in self.misbehave:
            frame = frame[:-1] + bytes([frame[-1] ^ 0x5A])
        if "truncate" in self.misbehave:
            frame = frame[:max(1, len(frame) // 2)]
        self._out += frame

    def _handle(self, events):
        for event in events:
            if isinstance(event, P.BadFrame):
                self.stats["frames_bad"] += 1
                self._send(P.encode_error(event.code, 0, event.detail))
            else:
                self.stats["frames_good"] += 1
                self.requests.append(event)
                self._request(event)

    def _request(self, frame):
        busy = self._running is not None
        if frame.type == P.MsgType.PING:
            if frame.payload:
                return self._send(P.encode_error(P.ErrorCode.BAD_LENGTH, frame.type, 0))
            return self._send(P.encode_version(max_rows=self.max_rows, max_cols=self.max_cols,
                                               clock_hz=self.clock_hz, baud=self.baud,
                                               deduce_ok=self.deduce))
        if frame.type == P.MsgType.STATS:
            if frame.payload:
                return self._send(P.encode_error(P.ErrorCode.BAD_LENGTH, frame.type, 0))
            self.stats["garbage_bytes"] = self._decoder.garbage
            return self._send(P.encode_stats_reply(**self.stats))
        if frame.type == P.MsgType.ABORT:
            if frame.payload:
                return self._send(P.encode_error(P.ErrorCode.BAD_LENGTH, frame.type, 0))
            if not busy:
                return self._send(P.encode_error(P.ErrorCode.NOT_BUSY, frame.type))
            return self._abort()
        if frame.type == P.MsgType.SOLVE:
            if busy:
                return self._send(P.encode_error(P.ErrorCode.BUSY, frame.type))
            try:
                request = P.decode_solve(frame, max_rows=self.max_rows, max_cols=self.max_cols)
            except P.ProtocolError as error:
                return self._send(P.encode_error(error.code, frame.type, error.detail))
            if request.mode is P.Mode.DEDUCE and not self.deduce:
                # a build without the engine: its ID register reads nothing (0)
                return self._send(P.encode_error(P.ErrorCode.NO_DEDUCE, frame.type, 0))
            reply, steps = solve_reply(request)
            if self.delay > 0:
                now = self.timer()
                self._running = (now + self.delay, request, reply, now, steps)
            else:
                self._send(reply)
            return None
        return self._send(P.encode_error(P.ErrorCode.UNKNOWN_TYPE, frame.type, frame.type))

    def _abort(self):
        """End the running search with the counters of the steps (checks, or decisions in
        deduce mode) done by now."""
        ready, request, _, started, total = self._running
        self._running = None
        done = int(total * min(1.0, (self.timer() - started) / (ready - started)))
        self._send(solve_reply(request, limit=done, aborted=True)[0])

    # -- a pseudo-terminal for programs that open a port ---------------------------------

    def serve_pty(self):
        """Serve this device on a new pseudo-terminal; returns ``(path, stop)``.

        ``path`` (e.g. ``/dev/pts/5``) can be opened with pyserial; ``stop()``
        ends the serving thread and closes the terminal.
        """
        master, slave = os.openpty()
        tty.setraw(slave)
        path = os.ttyname(slave)
        stopping = threading.Event()

        def serve():
            while not stopping.is_set():
                ready, _, _ = select.select([master], [], [], 0.005)
                if ready:
                    try:
                        data = os.read(master, 4096)
                    except OSError:
                        break
                    self.write(data)
                with self._lock:
                    self._tick(self.timer())
                    out = bytes(self._out)
                    self._out.clear()
                if out:
                    os.write(master, out)

        thread = threading.Thread(target=serve, name="fakedevice-pty", daemon=True)
        thread.start()

        def stop():
            stopping.set()
            thread.join(1.0)
            for fd in (master, slave):
                try:
                    os.close(fd)
                except OSError:
                    pass

        return path, stop
