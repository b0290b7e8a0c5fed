"""A fake solver device that speaks the UART protocol in pure Python.

It stands in for the board (paper Fig. 7: CPU + solver behind a UART) in host tests that
need no simulator, and follows the device's rules of :mod:`spec.protocol` to the letter:

* the receiver of :class:`host.protocol.FrameDecoder` with the build's limits (the header
  CHECK, the largest LEN of each request type, the CRC, the inter-byte timeout of
  :data:`spec.protocol.TIMEOUT_BYTE_TIMES` byte times at the current rate); a dropped
  candidate is answered with an ERROR (SEQ 0) only when the transmitter is idle, else
  counted (``errors_suppressed``);
* the transmitter sends at the current rate, byte after byte: a reply can be read as its
  bytes come out (:attr:`baud`), and a host reading at another rate (``baudrate``, as
  pyserial's, or the rate a program set on the pseudo-terminal of :meth:`serve_pty`)
  reads garbage, as it writes garbage;
* every reply carries the SEQ of its request; SOLVE goes into a queue of
  :attr:`queue_depth` (the build's, :func:`spec.registers.queue_depth`; ERROR BUSY when
  full), solved one at a time, in order,
  each taking ``delay`` seconds of device time, and answered with ANSWER, or RESULT /
  DEDUCE_RESULT when it asks for the counters (FLAG_COUNTERS); a resend (the SEQ and CRC
  of a request queued or being solved) is dropped, one of the last
  :data:`spec.protocol.STORE_DEPTH` answered gets its stored answer again, and so does a
  RESEND naming it (ERROR PENDING for one queued or being solved, UNKNOWN_SEQ else);
* ABORT ends the running search (its reply, with the ABORTED flag, the counters so far
  and the SOLVE's SEQ), empties the queue (no replies) and forgets the stored answers;
  ERROR NOT_BUSY when no search runs;
* SET_BAUD (BUSY while a search runs or waits; BAD_BAUD for a rate the build does not
  offer: :func:`spec.uart.set_baud_bit_time`) is
  answered by BAUD at the old rate; the device then switches and keeps the new rate once
  a good frame arrives at it within ``clock_hz >> BAUD_CONFIRM_CYCLES_SHIFT`` cycles,
  else goes back to its start rate; the receive buffer is cleared at each switch;
* PING (VERSION) and STATS (STATS_REPLY) are answered at any time.

It serves both modes of SOLVE with the golden models, so its counters are exactly the
models' (and hence the firmware's):

* paper mode: :func:`model.paper.search`; only ``cycles`` is an estimate
  (:data:`CYCLES_PER_CHECK`, :data:`CYCLES_PER_FLOOD_ITERATION`);
* deduce mode (the DEDUCE flag): the band model of the default build
  (:func:`model.band.band_solve`, band 1), ``max_checks`` bounding its decisions;
  ``cycles`` is the model's estimate (:class:`model.band.BandCycleModel`), and a counter
  only the hardware has (the engine's busy clocks, ``engine_clocks``) is the same estimate
  without the firmware's branch cycles.  The fake never reports TRAIL_FULL.
  ``deduce=False`` makes it a build without the deduction engine: VERSION lacks
  DEDUCE_OK and a deduce-mode SOLVE is answered ERROR NO_DEDUCE; ``paper=False`` one
  without the paper's accelerator (a ``soc-deduce`` build): VERSION lacks ACCEL_OK and a
  paper-mode SOLVE is answered ERROR NO_ACCELERATOR.

Use it like a ``serial.Serial``::

    dev = FakeDevice(max_rows=10, max_cols=10, timeout=1.0)
    dev.write(protocol.encode_solve(puzzle, mode="paper", unique=True, seq=1))
    frames = protocol.FrameDecoder().feed(dev.read(1000))

or give a program a pseudo-terminal with :meth:`FakeDevice.serve_pty`.

It can be told to misbehave (``misbehave={...}``): ``"silent"`` (never answer),
``"garbage"`` (random bytes instead of every reply), ``"bad_crc"`` (every reply's CRC
corrupted), ``"truncate"`` (only the first half of every reply).

Its time is ``timer()`` (default :func:`time.monotonic`).  A timer of the test's own with a
``sleep(seconds)`` method makes reads wait on it instead of on the wall clock: the host
(:class:`host.device.Connection`, given the same clock and the device as its ``line``) and
the device then share a time that passes only when the host waits, and no test depends on
the machine's speed.  ``threaded=True`` runs each search in a thread (remembered by its
request), so that a device served on a pty answers PING, ABORT and resends while it
searches, as the board does; without it a search is worked out when it starts.  With
deduce mode, the deduction model's rule tables are built when the device is made, not at
its first SOLVE: a board answers its first puzzle as quickly as the next.
"""

