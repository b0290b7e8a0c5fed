"""The UART link to a board: timing derived from the baud rate and the frame lengths,
the retry policy and its bound, the ledger of a link's sequence numbers, and the frame log
of ``--verbose``.

docs/design.md section 4 (UART protocol).  Nothing here is a fixed number of
seconds: every wait is computed from

* the **byte time** ``10 / baud`` (8N1) at the line's current rate, multiplied by the
  link's *slowdown*: 1 for a real board; a virtual board simulates some 15 to 300 times
  slower than the board, so a pseudo-terminal starts with the prior
  :data:`VIRTUAL_SLOWDOWN` and a reply to a PING then measures the real slowdown
  (:meth:`LinkTiming.measured`; a virtual board this program started reports its
  simulated time, which gives it exactly: :mod:`host.device.virtual`) -- but only a
  reply that is certainly the timed request's own, by its SEQ, may make the link faster;
* the **frame lengths** of the request and of its expected reply (computed with
  :mod:`host.protocol`'s encoders, so they follow the protocol), and of the *flush*
  (:func:`flush_length`: zeros that end any frame a damaged header left pending on the
  device, sent before a request is sent again after silence);
* the device's **inter-byte timeout** (``TIMEOUT_BYTE_TIMES`` byte times), which is also
  the *quiet flush*: before the device's VERSION has told its largest request, the flush
  is no zeros (the protocol's largest request would take a virtual board minutes at the
  start rate) but silence, the wait of a resend lengthened by the time the device takes to
  drop a candidate that stopped (:meth:`LinkTiming.flush_time`); its rescan then finds the
  request inside it;
* the device's **confirmation window** of a new rate (``clock_hz >>
  BAUD_CONFIRM_CYCLES_SHIFT`` cycles, :meth:`LinkTiming.confirm_window`);
* a fixed allowance :data:`LATENCY` for the USB-serial latency timer and the
  operating system.

A request is sent again when no accepted answer came within
:meth:`LinkTiming.attempt_wait` (doubling with every attempt, up to the device's
inter-byte timeout and more), or at once when the device reports a damaged frame, a
damaged frame comes back, or the answer to a later request comes first (the device answers
its queue in order).  While a search may be running, the host waits
:meth:`LinkTiming.search_wait`, which adds :data:`SEARCH_ALLOWANCE_CYCLES` of the device's
clock, before it sends the SOLVE again with a PING as a probe (a device that is alive
answers the PING also while it searches; one that lost the request starts it now).
:data:`DEFAULT_RETRIES` resends in a row are allowed (``--retries``); a VERSION answering a
probe resets the count.  After :data:`SILENT_ATTEMPTS` attempts in a row with not a single
byte back the device is declared silent; after as many that ran to their end with bytes
still arriving and not one valid frame among them (noise), or with nothing back but our own
frames (an echo), its answers are garbled.

**The bound.**  Every wait is a deadline: bytes arriving never extend it, with one
exception: a reply the device still owed to a frame sent before (it answers each frame at
most once) starts the wait anew, at most once for each such frame.  So a request ends
within :meth:`LinkTiming.request_bound`, ``retries + 1`` attempt waits (with ``--timeout
T``: ``(retries + 1) * T``), plus one for each reply the device still owed, whatever
arrives -- noise, an echo, damaged frames, or valid frames that answer no request (more
replies than the frames sent, :data:`UNASKED_REPLIES` aside, are garbled answers at once).
Connecting (ABORT, PING, and the switch to the fast rate: SET_BAUD, its confirmation and,
when that fails, the way back to the start rate) ends within
:meth:`LinkTiming.connect_bound`.  A SOLVE ends within :meth:`LinkTiming.solve_bound` from
the moment it is the oldest unanswered one (several are in flight; the device solves them
in order), but for the search itself, which lasts as long as the device answers every probe
(``--time-limit`` bounds it).  A puzzle therefore ends within
:meth:`LinkTiming.puzzle_bound` (a connection, then its SOLVE) of the end of the one before
it, and a run of n puzzles within n times that.
"""

import logging
import random
import struct

from slitherlink.spec.protocol import BAUD_CONFIRM_CYCLES_SHIFT

from .. import protocol as P

