"""One conversation with a device (the board, or the virtual board) on a serial port.

docs/design.md section 4.  A :class:`Connection` sends requests and waits for
their replies (:mod:`host.protocol` frames), every wait derived from the link
(:mod:`host.device.link`) and bounded (:meth:`LinkTiming.request_bound`):

1. open the port (pyserial, exclusive), drop stale input;
2. ABORT, in case a previous host left a search running (NOT_BUSY is fine);
3. PING: the VERSION reply gives the build's largest grid, clock and baud rate
   and whether it has the deduction engine (checked by the board engine,
   :mod:`host.engines.board`, before it asks for a SOLVE);
4. SOLVE (:meth:`Connection.request_solve`); while the search runs the device
   is silent.  After a silence of about twice the expected answer time plus
   2^25 device cycles (the search allowance) the host sends the SOLVE again as
   a probe: a device that is still searching answers BUSY (alive: keep
   waiting, probing less and less often), one that lost the request starts it
   now.  A damaged frame back (bad CRC, cut short, garbage, or the device's
   own ERROR saying our frame arrived damaged) makes the host send again at
   once.  Up to ``retries`` resends in a row (``--retries``); a BUSY answering
   a probe resets the count.  Only a reply of the request's mode (RESULT or
   DEDUCE_RESULT), size and uniqueness is taken for the answer; any other is
   a late answer to someone else's request;
5. with ``time_limit``, an ABORT after that many seconds ends the search
   (status LIMIT with the counters so far);
6. when the SOLVE was sent more than once, an ABORT handshake afterwards ends
   a second search and flushes its late RESULT, so that no stale answer is
   ever taken for the next puzzle's.

Whatever arrives, every wait is a deadline (:mod:`host.device.link`, "The
bound"): noise, an echo of our own frames, damaged frames and frames that
answer no request end a request within its bound with :class:`GarbledAnswer`,
silence with :class:`NoAnswer`.  The clock is a parameter, so that tests can
run the host on a clock of their own.
"""

import collections
import inspect
import logging
import time
from dataclasses import dataclass, field

from slitherlink.spec.protocol import FrameHeader, Mode
from slitherlink.spec.uart import DEFAULT_BAUD

from .. import protocol as P
from .errors import (BoardError, DeviceError, GarbledAnswer, NoAnswer, NoDeduceEngine, PortError,
                     TooLarge)
from .link import (DEFAULT_RETRIES, SILENT_ATTEMPTS, VIRTUAL_SLOWDOWN, InFlight, LinkTiming,
                   frame_lengths, log_event, log_received, log_sent)
from .port import is_pty, link_key, open_port, port_errors

__all__ = ["Connection", "forget_links"]

log = logging.getLogger(__name__)

_BUSY, _DAMAGED, _NOT_BUSY = "busy", "damaged", "not busy"
#: ERROR codes that mean "your frame arrived damaged": send it again
_DAMAGE_CODES = (P.ErrorCode.BAD_CRC, P.ErrorCode.TIMEOUT, P.ErrorCode.OVERRUN,
                 P.ErrorCode.BAD_LENGTH)
#: frame types the host sends: one of them coming back is an echo of ours
_REQUEST_TYPES = frozenset({P.MsgType.PING, P.MsgType.SOLVE, P.MsgType.ABORT, P.MsgType.STATS})

#: link key -> (the slowdown last measured there, whether it was calibrated): a
#: connection opened again after a failure starts from it, not from the prior
_measured_slowdown = {}
#: link key -> the :class:`host.device.link.InFlight` of that link: a connection opened
#: again after a failure knows which requests of the last one may still be answered
_in_flight = {}
_LENGTHS = {}


def forget_links():
    """Forget what was learned of every link (its speed, its requests in flight)."""
    _measured_slowdown.clear()
    _in_flight.clear()


