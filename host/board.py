"""Engine ``board``: solve on the FPGA board, or on the virtual board, over a UART.

DESIGN.md section 4: the host sends the puzzle in a SOLVE frame
(:mod:`host.protocol`), the SoC's firmware runs the paper's search with the
accelerator (section 3) and answers with a RESULT frame: the status, the
colouring and the counters, ``cycles`` being the SoC's own count from "puzzle
loaded" to "answer ready".  Every answer is checked with the rules checker
(:func:`host.engines.verified`) before it is returned.

``solve(puzzle, port="/dev/ttyUSB1")`` talks to a real board (the Arty A7's
FT2232, second interface; ``port="auto"`` finds it, :mod:`host.ports`).  ``solve(puzzle)`` with no port starts the
*virtual board* (:mod:`sim.vboard`: the same SoC, firmware and gateware in
Verilator, its UART on a pseudo-terminal), building it first if needed, and
talks to it through exactly the same code path; the virtual board is stopped
when the program ends (also after an error or Ctrl-C).

The conversation (:class:`Board`):

1. open the port (pyserial, exclusive), drop stale input;
2. ABORT, in case a previous host left a search running (NOT_BUSY is fine);
3. PING: the VERSION reply gives the build's largest grid, clock and baud rate;
   a puzzle larger than the build is refused here, before anything is sent;
4. SOLVE; while the search runs the device is silent.  After ``timeout``
   seconds of silence the host sends the SOLVE again as a probe: a device
   that is still searching answers BUSY (alive: keep waiting), one that lost
   the request starts it now.  No answer to the probe either: :class:`NoAnswer`.
   A reply that fails its CRC or framing is asked for again once (the SOLVE
   is resent), then :class:`GarbledAnswer`;
5. with ``time_limit``, an ABORT after that many seconds ends the search
   (status LIMIT with the counters so far).

Errors are exceptions with one-line messages and an ``exit_code`` for
``host/solve.py``: :class:`PortError` (missing, busy or unusable port),
:class:`NoAnswer`, :class:`GarbledAnswer`, :class:`TooLarge`,
:class:`DeviceError` (the device refused the request for another reason) and
:class:`VirtualBoardFailed` (the virtual board could not be built or started),
all subclasses of :class:`BoardError`.
"""

import atexit
import collections
import os
import sys
import time

from . import protocol as P
from .engines import verified
from .result import Result, Status
from spec.board import DEFAULT_BAUD, PAPER_CLOCK_HZ  # noqa: F401 (re-exported)

__all__ = ["solve", "Board", "open_board", "close_all", "BoardError", "PortError", "NoAnswer",
           "GarbledAnswer", "TooLarge", "DeviceError", "VirtualBoardFailed",
           "DEFAULT_BAUD", "DEFAULT_TIMEOUT", "VIRTUAL_TIMEOUT", "PAPER_CLOCK_HZ"]

#: Seconds of silence before a request is sent again (a real board).
DEFAULT_TIMEOUT = 2.0
#: The same for the virtual board (also for any pseudo-terminal given as the port):
#: it simulates about half a million cycles a second, 100x slower than the board.
VIRTUAL_TIMEOUT = 60.0


def _exit_codes():
    try:
        from .cli import ExitCode
        return {"port": ExitCode.PORT, "timeout": ExitCode.TIMEOUT,
                "garbled": ExitCode.GARBLED, "too_large": ExitCode.TOO_LARGE,
                "engine": ExitCode.ENGINE}
    except (ImportError, AttributeError):  # the CLI's codes, should its module be missing
        return {"port": 8, "timeout": 9, "garbled": 10, "too_large": 11, "engine": 7}


_CODES = _exit_codes()


class BoardError(Exception):
    """A board failure; ``str()`` is one line for the user, ``exit_code`` for the CLI."""
    exit_code = _CODES["engine"]


class PortError(BoardError):
    """The serial port is missing, busy (another program has it) or not usable."""
    exit_code = _CODES["port"]


class NoAnswer(BoardError):
    """Nothing came back within the timeout, even after one retry."""
    exit_code = _CODES["timeout"]


class GarbledAnswer(BoardError):
    """Bytes came back, but no well-formed reply (bad CRC, truncated, undecodable)."""
    exit_code = _CODES["garbled"]


class TooLarge(BoardError):
    """The puzzle is larger than the hardware was built for."""
    exit_code = _CODES["too_large"]


class DeviceError(BoardError):
    """The device answered the request with an ERROR frame (other than TOO_LARGE)."""
    exit_code = _CODES["engine"]


class VirtualBoardFailed(BoardError):
    """The virtual board could not be built or started."""
    exit_code = _CODES["engine"]


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