__all__ = ["LinkTiming", "Ledger", "DEFAULT_RETRIES", "SILENT_ATTEMPTS", "LATENCY",
           "VIRTUAL_SLOWDOWN", "MARGIN", "SEARCH_ALLOWANCE_CYCLES", "BITS_PER_BYTE",
           "UNASKED_REPLIES", "SET_BAUD_ATTEMPTS", "frame_lengths", "flush_length",
           "connection_flush", "describe_frame", "log_sent", "log_event", "log_received", "log"]

log = logging.getLogger(__name__)

#: resends in a row after a lost or damaged answer (--retries); at 1 % byte loss a
#: 10x10 SOLVE and its ANSWER get through together about one time in three
DEFAULT_RETRIES = 99
#: attempts in a row without a single byte back: the device is silent (and as many
#: with nothing but noise, or nothing but our own frames, back: its answers are garbled)
SILENT_ATTEMPTS = 3
#: attempts at SET_BAUD: the line works at the start rate, so after these the host
#: carries on there
SET_BAUD_ATTEMPTS = 3
#: replies beyond one per frame sent that a link may carry: answers to requests this
#: program never saw (another program's, before it); more are garbled answers
UNASKED_REPLIES = 8
#: seconds allowed for the USB-serial latency timer (16 ms), the OS (a loaded machine
#: delays a thread by 100 ms and more) and the firmware
LATENCY = 0.25
#: how much slower than its baud rate a pseudo-terminal (a virtual board) is assumed
#: to be until measured: the virtual board simulates ~0.5 M cycles/s of a 50 MHz SoC
#: (100x) on an idle machine; 300x was measured on a loaded one
VIRTUAL_SLOWDOWN = 300.0
#: waits are this many times the expected answer time
MARGIN = 2.0
#: device cycles a search may run before the host first probes it (2^25: about 0.7 s at
#: the Arty's default clock, about 4 times the paper's average 10x10 search of 7.9 M
#: cycles).  A probe
#: that arrives during a search costs the firmware cycles (receiving the frames, answering
#: the PING), so probing early would distort the cycle counts measured on the virtual
#: board
SEARCH_ALLOWANCE_CYCLES = 1 << 25
#: UART 8N1: start bit, 8 data bits, stop bit
BITS_PER_BYTE = 10


def frame_lengths(rows=1, cols=1):
    """Lengths in bytes of the frames of one exchange, from the protocol's encoders:
    ``ping``, ``abort``, ``set_baud``, ``solve`` (a ``rows`` x ``cols`` SOLVE), ``version``,
    ``baud``, ``error``, and the replies to the SOLVE when solved: ``answer`` (no
    counters), ``result`` (paper mode's counters) and ``deduce_result`` (deduce mode's)."""
    from ..puzzle import Puzzle
    from ..result import Status
    puzzle = Puzzle([[None] * cols for _ in range(rows)])
    blank = tuple(tuple(False for _ in range(cols)) for _ in range(rows))
    return {
        "ping": len(P.encode_ping()), "abort": len(P.encode_abort()),
        "set_baud": len(P.encode_set_baud(0)),
        "solve": len(P.encode_solve(puzzle, mode=P.Mode.PAPER))  # as long in either mode
        if max(rows, cols) <= P.MAX_GRID else 0,
        "version": len(P.encode_version(max_rows=1, max_cols=1, clock_hz=1, baud=1, regmap=0)),
        "baud": len(P.encode_baud(1, 1)),
        "error": len(P.encode_error(P.ErrorCode.BUSY)),
        "answer": len(P.encode_answer(Status.SOLVED, rows, cols, solution=blank)),
        "result": len(P.encode_result(Status.SOLVED, rows, cols, solution=blank)),
        "deduce_result": len(P.encode_deduce_result(Status.SOLVED, rows, cols, solution=blank)),
    }


def flush_length(max_payload=None):
    """Bytes of the flush: :data:`spec.protocol.OVERHEAD` plus the device's largest request
    payload (VERSION's ``max_payload``; None: the protocol's ``MAX_PAYLOAD``, a bound for
    any build), which end any candidate frame whatever arrived before."""
    return P.OVERHEAD + (P.MAX_PAYLOAD if max_payload is None else max_payload)