import collections
import functools
import os
import random
import select
import threading
import time
import tty

from slitherlink.model.band import BandCycleModel, band_solve
from slitherlink.model.paper import search
from slitherlink.spec.protocol import BAUD_CONFIRM_CYCLES_SHIFT, FrameCrc
from slitherlink.spec.registers import queue_depth
from slitherlink.spec.target import DEFAULT_TARGET, get_board
from slitherlink.spec import uart
from slitherlink.spec.uart import MAX_BAUD_ERROR, baud_of, divisor_for, set_baud_bit_time

from . import protocol as P
from .ptyrate import line_rate, set_line_rate
from .puzzle import Puzzle
from .result import Result

__all__ = ["FakeDevice", "MISBEHAVIOURS", "CYCLES_PER_CHECK", "CYCLES_PER_FLOOD_ITERATION",
           "run_search", "run_deduce", "estimated_cycles", "solve_reply", "BITS_PER_BYTE"]

MISBEHAVIOURS = frozenset({"silent", "garbage", "bad_crc", "truncate"})

#: Estimated SoC cycles per partial-condition check and per flood iteration
#: (the fake's ``cycles``; the real number comes from the SoC's cycle counter:
#: about 60-70 cycles per check on 10x10 puzzles, docs/soc-cycles.md).
CYCLES_PER_CHECK = 63
CYCLES_PER_FLOOD_ITERATION = 2
#: UART 8N1: a start bit, 8 data bits, a stop bit
BITS_PER_BYTE = 10

_TYPE = P.FrameHeader.offset("type")


def run_search(request):
    """The model's search for a decoded SOLVE: (status, solution, counters dict)."""
    status, solution, counters, _ = _outcome(request)
    return status, solution, counters


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


@functools.lru_cache(maxsize=4096)
def _outcome(request, limit=None):
    """(status, solution, counters, cycles) of a decoded SOLVE in its mode, its bound
    replaced by ``limit`` (the steps done when an ABORT came); remembered, so that a
    request solved again costs nothing."""
    if request.mode is P.Mode.DEDUCE:
        return run_deduce(request, limit)
    outcome = search(request.puzzle(), max_solutions=2 if request.unique else 1,
                     max_checks=request.check_limit if limit is None else limit)
    counters = outcome.counters.as_dict()
    found = len(outcome.solutions)
    status = Result.status_for(found, wanted_unique=request.unique,
                               exhausted=outcome.exhausted)
    return (status, outcome.solutions[0] if found else None, counters,
            estimated_cycles(counters))


