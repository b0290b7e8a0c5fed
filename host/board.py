"""Engine ``board``: solve on the FPGA board, or on the virtual board, over a UART.

DESIGN.md section 4: the host sends the puzzle in a SOLVE frame
(:mod:`host.protocol`).  In paper mode (``mode="paper"``) the SoC's firmware
runs the paper's search with the accelerator (section 3) and answers with a
RESULT frame; in deduce mode (``mode="deduce"``, the default: SOLVE's DEDUCE
flag) it runs the deduction engine (docs/deduce.md) and answers with a
DEDUCE_RESULT frame.  Either carries the status, the colouring and the
mode's counters, ``cycles`` being the SoC's own count from "puzzle loaded" to
"answer ready".  A build without the deduction engine (VERSION without
DEDUCE_OK, or ERROR NO_DEDUCE) is refused in deduce mode with
:class:`NoDeduceEngine`, before the puzzle is sent.  The engine is registered
in :mod:`host.engines` like every other; its answers are checked by the rules
checker there (:func:`host.engines.checked`), once.

``solve(puzzle, port="/dev/ttyUSB1")`` talks to a real board (the Arty A7's
FT2232, second interface; ``port="auto"`` finds it, :mod:`host.ports`).
``solve(puzzle)`` with no port starts the *virtual board* (:mod:`sim.vboard`:
the same SoC, firmware and gateware in Verilator, its UART on a
pseudo-terminal), building it first if needed, and talks to it through exactly
the same code path; the virtual board is stopped when the program ends (also
after an error or Ctrl-C).

The conversation (:class:`Board`), every wait derived from the baud rate and
the frame lengths (:mod:`host.link`):

1. open the port (pyserial, exclusive), drop stale input;
2. ABORT, in case a previous host left a search running (NOT_BUSY is fine);
3. PING: the VERSION reply gives the build's largest grid, clock and baud rate
   and whether it has the deduction engine; a puzzle larger than the build, or
   deduce mode on a build without the engine, is refused here, before the
   SOLVE is sent.  A puzzle that fits the build only transposed (an R x C
   puzzle on a build of at least C x R) is sent transposed and its solution
   transposed back (:meth:`Puzzle.transposed`; the counters are those of the
   transposed puzzle, and ``counters["transposed"]`` says so);
4. SOLVE; while the search runs the device is silent.  After a silence of
   about twice the expected answer time plus 2^25 device cycles (the search
   allowance of :mod:`host.link`) the host sends the SOLVE again as a probe:
   a device that is still searching answers BUSY (alive: keep waiting,
   probing less and less often), one that lost the request starts it now.
   A damaged frame back (bad CRC, cut short, garbage, or the device's own
   ERROR saying our frame arrived damaged) makes the host send again at once.
   Up to ``retries`` resends in a row (``--retries``); a valid frame resets
   the count.  Only a reply of the request's mode (RESULT or DEDUCE_RESULT),
   size and uniqueness is taken for the answer; any other is a late answer to
   someone else's request.  :data:`host.link.SILENT_ATTEMPTS` attempts in a row
   without a byte back: :class:`NoAnswer`;
5. with ``time_limit``, an ABORT after that many seconds ends the search
   (status LIMIT with the counters so far);
6. when the SOLVE was sent more than once, an ABORT handshake afterwards ends
   a second search and flushes its late RESULT, so that no stale answer is
   ever taken for the next puzzle's.

Errors are exceptions with one-line messages and an ``exit_code`` for
``host/solve.py`` (:class:`host.errors.ExitCode`): :class:`PortError`
(missing, busy or unusable port), :class:`NoAnswer`, :class:`GarbledAnswer`,
:class:`TooLarge`, :class:`DeviceError` (the device refused the request for
another reason; :class:`NoDeduceEngine`: deduce mode on a build without the
engine) and :class:`VirtualBoardFailed` (the virtual board could not
be built or started, or died: its exit status and last message), all
subclasses of :class:`BoardError`.  ``-v`` logs every frame (``host.link``).
"""

import atexit
import collections
import inspect
import logging
import os
import signal
import sys
import time

from . import protocol as P
from slitherlink.spec.uart import DEFAULT_BAUD
from slitherlink.spec.target import PAPER_CLOCK_HZ# noqa: F401 (re-exported)
from slitherlink.spec.protocol import FrameHeader, Mode, Solve

from .engines import DEFAULT_MODE
from .errors import ExitCode, HostError, OptionError
from .link import (DEFAULT_RETRIES, SILENT_ATTEMPTS, VIRTUAL_SLOWDOWN, InFlight, LinkTiming,
                   frame_lengths, log_event, log_sent)
from .puzzle import transpose_colouring
from .result import Result

__all__ = ["solve", "check_options", "Board", "open_board", "close_all", "BoardError",
           "PortError", "NoAnswer", "GarbledAnswer", "TooLarge", "DeviceError",
           "NoDeduceEngine", "VirtualBoardFailed", "DEFAULT_BAUD", "DEFAULT_RETRIES",
           "PAPER_CLOCK_HZ", "MAX_CHECKS", "DEFAULT_MODE"]

