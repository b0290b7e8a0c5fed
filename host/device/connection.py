"""One conversation with a device (the board, or the virtual board) on a serial port.

docs/design.md section 4.  A :class:`Connection` sends requests and waits for their replies
(:mod:`host.protocol` frames, each request numbered by a SEQ of the link's
:class:`host.device.link.Ledger`, each reply matched to its request by that SEQ), every
wait derived from the link (:mod:`host.device.link`) and bounded:

1. open the port (pyserial, exclusive) at the start rate, drop stale input (and set a Linux
   FTDI bridge's latency timer to 1 ms where it may, :func:`host.device.port.set_latency_timer`);
2. ABORT, in case a previous host left a search running (NOT_BUSY is fine): it also empties
   the device's queue and forgets its stored answers, and every reply sent before its answer
   has come in (or been lost) when it returns -- a handshake that flushes stale answers;
3. PING: the VERSION reply gives the build's largest grid and request, clock, rates and
   queue, and whether it has the deduction engine (checked by the board engine,
   :mod:`host.engines.board`, before it asks for a SOLVE);
4. the fast line (:meth:`Connection.switch_rate`): SET_BAUD for ``--baud`` or the fastest
   rate the device offers (:mod:`host.device.rates`), the port switched on the BAUD reply,
   a PING at the new rate to confirm it; when that fails, back to the start rate (the
   device goes back by itself after its window) and on there;
5. the SOLVEs, several in flight (:mod:`host.device.pipeline`).

A request is sent again, with the same SEQ, after silence (the flush first:
:func:`host.device.link.flush_length` zeros end any frame a damaged header left pending on
the device; before its VERSION, silence for its inter-byte timeout does, the quiet flush)
or at once after damage; a late reply to an earlier attempt is as good as the
reply to the last.  Whatever arrives, every wait is a deadline (:mod:`host.device.link`,
"The bound"): noise, an echo of our own frames, damaged frames and frames that answer no
request end a request within its bound with :class:`GarbledAnswer`, silence with
:class:`NoAnswer`.  The clock is a parameter, so that tests can run the host on a clock of
their own.
"""

import collections
import inspect
import logging
import time
from dataclasses import dataclass, field

from slitherlink.spec.uart import DEFAULT_BAUD

from .. import protocol as P
from .errors import BoardError, DeviceError, GarbledAnswer, NoAnswer, NoDeduceEngine, PortError
from .link import (DEFAULT_RETRIES, SET_BAUD_ATTEMPTS, SILENT_ATTEMPTS, VIRTUAL_SLOWDOWN, Ledger,
                   LinkTiming, connection_flush, frame_lengths, log_event, log_received, log_sent)
from .port import is_pty, link_key, open_port, port_errors, set_latency_timer
from .rates import known_rates, wanted_rate

__all__ = ["Connection", "forget_links", "is_damage_report"]

log = logging.getLogger(__name__)

_DAMAGED = "damaged"
_TYPE = P.FrameHeader.offset("type")
_SEQ = P.FrameHeader.offset("seq")
#: ERROR codes that mean "your frame arrived damaged": send it again
_DAMAGE_CODES = (P.ErrorCode.BAD_CRC, P.ErrorCode.TIMEOUT, P.ErrorCode.OVERRUN,
                 P.ErrorCode.BAD_LENGTH, P.ErrorCode.BAD_HEADER)
#: frame types the host sends: one of them coming back is an echo of ours
_REQUEST_TYPES = frozenset(P.REQUEST_LENGTHS) | {P.MsgType.SOLVE}

#: link key -> (the slowdown last measured there, whether it was calibrated): a
#: connection opened again after a failure starts from it, not from the prior
_measured_slowdown = {}
#: link key -> the :class:`host.device.link.Ledger` of that link: a connection opened
#: again after a failure goes on with its SEQs and knows the replies still owed
_ledgers = {}
_LENGTHS = {}