def solve_reply(request, *, seq=0, limit=None, aborted=False):
    """The reply frame to a decoded SOLVE (ANSWER, or with FLAG_COUNTERS RESULT or
    DEDUCE_RESULT) and the search's length in steps (checks, or decisions in deduce mode).
    ``limit`` replaces the request's bound (the steps done when an ABORT came)."""
    status, solution, counters, cycles = _outcome(request, limit)
    steps = counters["decisions" if request.mode is P.Mode.DEDUCE else "checks"]
    common = dict(solution=solution, aborted=aborted, unique=request.unique, seq=seq)
    if not request.counters:
        frame = P.encode_answer(status, request.rows, request.cols, mode=request.mode,
                                **common)
    elif request.mode is P.Mode.DEDUCE:
        frame = P.encode_deduce_result(status, request.rows, request.cols, counters=counters,
                                       cycles=cycles, **common)
    else:
        frame = P.encode_result(status, request.rows, request.cols, counters=counters,
                                cycles=cycles, **common)
    return frame, steps


class _Search:
    """A SOLVE in the device's queue: its request, SEQ and frame CRC (what tells a resend),
    and once started its times and reply."""

    def __init__(self, request, seq, crc):
        self.request, self.seq, self.crc = request, seq, crc
        self.start = self.end = None
        self.reply = self.steps = None
        self._done = None  # threaded: set when the reply is worked out

    def begin(self, at, delay, threaded):
        self.start = at
        if not threaded:
            self.reply, self.steps = solve_reply(self.request, seq=self.seq)
            self.end = at + delay
            return
        self._done = threading.Event()

        def work():
            self.reply, self.steps = solve_reply(self.request, seq=self.seq)
            self._done.set()
        threading.Thread(target=work, name="fake-search", daemon=True).start()
        self._delay = delay

    def ended(self, now):
        """Whether the search has ended by ``now`` (its end then known)."""
        if self.end is None and self._done is not None and self._done.is_set():
            self.end = max(self.start + self._delay, now)
        return self.end is not None and now >= self.end