log = logging.getLogger(__name__)

#: The largest --max-checks (or, in deduce mode, --max-decisions) the SOLVE request
#: carries (0 means no bound).
MAX_CHECKS = (1 << (8 * Solve.field("max_checks").size)) - 1


class BoardError(HostError):
    """A board failure; ``str()`` is one line for the user, ``exit_code`` for the CLI."""
    exit_code = ExitCode.ENGINE


class PortError(BoardError):
    """The serial port is missing, busy (another program has it) or not usable."""
    exit_code = ExitCode.PORT


class NoAnswer(BoardError):
    """Nothing came back, after the retries."""
    exit_code = ExitCode.TIMEOUT


class GarbledAnswer(BoardError):
    """Bytes came back, but no well-formed reply (bad CRC, truncated), after the retries."""
    exit_code = ExitCode.GARBLED


class TooLarge(BoardError):
    """The puzzle is larger than the hardware was built for."""
    exit_code = ExitCode.TOO_LARGE


class DeviceError(BoardError):
    """The device answered the request with an ERROR frame (other than TOO_LARGE)."""
    exit_code = ExitCode.ENGINE


class NoDeduceEngine(DeviceError):
    """Deduce mode was asked of a build without the deduction engine."""
    exit_code = ExitCode.ENGINE


class VirtualBoardFailed(BoardError):
    """The virtual board could not be built or started, or it died."""
    exit_code = ExitCode.ENGINE


# -- the serial port ----------------------------------------------------------------------

def open_port(port, baud):
    """``serial.Serial`` on ``port``, opened exclusively, or :class:`PortError`."""
    import serial

    try:
        handle = serial.Serial(port, baudrate=baud, timeout=0.02, write_timeout=5.0,
                               exclusive=True)
    except serial.SerialException as error:
        raise PortError(_port_message(port, error)) from None
    except (OSError, ValueError) as error:
        raise PortError(f"cannot open {port}: {error}") from None
    return handle


def _port_message(port, error):
    text = str(error)
    errno = getattr(error, "errno", None)
    if errno == 2 or "No such file" in text:
        return (f"serial port {port} does not exist (is the board plugged in? "
                f"see docs/host.md; without a board, leave out --port)")
    if errno == 13 or "Permission denied" in text:
        return (f"no permission to open {port} (add yourself to the 'dialout' group "
                f"and log in again; see docs/host.md)")
    if errno in (11, 16) or "exclusively lock" in text or "busy" in text.lower():
        return f"serial port {port} is busy (another program has it open)"
    if "Inappropriate ioctl" in text or errno == 25:
        return f"{port} is not a serial port"
    return f"cannot open serial port {port}: {text}"


def _port_errors():
    """What pyserial raises when the port goes away (termios.error, e.g. from tcdrain
    on a pty whose other side has closed, is no OSError)."""
    import serial
    errors = (serial.SerialException, OSError)
    try:
        import termios
    except ImportError:  # not POSIX
        return errors
    return errors + (termios.error,)


def _is_pty(port):
    """A Unix 98 pseudo-terminal (the virtual board's kind of port), links followed."""
    return os.path.realpath(str(port)).startswith("/dev/pts/")


# -- one conversation ---------------------------------------------------------------------

_BUSY, _DAMAGED, _NOT_BUSY = "busy", "damaged", "not busy"
#: ERROR codes that mean "your frame arrived damaged": send it again
_DAMAGE_CODES = (P.ErrorCode.BAD_CRC, P.ErrorCode.TIMEOUT, P.ErrorCode.OVERRUN,
                 P.ErrorCode.BAD_LENGTH)


def _damage_report(reply):
    """The device says a frame of ours arrived damaged (its type unknown or ours)."""
    return (isinstance(reply, P.ErrorReply) and reply.code in _DAMAGE_CODES
            and reply.request_type in (0, P.MsgType.PING, P.MsgType.ABORT, P.MsgType.SOLVE))