def forget_links():
    """Forget what was learned of every link (its speed, its SEQs, its replies owed)."""
    _measured_slowdown.clear()
    _ledgers.clear()


def lengths(rows=1, cols=1):
    """Frame lengths of an exchange for a rows x cols puzzle (cached)."""
    key = (rows, cols)
    if key not in _LENGTHS:
        _LENGTHS[key] = frame_lengths(rows, cols)
    return _LENGTHS[key]


def is_damage_report(reply):
    """The device says that bytes of ours arrived damaged: an ERROR about a frame it did
    not receive whole (SEQ 0)."""
    return isinstance(reply, P.ErrorReply) and reply.seq == 0 and reply.code in _DAMAGE_CODES


def refuses(reply, request_type):
    """Whether ``reply`` is an ERROR to a request of ``request_type`` (its SEQ is checked by
    the caller): an ERROR names the type of the frame it answers, so a late ERROR to another
    request under the same SEQ (an ABORT of an earlier connection, say) is not taken for
    this one's."""
    return isinstance(reply, P.ErrorReply) and reply.request_type == request_type


def _describe_bad(event):
    if isinstance(event, P.BadFrame):
        return {P.ErrorCode.BAD_CRC: "CRC mismatch", P.ErrorCode.BAD_LENGTH: "impossible length",
                P.ErrorCode.BAD_HEADER: "damaged header",
                P.ErrorCode.TIMEOUT: "frame cut short"}.get(event.code, event.code.name)
    return str(event)


