"""The UART link to a board: timing derived from the baud rate and the frame lengths,
the retry policy and its bound, the ledger of requests in flight, and the frame log of
``--verbose``.

docs/design.md section 4 (UART protocol).  Nothing here is a fixed number of
seconds: every wait is computed from

* the **byte time** ``10 / baud`` (8N1), multiplied by the link's *slowdown*:
  1 for a real board; the virtual board simulates about 100 times slower than
  the 50 MHz board (docs/host.md), so a pseudo-terminal starts with the prior
  :data:`VIRTUAL_SLOWDOWN` and answered requests then measure the real
  slowdown (:meth:`LinkTiming.measured`) -- but only a reply that is certainly
  the timed request's own may make the link faster (:class:`InFlight`);
* the **frame lengths** of the request and of its expected reply (computed
  with :mod:`host.protocol`'s encoders, so they follow the protocol);
* the device's **inter-byte timeout** (``TIMEOUT_BYTE_TIMES`` byte times): a
  request whose length field was damaged makes the device wait that long
  before it drops the frame and resynchronises;
* a fixed allowance :data:`LATENCY` for the USB-serial latency timer and the
  operating system.

A request is sent again when no accepted answer came within
:meth:`LinkTiming.attempt_wait` (doubling with every attempt, up to the
device's inter-byte timeout and more), or at once when a damaged frame came
back.  While a search may be running, the SOLVE is sent again as a probe
(answered BUSY) only after :meth:`LinkTiming.search_wait`, which adds
:data:`SEARCH_ALLOWANCE_CYCLES` of the device's clock.  :data:`DEFAULT_RETRIES`
resends in a row are allowed (``--retries``); a BUSY answering a probe resets the
count.  After :data:`SILENT_ATTEMPTS` attempts in a row with not a single byte
back the device is declared silent; after as many that ran to their end with
bytes still arriving and not one valid frame among them (noise), or with
nothing back but our own frames (an echo), its answers are garbled.

**The bound.**  Every wait is a deadline: bytes arriving never extend it,
with one exception: a late reply to a frame sent before (the device answers
each frame once, in order, :class:`InFlight`) starts the wait anew, at most once
for each such frame.  So a request ends within :meth:`LinkTiming.request_bound`,
``retries + 1`` attempt waits (with ``--timeout T``: ``(retries + 1) * T``),
plus one for each reply the device still owed, whatever arrives -- noise, an
echo, damaged frames, or valid frames that answer no request (more replies than
the frames sent, :data:`UNASKED_REPLIES` aside, are garbled answers at once).
A SOLVE waits the search allowance once more (:meth:`LinkTiming.solve_bound`),
and its search lasts as long as the device answers every probe with BUSY (the
one thing that resets the count: ``--time-limit`` bounds it).
"""

import collections
import itertools
import logging
import struct

from .. import protocol as P

__all__ = ["LinkTiming", "InFlight", "answers", "DEFAULT_RETRIES", "SILENT_ATTEMPTS", "LATENCY",
           "VIRTUAL_SLOWDOWN", "MARGIN", "SEARCH_ALLOWANCE_CYCLES", "BITS_PER_BYTE",
           "UNASKED_REPLIES", "REQUESTS_PER_PUZZLE", "frame_lengths", "describe_frame",
           "log_sent", "log_event", "log_received", "log"]

log = logging.getLogger(__name__)

#: resends in a row after a lost or damaged answer (--retries); at 1 % byte loss a
#: 10x10 SOLVE and its RESULT get through together about one time in four
DEFAULT_RETRIES = 24
#: attempts in a row without a single byte back: the device is silent (and as many
#: with nothing but noise, or nothing but our own frames, back: its answers are garbled)
SILENT_ATTEMPTS = 3
#: replies beyond one per frame sent that a link may carry: answers to requests this
#: program never saw (another program's, before it); more are garbled answers
UNASKED_REPLIES = 8
#: the requests of one puzzle at most: ABORT and PING when connecting (or an ABORT that
#: ends a search left running), the SOLVE, and the ABORT after a repeated SOLVE
REQUESTS_PER_PUZZLE = 4
#: seconds allowed for the USB-serial latency timer (16 ms), the OS (a loaded machine
#: delays a thread by 100 ms and more) and the firmware
LATENCY = 0.25
#: how much slower than its baud rate a pseudo-terminal (a virtual board) is assumed
#: to be until measured: the virtual board simulates ~0.5 M cycles/s of a 50 MHz SoC
#: (100x) on an idle machine; 300x was measured on a loaded one
VIRTUAL_SLOWDOWN = 300.0
#: waits are this many times the expected answer time
MARGIN = 2.0
#: device cycles a search may run before the host first probes it (2^25: 0.67 s at
#: 50 MHz, about 4 times the paper's average 10x10 search of 7.9 M cycles).  A probe
#: that arrives during a search costs the firmware about 50 k cycles (receiving the
#: SOLVE, sending BUSY), so probing early would distort the cycle counts measured on
#: the virtual board, where wall time buys 100-300 times fewer cycles
SEARCH_ALLOWANCE_CYCLES = 1 << 25
#: UART 8N1: start bit, 8 data bits, stop bit
BITS_PER_BYTE = 10