class _Attempts:
    """The retry policy of one request (:mod:`host.link`): resends in a row after a lost
    or damaged answer, at most ``board.retries``; SILENT_ATTEMPTS attempts in a row with
    no byte back mean a silent device."""

    def __init__(self, board, name, request_len, reply_len):
        self.board, self.name = board, name
        self.request_len, self.reply_len = request_len, reply_len
        self.failures = self.silent = self.attempt = 0
        self.silent_seconds = 0.0
        self.bytes_seen = 0
        self.last_bad = None

    def wait(self):
        return self.board.timing.attempt_wait(self.request_len, self.reply_len, self.attempt)

    def alive(self):
        """A valid frame came back: the device and the link work, start counting afresh."""
        self.failures = self.silent = self.attempt = 0
        self.silent_seconds = 0.0

    def failed(self, waited, seen, bad):
        """An attempt ended without an accepted answer; raises when it was the last."""
        self.failures += 1
        self.attempt += 1
        if seen or bad:
            self.silent, self.silent_seconds = 0, 0.0
            self.bytes_seen += seen
            if bad:
                self.last_bad = bad[-1]
            reason = _describe_bad(bad[-1]) if bad else f"{seen} bytes without a valid frame"
        else:
            self.silent += 1
            self.silent_seconds += waited
            reason = f"silence for {waited:.3g} s"
        board = self.board
        silent_limit = min(SILENT_ATTEMPTS, board.retries + 1)
        if self.silent >= silent_limit:
            raise NoAnswer(f"no answer from {board.what} to {self.name}: not a byte back in "
                           f"{self.silent} attempts ({self.silent_seconds:.1f} s; the link's "
                           f"expected answer time is "
                           f"{board.timing.answer_time(self.request_len, self.reply_len):.3g} s)")
        if self.failures > board.retries:
            if self.bytes_seen or self.last_bad is not None:
                what = (_describe_bad(self.last_bad) if self.last_bad is not None
                        else "bytes without a valid frame")
                raise GarbledAnswer(f"garbled answers from {board.what} to {self.name} "
                                    f"({what}), {self.failures} attempts in a row "
                                    f"(--retries {board.retries}; check the cable and the "
                                    f"baud rate)")
            raise NoAnswer(f"no answer from {board.what} to {self.name} in "
                           f"{self.failures} attempts (--retries {board.retries})")
        board.resends += 1
        log.info("%s: %s again (%s; attempt %d of at most %d in a row)", board.port,
                 self.name, reason, self.failures + 1, board.retries + 1)