def _lengths(rows=1, cols=1):
    """Frame lengths of an exchange for a rows x cols puzzle (cached)."""
    key = (rows, cols)
    if key not in _LENGTHS:
        _LENGTHS[key] = frame_lengths(rows, cols)
    return _LENGTHS[key]


def _damage_report(reply):
    """The device says a frame of ours arrived damaged (its type unknown or ours)."""
    return (isinstance(reply, P.ErrorReply) and reply.code in _DAMAGE_CODES
            and reply.request_type in (0, P.MsgType.PING, P.MsgType.ABORT, P.MsgType.SOLVE))


def _describe_bad(event):
    if isinstance(event, P.BadFrame):
        return {P.ErrorCode.BAD_CRC: "CRC mismatch", P.ErrorCode.BAD_LENGTH: "impossible length",
                P.ErrorCode.TIMEOUT: "frame cut short"}.get(event.code, event.code.name)
    return str(event)


class _Wait:
    """The wait of one attempt: over at ``end`` whatever arrives (bytes never extend
    it); once something went wrong (garbage, a damaged frame, a frame in progress) also
    after ``gap`` seconds without a byte."""

    def __init__(self, clock, end, gap, latest=None):
        self.clock, self.end, self.gap, self.latest = clock, end, gap, latest
        self.begin = self.last = clock()  # when the last byte arrived (or the wait began)
        self.length = end - self.begin
        self.short = False
        self.heard = False    # a byte arrived
        self.drained = False  # what had arrived by the end was read

    def activity(self, short=False):
        self.last = self.clock()
        self.short = short
        self.heard = True

    def again(self):
        """Start the wait anew (a late reply to a frame sent before came), but not past
        ``latest`` (e.g. a time limit)."""
        end = max(self.end, self.clock() + self.length)
        self.end = end if self.latest is None else max(self.end, min(end, self.latest))

    def remaining(self):
        end = min(self.end, self.last + self.gap) if self.short else self.end
        return end - self.clock()

    def quiet(self):
        """No byte for the link's gap: a frame in progress was cut short."""
        return self.clock() - self.last >= self.gap

    def noisy(self):
        """Bytes arrived until the end (within its last quarter, or the link's gap if
        that is shorter): a stream, not a reply (a device answers and falls silent)."""
        return self.heard and \
            self.clock() - self.last < min(self.gap, (self.end - self.begin) / 4)


@dataclass
class _Heard:
    """What came back during one wait."""
    value: object = None   # what ``accept`` took, or None
    garbage: int = 0       # bytes that were no part of a valid frame
    bad: list = field(default_factory=list)  # dropped candidates, undecodable frames
    replies: int = 0       # valid replies that answer nothing we wait for
    echoes: int = 0        # frames of the host's own kinds: an echo of ours
    noisy: bool = False    # it ran to its end with bytes still arriving

    @property
    def anything(self):
        return bool(self.garbage or self.bad or self.replies or self.echoes)