def frame_lengths(rows=1, cols=1):
    """Lengths in bytes of the frames of one exchange, from the protocol's encoders:
    ``ping``, ``abort``, ``solve``, ``version``, ``error``, ``result`` (a solved
    ``rows`` x ``cols`` RESULT, the longest of paper mode) and ``deduce_result`` (the
    same as a DEDUCE_RESULT, deduce mode's)."""
    from ..puzzle import Puzzle
    from ..result import Status
    puzzle = Puzzle([[None] * cols for _ in range(rows)])
    blank = tuple(tuple(False for _ in range(cols)) for _ in range(rows))
    return {
        "ping": len(P.encode_ping()), "abort": len(P.encode_abort()),
        "solve": len(P.encode_solve(puzzle, mode=P.Mode.PAPER))  # as long in either mode
        if max(rows, cols) <= P.MAX_GRID else 0,
        "version": len(P.encode_version(max_rows=1, max_cols=1, clock_hz=1, baud=1, regmap=0)),
        "error": len(P.encode_error(P.ErrorCode.BUSY)),
        "result": len(P.encode_result(Status.SOLVED, rows, cols, solution=blank)),
        "deduce_result": len(P.encode_deduce_result(Status.SOLVED, rows, cols, solution=blank)),
    }


class LinkTiming:
    """The waits of one link (see the module docstring).  ``timeout``, when given
    (``--timeout``), replaces the computed wait of every attempt."""

    def __init__(self, baud, *, slowdown=1.0, timeout=None, latency=LATENCY):
        self.baud = int(baud)
        if self.baud <= 0:
            raise ValueError(f"baud rate must be positive, not {baud!r}")
        self.slowdown = float(slowdown)
        self.timeout = None if timeout is None else float(timeout)
        self.latency = float(latency)
        self.calibrated = False

    @property
    def byte_time(self):
        """Seconds per byte on this link (nominal byte time times the slowdown)."""
        return BITS_PER_BYTE / self.baud * self.slowdown

    @property
    def device_byte_timeout(self):
        """Seconds the device waits inside a frame before it drops it."""
        return P.TIMEOUT_BYTE_TIMES * self.byte_time

    def answer_time(self, request_len, reply_len):
        """Expected seconds from sending a request to the end of its immediate reply."""
        return self.latency + (request_len + reply_len) * self.byte_time

    def attempt_wait(self, request_len, reply_len, attempt):
        """Seconds of silence before attempt ``attempt`` (0 = the first send) is repeated:
        the latency plus MARGIN times the transfer time, the latter doubled with every
        attempt, up to 1.5 device inter-byte timeouts more than the first (so a damaged
        length field on the device side has timed out before the request is repeated)."""
        if self.timeout is not None:
            return self.timeout
        transfer = MARGIN * (request_len + reply_len) * self.byte_time
        return self.latency + min(transfer * 2 ** min(attempt, 30),
                                  transfer + 1.5 * self.device_byte_timeout)

    def search_allowance(self, clock_hz):
        """Seconds of :data:`SEARCH_ALLOWANCE_CYCLES` of a device at ``clock_hz``, on
        this link (times the slowdown: a virtual board simulates that much slower)."""
        return SEARCH_ALLOWANCE_CYCLES / max(1, clock_hz) * self.slowdown

    def search_wait(self, request_len, reply_len, clock_hz, probes=0):
        """Seconds of silence while a search may be running before it is probed (the
        SOLVE sent again): the first attempt's wait plus the search allowance, doubled
        with every BUSY in a row (``probes``), up to 16 times."""
        if self.timeout is not None:
            return self.timeout
        return (self.attempt_wait(request_len, reply_len, 0)
                + self.search_allowance(clock_hz)) * 2 ** min(probes, 4)

    def request_bound(self, request_len, reply_len, retries):
        """Seconds within which a request (ABORT, PING) ends, whatever arrives: the waits
        of its ``retries + 1`` attempts (the writes included)."""
        return sum(self.attempt_wait(request_len, reply_len, k) for k in range(retries + 1))

    def solve_bound(self, request_len, reply_len, clock_hz, retries):
        """Seconds within which a SOLVE ends, whatever arrives, but for the search (while
        the device answers every probe with BUSY): its first wait, which allows for a
        search, and the waits of ``retries`` attempts more."""
        return (self.search_wait(request_len, reply_len, clock_hz)
                + sum(self.attempt_wait(request_len, reply_len, k)
                      for k in range(1, retries + 1)))

    def puzzle_bound(self, rows, cols, clock_hz, retries):
        """Seconds within which the board engine ends on a ``rows`` x ``cols`` puzzle,
        whatever arrives, but for the search and ``--time-limit``: its
        :data:`REQUESTS_PER_PUZZLE` requests, each within its bound."""
        lengths = frame_lengths(rows, cols)
        reply = max(lengths["result"], lengths["deduce_result"])
        return (2 * self.request_bound(lengths["abort"], lengths["error"], retries)
                + self.request_bound(lengths["ping"], lengths["version"], retries)
                + self.solve_bound(lengths["solve"], reply, clock_hz, retries))

    @property
    def gap(self):
        """Seconds without a byte after which a frame being received is cut short (or
        garbage is over): the latency plus 32 byte times."""
        return self.latency + 32 * self.byte_time

    def measured(self, nbytes, seconds, *, matched=True):
        """Learn the slowdown from an exchange of ``nbytes`` that took ``seconds``.

        ``matched=False``: the reply may not be the timed request's own (it may be a
        late reply to an earlier request, which comes back sooner than any answer to
        this one could: see :class:`InFlight`).  Such an exchange only says that the
        link is *at least* this slow: it may raise the slowdown, never lower it, and it
        is no calibration (the first matched exchange still replaces the prior)."""
        nominal = nbytes * BITS_PER_BYTE / self.baud
        observed = max(1.0, (seconds - 0.002) / nominal) if nominal > 0 else 1.0
        before = self.slowdown
        if not matched:
            if observed > self.slowdown:
                self.slowdown = observed
                log.debug("link: %d bytes in %.4f s (unmatched reply): slowdown at least "
                          "%.1f", nbytes, seconds, self.slowdown)
            return
        if not self.calibrated:
            self.slowdown = observed
        else:  # rise at once, fall slowly (a loaded machine slows a virtual board down)
            self.slowdown = max(observed, (self.slowdown + observed) / 2)
        self.calibrated = True
        if abs(self.slowdown - before) > 0.1 * before:
            log.debug("link: %d bytes in %.4f s: slowdown %.1f (byte time %.3f ms)",
                      nbytes, seconds, self.slowdown, 1000 * self.byte_time)