class Board:
    """A connection to a board (real or virtual) on a serial port or pty path.

    ``timeout``, if given, is how long the device may stay silent before a
    request is sent again (otherwise derived, :class:`host.link.LinkTiming`);
    ``retries`` how many resends in a row are allowed; ``virtual`` only changes
    the wording of messages; ``health``, if given, is called as
    ``health(wait)`` now and then while waiting and when the port fails, and
    raises a :class:`BoardError` when the device has died (the virtual board's
    process ended, or its CPU trapped), so that nobody waits for the timeout
    and a dead board is not reported as a port error.
    """

    def __init__(self, port, *, baud=None, timeout=None, retries=None, virtual=False,
                 health=None):
        self.port = port
        if health is not None and not inspect.signature(health).parameters:
            health = (lambda check: lambda wait=0.0: check())(health)  # health() form
        self.health = health
        self._health_checked = 0.0
        self.baud = int(baud or DEFAULT_BAUD)
        if timeout is not None and not float(timeout) > 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        self.retries = DEFAULT_RETRIES if retries is None else int(retries)
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, not {retries!r}")
        self.virtual = virtual
        # a pseudo-terminal is most likely a virtual board: slow until measured
        slowdown = VIRTUAL_SLOWDOWN if virtual or _is_pty(port) else 1.0
        self.timing = LinkTiming(self.baud, slowdown=slowdown, timeout=timeout)
        self._link_key = _link_key(port, self.baud)
        if self._link_key in _measured_slowdown:  # measured by an earlier connection
            self.timing.slowdown, self.timing.calibrated = _measured_slowdown[self._link_key]
        # the requests of this link still unanswered, also those of an earlier connection
        # (whose late replies this one may see: host.link.InFlight)
        self._in_flight = InFlight() if self._link_key is None else \
            _in_flight.setdefault(self._link_key, InFlight())
        self._answered = None  # the token of the request the last reply answered
        self.resends = 0      # requests sent again, over the whole connection
        self.serial = None
        self.serial = open_port(port, self.baud)
        self.decoder = P.FrameDecoder()
        self._queue = collections.deque()
        self.version = None
        self.stale = collections.deque(maxlen=256)  # replies that answered nothing we asked
        self._unsynced = False  # a second search may be running / its RESULT in flight
        try:
            self.serial.reset_input_buffer()
        except Exception as error:  # noqa: BLE001 -- pyserial raises several kinds
            self.close()
            raise PortError(f"cannot use serial port {port}: {error}") from None

    @property
    def timeout(self):
        """The fixed wait per attempt (``--timeout``), or None when derived."""
        return self.timing.timeout

    @timeout.setter
    def timeout(self, value):
        self.timing.timeout = None if value is None else float(value)

    @property
    def what(self):
        return f"the virtual board ({self.port})" if self.virtual else f"the board on {self.port}"

    def close(self):
        serial, self.serial = getattr(self, "serial", None), None
        if serial is not None:
            try:
                serial.close()
            except Exception:  # noqa: BLE001
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # -- bytes and frames --

    def _check_health(self, wait=0.0):
        """Raise the device's own failure (e.g. the virtual board died), if it has one."""
        if self.health is not None:
            self._health_checked = time.monotonic()
            self.health(wait)

    def _write(self, data, what=""):
        """Send a frame; returns its token in :attr:`_in_flight` (None: not tracked)."""
        log_sent(self.port, data, what)
        type_at = FrameHeader.offset("type")
        token = self._in_flight.sent(data[type_at]) if len(data) > type_at else None
        try:
            self.serial.write(data)
            self.serial.flush()
        except _port_errors() as error:
            self._check_health(wait=1.0)
            raise PortError(f"cannot write to {self.port}: {error}") from None
        return token

    def _next_event(self, clock):
        """The next frame or bad frame, or None when ``clock`` says time is up;
        also returns the number of bytes read meanwhile.  Events decoded together
        are queued, so none is lost when a caller stops early."""
        seen = 0
        while not self._queue:
            remaining = clock.remaining()
            if remaining <= 0:
                return None, seen
            if self.health is not None and time.monotonic() - self._health_checked > 0.5:
                self._check_health()
            try:
                self.serial.timeout = min(remaining, 0.05)
                data = self.serial.read(max(1, self.serial.in_waiting))
            except _port_errors() as error:
                self._check_health(wait=1.0)
                raise PortError(f"cannot read from {self.port}: {error}") from None
            if data:
                log.debug("%s -> %d bytes: %s", self.port, len(data), data.hex(" "))
                seen += len(data)
                garbage = self.decoder.garbage
                events = self.decoder.feed_events(data)
                clock.activity(short=self.decoder.garbage > garbage or self.decoder.pending)
                for event in events:
                    log_event(self.port, event)
                self._queue.extend(events)
        return self._queue.popleft(), seen

    def _wait(self, accept, seconds):
        """Wait for a reply that ``accept(reply)`` takes (returns not None), until the
        line has been silent for ``seconds`` (bytes arriving extend the wait, up to 4x;
        after a damaged frame or garbage, a silence of the link's gap is enough).
        Returns ``(value, bytes_seen, bad_events)``; ``value`` is None when the time is
        up.  Replies not accepted are kept in :attr:`stale`."""
        seen, bad = 0, []
        clock = _SilenceClock(seconds, self.timing.gap)
        while True:
            event, nbytes = self._next_event(clock)
            seen += nbytes
            if event is None:
                break
            if isinstance(event, P.BadFrame):
                bad.append(event)
                clock.activity(short=True)
                continue
            try:
                reply = P.decode_reply(event)
            except P.ProtocolError as error:
                bad.append(error)
                clock.activity(short=True)
                continue
            seen = max(0, seen - len(event.payload) - P.OVERHEAD)  # count only garbage
            self._answered = self._in_flight.received(reply)
            value = accept(reply)
            if value is not None:
                return value, seen, bad
            self.stale.append(reply)
            clock.activity(short=bool(bad))
        if self.decoder.pending:  # a frame cut short: drop it, keep what follows
            for event in self.decoder.timeout():
                log_event(self.port, event)
                (bad.append if isinstance(event, P.BadFrame) else self._queue.append)(event)
        return None, seen, bad

    def request(self, frame, accept, name, *, reply_len):
        """Send ``frame`` and wait for a reply ``accept`` takes; send again after silence
        or damage (:class:`_Attempts`)."""
        def take(reply):
            value = accept(reply)
            if value is None and _damage_report(reply):
                return _DAMAGED
            return value

        attempts = _Attempts(self, name, len(frame), reply_len)
        while True:
            sent_at = time.monotonic()
            token = self._write(frame, name)
            wait = attempts.wait()
            value, seen, bad = self._wait(take, wait)
            if value is _DAMAGED:
                attempts.failed(wait, seen or 1, bad)
                continue
            if value is not None:
                if attempts.failures == 0:
                    self._learn(frame, token, len(frame) + reply_len,
                                time.monotonic() - sent_at)
                return value
            attempts.failed(wait, seen, bad)

    def _learn(self, frame, token, nbytes, seconds):
        """Time the link on a request answered at its first attempt.

        Only a reply that is certainly this request's own may make the link faster: a
        late reply to an earlier request (one this connection or an earlier one on the
        same port sent again, or gave up on) comes back sooner than any answer to this
        one could, and a link learned from it is far too fast (the reply to an ABORT of
        a connection that gave up on a slowly booting device, arriving just after the
        next connection's ABORT went out, taught it a slowdown of 1 where the device
        needed hundreds: its PING then ran out of time, "no answer").  So an exchange
        is matched only if its reply went to this very request in
        :class:`host.link.InFlight` (no earlier request of its type was outstanding;
        other requests still outstanding only delay the answer: the link looks slower,
        never faster) and the request is a PING, whose VERSION answers nothing else.
        An ABORT is never matched: NOT_BUSY answers any ABORT, also one that another
        program sent before this one, which no ledger here saw.  An unmatched exchange
        may only make the link slower (:meth:`host.link.LinkTiming.measured`);
        :meth:`connect` always times a PING after its ABORT, so nothing is lost."""
        matched = (token is not None and self._answered == token
                   and frame[FrameHeader.offset("type")] == P.MsgType.PING)
        self.timing.measured(nbytes, seconds, matched=matched)
        if self._link_key is not None:
            _measured_slowdown[self._link_key] = (self.timing.slowdown, self.timing.calibrated)

    # -- requests --

    def ping(self):
        """PING; returns (and remembers) the :class:`host.protocol.VersionReply`."""
        def accept(reply):
            if isinstance(reply, P.VersionReply):
                return reply
            if isinstance(reply, P.ErrorReply) and reply.request_type == P.MsgType.PING \
                    and reply.code not in _DAMAGE_CODES:
                raise DeviceError(f"{self.what} refused PING: {reply}")
            return None
        self.version = self.request(P.encode_ping(), accept, "PING",
                                    reply_len=_lengths()["version"])
        if self.version.protocol != P.PROTOCOL_VERSION:
            raise DeviceError(f"{self.what} speaks protocol version {self.version.protocol}, "
                              f"this host speaks {P.PROTOCOL_VERSION}: rebuild the "
                              f"firmware or update the host")
        if not self.version.accelerator_ok:
            raise DeviceError(f"{self.what} reports that its accelerator does not answer "
                              f"with the right ID and size (rebuild the bitstream)")
        return self.version

    def abort(self):
        """End a search a previous host (or a repeated SOLVE) may have left running; True
        if one was.  Every reply sent before the answer to this ABORT has been received
        (or lost) by the time it returns: a handshake that flushes stale answers."""
        def accept(reply):
            if isinstance(reply, (P.ResultReply, P.DeduceResultReply)) and reply.aborted:
                return True  # a search of either mode
            if isinstance(reply, P.ErrorReply) and reply.code == P.ErrorCode.NOT_BUSY:
                return False
            return None
        was_running = self.request(P.encode_abort(), accept, "ABORT",
                                   reply_len=_lengths()["error"])
        self._unsynced = False
        return was_running

    def connect(self):
        """ABORT a stale search, then PING; returns the VERSION reply."""
        self.abort()
        return self.ping()

    def check_size(self, puzzle):
        """Whether ``puzzle`` must be sent transposed: False when it fits the build as
        it is, True when only its transpose fits; :class:`TooLarge` when neither does."""
        if self.version is None:
            self.ping()
        v = self.version
        if puzzle.rows <= v.max_rows and puzzle.cols <= v.max_cols:
            return False
        if puzzle.cols <= v.max_rows and puzzle.rows <= v.max_cols:
            return True
        raise TooLarge(f"a {puzzle.size} puzzle is larger than {self.what} was built "
                       f"for ({v.max_rows}x{v.max_cols}), also transposed")

    def no_deduce(self, why):
        """The one-line error of deduce mode on a build without the deduction engine."""
        rebuild = "the virtual board (make vboard)" if self.virtual else \
            "the bitstream (make bitstream)"
        return NoDeduceEngine(f"this build has no deduction engine: use --mode paper, or "
                              f"rebuild {rebuild} with it; {self.what} {why}")

    def check_mode(self, mode):
        """Raise :class:`NoDeduceEngine` for deduce mode on a build without the engine
        (VERSION's DEDUCE_OK)."""
        if self.version is None:
            self.ping()
        if P.as_mode(mode) is Mode.DEDUCE and not self.version.deduce_ok:
            raise self.no_deduce("reports no DEDUCE_OK in its VERSION")

    def solve(self, puzzle, *, unique=False, time_limit=None, max_checks=0, max_decisions=0,
              mode=None):
        """Solve ``puzzle`` on the device in ``mode`` (paper: the paper's search, bounded
        by ``max_checks``; deduce: the deduction engine, bounded by ``max_decisions``;
        0 = no bound); returns a :class:`Result` (unchecked: the engine registry checks
        it).  ``mode=None`` is the default mode when the build has its engine: deduce,
        or paper on a build without the deduction engine (the result's message says so)."""
        fallback = None
        if mode is None:
            mode = Mode.PAPER if max_checks and not max_decisions else DEFAULT_MODE
            if self.version is None:
                self.ping()
            if mode is Mode.DEDUCE and not self.version.deduce_ok and not max_decisions:
                mode = Mode.PAPER
                fallback = "paper mode: this build has no deduction engine"
        mode = P.as_mode(mode)
        bound = _bound(mode, max_checks, max_decisions)
        transposed = self.check_size(puzzle)
        self.check_mode(mode)
        if transposed:
            asked, puzzle = puzzle, puzzle.transposed()
        if self._unsynced:  # the last solve may have left a second search or a late RESULT
            self.abort()
        size = (f"{asked.size} puzzle (sent transposed, {puzzle.size})" if transposed
                else f"{puzzle.size} puzzle")
        frame = P.encode_solve(puzzle, unique=unique, max_checks=bound, mode=mode)
        abort_frame = P.encode_abort()
        rows, cols = puzzle.rows, puzzle.cols
        lengths = _lengths(rows, cols)
        reply_len = lengths["deduce_result" if mode is Mode.DEDUCE else "result"]
        answer = P.DeduceResultReply if mode is Mode.DEDUCE else P.ResultReply

        def accept(reply):
            if isinstance(reply, (P.ResultReply, P.DeduceResultReply)):
                # a reply of another mode, size or uniqueness answers someone else's request
                return reply if type(reply) is answer and (reply.rows, reply.cols,
                                                           reply.unique) == \
                    (rows, cols, bool(unique)) else None
            if not isinstance(reply, P.ErrorReply):
                return None
            if _damage_report(reply):
                return _DAMAGED  # a frame of ours arrived broken
            if reply.request_type == P.MsgType.SOLVE:
                if reply.code == P.ErrorCode.BUSY:
                    return _BUSY
                if reply.code == P.ErrorCode.TOO_LARGE:
                    raise TooLarge(f"{self.what} refused the {size} as larger "
                                   f"than it was built for ({reply})")
                if reply.code == P.ErrorCode.NO_DEDUCE:
                    if mode is not Mode.DEDUCE:
                        return None  # the answer to a deduce-mode SOLVE of before: stale
                    raise self.no_deduce(f"answered the SOLVE with {reply.name} (detail "
                                         f"{reply.detail})")
                raise DeviceError(f"{self.what} refused the puzzle: {reply}")
            if reply.request_type == P.MsgType.ABORT and reply.code == P.ErrorCode.NOT_BUSY:
                return _NOT_BUSY
            return None

        start = time.monotonic()
        deadline = None if time_limit is None else start + time_limit
        attempts = _Attempts(self, "SOLVE", len(frame), reply_len)
        current, sent, aborted, probes = frame, 1, False, 0
        clock_hz = self.version.clock_hz
        self._write(frame, "SOLVE")
        wait = self.timing.search_wait(len(frame), reply_len, clock_hz)
        while True:
            if deadline is not None and not aborted:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            value, seen, bad = self._wait(accept, wait)
            if isinstance(value, answer):
                reply = value
                break
            if value is _BUSY:  # the device is alive and searching: wait on, probe less often
                attempts.alive()
                probes += 1
                wait = attempts.wait() if aborted else \
                    self.timing.search_wait(len(frame), reply_len, clock_hz, probes)
                continue
            if value is _NOT_BUSY:
                if aborted:  # after our ABORT: the search ended, its RESULT was lost
                    self._unsynced = True
                    raise NoAnswer(f"the result of the aborted search on {self.what} was lost")
                continue  # an answer to an ABORT of before: stale
            if deadline is not None and not aborted and time.monotonic() >= deadline:
                log.info("%s: time limit of %g s: ABORT", self.port, time_limit)
                current, aborted = abort_frame, True
                attempts = _Attempts(self, "ABORT", len(abort_frame), reply_len)
                self._write(current, "time limit")
                wait = attempts.wait()
                continue
            # silence, garbage, a damaged frame, or the device saying ours was damaged
            attempts.failed(wait, seen or (1 if value is _DAMAGED else 0), bad)
            self._write(current, "probe or retry")
            if current is frame:
                sent += 1
            wait = attempts.wait()
        seconds = time.monotonic() - start
        if sent > 1:
            # a repeated SOLVE may have started a second search: end it, flush its RESULT
            self._unsynced = True
            try:
                self.abort()
            except BoardError as error:
                log.info("%s: the ABORT after a repeated SOLVE failed (%s); it is repeated "
                         "before the next puzzle", self.port, error)
        result = self._result(puzzle, reply, seconds, fallback)
        if transposed:
            result = _transposed_back(result, self.version)
        return result

    def _result(self, puzzle, reply, seconds, fallback=None):
        v = self.version
        counters = dict(reply.counters)
        counters["cycles"] = reply.cycles
        counters["clock_hz"] = v.clock_hz
        counters["seconds_at_clock"] = reply.cycles / v.clock_hz if v.clock_hz else 0.0
        counters["seconds_at_50mhz"] = reply.cycles / PAPER_CLOCK_HZ
        status = reply.status
        solutions = [reply.solution] if status.solved and reply.solution is not None else []
        result = Result("board", status, solutions[0] if solutions else None, solutions,
                        seconds, counters, mode=reply.mode.name.lower())
        steps = f"{counters.get('decisions', 0)} decisions" if reply.mode is Mode.DEDUCE \
            else f"{counters.get('checks', 0)} checks"
        if reply.aborted:
            result.message = f"stopped by the time limit after {steps}"
        elif getattr(reply, "trail_full", False):
            result.message = f"stopped: the hardware trail was full after {steps}"
        for note in (fallback, "on the virtual board (Verilator; cycles are exact)"
                     if self.virtual else None):
            if note:
                result.message = (result.message + "; " if result.message else "") + note
        return result