class _Wait:
    """The wait of one attempt: over at ``end`` whatever arrives (bytes extend it only
    once, by :meth:`extend`); once something went wrong (garbage, a damaged frame, a
    frame in progress) also after ``gap`` seconds without a byte."""

    def __init__(self, clock, end, gap, latest=None):
        self.clock, self.end, self.gap, self.latest = clock, end, gap, latest
        self.begin = self.last = clock()  # when the last byte arrived (or the wait began)
        self.length = end - self.begin
        self.short = False
        self.heard = False    # a byte arrived
        self.drained = False  # what had arrived by the end was read
        self.extended = False

    def activity(self, short=False):
        self.last = self.clock()
        self.short = short
        self.heard = True

    def extend(self, seconds):
        """Once: ``seconds`` more for a frame arriving as the wait ends, over after the
        link's gap without a byte."""
        self.end += seconds
        self.short, self.drained, self.extended = True, False, True

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
    a lost or damaged answer, at most ``retries`` (the connection's by default);
    SILENT_ATTEMPTS attempts in a row with no byte back mean a silent device, as many with
    nothing but noise or nothing but an echo back mean garbled answers."""

    def __init__(self, connection, name, request_len, reply_len, retries=None):
        self.connection, self.name = connection, name
        self.request_len, self.reply_len = request_len, reply_len
        self.retries = connection.retries if retries is None else retries
        self.failures = self.attempt = 0
        self.silent = self.noisy = self.echoed = 0
        self.silent_seconds = 0.0
        self.bytes_seen = 0
        self.garbled = None  # what came back that was no answer, the last time

    def wait(self, flush=0):
        """The wait of the next attempt (``flush`` bytes sent before it)."""
        return self.connection.timing.attempt_wait(self.request_len, self.reply_len,
                                                   self.attempt, flush)

    def alive(self):
        """The device answered in step (a probe): start counting afresh."""
        self.failures = self.attempt = 0
        self.silent = self.noisy = self.echoed = 0
        self.silent_seconds = 0.0

    def failed(self, waited, heard, damaged=False, why=None, look=False, count=True):
        """An attempt ended without an accepted answer; raises when it was the last.
        The request is sent again, counted in the connection's ``resends`` unless the
        caller counts its sends itself (``count``), or, with ``look``, something smaller
        asks after it (a RESEND looking for a SOLVE)."""
        self.failures += 1
        self.attempt += 1
        valid = heard.replies or damaged
        if heard.anything or damaged:
            self.silent, self.silent_seconds = 0, 0.0
            self.bytes_seen += heard.garbage
            if why is not None:
                reason = why
            elif heard.bad:
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
        # noise: bytes to the end of the wait, or nothing but bytes outside any frame (a
        # device at another rate, whose frames never show a START where one is)
        garbage_only = heard.garbage and not (heard.bad or heard.echoes or valid)
        self.noisy = self.noisy + 1 if (heard.noisy or garbage_only) and not valid else 0
        self.echoed = self.echoed + 1 if heard.echoes and not valid else 0
        self._give_up()
        connection = self.connection
        connection.resends += count and not look
        log.info("%s: %s %s (%s; attempt %d of at most %d in a row)", connection.port,
                 self.name, "looked for" if look else "again", reason, self.failures + 1,
                 self.retries + 1)

    def _give_up(self):
        connection = self.connection
        limit = min(SILENT_ATTEMPTS, self.retries + 1)
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
        if self.failures > self.retries:
            if self.garbled is not None:
                raise GarbledAnswer(f"garbled answers from {where} ({self.garbled}), "
                                    f"{self.failures} attempts in a row (--retries "
                                    f"{connection.retries}; check the cable and the baud "
                                    f"rate)")
            raise NoAnswer(f"no answer from {where} in {self.failures} attempts (--retries "
                           f"{connection.retries})")


class Connection:
    """A conversation with a board (real or virtual) on a serial port or pty path.

    ``baud`` is the device's start rate (the port is opened at it; every build's is
    :data:`spec.uart.DEFAULT_BAUD` unless built otherwise), ``rate`` the rate to switch to
    when connecting (``--baud``; None: the fastest the device offers).  ``timeout``, if
    given, is how long the device may stay silent before a request is sent again
    (otherwise derived, :class:`host.device.link.LinkTiming`); ``retries`` how many resends
    in a row are allowed; ``virtual`` only changes the wording of messages; ``health``, if
    given, is called as ``health(wait)`` now and then while waiting and when the port fails,
    and raises a :class:`BoardError` when the device has died (the virtual board's process
    ended, or its CPU trapped, or its clock stopped), so that nobody waits for the timeout
    and a dead board is not reported as a port error.  ``line``, if given, is an open
    pyserial-like object to talk through instead of opening ``port``, and ``clock`` the
    clock every wait is measured on (both for tests).
    """

    def __init__(self, port, *, baud=None, rate=None, timeout=None, retries=None,
                 virtual=False, health=None, line=None, clock=time.monotonic):
        self.port = port
        self.clock = clock
        if health is not None and not inspect.signature(health).parameters:
            health = (lambda check: lambda wait=0.0: check())(health)  # health() form
        self.health = health
        self._health_checked = clock()
        self.start_baud = self.baud = int(baud or DEFAULT_BAUD)
        self.rate = None if rate is None else int(rate)
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
        # the SEQs of this link, also those of an earlier connection (whose late replies
        # this one may see)
        self.ledger = Ledger() if self._link_key is None else \
            _ledgers.setdefault(self._link_key, Ledger())
        self.resends = 0      # requests sent again, over the whole connection
        self.rate_note = ""   # what became of the switch to the fast rate
        self.found_at = None  # the rate the device answered at when connecting
        self.serial = None
        self.serial = open_port(port, self.baud) if line is None else line
        if line is None:
            set_latency_timer(port)
        self._write_timeout = None
        self.decoder = P.FrameDecoder()
        self._queue = collections.deque()
        self.version = None
        self.stale = collections.deque(maxlen=256)  # replies that answered nothing we asked
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

    @property
    def depth(self):
        """SOLVE requests the device holds (VERSION's queue), 1 before VERSION."""
        return max(1, self.version.queue) if self.version is not None else 1

    @property
    def max_payload(self):
        """The device's largest request payload: VERSION's; before it, the one the link's
        last VERSION in this program told (None if none did)."""
        return self.version.max_payload if self.version is not None else \
            self.ledger.max_payload

    def close(self):
        try:
            self.restore_rate()
        except Exception:  # noqa: BLE001 -- closing: nothing more to do
            pass
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

    def simulated(self, slowdown):
        """The device's own measure of its speed (a virtual board's simulated time)."""
        self.timing.simulated(slowdown)
        if self._link_key is not None:
            _measured_slowdown[self._link_key] = (self.timing.slowdown, True)

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
        """Send ``data`` (a frame, or a flush: each gets at most one reply), within
        ``timeout`` seconds if given (a device that takes no more bytes is a port error)."""
        log_sent(self.port, data, what)
        self._put(data, 1, timeout)

    def write_frames(self, frames):
        """Send ``frames``, ``(frame, what)`` pairs, in one write: the SOLVEs a pipeline
        sends at once (one system call for all, and on a USB bridge as few transfers as
        their bytes need)."""
        for frame, what in frames:
            log_sent(self.port, frame, what)
        self._put(b"".join(frame for frame, _ in frames), len(frames), None)

    def _put(self, data, frames, timeout):
        """Write ``data``, ``frames`` frames, to the port.  The write returns once the port
        has taken the bytes; it does not wait for them to leave (no ``tcdrain``: on a USB
        bridge that is a round trip to the chip for every write, and it has no time
        bound).  Every wait for a reply allows for the bytes still on their way (the
        link's latency and transfer time, :class:`host.device.link.LinkTiming`)."""
        self.ledger.sent(frames)
        try:
            if timeout is not None and timeout != self._write_timeout:
                self.serial.write_timeout = self._write_timeout = timeout
            self.serial.write(data)
        except port_errors() as error:
            self._check_health(wait=1.0)
            raise PortError(f"cannot write to {self.port}: {error}") from None

    def flush(self, timeout=None):
        """End any frame pending on the device before a resend: send the flush's zeros
        and return their number, or, while the device's largest request is unknown, send
        nothing and return None: the quiet flush, which the resend's wait covers
        (:func:`host.device.link.connection_flush`)."""
        length = connection_flush(self.max_payload)
        if length is not None:
            self._write(bytes(length), "flush", timeout=timeout)
        return length

    def _read(self, timeout):
        """Bytes that arrive within ``timeout`` seconds (what has arrived, at once)."""
        try:
            if self.serial.timeout != timeout:  # (pyserial sets the port up again for it)
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

    def events_waiting(self):
        """Whether replies (or damaged frames) already read wait to be taken by
        :meth:`next_event`."""
        return bool(self._queue)

    def next_event(self, wait, once=False):
        """The next frame or bad frame, or None when ``wait`` is over (with ``once``: also
        when one read brought none); also returns the number of bytes read meanwhile.
        Events decoded together are queued, so none is lost when a caller stops early.  At
        the end of the wait what has arrived by then is read once more (a busy machine may
        have kept the host from reading it)."""
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
            elif once:
                return None, seen
        return self._queue.popleft(), seen

    def cut_short(self, wait, heard):
        """At the end of a wait: a frame left in progress after the link's gap of silence
        was cut short: drop it, keep what follows."""
        if self.decoder.pending and wait.quiet():
            for event in self.decoder.timeout():
                log_event(self.port, event)
                (heard.bad.append if isinstance(event, P.BadFrame) else self._queue.append)(event)

    def reply_of(self, event, wait, heard):
        """The decoded reply of a received ``event`` and whether the device still owed a
        reply when it came; ``(None, False)`` for a bad frame, an echo of ours or an
        undecodable frame (noted on ``heard``)."""
        if isinstance(event, P.BadFrame):
            heard.bad.append(event)
            wait.activity(short=True)
            return None, False
        try:
            reply = P.decode_reply(event)
        except P.ProtocolError as error:
            if event.type in _REQUEST_TYPES:
                heard.echoes += 1
            else:
                heard.bad.append(error)
            wait.activity(short=True)
            return None, False
        heard.garbage = max(0, heard.garbage - len(event.payload) - P.OVERHEAD)
        owed = self.ledger.owed > 0
        self.ledger.received()
        return reply, owed

    def not_ours(self, reply, owed, wait, heard):
        """A valid reply that answers nothing we wait for: kept in :attr:`stale`; one the
        device still owed to a frame sent before starts the wait anew; more of them than
        the link can owe are :class:`GarbledAnswer` at once."""
        if self.ledger.unasked:
            raise GarbledAnswer(f"garbled answers from {self.what}: it sends frames that "
                                f"answer no request ({-self.ledger.owed} replies more "
                                f"than the frames it was sent; is it the board? check "
                                f"--port)")
        heard.replies += 1
        self.stale.append(reply)
        wait.activity(short=bool(heard.bad))
        if owed:
            wait.again()

    def new_wait(self, until, latest=None):
        return _Wait(self.clock, until, self.timing.gap, latest)

    def _wait(self, accept, until, latest=None):
        """Wait until the deadline ``until`` (on :attr:`clock`) for a reply that
        ``accept(reply)`` takes (returns not None); after garbage or a damaged frame a
        silence of the link's gap ends the wait sooner.  Returns what was heard
        (:class:`_Heard`, ``value`` None when nothing was taken)."""
        wait = self.new_wait(until, latest)
        heard = _Heard()
        while True:
            event, nbytes = self.next_event(wait)
            heard.garbage += nbytes
            if event is None:
                break
            reply, owed = self.reply_of(event, wait, heard)
            if reply is None:
                continue
            value = accept(reply)
            if value is not None:
                heard.value = value
                return heard
            self.not_ours(reply, owed, wait, heard)
        heard.noisy = wait.noisy()
        self.cut_short(wait, heard)
        return heard

    def request(self, frame, accept, name, *, reply_len, retries=None, wait_for=None):
        """Send ``frame`` and wait for a reply ``accept`` takes; send it again after silence,
        the flush first, or at once after damage (:class:`_Attempts`).  ``frame`` is the
        request's bytes (sent again as they are: the same SEQ, so a late reply to an earlier
        attempt is as good), or ``frame(attempt)`` that numbers each attempt anew (a reply
        then says which attempt it answers: the link is timed on it).  ``wait_for(attempt,
        flush)`` gives the wait of an attempt (default: the link's attempt wait)."""
        def take(reply):
            value = accept(reply)
            if value is None and is_damage_report(reply):
                return _DAMAGED
            return value

        make = frame if callable(frame) else (lambda attempt: frame)
        sent = {}  # SEQ -> when it was first sent, and whether it was sent once only
        attempts = None
        flushed = 0
        while True:
            data = make(0 if attempts is None else attempts.attempt)
            if attempts is None:
                attempts = _Attempts(self, name, len(data), reply_len, retries)
            wait = attempts.wait(flushed) if wait_for is None else \
                wait_for(attempts.attempt, flushed)
            sent_at = self.clock()
            seq = data[_SEQ] if len(data) > _SEQ else None
            sent[seq] = (sent[seq][0], False) if seq in sent else (sent_at, True)
            self._write(data, name, timeout=wait)
            heard = self._wait(take, sent_at + wait)
            if heard.value is _DAMAGED:
                attempts.failed(wait, heard, damaged=True)
                flushed = 0
                continue
            if heard.value is not None:
                first, once = sent.get(getattr(heard.value, "seq", None), (None, False))
                if once:
                    self._learn(data, heard.value, len(data) + reply_len, self.clock() - first)
                return heard.value
            attempts.failed(wait, heard)
            # after silence, end what may be pending on the device; a frame of the device's
            # that came back (damaged, or answering something else) says that it was not
            # inside a candidate of ours, and the flush would only cost its bytes
            flushed = 0 if heard.bad or heard.replies else self.flush(timeout=wait)

    def _learn(self, frame, reply, nbytes, seconds):
        """Time the link on a request answered to a frame sent once: a PING whose VERSION
        carries its SEQ (certainly its own: a late reply to an earlier request carries
        another).  Any other exchange may only make the link slower
        (:meth:`host.device.link.LinkTiming.measured`)."""
        matched = frame[_TYPE] == P.MsgType.PING and isinstance(reply, P.VersionReply)
        self.timing.measured(nbytes, seconds, matched=matched)
        if self._link_key is not None:
            _measured_slowdown[self._link_key] = (self.timing.slowdown, self.timing.calibrated)

    # -- requests --

    def _numbered(self, make, accept, name, **options):
        """:meth:`request` of the frame ``make(seq)`` under a SEQ of the link's;
        ``accept(reply, seq)``."""
        seq = self.ledger.take()
        try:
            return self.request(make(seq), lambda reply: accept(reply, seq), name, **options)
        finally:
            self.ledger.release(seq)

    def ping(self, retries=None, wait_for=None):
        """PING, each attempt under a SEQ of its own (so its VERSION times the link); returns
        (and remembers) the :class:`host.protocol.VersionReply`."""
        seqs = []

        def frame(attempt):
            seqs.append(self.ledger.take())
            return P.encode_ping(seqs[-1])

        def accept(reply):
            if reply.seq not in seqs:
                return None
            if isinstance(reply, P.VersionReply):
                return reply
            if refuses(reply, P.MsgType.PING):
                raise DeviceError(f"{self.what} refused PING: {reply}")
            return None
        try:
            version = self.request(frame, accept, "PING", reply_len=lengths()["version"],
                                   retries=retries, wait_for=wait_for)
        finally:
            for seq in seqs:
                self.ledger.release(seq)
        if version.protocol != P.PROTOCOL_VERSION:
            raise DeviceError(f"{self.what} speaks protocol version {version.protocol}, "
                              f"this host speaks {P.PROTOCOL_VERSION}: rebuild the "
                              f"firmware or update the host")
        if not version.accelerator_ok and not version.deduce_ok:
            raise DeviceError(f"{self.what} reports that neither engine answers (the "
                              f"accelerator's ID and size are wrong and it has no deduction "
                              f"engine): rebuild the bitstream")
        self.version = version
        self.ledger.max_payload = version.max_payload
        return version

    def abort(self, retries=None):
        """End a search a previous host may have left running, empty the device's queue,
        forget its stored answers; True if a search was running.  Every reply sent before
        the answer to this ABORT has been received (or lost) by the time it returns."""
        def accept(reply, seq):
            if isinstance(reply, P.OUTCOMES) and reply.aborted:
                return True  # the running search's reply (it carries that SOLVE's SEQ)
            if isinstance(reply, P.ErrorReply) and reply.seq == seq \
                    and reply.code == P.ErrorCode.NOT_BUSY:
                return False
            return None
        return self._numbered(P.encode_abort, accept, "ABORT", reply_len=lengths()["error"],
                              retries=retries)

    def stats(self, retries=None):
        """STATS: the device's receiver counters since reset (:class:`host.protocol.StatsReply`:
        bytes received, frames good and bad, the UART's overruns, ...)."""
        def accept(reply, seq):
            if reply.seq != seq:
                return None
            if refuses(reply, P.MsgType.STATS):
                raise DeviceError(f"{self.what} refused STATS: {reply}")
            return reply if isinstance(reply, P.StatsReply) else None
        return self._numbered(P.encode_stats, accept, "STATS",
                              reply_len=len(P.encode_stats_reply()), retries=retries)

    def connect(self):
        """ABORT a stale search, PING, then switch to the fast rate; returns the VERSION
        reply.  A device that does not answer the ABORT at the start rate may be at a fast
        rate an earlier host left it at: the ABORT is tried there too
        (:meth:`candidate_rates`)."""
        self._reach(self.candidate_rates(), self.abort, retries_elsewhere=0)
        self.ping()
        self.switch_rate()
        return self.version

    def candidate_rates(self):
        """The rates a device may be at when a connection opens, in the order they are
        tried: the rate this program last left the link at (a virtual board stays at the
        rate of its last connection; a board whose rate was restored is at its start rate),
        the start rate, ``--baud``, the fastest of every known board's default build
        (:func:`host.device.rates.known_rates`)."""
        rates = [self.ledger.rate, self.start_baud, self.rate, *known_rates()]
        return list(dict.fromkeys(r for r in rates if r))

    def _reach(self, rates, request, retries_elsewhere=None):
        """Do ``request(retries)`` at the first of ``rates`` where the device answers it (at
        a rate it is not at, it is silent or sends bytes that never form a frame: three
        attempts; at the rates after the first, ``retries_elsewhere`` resends, by default
        the connection's); the error at the first rate when none does."""
        first = None
        for rate in rates:
            if rate != self.baud:
                log.info("%s: trying %d baud", self.port, rate)
                self._line_rate(rate)
            try:
                value = request(retries=None if first is None else retries_elsewhere)
            except (NoAnswer, GarbledAnswer) as error:
                first = first or error
                continue
            self.ledger.rate = self.found_at = rate
            return value
        self._line_rate(rates[0])
        raise first

    def no_deduce(self, why):
        """The one-line error of deduce mode on a build without the deduction engine."""
        rebuild = "the virtual board (make vboard)" if self.virtual else \
            "the bitstream (make bitstream)"
        return NoDeduceEngine(f"this build has no deduction engine: use --mode paper, or "
                              f"rebuild {rebuild} with it; {self.what} {why}")

    def no_accelerator(self, why):
        """The one-line error of paper mode on a build without the paper's accelerator."""
        rebuild = "the virtual board (make vboard)" if self.virtual else \
            "the bitstream (make bitstream)"
        return DeviceError(f"this build has no accelerator of the paper: use --mode deduce, "
                           f"or rebuild {rebuild} with it (CORE=soc-both); {self.what} {why}")

    # -- the fast line --

    def _line_rate(self, rate):
        """Set the port (and the link's timing) to ``rate``; bytes half received at the old
        rate are dropped."""
        try:
            self.serial.baudrate = rate
        except (ValueError, *port_errors()) as error:
            raise PortError(f"cannot set {self.port} to {rate} baud: {error}") from None
        self.baud = self.timing.baud = int(rate)
        self.decoder = P.FrameDecoder()
        self._queue.clear()

    def _idle_until(self, until):
        """Read (and keep aside) whatever arrives until ``until``."""
        self._wait(lambda reply: None, until)

    def switch_rate(self):
        """Switch to ``rate`` (``--baud``), or to the fastest rate the device offers.  On
        success the port and the device are at the new rate; when the device refuses an
        asked rate, :class:`DeviceError`; when the confirmation fails, both go back to the
        start rate and the conversation goes on there (:attr:`rate_note` says so)."""
        version = self.version
        wanted = wanted_rate(version, self.rate)
        if wanted == version.baud:
            return version.baud
        clock_hz = version.clock_hz
        window = self.timing.confirm_window(clock_hz)
        start, begun = version.baud, self.clock()

        def accept(reply, seq):
            if reply.seq != seq:
                return None
            if isinstance(reply, P.BaudReply):
                return reply
            if refuses(reply, P.MsgType.SET_BAUD):
                raise DeviceError(f"{self.what} refused {wanted} baud: {reply} (the rates it "
                                  f"offers go up to {version.max_baud} baud)")
            return None
        try:
            self._numbered(
                lambda seq: P.encode_set_baud(wanted, seq), accept, "SET_BAUD",
                reply_len=lengths()["baud"], retries=SET_BAUD_ATTEMPTS - 1,
                wait_for=lambda attempt, flush: self.timing.set_baud_wait(
                    lengths()["set_baud"], lengths()["baud"], clock_hz, attempt, flush))
        except DeviceError:
            if self.rate is not None:
                raise
            self.rate_note = f"at {start} baud: the device refused {wanted}"
            log.info("%s: %s", self.port, self.rate_note)
            return start
        except (NoAnswer, GarbledAnswer) as error:
            log.info("%s: no BAUD reply (%s); back to %d baud", self.port, error, start)
            return self._back(start, wanted, begun + window)
        switched = self.clock()
        self.ledger.rate = wanted
        self._line_rate(wanted)
        try:
            self.ping(retries=SILENT_ATTEMPTS - 1,
                      wait_for=lambda attempt, flush: min(
                          self.timing.attempt_wait(lengths()["ping"], lengths()["version"],
                                                   attempt, flush),
                          max(window / 2, self.timing.latency)))
        except (NoAnswer, GarbledAnswer) as error:
            self._line_rate(start)
            log.info("%s: %d baud not confirmed (%s); back to %d baud", self.port, wanted,
                     error, start)
            return self._back(start, wanted, switched + window)
        self.rate_note = f"at {self.baud} baud"
        log.info("%s: now at %d baud (the device makes %d)", self.port, wanted,
                 self.version.baud)
        return wanted

    def _back(self, start, wanted, device_back):
        """After a failed switch: at the start rate once the device's window is surely over
        (``device_back``: when it ends at the latest), PING; should the device have kept
        the new rate after all (our confirmation arrived, its answer did not), PING there."""
        self._line_rate(start)
        self._idle_until(device_back + 0.25 * (device_back - self.clock()) + self.timing.gap)
        rate = self._reach([start, wanted], self.ping)
        self.rate_note = f"at {wanted} baud" if rate == wanted else \
            f"at {start} baud: the switch to {wanted} baud failed"
        log.info("%s: %s", self.port, self.rate_note)
        return rate

    def restore_rate(self):
        """Before closing: ask a device at a fast rate to go back to its start rate, so that
        the next program finds it there at its first attempt (:meth:`connect` tries the
        start rate with every resend, the other rates once each): up to
        :data:`SET_BAUD_ATTEMPTS` SET_BAUDs until the BAUD reply, each waiting as long as
        the link's timing says (not ``--timeout``: closing stays quick).  A device that
        took one goes back whether or not its BAUD arrives (a new rate unconfirmed falls
        back to the start rate), so the link is left at the start rate either way.  A device
        that refuses it BUSY still has SOLVEs of this connection queued (a run interrupted,
        or given up): no one will read their answers, so an ABORT ends them first."""
        version = self.version
        if self.serial is None or version is None or self.virtual \
                or self.baud == self.start_baud:
            return

        def accept(reply, seq):
            if reply.seq != seq:
                return None
            if isinstance(reply, P.BaudReply):
                return True
            return False if refuses(reply, P.MsgType.SET_BAUD) else None  # BUSY: it stays
        try:
            def set_baud_back():   # True: taken; False: refused BUSY
                return self._numbered(
                    lambda seq: P.encode_set_baud(self.start_baud, seq), accept,
                    "SET_BAUD back", reply_len=lengths()["baud"], retries=SET_BAUD_ATTEMPTS - 1,
                    wait_for=lambda attempt, flush: self.timing.link_wait(
                        lengths()["set_baud"], lengths()["baud"], attempt, flush))
            if not set_baud_back():
                self.abort(retries=SET_BAUD_ATTEMPTS - 1)   # its queue emptied
                set_baud_back()
        except BoardError as error:
            log.info("%s: the rate back: %s", self.port, error)
        try:
            self._line_rate(self.start_baud)
        except BoardError:
            return
        self.ledger.rate = self.start_baud