class FakeDevice:
    """The protocol's device side, with a pyserial-like interface."""

    def __init__(self, *, max_rows=DEFAULT_TARGET.max_rows, max_cols=DEFAULT_TARGET.max_cols,
                 clock_hz=DEFAULT_TARGET.clock_hz, baud=DEFAULT_TARGET.baud, max_baud=None,
                 misbehave=(), delay=0.0, timeout=1.0, seed=0, deduce=True, paper=True,
                 timer=time.monotonic, threaded=False):
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
        self.clock_hz = int(clock_hz)
        self.uart_hz = uart.uart_clock_hz(self.clock_hz)   # the rates are made from it
        self.start_baud = self.baud = int(baud)  # the device's rate: at start, and now
        bridge = get_board(DEFAULT_TARGET.board).bridge_max_baud
        self.max_baud = uart.max_baud(self.uart_hz, bridge, self.start_baud) \
            if max_baud is None else int(max_baud)
        self.max_payload = P.solve_length(max_rows, max_cols)
        self.queue_depth = queue_depth(max_rows, max_cols)   # SOLVEs it holds
        self.baudrate = self.baud     # the host's rate on the line (pyserial's attribute)
        self.deduce = bool(deduce)    # a build with the deduction engine
        self.paper = bool(paper)      # a build with the paper's accelerator
        if self.deduce:
            _ready_to_deduce()
        self.timer = timer
        self._sleep = getattr(timer, "sleep", time.sleep)
        self.misbehave, self.delay, self.timeout = misbehave, float(delay), timeout
        self.threaded = bool(threaded)
        self.write_timeout = None
        self.requests = []            # every good frame received, for tests
        self.searches = 0             # searches started (a stored answer is none)
        self.stats = dict.fromkeys(P.STATS_COUNTERS, 0)  # what STATS reports
        self._rng = random.Random(seed)
        self._decoder = P.FrameDecoder.device(self.max_payload)
        now = timer()
        self._last_rx = now
        self._out = bytearray()       # bytes the host can read
        self._tx = collections.deque()  # [start, frame, rate, bytes out] on the line
        self._tx_free = now           # when the transmitter is idle
        self._running = None          # the :class:`_Search` being solved
        self._queue = collections.deque()  # those waiting behind it
        self._store = collections.deque(maxlen=P.STORE_DEPTH)  # (seq, crc, reply)
        self._switch = None           # (when, rate): a new rate, once BAUD is out
        self._confirm = None          # until when a new rate waits for a good frame
        self._lock = threading.RLock()
        self.is_open = True

    # -- the serial-like side ------------------------------------------------------------

    def write(self, data):
        with self._lock:
            now = self.timer()
            self._tick(now)
            self._last_rx = now
            heard = self._hear(bytes(data))
            self.stats["rx_bytes"] += len(heard)
            self._handle(self._decoder.feed_events(heard), now)
            return len(data)

    @property
    def holding(self):
        """The SOLVEs the device holds now: the one being searched and those queued."""
        with self._lock:
            self._tick(self.timer())
            return (self._running is not None) + len(self._queue)

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
                now = self.timer()
                self._tick(now)
                if len(self._out) >= size or (deadline is not None and now >= deadline):
                    data = bytes(self._out[:size])
                    del self._out[:size]
                    return data
                wake = self._next_event()
            step = 0.005 if self.threaded or wake is None else max(wake - now, 1e-6)
            if deadline is not None:
                step = min(step, deadline - now)
            self._sleep(step)

    def reset_input_buffer(self):
        with self._lock:
            self._tick(self.timer())
            self._out.clear()

    def flush(self):
        pass

    def close(self):
        self.is_open = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the line ------------------------------------------------------------------------

    def _byte_time(self, rate=None):
        return BITS_PER_BYTE / (rate or self.baud)

    def _in_step(self, rate):
        """Whether the host's rate and the device's ``rate`` agree (a UART takes a few per
        cent of difference)."""
        return rate is None or abs(self.baudrate - rate) <= 2 * MAX_BAUD_ERROR * rate

    def _garbled(self, data):
        """``data`` as a UART set to another rate takes it: about half of the bytes lost
        (framing errors), the rest wrong."""
        out = bytearray()
        for _ in data:
            if self._rng.random() < 0.5:
                out.append(self._rng.randrange(256))
        return bytes(out)

    def _hear(self, data):
        if self._in_step(self.baud):
            return data
        heard = self._garbled(data)
        self.stats["rx_frame_errors"] += len(data) - len(heard)
        return heard

    def _send(self, frame, at):
        """Send ``frame`` at the current rate, as soon as the transmitter is free after
        ``at``."""
        if len(frame) > _TYPE and frame[_TYPE] == P.MsgType.ERROR:
            self.stats["errors_sent"] += 1
        if "silent" in self.misbehave:
            return
        if "garbage" in self.misbehave:
            frame = bytes(self._rng.randrange(256) for _ in range(len(frame)))
        if "bad_crc" in self.misbehave:
            frame = frame[:-1] + bytes([frame[-1] ^ 0x5A])
        if "truncate" in self.misbehave:
            frame = frame[:max(1, len(frame) // 2)]
        start = max(at, self._tx_free)
        self._tx.append([start, frame, self.baud, 0])
        self._tx_free = start + len(frame) * self._byte_time()

    def _drain(self, now):
        """Move the bytes that have left the transmitter by ``now`` to the host's side."""
        while self._tx:
            entry = self._tx[0]
            start, frame, rate, done = entry
            out = min(len(frame), int((now - start) / self._byte_time(rate) + 1e-9))
            if out > done:
                chunk = frame[done:out]
                self._out += chunk if self._in_step(rate) else self._garbled(chunk)
                entry[3] = out
            if out < len(frame):
                return
            self._tx.popleft()

    def _next_event(self):
        """When something happens next by itself (a byte out, a search's end, a new rate,
        a window, the inter-byte timeout), or None."""
        times = []
        if self._tx:
            start, frame, rate, done = self._tx[0]
            times.append(start + (done + 1) * self._byte_time(rate))
        if self._running is not None and self._running.end is not None:
            times.append(self._running.end)
        if self._switch is not None:
            times.append(self._switch[0])
        if self._confirm is not None:
            times.append(self._confirm)
        if self._decoder.pending:
            times.append(self._last_rx + self._byte_timeout())
        return min(times) if times else None

    def _byte_timeout(self):
        return P.TIMEOUT_BYTE_TIMES * self._byte_time()

    # -- the device side -----------------------------------------------------------------

    def _tick(self, now):
        """What has happened by ``now``, in order: searches ended (their replies sent when
        they ended), the switch to a new rate and its window, the inter-byte timeout."""
        while True:
            due = []
            if self._running is not None and self._running.ended(now):
                due.append((self._running.end, self._finish))
            if self._switch is not None and now >= self._switch[0]:
                due.append((self._switch[0], self._switched))
            if self._confirm is not None and now >= self._confirm:
                due.append((self._confirm, self._fall_back))
            timeout = self._last_rx + self._byte_timeout()
            if self._decoder.pending and now > timeout:
                due.append((timeout, self._timed_out))
            if not due:
                break
            at, event = min(due, key=lambda d: d[0])
            event(at)
        self._drain(now)

    def _finish(self, at):
        search, self._running = self._running, None
        self._send(search.reply, at)
        self._store.append((search.seq, search.crc, search.reply))
        if self._queue:
            self._begin(self._queue.popleft(), at)

    def _begin(self, search, at):
        self.searches += 1
        self._running = search
        search.begin(at, self.delay, self.threaded)

    def _switched(self, at):
        _, rate = self._switch
        self._switch = None
        self.baud = rate
        self._decoder = P.FrameDecoder.device(self.max_payload)
        window = (self.clock_hz >> BAUD_CONFIRM_CYCLES_SHIFT) / self.clock_hz
        self._confirm = at + window if rate != self.start_baud else None

    def _fall_back(self, at):
        self._confirm = None
        self.baud = self.start_baud
        self._decoder = P.FrameDecoder.device(self.max_payload)

    def _timed_out(self, at):
        self._handle(self._decoder.timeout(), at)

    def _handle(self, events, at):
        for event in events:
            if isinstance(event, P.BadFrame):
                self.stats["frames_bad"] += 1
                if at >= self._tx_free:
                    self._send(P.encode_error(event.code, 0, event.detail), at)
                else:
                    self.stats["errors_suppressed"] += 1
            else:
                self.stats["frames_good"] += 1
                self._confirm = None  # a good frame at the new rate keeps it
                self.requests.append(event)
                self._request(event, at)

    def _request(self, frame, at):
        seq = frame.seq

        def error(code, detail=0):
            self._send(P.encode_error(code, frame.type, detail, seq=seq), at)

        busy = self._running is not None
        if frame.type == P.MsgType.PING:
            return self._send(P.encode_version(
                max_rows=self.max_rows, max_cols=self.max_cols, clock_hz=self.clock_hz,
                baud=self.baud, start_baud=self.start_baud, max_baud=self.max_baud,
                max_payload=self.max_payload, queue=self.queue_depth, accelerator_ok=self.paper,
                deduce_ok=self.deduce, seq=seq), at)
        if frame.type == P.MsgType.STATS:
            self.stats["garbage_bytes"] = self._decoder.garbage
            return self._send(P.encode_stats_reply(seq=seq, **self.stats), at)
        if frame.type == P.MsgType.ABORT:
            return self._abort(at) if busy else error(P.ErrorCode.NOT_BUSY)
        if frame.type == P.MsgType.SET_BAUD:
            return self._set_baud(frame, at, error)
        if frame.type == P.MsgType.SOLVE:
            return self._solve(frame, at, error)
        if frame.type == P.MsgType.RESEND:
            return self._resend(frame, at, error)
        return error(P.ErrorCode.UNKNOWN_TYPE, frame.type)

    def _resend(self, frame, at, error):
        try:
            key = (frame.seq, P.decode_resend(frame))
        except P.ProtocolError as refused:
            return error(refused.code, refused.detail)
        for seq, stored_crc, reply in self._store:
            if (seq, stored_crc) == key:
                return self._send(reply, at)
        searches = ([self._running] if self._running else []) + list(self._queue)
        place = next((i for i, s in enumerate(searches) if (s.seq, s.crc) == key), None)
        if place is not None:
            return error(P.ErrorCode.PENDING, place)
        return error(P.ErrorCode.UNKNOWN_SEQ)

    def _solve(self, frame, at, error):
        crc = P.crc16(frame.encode()[1:-FrameCrc.SIZE])
        key = (frame.seq, crc)
        searches = ([self._running] if self._running else []) + list(self._queue)
        if any((s.seq, s.crc) == key for s in searches):
            return None  # a resend: its answer is on its way
        for seq, stored_crc, reply in self._store:
            if (seq, stored_crc) == key:
                return self._send(reply, at)  # a lost answer asked for again
        if len(searches) >= self.queue_depth:
            return error(P.ErrorCode.BUSY)
        try:
            request = P.decode_solve(frame, max_rows=self.max_rows, max_cols=self.max_cols)
        except P.ProtocolError as refused:
            return error(refused.code, refused.detail)
        if request.mode is P.Mode.DEDUCE and not self.deduce:
            # a build without the engine: its ID register reads nothing (0)
            return error(P.ErrorCode.NO_DEDUCE, 0)
        if request.mode is P.Mode.PAPER and not self.paper:
            return error(P.ErrorCode.NO_ACCELERATOR, 0)   # likewise
        search = _Search(request, frame.seq, crc)
        if self._running is None:
            self._begin(search, at)
            self._tick(at)  # a search without delay ends at once
        else:
            self._queue.append(search)
        return None

    def _abort(self, at):
        """End the running search with the counters of the steps (checks, or decisions in
        deduce mode) done by now; empty the queue, forget the stored answers."""
        search, self._running = self._running, None
        self._queue.clear()
        self._store.clear()
        done = 0
        if search.end is not None and search.end > search.start:
            done = int(search.steps * min(1.0, (at - search.start) / (search.end - search.start)))
        self._send(solve_reply(search.request, seq=search.seq, limit=done, aborted=True)[0], at)

    def _set_baud(self, frame, at, error):
        if self._running is not None or self._queue:
            return error(P.ErrorCode.BUSY)
        try:
            rate = P.decode_set_baud(frame)
        except P.ProtocolError as refused:
            return error(refused.code, refused.detail)
        wanted = round(self.uart_hz / rate) if rate else 0
        try:
            bit_time = set_baud_bit_time(self.uart_hz, self.max_baud, rate)
        except ValueError:
            return error(P.ErrorCode.BAD_BAUD, wanted if wanted <= 0xFFFF else 0)
        self._send(P.encode_baud(baud_of(self.uart_hz, bit_time),
                                 divisor_for(self.uart_hz, rate), seq=frame.seq), at)
        self._confirm = None
        self._switch = (self._tx_free, rate)
        return None

    # -- a pseudo-terminal for programs that open a port ---------------------------------

    def serve_pty(self):
        """Serve this device on a new pseudo-terminal; returns ``(path, stop)``.

        ``path`` (e.g. ``/dev/pts/5``) can be opened with pyserial; ``stop()`` ends the
        serving thread and closes the terminal.  The host's rate is what it sets on the
        terminal (:func:`host.ptyrate.line_rate`).
        """
        master, slave = os.openpty()
        tty.setraw(slave)
        set_line_rate(slave, self.baud)  # for a program that opens it without a rate
        path = os.ttyname(slave)
        stopping = threading.Event()

        def serve():
            while not stopping.is_set():
                ready, _, _ = select.select([master], [], [], 0.002)
                rate = line_rate(master)
                with self._lock:
                    if rate:
                        self.baudrate = rate
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
                    try:
                        os.write(master, out)
                    except OSError:
                        break

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