def _transposed_back(result, version):
    """The result of a transposed puzzle (see :meth:`Board.check_size`) as the result of
    the puzzle asked: its solutions transposed back; the counters stay the device's."""
    result.solutions = [transpose_colouring(s) for s in result.solutions]
    result.solution = result.solutions[0] if result.solutions else None
    result.counters["transposed"] = True
    note = (f"solved transposed: the build is {version.max_rows}x{version.max_cols} "
            f"(the counters are those of the transposed puzzle)")
    result.message = f"{result.message}; {note}" if result.message else note
    return result


_LENGTHS = {}
#: link key -> (the slowdown last measured there, whether it was calibrated): a
#: connection opened again after a failure starts from it, not from the prior (cleared
#: by :func:`close_all`)
_measured_slowdown = {}
#: link key -> the :class:`host.link.InFlight` of that link: a connection opened again
#: after a failure knows which requests of the last one may still be answered
_in_flight = {}


def _link_key(port, baud):
    """The device file itself (a pty's number is reused by the next pty, whose node is
    new), and the baud rate; None when the port cannot be looked at."""
    try:
        info = os.stat(port)
    except (OSError, ValueError, TypeError):
        return None
    return (os.path.realpath(str(port)), info.st_ino, info.st_ctime_ns, int(baud))