def answers(reply):
    """The request type (ABORT or PING) whose answer ``reply`` (a decoded reply) can be,
    or None: VERSION answers only PING, NOT_BUSY and an ABORTED result only ABORT, an
    ERROR names the type of the frame it refuses."""
    if isinstance(reply, P.VersionReply):
        return P.MsgType.PING
    if isinstance(reply, (P.ResultReply, P.DeduceResultReply)):
        return P.MsgType.ABORT if reply.aborted else None
    if isinstance(reply, P.ErrorReply) and reply.request_type in (P.MsgType.PING,
                                                                  P.MsgType.ABORT):
        return P.MsgType(reply.request_type)
    return None


class InFlight:
    """The ABORTs and PINGs sent on one link whose replies have not come back, in the
    order they were sent: which request a reply answers, so that a link is timed only
    on a reply that is certainly the timed request's own.

    The protocol has no sequence number, and a request that went unanswered for a
    while may still be answered later: a very slow device (a 20x36 virtual board
    simulates some 20,000 times slower than a 50 MHz board) answers the ABORTs a
    connection sent before it gave up, one after the other, long after they were sent.
    When the next connection's first ABORT is "answered" at once by the reply to one
    of those, timing that exchange would teach the host a link hundreds of times too
    fast, and every later wait would be far too short.

    The device answers in order, one reply per request.  So a reply is given to the
    *oldest* outstanding request it can answer (:func:`answers`), and every request
    sent before that one is over (answered or lost).  Given to the oldest, a reply is
    never credited to a request later than its own: an exchange whose reply is
    credited to the timed request itself is that request's (unless the reply answers
    a request this host never saw, e.g. one of another program before it).  A lost
    reply leaves its request outstanding until a reply to a later request clears it:
    meanwhile the link is simply not timed.  SOLVE is left out: its replies (RESULT,
    BUSY) answer neither ABORT nor PING.

    It also keeps the count of the replies the device may still send (:attr:`owed`):
    one for every frame written -- a device answers each frame it receives once --
    less one for every reply received, kept to ``size`` (a lost reply is never sent).
    A late reply to a frame sent before shows a device working through what it was
    sent; a device that sends more than :data:`UNASKED_REPLIES` replies beyond them
    sends frames that answer no request (:attr:`unasked`)."""

    def __init__(self, size=256):
        self._sent = collections.deque(maxlen=size)  # (token, request type)
        self._tokens = itertools.count(1)
        self.size = size
        self.owed = 0

    @property
    def unasked(self):
        """Whether the device has sent more replies than it can owe: frames that answer
        no request."""
        return self.owed < -UNASKED_REPLIES

    def sent(self, request_type):
        """A request of ``request_type`` was written: its token (None if not tracked)."""
        self.owed = min(self.owed + 1, self.size)
        if request_type not in (P.MsgType.PING, P.MsgType.ABORT):
            return None
        token = next(self._tokens)
        self._sent.append((token, request_type))
        return token

    def received(self, reply):
        """A reply came back: the token of the request it answers (the oldest that it can
        answer; the requests before that one are over), or None."""
        self.owed -= 1
        kind = answers(reply)
        if kind is None:
            return None
        for index, (token, request_type) in enumerate(self._sent):
            if request_type == kind:
                for _ in range(index + 1):
                    self._sent.popleft()
                return token
        return None

    def __len__(self):
        return len(self._sent)