def _is_pty(port):
    """A Unix 98 pseudo-terminal (the virtual board's kind of port), links followed."""
    return os.path.realpath(str(port)).startswith("/dev/pts/")


# -- one conversation ---------------------------------------------------------------------

class Board:
    """A connection to a board (real or virtual) on a serial port or pty path.

    ``timeout`` is how long the device may stay silent before a request is
    sent again; ``virtual`` only changes the wording of messages; ``health``,
    if given, is called now and then while waiting and raises a
    :class:`BoardError` when the device has died (the virtual board's process
    ended, or its CPU trapped), so that nobody waits for the timeout.
    """

    def __init__(self, port, *, baud=None, timeout=None, virtual=False, health=None):
        self.port = port
        self.health = health  # called while waiting; raises when the device is gone
        self._health_checked = 0.0
        self.baud = int(baud or DEFAULT_BAUD)
        if timeout is None:  # a pseudo-terminal is most likely a virtual board
            timeout = VIRTUAL_TIMEOUT if virtual or _is_pty(port) else DEFAULT_TIMEOUT
        self.timeout = float(timeout)
        if self.timeout <= 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        self.virtual = virtual
        self.serial = open_port(port, self.baud)
        self.decoder = P.FrameDecoder()
        self._queue = collections.deque()
        self.version = None
        self.stale = []  # replies that answered nothing we asked (for tests and debugging)
        try:
            self.serial.reset_input_buffer()
        except Exception as error:  # noqa: BLE001 -- pyserial raises several kinds
            self.close()
            raise PortError(f"cannot use serial port {port}: {error}") from None

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

    def _write(self, data):
        import serial
        try:
            self.serial.write(data)
            self.serial.flush()
        except (serial.SerialException, OSError) as error:
            raise PortError(f"cannot write to {self.port}: {error}") from None

    def _next_event(self, clock):
        """The next frame or bad frame, or None when ``clock`` says time is up;
        also returns the number of bytes read meanwhile.  Events decoded together
        are queued, so none is lost when a caller stops early."""
        import serial
        seen = 0
        while not self._queue:
            remaining = clock.remaining()
            if remaining <= 0:
                return None, seen
            if self.health is not None and time.monotonic() - self._health_checked > 0.5:
                self._health_checked = time.monotonic()
                self.health()
            try:
                self.serial.timeout = min(remaining, 0.05)
                data = self.serial.read(max(1, self.serial.in_waiting))
            except (serial.SerialException, OSError) as error:
                raise PortError(f"cannot read from {self.port}: {error}") from None
            if data:
                seen += len(data)
                clock.activity()
                self._queue.extend(self.decoder.feed_events(data))
        return self._queue.popleft(), seen

    def _wait(self, accept, seconds, *, stop_on_bad=False):
        """Wait for a reply that ``accept(reply)`` takes (returns not None), until
        the line has been silent for ``seconds`` (bytes arriving, e.g. a long
        frame at a slow baud rate, extend the wait, up to 4x).  Returns
        ``(value, bytes_seen, bad_events)``; ``value`` is None on timeout (or
        at the first bad frame, with ``stop_on_bad``).  Replies not accepted
        are kept in :attr:`stale`."""
        seen, bad = 0, []
        clock = _SilenceClock(seconds)
        while True:
            event, nbytes = self._next_event(clock)
            seen += nbytes
            if event is None:
                break
            if isinstance(event, P.BadFrame):
                bad.append(event)
                if stop_on_bad:
                    return None, seen, bad
                continue
            try:
                reply = P.decode_reply(event)
            except P.ProtocolError as error:
                bad.append(error)
                if stop_on_bad:
                    return None, seen, bad
                continue
            seen = max(0, seen - len(event.payload) - P.OVERHEAD)  # count only garbage
            value = accept(reply)
            if value is not None:
                return value, seen, bad
            self.stale.append(reply)
        if self.decoder.pending:  # a frame cut short: drop it, keep what follows
            for event in self.decoder.timeout():
                (bad.append if isinstance(event, P.BadFrame) else self._queue.append)(event)
        return None, seen, bad

    def _failure(self, request_name, seen, bad, seconds):
        if bad or seen:
            what = _describe_bad(bad[-1]) if bad else f"{seen} bytes without a valid frame"
            return GarbledAnswer(f"garbled answer from {self.what} to {request_name} "
                                 f"({what}), also after one retry")
        return NoAnswer(f"no answer from {self.what} to {request_name} within "
                        f"{seconds:g} s, also after one retry")

    def request(self, frame, accept, name, *, seconds=None):
        """Send ``frame`` and wait for an accepted reply; retry once."""
        seconds = self.timeout if seconds is None else seconds
        total_seen, all_bad = 0, []
        for _ in range(2):
            self._write(frame)
            value, seen, bad = self._wait(accept, seconds, stop_on_bad=True)
            if value is not None:
                return value
            total_seen += seen
            all_bad += bad
        raise self._failure(name, total_seen, all_bad, seconds)

    # -- requests --

    def ping(self):
        """PING; returns (and remembers) the :class:`host.protocol.VersionReply`."""
        def accept(reply):
            if isinstance(reply, P.VersionReply):
                return reply
            if isinstance(reply, P.ErrorReply) and reply.request_type == P.MsgType.PING:
                raise DeviceError(f"{self.what} refused PING: {reply}")
            return None
        self.version = self.request(P.encode_ping(), accept, "PING")
        if self.version.protocol != P.PROTOCOL_VERSION:
            raise DeviceError(f"{self.what} speaks protocol version {self.version.protocol}, "
                              f"this host speaks {P.PROTOCOL_VERSION}: rebuild the "
                              f"firmware or update the host")
        if not self.version.accelerator_ok:
            raise DeviceError(f"{self.what} reports that its accelerator does not answer "
                              f"with the right ID and size (rebuild the bitstream)")
        return self.version

    def abort(self):
        """End a search a previous host may have left running; True if one was."""
        def accept(reply):
            if isinstance(reply, P.ResultReply) and reply.aborted:
                return True
            if isinstance(reply, P.ErrorReply) and reply.code == P.ErrorCode.NOT_BUSY:
                return False
            return None
        return self.request(P.encode_abort(), accept, "ABORT")

    def connect(self):
        """ABORT a stale search, then PING; returns the VERSION reply."""
        self.abort()
        return self.ping()

    def check_size(self, puzzle):
        if self.version is None:
            self.ping()
        v = self.version
        if puzzle.rows > v.max_rows or puzzle.cols > v.max_cols:
            raise TooLarge(f"a {puzzle.size} puzzle is larger than {self.what} was built "
                           f"for ({v.max_rows}x{v.max_cols})")

    def solve(self, puzzle, *, unique=False, time_limit=None, max_checks=0):
        """Solve ``puzzle`` on the device; returns a verified :class:`Result`."""
        self.check_size(puzzle)
        frame = P.encode_solve(puzzle, unique=unique, max_checks=max_checks or 0)
        rows, cols = puzzle.rows, puzzle.cols
        damaged = (P.ErrorCode.BAD_CRC, P.ErrorCode.TIMEOUT, P.ErrorCode.OVERRUN,
                   P.ErrorCode.BAD_LENGTH)

        def accept(reply):
            if isinstance(reply, P.ResultReply):
                # a RESULT of another size answers someone else's request
                return reply if (reply.rows, reply.cols) == (rows, cols) else None
            if not isinstance(reply, P.ErrorReply):
                return None
            if reply.request_type == P.MsgType.SOLVE:
                if reply.code == P.ErrorCode.BUSY:
                    return "busy"
                if reply.code == P.ErrorCode.TOO_LARGE:
                    raise TooLarge(f"{self.what} refused the {puzzle.size} puzzle as larger "
                                   f"than it was built for ({reply})")
                if reply.code in damaged:
                    return "damaged"
                raise DeviceError(f"{self.what} refused the puzzle: {reply}")
            if reply.request_type == 0 and reply.code in damaged:
                return "damaged"  # our SOLVE arrived broken
            if reply.request_type == P.MsgType.ABORT and reply.code == P.ErrorCode.NOT_BUSY:
                return "not busy"
            return None

        start = time.monotonic()
        deadline = None if time_limit is None else start + time_limit
        self._write(frame)
        sent, retried, aborted, damaged_count = 1, False, False, 0
        seen_total, bad_total = 0, []
        while True:
            wait = self.timeout
            if deadline is not None and not aborted:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            value, seen, bad = self._wait(accept, wait, stop_on_bad=True)
            if isinstance(value, P.ResultReply):
                reply = value
                break
            if value == "busy":  # the device is alive and searching: wait on
                retried, seen_total, bad_total = False, 0, []
                continue
            if value == "damaged":
                damaged_count += 1
                if damaged_count > 2:
                    raise GarbledAnswer(f"{self.what} received the puzzle damaged "
                                        f"{damaged_count} times (check the cable and the "
                                        f"baud rate)")
                self._write(frame)
                sent += 1
                continue
            if value == "not busy":  # after our ABORT: the search ended, its RESULT was lost
                raise NoAnswer(f"the result of the aborted search on {self.what} was lost")
            if deadline is not None and not aborted and time.monotonic() >= deadline:
                self._write(P.encode_abort())  # the time limit: end the search
                aborted = True
                continue
            # silence, or only garbage, for the timeout (or a garbled frame)
            seen_total += seen
            bad_total += bad
            if retried:
                raise self._failure("SOLVE", seen_total, bad_total, self.timeout)
            retried = True
            if aborted:
                self._write(P.encode_abort())
            else:
                self._write(frame)  # a probe (BUSY if it is searching), or a retry
                sent += 1
        seconds = time.monotonic() - start
        if sent > 1:
            # a repeated SOLVE may have started a second search: end it
            try:
                self.abort()
            except BoardError:
                pass
        return self._result(puzzle, reply, seconds)

    def _result(self, puzzle, reply, seconds):
        v = self.version
        counters = dict(reply.counters)
        counters["cycles"] = reply.cycles
        counters["clock_hz"] = v.clock_hz
        counters["seconds_at_clock"] = reply.cycles / v.clock_hz if v.clock_hz else 0.0
        counters["seconds_at_50mhz"] = reply.cycles / PAPER_CLOCK_HZ
        status = reply.status
        solutions = [reply.solution] if status.solved and reply.solution is not None else []
        result = Result("board", status, solutions[0] if solutions else None, solutions,
                        seconds, counters)
        if reply.aborted:
            result.message = f"stopped by the time limit after {counters.get('checks', 0)} checks"
        if self.virtual:
            result.message = (result.message + "; " if result.message else "") + \
                "on the virtual board (Verilator; cycles are exact)"
        return verified(puzzle, result)