def _lengths(rows=1, cols=1):
    """Frame lengths of an exchange for a rows x cols puzzle (cached)."""
    key = (rows, cols)
    if key not in _LENGTHS:
        _LENGTHS[key] = frame_lengths(rows, cols)
    return _LENGTHS[key]


class _SilenceClock:
    """Time is up after ``seconds`` without a byte (``gap`` once something went wrong:
    garbage, a damaged frame, a frame in progress), or after ``4 * seconds`` in all."""

    def __init__(self, seconds, gap):
        self.seconds, self.gap = seconds, gap
        self.last = self.start = time.monotonic()
        self.short = False

    def activity(self, short=False):
        self.last = time.monotonic()
        self.short = short

    def remaining(self):
        now = time.monotonic()
        quiet = min(self.seconds, self.gap) if self.short else self.seconds
        return min(self.last + quiet, self.start + 4 * self.seconds) - now


def _describe_bad(event):
    if isinstance(event, P.BadFrame):
        return {P.ErrorCode.BAD_CRC: "CRC mismatch", P.ErrorCode.BAD_LENGTH: "impossible length",
                P.ErrorCode.TIMEOUT: "frame cut short"}.get(event.code, event.code.name)
    return str(event)


# -- the engine ---------------------------------------------------------------------------

class _Session:
    """A board connection kept for the rest of the program (and its virtual board)."""

    def __init__(self, key, board, vboard=None):
        self.key, self.board, self.vboard = key, board, vboard

    def close(self):
        try:
            self.board.close()
        finally:
            if self.vboard is not None:
                self.vboard.stop()