# -- the frame log (--verbose) -----------------------------------------------------------

def _type_name(type):
    try:
        return P.MsgType(type).name
    except ValueError:
        return f"type {type:#04x}"


def describe_frame(frame):
    """A short decoding of a good frame: its type and what it says."""
    name = _type_name(frame.type)
    try:
        if frame.type == P.MsgType.SOLVE and len(frame.payload) >= 3:
            rows, cols, flags = struct.unpack_from("<BBB", frame.payload)
            return (f"SOLVE {rows}x{cols}" + (" unique" if flags & P.FLAG_UNIQUE else "")
                    + (" deduce" if flags & P.FLAG_DEDUCE else ""))
        if frame.type in (P.MsgType.RESULT, P.MsgType.DEDUCE_RESULT, P.MsgType.VERSION,
                          P.MsgType.ERROR):
            reply = P.decode_reply(frame)
            if isinstance(reply, P.ResultReply):
                extra = " aborted" if reply.aborted else ""
                return (f"RESULT {reply.status.name} {reply.rows}x{reply.cols}{extra} "
                        f"checks {reply.counters.get('checks', 0)} cycles {reply.cycles}")
            if isinstance(reply, P.DeduceResultReply):
                extra = (" aborted" if reply.aborted else "") + \
                    (" trail full" if reply.trail_full else "")
                return (f"DEDUCE_RESULT {reply.status.name} {reply.rows}x{reply.cols}{extra} "
                        f"decisions {reply.counters['decisions']} cycles {reply.cycles}")
            if isinstance(reply, P.VersionReply):
                return (f"VERSION protocol {reply.protocol} {reply.max_rows}x{reply.max_cols} "
                        f"{reply.clock_hz} Hz {reply.baud} baud"
                        + (" deduce" if reply.deduce_ok else ""))
            return (f"ERROR {reply.name} (request type {reply.request_type:#04x}, "
                    f"detail {reply.detail})")
    except (P.ProtocolError, ValueError, struct.error) as error:
        return f"{name} (undecodable: {error})"
    return name


def _hex(data):
    return bytes(data).hex(" ")


def log_sent(port, data, what=""):
    """-v: a frame written to the port."""
    if log.isEnabledFor(logging.INFO):
        events = P.FrameDecoder().feed(data)
        name = describe_frame(events[0]) if events else "raw bytes"
        log.info("%s <- %s%s: %s", port, name, f" ({what})" if what else "", _hex(data))


def log_received(port, data, skipped):
    """-v: bytes read from the port that are no part of any frame (``skipped`` of
    ``data``: the decoder's garbage), so that noise shows; -vv: every byte read."""
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%s -> %d bytes: %s", port, len(data), _hex(data))
    elif skipped and log.isEnabledFor(logging.INFO):
        shown = bytes(data[:32])
        log.info("%s -> %d bytes outside any frame (of %d read): %s%s", port, skipped,
                 len(data), _hex(shown), " ..." if len(data) > len(shown) else "")


def log_event(port, event):
    """-v: a frame (or a dropped candidate frame) received from the port."""
    if not log.isEnabledFor(logging.INFO):
        return
    if isinstance(event, P.BadFrame):
        log.info("%s -> bad frame (%s, detail %d): %s", port, P.ErrorCode(event.code).name,
                 event.detail, _hex(event.raw))
    else:
        log.info("%s -> %s: %s", port, describe_frame(event),
                 _hex(P.encode_frame(event.type, event.payload)))