class _SilenceClock:
    """Time is up after ``seconds`` without a byte, or after ``4 * seconds`` in all."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.last = self.start = time.monotonic()

    def activity(self):
        self.last = time.monotonic()

    def remaining(self):
        now = time.monotonic()
        return min(self.last + self.seconds, self.start + 4 * self.seconds) - now


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
    while _sessions:
        _, session = _sessions.popitem()
        try:
            session.close()
        except Exception:  # noqa: BLE001 -- at exit, nothing more to do
            pass


atexit.register(close_all)


def _start_virtual(timeout):
    try:
        from sim.vboard import BuildError, VirtualBoard, VirtualBoardError
    except ImportError as error:
        raise VirtualBoardFailed(f"the virtual board is not available ({error}); "
                                 f"give --port for a real board") from None
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
    def health():
        problem = vboard.problem()
        if problem:
            raise VirtualBoardFailed(problem)

    try:
        board = Board(vboard.port, baud=vboard.baud, timeout=timeout, virtual=True,
                      health=health)
    except BaseException:
        vboard.stop()
        raise
    return _Session(("virtual",), board, vboard)


def open_board(port=None, *, baud=None, timeout=None):
    """A connected :class:`Board` on ``port`` (or on a new virtual board), reused
    across calls in this program; see :func:`close_all`."""
    key = ("virtual",) if port is None else (port, baud)
    session = _sessions.get(key)
    if session is None:
        session = _start_virtual(timeout) if port is None else \
            _Session(key, Board(port, baud=baud, timeout=timeout))
        try:
            session.board.connect()
        except BaseException:
            session.close()
            raise
        _sessions[key] = session
    elif timeout is not None:
        session.board.timeout = float(timeout)
    return session.board


def _drop(board):
    for key, session in list(_sessions.items()):
        if session.board is board:
            del _sessions[key]
            session.close()


def solve(puzzle, *, unique=False, time_limit=None, port=None, baud=None, timeout=None,
          max_checks=None, **options):
    """Solve ``puzzle`` on the board at ``port`` (or on the virtual board).

    ``time_limit`` (seconds) ends the search with an ABORT; ``max_checks``
    bounds it exactly (status LIMIT); ``timeout`` is how long the device may
    stay silent before a request is repeated.  Raises a :class:`BoardError`.
    """
    if options:
        raise TypeError(f"unknown option(s) of the board engine: {', '.join(sorted(options))}")
    if port == "auto":
        from .ports import find_board
        try:
            port = find_board()
        except LookupError as error:
            raise PortError(str(error)) from None
    if time_limit is not None and time_limit <= 0:
        raise ValueError(f"time_limit must be positive, not {time_limit!r}")
    board = open_board(port, baud=baud, timeout=timeout)
    try:
        return board.solve(puzzle, unique=unique, time_limit=time_limit,
                           max_checks=max_checks or 0)
    except TooLarge:
        raise  # the conversation is still in step
    except BaseException:
        _drop(board)  # after a failure or Ctrl-C: start afresh next time
        raise


if __name__ == "__main__":  # pragma: no cover - a tiny manual check
    from .puzzle import parse_plain
    print(solve(parse_plain(open(sys.argv[1]).read()), port=(sys.argv[2:] or [None])[0]))