_sessions = {}


def close_all():
    """Close every connection and stop every virtual board this program started."""
    _measured_slowdown.clear()
    _in_flight.clear()
    while _sessions:
        _, session = _sessions.popitem()
        try:
            session.close()
        except Exception:  # noqa: BLE001 -- at exit, nothing more to do
            pass


atexit.register(close_all)


def _vboard_death(vboard):
    """One line for a virtual board that has died or trapped, else ``""``: its exit
    status (or the signal that killed it) and the last line it printed."""
    process = getattr(vboard, "process", None)
    code = process.poll() if process is not None else None
    if code is None:
        problem = vboard.problem()  # still running: a CPU trap, or nothing
        if not problem or process is None:
            return problem
        try:  # a trap is often the last thing a dying board says: see whether it ends
            code = process.wait(0.3)
        except Exception:  # noqa: BLE001 -- subprocess.TimeoutExpired: it runs on, trapped
            return problem
    if code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    else:
        how = f"exited with status {code}"
    lines = [line.strip() for line in (vboard.log or "").splitlines() if line.strip()]
    last = lines[-1] if lines else "no message"
    return f"the virtual board {how} (its last message: {last})"


def _start_virtual(timeout, retries, vboard=None):
    """A session on a new virtual board (``vboard``: a :class:`sim.vboard.VirtualBoard`,
    or a stand-in with ``build``, ``start``, ``stop``, ``port``, ``baud``, ``process``,
    ``log`` and ``problem``)."""
    try:
        from slitherlink.sim.vboard import BuildError, VirtualBoard, VirtualBoardError
    except ImportError as error:
        raise VirtualBoardFailed(f"the virtual board is not available ({error}); "
                                 f"give --port for a real board") from None
    if vboard is None:
        vboard = VirtualBoard("soc", quiet=False)
    try:
        vboard.build  # noqa: B018 -- builds now, with a message on the first build
        vboard.start()
    except (BuildError, VirtualBoardError) as error:
        vboard.stop()
        raise VirtualBoardFailed(f"cannot start the virtual board: {error}") from None
    except BaseException:
        vboard.stop()
        raise

    def health(wait=0.0):
        """Raise VirtualBoardFailed if the board died; after a port failure, give its
        process ``wait`` seconds to be seen ending (the pty closes first)."""
        end = time.monotonic() + wait
        while True:
            problem = _vboard_death(vboard)
            if problem:
                raise VirtualBoardFailed(problem)
            if time.monotonic() >= end:
                return
            time.sleep(0.02)

    try:
        board = Board(vboard.port, baud=vboard.baud, timeout=timeout, retries=retries,
                      virtual=True, health=health)
    except BaseException:
        vboard.stop()
        raise
    return _Session(("virtual",), board, vboard)