class _Attempts:
    """The retry policy of one request (:mod:`host.device.link`): resends in a row after
    a lost or damaged answer, at most ``connection.retries``; SILENT_ATTEMPTS attempts
    in a row with no byte back mean a silent device, as many with nothing but noise or
    nothing but an echo back mean garbled answers."""

    def __init__(self, connection, name, request_len, reply_len):
        self.connection, self.name = connection, name
        self.request_len, self.reply_len = request_len, reply_len
        self.failures = self.attempt = 0
        self.silent = self.noisy = self.echoed = 0
        self.silent_seconds = 0.0
        self.bytes_seen = 0
        self.garbled = None  # what came back that was no answer, the last time

    def wait(self):
        return self.connection.timing.attempt_wait(self.request_len, self.reply_len,
                                                   self.attempt)

    def alive(self):
        """The device answered in step (BUSY to a probe): start counting afresh."""
        self.failures = self.attempt = 0
        self.silent = self.noisy = self.echoed = 0
        self.silent_seconds = 0.0

    def failed(self, waited, heard, damaged=False):
        """An attempt ended without an accepted answer; raises when it was the last."""
        self.failures += 1
        self.attempt += 1
        valid = heard.replies or damaged
        if heard.anything or damaged:
            self.silent, self.silent_seconds = 0, 0.0
            self.bytes_seen += heard.garbage
            if heard.bad:
                reason = _describe_bad(heard.bad[-1])
            elif damaged:
                reason = "the device got our frame damaged"
            elif heard.echoes and not valid:
                reason = "our own frame came back"
            elif heard.replies:
                reason = f"{heard.replies} replies that answer something else"
            else:
                reason = f"{heard.garbage} bytes without a valid frame"
            self.garbled = reason
        else:
            self.silent += 1
            self.silent_seconds += waited
            reason = f"silence for {waited:.3g} s"
        self.noisy = self.noisy + 1 if heard.noisy and not valid else 0
        self.echoed = self.echoed + 1 if heard.echoes and not valid else 0
        self._give_up()
        connection = self.connection
        connection.resends += 1
        log.info("%s: %s again (%s; attempt %d of at most %d in a row)", connection.port,
                 self.name, reason, self.failures + 1, connection.retries + 1)

    def _give_up(self):
        connection = self.connection
        limit = min(SILENT_ATTEMPTS, connection.retries + 1)
        where = f"{connection.what} to {self.name}"
        if self.silent >= limit:
            raise NoAnswer(f"no answer from {where}: not a byte back in {self.silent} "
                           f"attempts ({self.silent_seconds:.1f} s; the link's expected "
                           f"answer time is "
                           f"{connection.timing.answer_time(self.request_len, self.reply_len):.3g}"
                           f" s)")
        if self.noisy >= limit:
            raise GarbledAnswer(f"garbled answers from {where}: a stream of bytes that never "
                                f"forms a frame ({self.bytes_seen} bytes in {self.noisy} "
                                f"attempts in a row; is the board on this port? check "
                                f"--port and --baud)")
        if self.echoed >= limit:
            raise GarbledAnswer(f"garbled answers from {where}: the port sends back our own "
                                f"frames ({self.echoed} attempts in a row; an echo, not the "
                                f"board: check --port)")
        if self.failures > connection.retries:
            if self.garbled is not None:
                raise GarbledAnswer(f"garbled answers from {where} ({self.garbled}), "
                                    f"{self.failures} attempts in a row (--retries "
                                    f"{connection.retries}; check the cable and the baud "
                                    f"rate)")
            raise NoAnswer(f"no answer from {where} in {self.failures} attempts (--retries "
                           f"{connection.retries})")