def connection_flush(max_payload):
    """The flush a connection sends before a resend after silence: :func:`flush_length`
    zeros of the device's largest request, or, while that is unknown (``max_payload``
    None, before the device's VERSION), None: the quiet flush (no zeros; the resend's wait
    covers the device's inter-byte timeout, :meth:`LinkTiming.flush_time`)."""
    return None if max_payload is None else flush_length(max_payload)


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
        self.exact = False  # the slowdown is the device's own (a virtual board's clock)

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

    def flush_time(self, flush):
        """Seconds a flush sent before a request adds to its wait: MARGIN times the time
        of ``flush`` zeros, or, for the quiet flush (``flush`` None), MARGIN times the
        device's inter-byte timeout (a candidate the device holds is dropped that long
        after its last byte, and the rescan answers the request inside it)."""
        if flush is None:
            return MARGIN * self.device_byte_timeout
        return MARGIN * flush * self.byte_time

    def attempt_wait(self, request_len, reply_len, attempt, flush=0):
        """Seconds of silence before attempt ``attempt`` (0 = the first send) is repeated:
        the latency plus MARGIN times the transfer time, the latter doubled with every
        attempt, up to 1.5 device inter-byte timeouts more than the first; plus the
        :meth:`flush_time` of the flush sent before the request (``flush``: its zeros, or
        None for the quiet flush); ``--timeout`` when it is given."""
        if self.timeout is not None:
            return self.timeout
        return self.link_wait(request_len, reply_len, attempt, flush)

    def link_wait(self, request_len, reply_len, attempt, flush=0):
        """:meth:`attempt_wait` as the link's timing makes it, whatever ``--timeout``."""
        transfer = MARGIN * (request_len + reply_len) * self.byte_time
        return self.latency + self.flush_time(flush) + min(
            transfer * 2 ** min(attempt, 30), transfer + 1.5 * self.device_byte_timeout)

    def search_allowance(self, clock_hz):
        """Seconds of :data:`SEARCH_ALLOWANCE_CYCLES` of a device at ``clock_hz``, on
        this link (times the slowdown: a virtual board simulates that much slower)."""
        return SEARCH_ALLOWANCE_CYCLES / max(1, clock_hz) * self.slowdown

    def search_wait(self, request_len, reply_len, clock_hz, probes=0):
        """Seconds of silence while a search may be running before it is probed: the first
        attempt's wait plus the search allowance, doubled with every probe answered in a
        row (``probes``), up to 16 times."""
        if self.timeout is not None:
            return self.timeout
        return (self.attempt_wait(request_len, reply_len, 0)
                + self.search_allowance(clock_hz)) * 2 ** min(probes, 4)

    def confirm_window(self, clock_hz):
        """Seconds of the device's window for confirming a new rate (``clock_hz >>
        BAUD_CONFIRM_CYCLES_SHIFT`` cycles), on this link."""
        return (max(1, clock_hz) >> BAUD_CONFIRM_CYCLES_SHIFT) / max(1, clock_hz) \
            * self.slowdown

    def set_baud_wait(self, request_len, reply_len, clock_hz, attempt, flush=0):
        """The wait of a SET_BAUD attempt: at least the confirmation window and a quarter
        (a device whose BAUD was lost has gone back to its start rate by then)."""
        return max(self.attempt_wait(request_len, reply_len, attempt, flush),
                   1.25 * self.confirm_window(clock_hz))

    def request_bound(self, request_len, reply_len, retries, flush=0):
        """Seconds within which a request (ABORT, PING) ends, whatever arrives: the waits
        of its ``retries + 1`` attempts (the writes included; the flush, ``flush`` zeros or
        None for the quiet one, before every resend)."""
        return sum(self.attempt_wait(request_len, reply_len, k, flush if k else 0)
                   for k in range(retries + 1))

    def switch_bound(self, clock_hz, retries, flush=0):
        """Seconds within which the switch to another rate ends, whatever arrives:
        :data:`SET_BAUD_ATTEMPTS` SET_BAUDs, the confirmation window, and the PINGs of the
        way back to the start rate (and of the new rate, should the device have kept it)."""
        lengths = frame_lengths()
        set_baud = sum(self.set_baud_wait(lengths["set_baud"], lengths["baud"], clock_hz, k,
                                          flush if k else 0)
                       for k in range(SET_BAUD_ATTEMPTS))
        ping = self.request_bound(lengths["ping"], lengths["version"], retries, flush)
        return set_baud + 1.25 * self.confirm_window(clock_hz) + 2 * ping

    def elsewhere_bound(self, others):
        """Seconds of the ABORTs at ``others`` rates the device may have been left at, one
        attempt at each (the longest, at this link's rate), when it does not answer at its
        start rate."""
        lengths = frame_lengths()
        return others * self.attempt_wait(lengths["abort"], lengths["error"], 0)

    def connect_bound(self, clock_hz, retries, *, switch=True, max_payload=None, others=0):
        """Seconds within which connecting ends, whatever arrives: ABORT (at the start rate
        and one attempt at each of ``others`` rates), PING and, with ``switch``, the switch
        to the fast rate (:meth:`switch_bound`).  Before the device's VERSION a resend's
        flush is the quiet one, or the zeros of the largest request (``max_payload``; None:
        the protocol's) when this program heard a VERSION on the link before: the longer
        counts; after it, those zeros."""
        lengths = frame_lengths()
        zeros = flush_length(max_payload)

        def before_version(request_len, reply_len):
            return max(self.request_bound(request_len, reply_len, retries, flush)
                       for flush in (zeros, None))
        return (before_version(lengths["abort"], lengths["error"])
                + self.elsewhere_bound(others)
                + before_version(lengths["ping"], lengths["version"])
                + (self.switch_bound(clock_hz, retries, zeros) if switch else 0.0))

    def solve_bound(self, request_len, reply_len, clock_hz, retries):
        """Seconds within which the oldest SOLVE in flight ends, whatever arrives, but for
        the search (while the device answers every probe): its first wait, which allows for
        a search, and the waits of ``retries`` attempts more.  ``request_len`` is what a
        resend sends (:meth:`resend_length`)."""
        return (self.search_wait(request_len, reply_len, clock_hz)
                + sum(self.attempt_wait(request_len, reply_len, k)
                      for k in range(1, retries + 1)))

    @staticmethod
    def resend_length(solve_len, depth=1, max_payload=None):
        """Bytes of a resend after silence: the flush, the SOLVEs in flight (at most
        ``depth``) and the PING that probes the device."""
        return flush_length(max_payload) + depth * solve_len + frame_lengths()["ping"]

    def puzzle_bound(self, rows, cols, clock_hz, retries, *, depth=1, switch=False,
                     max_payload=None, others=0):
        """Seconds within which the board engine ends on a ``rows`` x ``cols`` puzzle after
        the one before it, whatever arrives, but for the search and ``--time-limit``: a
        connection (after a failure the next puzzle connects afresh) and its SOLVE."""
        lengths = frame_lengths(rows, cols)
        reply = max(lengths["answer"], lengths["result"], lengths["deduce_result"])
        return (self.connect_bound(clock_hz, retries, switch=switch, max_payload=max_payload,
                                   others=others)
                + self.solve_bound(self.resend_length(lengths["solve"], depth, max_payload),
                                   reply, clock_hz, retries))

    @property
    def gap(self):
        """Seconds without a byte after which a frame being received is cut short (or
        garbage is over): the latency plus 32 byte times."""
        return self.latency + 32 * self.byte_time

    def measured(self, nbytes, seconds, *, matched=True):
        """Learn the slowdown from an exchange of ``nbytes`` that took ``seconds``.

        ``matched=False``: the reply may not be the timed request's own.  Such an exchange
        only says that the link is *at least* this slow: it may raise the slowdown, never
        lower it, and it is no calibration (the first matched exchange still replaces the
        prior)."""
        if self.exact:
            return
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

    def simulated(self, slowdown):
        """The slowdown told by the device itself (a virtual board's simulated time)."""
        self.slowdown = max(1.0, float(slowdown))
        self.calibrated = self.exact = True