def open_board(port=None, *, baud=None, timeout=None, retries=None, vboard=None):
    """A connected :class:`Board` on ``port`` (or on a new virtual board: ``vboard``, or
    the SoC's), reused across calls in this program; see :func:`close_all`."""
    key = ("virtual",) if port is None else (port, baud)
    session = _sessions.get(key)
    if session is None:
        session = _start_virtual(timeout, retries, vboard) if port is None else \
            _Session(key, Board(port, baud=baud, timeout=timeout, retries=retries))
        try:
            session.board.connect()
        except BaseException:
            session.close()
            raise
        _sessions[key] = session
    else:
        session.board.timeout = timeout
        if retries is not None:
            session.board.retries = int(retries)
    return session.board


def _drop(board):
    for key, session in list(_sessions.items()):
        if session.board is board:
            del _sessions[key]
            session.close()


def _bound(mode, max_checks, max_decisions):
    """SOLVE's ``max_checks`` field: the checks of paper mode or the decisions of deduce
    mode; the other mode's bound is an :class:`host.errors.OptionError`."""
    if P.as_mode(mode) is Mode.DEDUCE:
        if max_checks:
            raise OptionError("--max-checks bounds the paper's search (--mode paper); "
                              "in deduce mode give --max-decisions")
        return max_decisions or 0
    if max_decisions:
        raise OptionError("--max-decisions bounds the deduction engine (--mode deduce); "
                          "in paper mode give --max-checks")
    return max_checks or 0


def check_options(*, max_checks=None, max_decisions=None, retries=None, time_limit=None,
                  timeout=None, mode=DEFAULT_MODE, **_):
    """Raise :class:`host.errors.OptionError` (one line) for a value the board cannot take;
    ``host/solve.py`` calls it before solving."""
    if mode is None:  # the default: deduce, or paper on a build without the engine
        mode = Mode.PAPER if max_checks and not max_decisions else DEFAULT_MODE
    try:
        mode = P.as_mode(mode)
    except ValueError as error:
        raise OptionError(str(error)) from None
    for name, value in (("--max-checks", max_checks), ("--max-decisions", max_decisions)):
        if value is not None and not 0 <= value <= MAX_CHECKS:
            raise OptionError(f"{name} {value} is beyond what the board takes "
                              f"(at most {MAX_CHECKS}, a 32-bit count)")
    _bound(mode, max_checks, max_decisions)
    if retries is not None and retries < 0:
        raise OptionError(f"--retries must be 0 or more, not {retries}")
    for name, value in (("--time-limit", time_limit), ("--timeout", timeout)):
        if value is not None and not value > 0:
            raise OptionError(f"{name} must be positive, not {value}")


def solve(puzzle, *, unique=False, time_limit=None, port=None, baud=None, timeout=None,
          retries=None, max_checks=None, max_decisions=None, mode=None):
    """Solve ``puzzle`` on the board at ``port`` (or on the virtual board).

    ``mode`` is ``"deduce"`` (the deduction engine, the default; reply DEDUCE_RESULT)
    or ``"paper"`` (the paper's search; reply RESULT), a name or a :class:`Mode`;
    ``None``: deduce, or paper on a build without the deduction engine.
    ``time_limit`` (seconds) ends the search with an ABORT; ``max_checks`` (paper
    mode) or ``max_decisions`` (deduce mode) bounds it exactly (status LIMIT);
    ``timeout`` is how long the device may stay silent before a request is repeated
    (default: derived from the baud rate and the frame lengths); ``retries`` how many
    times in a row a request is sent again (default :data:`DEFAULT_RETRIES`).  Raises a
    :class:`BoardError`, or :class:`host.errors.OptionError` for an option it cannot take.
    """
    check_options(max_checks=max_checks, max_decisions=max_decisions, retries=retries,
                  time_limit=time_limit, timeout=timeout, mode=mode)
    if port == "auto":
        from .ports import find_board
        try:
            port = find_board()
        except LookupError as error:
            raise PortError(str(error)) from None
    board = open_board(port, baud=baud, timeout=timeout, retries=retries)
    try:
        return board.solve(puzzle, unique=unique, time_limit=time_limit,
                           max_checks=max_checks or 0, max_decisions=max_decisions or 0,
                           mode=mode)
    except (TooLarge, NoDeduceEngine):
        raise  # the conversation is still in step
    except BaseException:
        _drop(board)  # after a failure or Ctrl-C: start afresh next time
        raise


if __name__ == "__main__":  # pragma: no cover - a tiny manual check
    from .puzzle import parse_plain
    print(solve(parse_plain(open(sys.argv[1]).read()), port=(sys.argv[2:] or [None])[0]))