class Connection:
    """A conversation with a board (real or virtual) on a serial port or pty path.

    ``timeout``, if given, is how long the device may stay silent before a
    request is sent again (otherwise derived, :class:`host.device.link.LinkTiming`);
    ``retries`` how many resends in a row are allowed; ``virtual`` only changes
    the wording of messages; ``health``, if given, is called as ``health(wait)``
    now and then while waiting and when the port fails, and raises a
    :class:`BoardError` when the device has died (the virtual board's process
    ended, or its CPU trapped), so that nobody waits for the timeout and a dead
    board is not reported as a port error.  ``line``, if given, is an open
    pyserial-like object to talk through instead of opening ``port``, and
    ``clock`` the clock every wait is measured on (both for tests).
    """

    def __init__(self, port, *, baud=None, timeout=None, retries=None, virtual=False,
                 health=None, line=None, clock=time.monotonic):
        self.port = port
        self.clock = clock
        if health is not None and not inspect.signature(health).parameters:
            health = (lambda check: lambda wait=0.0: check())(health)  # health() form
        self.health = health
        self._health_checked = clock()
        self.baud = int(baud or DEFAULT_BAUD)
        if timeout is not None and not float(timeout) > 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        self.retries = DEFAULT_RETRIES if retries is None else int(retries)
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, not {retries!r}")
        self.virtual = virtual
        # a pseudo-terminal is most likely a virtual board: slow until measured
        slowdown = VIRTUAL_SLOWDOWN if virtual or is_pty(port) else 1.0
        self.timing = LinkTiming(self.baud, slowdown=slowdown, timeout=timeout)
        self._link_key = link_key(port, self.baud) if line is None else None
        if self._link_key in _measured_slowdown:  # measured by an earlier connection
            self.timing.slowdown, self.timing.calibrated = _measured_slowdown[self._link_key]
        # the requests of this link still unanswered, also those of an earlier connection
        # (whose late replies this one may see: host.device.link.InFlight)
        self._in_flight = InFlight() if self._link_key is None else \
            _in_flight.setdefault(self._link_key, InFlight())
        self._answered = None  # the token of the request the last reply answered
        self.resends = 0      # requests sent again, over the whole connection
        self.serial = None
        self.serial = open_port(port, self.baud) if line is None else line
        self._write_timeout = None
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

    def send(self, frame, what=""):
        """Send a frame as it is (one the host would not send by itself: tests)."""
        self._write(frame, what)

    def receive(self, accept, seconds):
        """The first reply that ``accept(reply)`` takes (returns not None) within
        ``seconds``, or None; the others are kept in :attr:`stale`."""
        return self._wait(accept, self.clock() + seconds).value

    def _check_health(self, wait=0.0):
        """Raise the device's own failure (e.g. the virtual board died), if it has one."""
        if self.health is not None:
            self._health_checked = self.clock()
            self.health(wait)

    def _write(self, data, what="", timeout=None):
        """Send a frame, within ``timeout`` seconds if given (a device that takes no more
        bytes is a port error); returns its token in the link's :class:`InFlight` (None:
        not tracked)."""
        log_sent(self.port, data, what)
        type_at = FrameHeader.offset("type")
        token = self._in_flight.sent(data[type_at] if len(data) > type_at else None)
        try:
            if timeout is not None and timeout != self._write_timeout:
                self.serial.write_timeout = self._write_timeout = timeout
            self.serial.write(data)
            self.serial.flush()
        except port_errors() as error:
            self._check_health(wait=1.0)
            raise PortError(f"cannot write to {self.port}: {error}") from None
        return token

    def _read(self, timeout):
        """Bytes that arrive within ``timeout`` seconds (what has arrived, at once)."""
        try:
            self.serial.timeout = timeout
            return self.serial.read(max(1, self.serial.in_waiting))
        except port_errors() as error:
            self._check_health(wait=1.0)
            raise PortError(f"cannot read from {self.port}: {error}") from None

    def _feed(self, data, wait):
        """Decode ``data`` into the queue of events, noting on ``wait`` what arrived."""
        garbage = self.decoder.garbage
        events = self.decoder.feed_events(data)
        log_received(self.port, data, self.decoder.garbage - garbage)
        wait.activity(short=self.decoder.garbage > garbage or self.decoder.pending)
        for event in events:
            log_event(self.port, event)
        self._queue.extend(events)

    def _next_event(self, wait):
        """The next frame or bad frame, or None when ``wait`` is over; also returns the
        number of bytes read meanwhile.  Events decoded together are queued, so none is
        lost when a caller stops early.  At the end of the wait what has arrived by then
        is read once more (a busy machine may have kept the host from reading it)."""
        seen = 0
        while not self._queue:
            remaining = wait.remaining()
            if remaining <= 0:
                if wait.drained:
                    return None, seen
                wait.drained = True
                data = self._read(0)
                if not data:
                    return None, seen
            else:
                if self.health is not None and self.clock() - self._health_checked > 0.5:
                    self._check_health()
                data = self._read(min(remaining, 0.05))
            if data:
                seen += len(data)
                self._feed(data, wait)
        return self._queue.popleft(), seen

    def _wait(self, accept, until, latest=None):
        """Wait until the deadline ``until`` (on :attr:`clock`) for a reply that
        ``accept(reply)`` takes (returns not None); after garbage or a damaged frame a
        silence of the link's gap ends the wait sooner.  Returns what was heard
        (:class:`_Heard`, ``value`` None when nothing was taken).  Replies not taken are
        kept in :attr:`stale`; one that the device still owed to a frame sent before
        starts the wait anew, up to ``latest`` (it works through what it was sent, in
        order); more of them than the link can owe are :class:`GarbledAnswer` at once."""
        wait = _Wait(self.clock, until, self.timing.gap, latest)
        heard = _Heard()
        while True:
            event, nbytes = self._next_event(wait)
            heard.garbage += nbytes
            if event is None:
                break
            if isinstance(event, P.BadFrame):
                heard.bad.append(event)
                wait.activity(short=True)
                continue
            try:
                reply = P.decode_reply(event)
            except P.ProtocolError as error:
                if event.type in _REQUEST_TYPES:
                    heard.echoes += 1
                else:
                    heard.bad.append(error)
                wait.activity(short=True)
                continue
            heard.garbage = max(0, heard.garbage - len(event.payload) - P.OVERHEAD)
            owed = self._in_flight.owed > 0
            self._answered = self._in_flight.received(reply)
            value = accept(reply)
            if value is not None:
                heard.value = value
                return heard
            if self._in_flight.unasked:
                raise GarbledAnswer(f"garbled answers from {self.what}: it sends frames that "
                                    f"answer no request ({-self._in_flight.owed} replies more "
                                    f"than the frames it was sent; is it the board? check "
                                    f"--port)")
            heard.replies += 1
            self.stale.append(reply)
            wait.activity(short=bool(heard.bad))
            if owed:
                wait.again()
        heard.noisy = wait.noisy()
        if self.decoder.pending and wait.quiet():  # a frame cut short: drop it, keep the rest
            for event in self.decoder.timeout():
                log_event(self.port, event)
                (heard.bad.append if isinstance(event, P.BadFrame) else self._queue.append)(event)
        return heard

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
            wait = attempts.wait()
            sent_at = self.clock()
            token = self._write(frame, name, timeout=wait)
            heard = self._wait(take, sent_at + wait)
            if heard.value is _DAMAGED:
                attempts.failed(wait, heard, damaged=True)
                continue
            if heard.value is not None:
                if attempts.failures == 0:
                    self._learn(frame, token, len(frame) + reply_len, self.clock() - sent_at)
                return heard.value
            attempts.failed(wait, heard)

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
        :class:`host.device.link.InFlight` (no earlier request of its type was
        outstanding; other requests still outstanding only delay the answer: the link
        looks slower, never faster) and the request is a PING, whose VERSION answers
        nothing else.  An ABORT is never matched: NOT_BUSY answers any ABORT, also one
        that another program sent before this one, which no ledger here saw.  An
        unmatched exchange may only make the link slower
        (:meth:`host.device.link.LinkTiming.measured`); :meth:`connect` always times a
        PING after its ABORT, so nothing is lost."""
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

    def no_deduce(self, why):
        """The one-line error of deduce mode on a build without the deduction engine."""
        rebuild = "the virtual board (make vboard)" if self.virtual else \
            "the bitstream (make bitstream)"
        return NoDeduceEngine(f"this build has no deduction engine: use --mode paper, or "
                              f"rebuild {rebuild} with it; {self.what} {why}")

    def request_solve(self, puzzle, *, mode, unique=False, bound=0, time_limit=None,
                      label=None):
        """SOLVE ``puzzle`` in ``mode`` (``bound``: SOLVE's ``max_checks`` field, checks or
        decisions; 0 = none) and wait for its answer: ``(reply, seconds)``, the
        :class:`host.protocol.ResultReply` or :class:`host.protocol.DeduceResultReply`
        and the seconds from the SOLVE to it.  ``label`` names the puzzle in messages."""
        mode = P.as_mode(mode)
        if self.version is None:
            self.ping()
        if self._unsynced:  # the last solve may have left a second search or a late RESULT
            self.abort()
        label = label or f"{puzzle.size} puzzle"
        frame = P.encode_solve(puzzle, unique=unique, max_checks=bound, mode=mode)
        abort_frame = P.encode_abort()
        rows, cols = puzzle.rows, puzzle.cols
        reply_len = _lengths(rows, cols)["deduce_result" if mode is Mode.DEDUCE else "result"]
        answer = P.DeduceResultReply if mode is Mode.DEDUCE else P.ResultReply
        asked = 0  # SOLVEs sent and not answered BUSY: a BUSY answers one of them

        def accept(reply):
            nonlocal asked
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
                    if not asked:
                        return None  # no SOLVE of ours waits for it: not an answer
                    asked -= 1
                    return _BUSY
                if reply.code == P.ErrorCode.TOO_LARGE:
                    raise TooLarge(f"{self.what} refused the {label} as larger "
                                   f"than it was built for ({reply})")
                if reply.code == P.ErrorCode.NO_DEDUCE:
                    if mode is not Mode.DEDUCE:
                        return None  # the answer to a deduce-mode SOLVE of before: stale
                    raise self.no_deduce(f"answered the SOLVE with {reply.name} (detail "
                                         f"{reply.detail})")
                raise DeviceError(f"{self.what} refused the puzzle: {reply}")
            if reply.request_type == P.MsgType.ABORT and reply.code == P.ErrorCode.NOT_BUSY \
                    and aborted:
                return _NOT_BUSY  # our ABORT's answer: the search had ended
            return None  # e.g. the answer to an ABORT of before: stale

        start = self.clock()
        deadline = None if time_limit is None else start + time_limit
        attempts = _Attempts(self, "SOLVE", len(frame), reply_len)
        current, sent, aborted, probes = frame, 1, False, 0
        clock_hz = self.version.clock_hz
        wait = self.timing.search_wait(len(frame), reply_len, clock_hz)
        until = start + wait
        self._write(frame, "SOLVE", timeout=wait)
        asked += 1
        while True:
            latest = deadline if not aborted else None
            if latest is not None:
                until = min(until, latest)
            heard = self._wait(accept, until, latest)
            value = heard.value
            if isinstance(value, answer):
                reply = value
                break
            if value is _BUSY:  # the device is alive and searching: wait on, probe less often
                attempts.alive()
                probes += 1
                wait = attempts.wait() if aborted else \
                    self.timing.search_wait(len(frame), reply_len, clock_hz, probes)
                until = self.clock() + wait
                continue
            if value is _NOT_BUSY:  # after our ABORT: the search ended, its RESULT was lost
                self._unsynced = True
                raise NoAnswer(f"the result of the aborted search on {self.what} was lost")
            if deadline is not None and not aborted and self.clock() >= deadline:
                log.info("%s: time limit of %g s: ABORT", self.port, time_limit)
                current, aborted = abort_frame, True
                attempts = _Attempts(self, "ABORT", len(abort_frame), reply_len)
                wait = attempts.wait()
                until = self.clock() + wait
                self._write(current, "time limit", timeout=wait)
                continue
            # silence, garbage, a damaged frame, or the device saying ours was damaged
            attempts.failed(wait, heard, damaged=value is _DAMAGED)
            wait = attempts.wait()
            until = self.clock() + wait
            self._write(current, "probe or retry", timeout=wait)
            if current is frame:
                sent += 1
                asked += 1
        seconds = self.clock() - start
        if sent > 1:
            # a repeated SOLVE may have started a second search: end it, flush its RESULT
            self._unsynced = True
            try:
                self.abort()
            except BoardError as error:
                log.info("%s: the ABORT after a repeated SOLVE failed (%s); it is repeated "
                         "before the next puzzle", self.port, error)
        return reply, seconds