class Ledger:
    """The sequence numbers of one link and the replies its device may still owe.

    A request's SEQ (:data:`spec.protocol.REQUEST_SEQS`) is taken in turn, skipping those
    still in use, from a random start (so that a new program is unlikely to meet the SEQs
    of the one before it); it stays in use until :meth:`release`, and the link's next SEQs
    go round all 255 before one comes again, so a late reply to an earlier request (of this
    connection or of one before it on the same port) names a request that is over.

    It also keeps the count of the replies the device may still send (:attr:`owed`):
    one for every frame written -- a device answers each frame it receives at most once --
    less one for every reply received, kept to ``size``.  A device that sends more than
    :data:`UNASKED_REPLIES` replies beyond them sends frames that answer no request
    (:attr:`unasked`)."""

    def __init__(self, size=256, first=None):
        self.size = size
        self.owed = 0
        self.rate = None  # the rate the device was last set to (it may still be there)
        # the largest request payload of the device's last VERSION: the flush of a new
        # connection before its own VERSION (None: none heard, the quiet flush)
        self.max_payload = None
        seqs = P.REQUEST_SEQS
        self._next = random.randrange(seqs.start, seqs.stop) if first is None else first
        self._used = set()

    @property
    def unasked(self):
        """Whether the device has sent more replies than it can owe: frames that answer
        no request."""
        return self.owed < -UNASKED_REPLIES

    def take(self):
        """A SEQ for a new request, in use until :meth:`release`."""
        seqs = P.REQUEST_SEQS
        for _ in range(len(seqs)):
            seq = self._next
            self._next = seq + 1 if seq + 1 < seqs.stop else seqs.start
            if seq not in self._used:
                self._used.add(seq)
                return seq
        raise RuntimeError("every SEQ is in use")

    def release(self, seq):
        self._used.discard(seq)

    def sent(self, frames=1):
        """``frames`` frames (or a flush) were written."""
        self.owed = min(self.owed + frames, self.size)

    def received(self):
        """A reply came back."""
        self.owed -= 1


# -- the frame log (--verbose) -----------------------------------------------------------

def _type_name(type):
    try:
        return P.MsgType(type).name
    except ValueError:
        return f"type {type:#04x}"


def describe_frame(frame):
    """A short decoding of a good frame: its type, its SEQ and what it says."""
    return f"{_describe(frame)} seq {frame.seq}"


def _describe(frame):
    name = _type_name(frame.type)
    try:
        if frame.type == P.MsgType.SOLVE and len(frame.payload) >= 3:
            rows, cols, flags = struct.unpack_from("<BBB", frame.payload)
            return (f"SOLVE {rows}x{cols}" + (" unique" if flags & P.FLAG_UNIQUE else "")
                    + (" deduce" if flags & P.FLAG_DEDUCE else "")
                    + (" counters" if flags & P.FLAG_COUNTERS else ""))
        if frame.type == P.MsgType.SET_BAUD:
            return f"SET_BAUD {P.decode_set_baud(frame)}"
        if frame.type == P.MsgType.RESEND:
            return f"RESEND of the SOLVE with CRC 0x{P.decode_resend(frame):04X}"
        if frame.type in (P.MsgType.PING, P.MsgType.ABORT, P.MsgType.STATS):
            return name
        reply = P.decode_reply(frame)
        if isinstance(reply, P.OUTCOMES):
            extra = (" aborted" if reply.aborted else "") + \
                (" trail full" if reply.trail_full else "")
            head = f"{name} {reply.status.name} {reply.rows}x{reply.cols}{extra}"
            if isinstance(reply, P.ResultReply):
                return f"{head} checks {reply.counters.get('checks', 0)} cycles {reply.cycles}"
            if isinstance(reply, P.DeduceResultReply):
                return f"{head} decisions {reply.counters['decisions']} cycles {reply.cycles}"
            return head + (" deduce" if reply.mode is P.Mode.DEDUCE else "")
        if isinstance(reply, P.VersionReply):
            return (f"VERSION protocol {reply.protocol} {reply.max_rows}x{reply.max_cols} "
                    f"{reply.clock_hz} Hz {reply.baud} baud (start {reply.start_baud}, "
                    f"fastest {reply.max_baud}) queue {reply.queue}"
                    + (" deduce" if reply.deduce_ok else ""))
        if isinstance(reply, P.BaudReply):
            return f"BAUD {reply.baud} (divisor {reply.divisor})"
        if isinstance(reply, P.ErrorReply):
            return (f"ERROR {reply.name} (request type {reply.request_type:#04x}, "
                    f"detail {reply.detail})")
        return name
    except (P.ProtocolError, ValueError, struct.error) as error:
        return f"{name} (undecodable: {error})"


def _hex(data):
    return bytes(data).hex(" ")


def log_sent(port, data, what=""):
    """-v: a frame written to the port."""
    if not log.isEnabledFor(logging.INFO):
        return
    if data and not any(data):
        log.info("%s <- %d zero bytes%s", port, len(data), f" ({what})" if what else "")
        return
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
        log.info("%s -> %s: %s", port, describe_frame(event), _hex(event.encode()))
