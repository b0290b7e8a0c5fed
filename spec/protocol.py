"""The UART protocol between the host and the SoC, defined once.

Paper Fig. 7 puts the solver behind a soft CPU; our CPU talks to the host over
a UART with the framed messages below.  This module is the single source of
the protocol: every message layout is a small class (:class:`Layout`) whose
annotated fields give the sizes and offsets; the host encodes and decodes with
them (:mod:`host.protocol`), the fake device serves them, the firmware includes
the generated ``slk_protocol.h`` (offsets, sizes and typed accessors) and
``docs/protocol.md`` is generated from them (``python -m slitherlink.spec.generate``).

Frame (every multi-byte integer is little-endian)::

    START  LEN_LO LEN_HI  TYPE  SEQ  CHECK  PAYLOAD (LEN bytes)  CRC_LO CRC_HI

* ``START`` is 0xA5; bytes outside a frame that are not ``START`` are skipped
  silently (garbage between frames is not an error).
* ``LEN`` counts the payload only.  A request may be no longer than the build takes
  (VERSION's ``max_payload``: its largest SOLVE; PING, ABORT and STATS are empty,
  SET_BAUD is 4 bytes); a longer LEN is a BAD_LENGTH drop.
* ``SEQ`` names a request (1 to 255, chosen by the host); every reply carries the SEQ of
  the request it answers, so the host matches answers to requests with several in
  flight.  ERROR frames about bytes that were not a whole request carry SEQ 0.
* ``CHECK`` is CRC-8 (poly 0x07, init 0, not reflected) over LEN, TYPE and SEQ: the
  receiver checks the header before it waits for the payload, so a damaged LEN is
  dropped at once instead of swallowing the frames behind it.
* The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no
  final xor; check value 0x29B1 for ``b"123456789"``) over LEN, TYPE, SEQ, CHECK and
  PAYLOAD (not over START).

Resynchronisation (the firmware and :class:`host.protocol.FrameDecoder` do
exactly this): a candidate frame starts at a START byte.  When it fails (CHECK
wrong, LEN too large, CRC wrong, or no byte arrived for the inter-byte timeout in
the middle of it), the receiver reports the error and starts again at the byte
after that START byte, so a valid frame hidden inside garbage or behind a
truncated frame is still found.  The inter-byte timeout is
:data:`TIMEOUT_BYTE_TIMES` byte times (10 bits each) at the current baud rate,
measured with the SoC's cycle counter.  A candidate is never longer than the
build's largest request, so :data:`OVERHEAD` + ``max_payload`` bytes that are not
START (the host's *flush*, zeros) end any candidate whatever arrived before them:
the host sends them before it sends a request again after silence, and the device
answers the next good frame however long the host was away.  Silence for the
inter-byte timeout ends any candidate too (the host's *quiet flush*, before it knows
``max_payload``).

Requests and their replies (the device's rules; the fake device follows them):

* SOLVE goes into a queue of VERSION's ``queue`` requests (from :data:`QUEUE_DEPTH_MIN` to
  :data:`QUEUE_DEPTH_MAX`, the more the smaller the build's grids); the device solves them in
  order, one at a time, and answers each with one reply: ANSWER (status and colouring),
  or RESULT / DEDUCE_RESULT (the counters too) when the SOLVE asks for them
  (FLAG_COUNTERS).  A SOLVE while the queue is full gets ERROR BUSY.
* A SOLVE whose SEQ and CRC are those of a request queued or being solved is a
  resend: it is dropped (its answer is on its way).  One whose SEQ and CRC are those of
  one of the last :data:`STORE_DEPTH` requests answered gets that answer again, without
  a new search.
* RESEND asks for an answer again in 9 bytes instead of the whole SOLVE: its SEQ and its
  payload (the SOLVE frame's CRC) name the SOLVE.  The device sends the stored answer
  again, or ERROR PENDING when that SOLVE is queued or being solved (its answer is on its
  way), or ERROR UNKNOWN_SEQ when it has no such SOLVE (the SOLVE was lost: the host sends
  it again).  On a lossy line a lost answer thus costs a short request, not the whole
  SOLVE again.
* ABORT ends the running search (its reply carries the ABORTED flag and the counters so
  far), empties the queue (those requests get no reply) and forgets the stored answers;
  with no search running it gets ERROR NOT_BUSY.
* SET_BAUD (only while no search runs and the queue is empty, else ERROR BUSY) asks for
  another rate: the device answers BAUD at the old rate, then switches; it keeps the new
  rate once it receives a good frame at it within :data:`BAUD_CONFIRM_CYCLES_SHIFT`
  (a quarter of a second of its clock), else it goes back to its start rate.  The host
  switches when it has the BAUD reply and confirms with PING; without an answer it
  returns to the start rate too.  VERSION says the rate in use, the start rate and the
  fastest the build offers.
* PING (VERSION) and STATS (STATS_REPLY) are answered at any time, also while a search
  runs.
* The device serves its UART (an access to its registers completes) at least every
  :data:`SERVICE_INTERVAL_CYCLES` of its clock while it runs: a search polls the receiver
  every 32 checks (paper mode) or every 64 polls of the engine (deduce mode), and a byte
  sent waits for room at most one byte time (10 bit times of at most 2^16 cycles).  A
  device that goes longer is hung; the virtual board reports when its firmware last
  served the UART, so a host finds a hung one without sending a byte.
* While a search runs, each poll of the receiver takes at most two requests; the rest
  wait in the receive buffer.  Requests that come faster than their replies can leave
  slow the search, never stop it (the buffer overruns; the host sends again what was
  lost).

Error replies under garbage (the firmware's rule): a frame received whole with a
good CRC is always answered (its reply, or an ERROR when it is refused).  A
dropped candidate (CHECK wrong, LEN too large, bad CRC, timeout) and lost bytes
(OVERRUN) are answered with an ERROR only when the transmitter is idle; otherwise no
ERROR is sent and the drop is only counted (STATS ``errors_suppressed``), so a
burst of garbage never makes the device send faster than the line carries.
The device never stops receiving while it transmits: it moves received bytes
into its frame buffer while it waits for room in the transmit FIFO.
"""

import binascii
import enum
import struct
from dataclasses import dataclass, replace

from slitherlink.spec import counters as _counters

__all__ = [
    "START", "PROTOCOL_VERSION", "MAX_GRID", "MAX_PAYLOAD", "OVERHEAD", "TIMEOUT_BYTE_TIMES",
    "QUEUE_DEPTH_MIN", "QUEUE_DEPTH_MAX", "STORE_DEPTH", "BAUD_CONFIRM_CYCLES_SHIFT",
    "SERVICE_INTERVAL_CYCLES",
    "REQUEST_SEQS",
    "CLUE_BLANK", "clue_code_bad", "FLAG_UNIQUE", "FLAG_DEDUCE", "FLAG_COUNTERS", "SOLVE_FLAGS",
    "RESULT_ABORTED", "RESULT_UNIQUE", "RESULT_TRAIL_FULL", "VERSION_ACCEL_OK",
    "VERSION_DEDUCE_OK", "Mode", "CRC_INIT", "CRC_POLY", "crc16", "CRC8_POLY",
    "CRC8_TABLE", "crc8", "header_check", "MsgType", "ErrorCode", "Status", "status_of",
    "Int", "Tail", "u8", "u16", "u32", "u64", "Layout", "FrameHeader", "FrameCrc", "Empty",
    "Solve", "Resend", "SetBaud", "Answer", "Result", "DeduceResult", "Version", "Baud", "Error",
    "Stats", "PAYLOADS", "REQUEST_LENGTHS", "COUNTERS", "DEDUCE_COUNTERS", "STATS_COUNTERS",
    "solve_length", "answer_length", "result_length", "reply_length", "c_header", "markdown",
]

#: First byte of every frame.
START = 0xA5
#: Version of this protocol, reported by VERSION.
PROTOCOL_VERSION = 2
#: Largest grid side the protocol can carry (the register map's 64x64 window).
MAX_GRID = 64
#: Inter-byte timeout inside a frame, in byte times (10 bits) at the build's baud.
TIMEOUT_BYTE_TIMES = 256  # 22 ms at 115200 baud: room for USB-serial gaps
#: SOLVE requests a device holds (the one being solved and those waiting behind it): at
#: least QUEUE_DEPTH_MIN, and in a build of small grids as many more as its smallest receive
#: ring holds, up to QUEUE_DEPTH_MAX (spec.registers.queue_depth; VERSION's ``queue`` says
#: how many).  A host keeps that many in flight: enough requests to cover the USB bridge's
#: latency (a millisecond with its latency timer at 1 ms) at a small grid's rate.
QUEUE_DEPTH_MIN = 4
QUEUE_DEPTH_MAX = 16
#: Answers the device keeps to send again when their request comes again.
STORE_DEPTH = 4
#: SET_BAUD's confirmation window: clock_hz >> this many cycles (a quarter of a second).
BAUD_CONFIRM_CYCLES_SHIFT = 2
#: The longest the device goes without serving its UART while it runs, in its cycles.
SERVICE_INTERVAL_CYCLES = 1 << 20
#: The SEQ values of requests (0 marks a device frame that answers no request).
REQUEST_SEQS = range(1, 256)

#: 4-bit clue code of a blank cell in SOLVE (0..3 are the digits; 4..14 are errors).
CLUE_BLANK = 0xF


def clue_code_bad(code):
    """Whether a SOLVE's 4-bit clue code is neither a digit 0..3 nor CLUE_BLANK (refused
    with BAD_CLUE).  Works on ints and on Amaranth values alike (the UART checks the codes
    it copies out of its ring with it)."""
    return (code > 3) & (code != CLUE_BLANK)


#: SOLVE flags.
FLAG_UNIQUE = 0x01  # search on for a second solution (status SOLVED_UNIQUE / MULTIPLE)
FLAG_DEDUCE = 0x02  # mode: the deduction engine instead of the paper's search
FLAG_COUNTERS = 0x04  # reply RESULT (paper) or DEDUCE_RESULT (deduce) with the counters,
                      # instead of ANSWER
SOLVE_FLAGS = FLAG_UNIQUE | FLAG_DEDUCE | FLAG_COUNTERS

#: RESULT flags.
#: ANSWER, RESULT and DEDUCE_RESULT flags.
RESULT_ABORTED = 0x01  # the search was ended by an ABORT request
RESULT_UNIQUE = 0x02   # the request asked for uniqueness (echo of FLAG_UNIQUE)
RESULT_TRAIL_FULL = 0x04  # deduce mode: the search stopped (LIMIT) because the hardware
                          # trail was full
RESULT_DEDUCE = 0x08   # the answer is deduce mode's (echo of FLAG_DEDUCE)

#: VERSION flags.
VERSION_ACCEL_OK = 0x01  # the accelerator answered with the right ID and size
VERSION_DEDUCE_OK = 0x02  # the build has the deduction engine, with the right ID and size


class Mode(enum.IntEnum):
    """What a SOLVE runs: the paper's search (section 3) or the deduction engine (docs/design.md
    section 6).  On the wire: SOLVE's FLAG_DEDUCE bit."""
    PAPER = 0
    DEDUCE = 1

    @property
    def flag(self):
        return FLAG_DEDUCE if self is Mode.DEDUCE else 0

#: CRC-16/CCITT-FALSE.
CRC_POLY = 0x1021
CRC_INIT = 0xFFFF


class MsgType(enum.IntEnum):
    """Frame types: requests below 0x80, replies from 0x80 on."""
    PING = 0x01     # request: empty payload; reply VERSION
    SOLVE = 0x02    # request: a puzzle; reply ANSWER, RESULT or DEDUCE_RESULT (or ERROR)
    ABORT = 0x03    # request: empty payload; the running search's reply, or ERROR NOT_BUSY
    STATS = 0x04    # request: empty payload; reply STATS_REPLY (also while a search runs)
    SET_BAUD = 0x05  # request: a baud rate; reply BAUD (or ERROR)
    RESEND = 0x06   # request: a SOLVE's CRC (under its SEQ); its stored answer again (or ERROR)
    VERSION = 0x81  # reply to PING
    ANSWER = 0x82   # reply to SOLVE: the status and the colouring
    STATS_REPLY = 0x84  # reply to STATS: the receiver's counters
    BAUD = 0x85     # reply to SET_BAUD: the rate the device switches to
    RESULT = 0x88   # reply to SOLVE in paper mode with FLAG_COUNTERS
    DEDUCE_RESULT = 0x89  # reply to SOLVE in deduce mode with FLAG_COUNTERS
    ERROR = 0xFF    # reply to a malformed or refused request


class ErrorCode(enum.IntEnum):
    """Reason codes of the ERROR reply (``detail`` says more, see :func:`markdown`)."""
    BAD_CRC = 1        # the CRC did not match; detail: the CRC received
    BAD_LENGTH = 2     # LEN > MAX_PAYLOAD, or the payload length is wrong for the type;
                       # detail: the expected length (0 when LEN was too large)
    UNKNOWN_TYPE = 3   # no such request type; detail: the type
    BAD_SIZE = 4       # rows or cols is zero; detail: rows << 8 | cols
    TOO_LARGE = 5      # rows or cols beyond the build's maximum; detail: rows << 8 | cols
    BAD_CLUE = 6       # a clue code 4..14; detail: the cell index r * cols + c
    BAD_FLAGS = 7      # unknown SOLVE flag bits; detail: the flags
    BUSY = 8           # a SOLVE arrived while a search runs
    NOT_BUSY = 9       # an ABORT arrived while no search runs
    TIMEOUT = 10       # a frame stopped in the middle (inter-byte timeout)
    OVERRUN = 11       # the UART receiver lost bytes (its FIFO was full)
    NO_ACCELERATOR = 12  # the accelerator's ID or size is wrong; detail: what was read
    NO_DEDUCE = 13     # deduce mode asked of a build without the deduction engine; detail:
                       # the low 16 bits of its ID register as read
    BAD_HEADER = 14    # the header's CHECK did not match; detail: the CHECK received
    BAD_BAUD = 15      # SET_BAUD asked for a rate the build does not offer; detail: the
                       # divisor it would need (0 when it is beyond 16 bits)
    PENDING = 16       # RESEND: that SOLVE is queued or being solved; detail: its place in
                       # the queue (0: being solved)
    UNKNOWN_SEQ = 17   # RESEND: no SOLVE of that SEQ and CRC is queued or stored


class Status(enum.IntEnum):
    """The outcome of a solve: RESULT's status byte, and every engine's status on the host."""
    SOLVED_UNIQUE = 0   # a solution, and the search proved there is no other
    SOLVED = 1          # a solution; uniqueness was not checked
    MULTIPLE = 2        # at least two solutions (the first is reported)
    NO_SOLUTION = 3     # the search proved there is none
    LIMIT = 4           # the step/time limit ended the search first
    ERROR = 5           # the engine or device failed (never sent in a RESULT)

    @property
    def solved(self):
        return self in (Status.SOLVED_UNIQUE, Status.SOLVED, Status.MULTIPLE)

    @property
    def text(self):
        return _STATUS_TEXT[self]


_STATUS_TEXT = {
    Status.SOLVED_UNIQUE: "solved, unique",
    Status.SOLVED: "solved (uniqueness not checked)",
    Status.MULTIPLE: "several solutions",
    Status.NO_SOLUTION: "no solution",
    Status.LIMIT: "limit reached",
    Status.ERROR: "error",
}


def status_of(found, *, exhausted, unique):
    """The status of a search that found ``found`` solutions (it stops at two when asked for
    ``unique``ness, else at one) and ``exhausted`` its search space or not; the firmware
    takes it from the generated table ``proto_status``."""
    if found >= 2:
        return Status.MULTIPLE
    if found == 1:
        return Status.SOLVED_UNIQUE if (unique and exhausted) else Status.SOLVED
    return Status.NO_SOLUTION if exhausted else Status.LIMIT


def crc16(data, crc=CRC_INIT):
    """CRC-16/CCITT-FALSE of ``data``, bytes-like (``crc16(b"123456789") == 0x29B1``):
    the standard library's ``binascii.crc_hqx``, the polynomial :data:`CRC_POLY` (0x1021),
    not reflected (tests/host/test_protocol.py holds it to a bitwise reference)."""
    return binascii.crc_hqx(data, crc)


#: CRC-8 (the header's CHECK): poly 0x07, init 0, not reflected, no final xor.
CRC8_POLY = 0x07


def _crc8_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = ((crc << 1) ^ CRC8_POLY) if crc & 0x80 else (crc << 1)
        table.append(crc & 0xFF)
    return tuple(table)


CRC8_TABLE = _crc8_table()


def crc8(data, crc=0):
    """CRC-8 of ``data`` (``crc8(b"123456789") == 0xF4``)."""
    for byte in data:
        crc = CRC8_TABLE[crc ^ byte]
    return crc


def header_check(length, type, seq):
    """The CHECK byte of a frame header: :func:`crc8` over LEN (2 bytes), TYPE and SEQ."""
    return crc8(bytes([length & 0xFF, length >> 8, type, seq]))


# -- message layouts ------------------------------------------------------------------------

@dataclass(frozen=True)
class Int:
    """An unsigned little-endian integer field of ``size`` bytes."""
    size: int
    doc: str = ""
    name: str = None
    offset: int = None

    @property
    def kind(self):
        return f"u{8 * self.size}"


@dataclass(frozen=True)
class Tail:
    """The variable-length end of a payload: one ``bits``-bit value per grid cell,
    row-major, cell i in bits ``(i * bits) % 8`` up of byte ``i * bits // 8``."""
    bits: int
    doc: str = ""
    name: str = None
    offset: int = None
    kind = "bytes"

    def __post_init__(self):
        if self.bits not in (1, 2, 4, 8):
            raise TypeError(f"a tail packs 1, 2, 4 or 8 bits per cell, not {self.bits}")

    @property
    def length(self):
        """The size column of the docs."""
        return f"ceil(rows*cols*{self.bits}/8)" if self.bits < 8 else "rows*cols"

    def nbytes(self, cells):
        return (cells * self.bits + 7) // 8

    def pack(self, values):
        """The tail of ``values`` (one a cell, each 0 .. 2**bits - 1): the values one a
        byte, then the k-th of every 8 / bits bytes shifted into bits k * bits up."""
        try:
            data = bytes(values)
        except ValueError:
            data = None
        if data is None or data.translate(None, _FITS[self.bits]):  # a value too wide
            bad = next(v for v in values if not 0 <= v < 1 << self.bits)
            raise ValueError(f"{self.name}: {bad} does not fit in {self.bits} bits")
        per = 8 // self.bits
        if per == 1:
            return data
        packed = 0
        for k in range(per):
            packed |= int.from_bytes(data[k::per], "little") << (k * self.bits)
        return packed.to_bytes(self.nbytes(len(data)), "little")

    def cells(self, data, cells):
        """The values of the first ``cells`` cells of the tail ``data``, one a byte (each
        byte of ``data`` looked up in :data:`_TAIL_CELLS`)."""
        size = self.nbytes(cells)
        if len(data) < size:
            raise ValueError(f"{self.name}: {cells} cells need {size} bytes, got {len(data)}")
        if self.bits == 8:
            return bytes(data[:cells])
        return b"".join(map(_TAIL_CELLS[self.bits].__getitem__, data[:size]))[:cells]

    def unpack(self, data, cells):
        """The values of the first ``cells`` cells of the tail ``data``, a list."""
        return list(self.cells(data, cells))


#: per bits a cell: the byte values that fit in them
_FITS = {bits: bytes(range(1 << bits)) for bits in (1, 2, 4, 8)}
#: per bits a cell (< 8): the values, one a byte, of the cells of each byte value
_TAIL_CELLS = {bits: tuple(bytes(b >> k & (1 << bits) - 1 for k in range(0, 8, bits))
                           for b in range(256)) for bits in (1, 2, 4)}


def u8(doc=""):
    return Int(1, doc)


def u16(doc=""):
    return Int(2, doc)


def u32(doc=""):
    return Int(4, doc)


def u64(doc=""):
    return Int(8, doc)


_STRUCT = {1: "B", 2: "H", 4: "I", 8: "Q"}


class Layout:
    """Base class of a message layout: annotated :class:`Int` fields in wire order, then at
    most one :class:`Tail`.  Gives ``FIELDS`` (the integers, with offsets), ``TAIL``,
    ``SIZE`` (bytes of the fixed part) and ``C_NAME`` (of the generated C names)."""

    FIELDS = ()
    TAIL = None
    SIZE = 0
    C_NAME = None

    def __init_subclass__(cls, *, c_name, **kwargs):
        super().__init_subclass__(**kwargs)
        fields, offset, tail = [], 0, None
        for name, field in cls.__dict__.get("__annotations__", {}).items():
            if tail is not None:
                raise TypeError(f"{cls.__name__}.{name}: nothing may follow the tail")
            if isinstance(field, Tail):
                tail = replace(field, name=name, offset=offset)
            elif isinstance(field, Int) and field.size in _STRUCT:
                fields.append(replace(field, name=name, offset=offset))
                offset += field.size
            else:
                raise TypeError(f"{cls.__name__}.{name}: annotation must be u8/u16/u32/u64 "
                                f"or a Tail")
        cls.FIELDS, cls.TAIL, cls.SIZE, cls.C_NAME = tuple(fields), tail, offset, c_name
        cls._format = "<" + "".join(_STRUCT[f.size] for f in fields)
        cls._struct = struct.Struct(cls._format)
        cls._order = tuple(f.name for f in fields)
        cls._names = frozenset(cls._order)

    @classmethod
    def field(cls, name):
        return next(f for f in cls.FIELDS + ((cls.TAIL,) if cls.TAIL else ()) if f.name == name)

    @classmethod
    def offset(cls, name):
        return cls.field(name).offset

    @classmethod
    def pack(cls, tail=b"", **values):
        """The payload with every integer field given by name, then ``tail``."""
        names = cls._order
        if values.keys() == cls._names and (cls.TAIL is not None or not tail):
            try:  # struct's own range checks are the fields' (unsigned, their sizes)
                return cls._struct.pack(*map(values.__getitem__, names)) + bytes(tail)
            except struct.error:
                pass  # the checks below say which
        if set(values) != set(names):
            missing, extra = set(names) - set(values), set(values) - set(names)
            raise ValueError(f"{cls.__name__}: missing {sorted(missing)}, unknown {sorted(extra)}")
        for f in cls.FIELDS:
            v = values[f.name]
            if not 0 <= v < 1 << (8 * f.size):
                raise ValueError(f"{cls.__name__}.{f.name}: {v} does not fit in {f.kind}")
        if tail and cls.TAIL is None:
            raise ValueError(f"{cls.__name__} has no tail")
        return struct.pack(cls._format, *(int(values[n]) for n in names)) + bytes(tail)

    @classmethod
    def unpack(cls, data):
        """``(fields as a dict, tail bytes)``; ValueError when ``data`` is shorter than SIZE."""
        if len(data) < cls.SIZE:
            raise ValueError(f"{cls.__name__} needs at least {cls.SIZE} bytes, got {len(data)}")
        return dict(zip(cls._order, cls._struct.unpack_from(data))), bytes(data[cls.SIZE:])


class FrameHeader(Layout, c_name="FRAME"):
    """What precedes the payload of every frame."""
    start: u8("START (0xA5)")
    length: u16("LEN: bytes of the payload")
    type: u8("the message type")
    seq: u8("the request's number (1 to 255); a reply carries its request's; 0: an ERROR "
            "about bytes that were no whole request")
    check: u8("CRC-8 over LEN, TYPE and SEQ")


class FrameCrc(Layout, c_name="FRAME_CRC"):
    """What follows the payload of every frame."""
    crc: u16("CRC-16/CCITT-FALSE over LEN, TYPE, SEQ, CHECK and the payload")


#: Bytes around the payload: START, LEN (2), TYPE, SEQ, CHECK before; CRC (2) after.
OVERHEAD = FrameHeader.SIZE + FrameCrc.SIZE


class Empty(Layout, c_name="EMPTY"):
    """The payload of PING and ABORT: nothing."""


class Resend(Layout, c_name="RESEND"):
    """RESEND: which SOLVE's answer to send again (with the SOLVE's SEQ in the header)."""
    crc: u16("the CRC of that SOLVE's frame (its last two bytes)")


class Solve(Layout, c_name="SOLVE"):
    """SOLVE: a puzzle."""
    rows: u8(f"1 .. the build's maximum (VERSION max_rows; at most {MAX_GRID})")
    cols: u8("1 .. the build's maximum")
    flags: u8(f"bit 0 (0x{FLAG_UNIQUE:02X}) UNIQUE: search on for a second solution; bit 1 "
              f"(0x{FLAG_DEDUCE:02X}) DEDUCE: run the deduction engine, else the paper's "
              f"search; bit 2 (0x{FLAG_COUNTERS:02X}) COUNTERS: reply with the counters "
              "(RESULT or DEDUCE_RESULT), else ANSWER; other bits must be 0")
    max_checks: u32("paper mode: stop with status LIMIT before check number max_checks + 1; "
                    "deduce mode: before decision number max_checks + 1; 0 = no bound other "
                    "than 2^32 - 1")
    clues: Tail(4, "4 bits per cell, row-major, cell 2i in the low nibble of byte i: 0..3 a "
                f"digit, 0x{CLUE_BLANK:X} blank, 4..14 refused (BAD_CLUE); an odd cell count "
                "leaves the last high nibble unused")


class SetBaud(Layout, c_name="SET_BAUD"):
    """SET_BAUD: the rate the host asks for."""
    baud: u32("bits per second; the device makes it in cycles of its UART's clock a bit "
              "(VERSION's clock_hz times spec.uart.UART_CLOCK_RATIO), with 8 fractional bits "
              "and at least 7.5 (spec.uart.bit_time_for), up to VERSION's max_baud")


class Answer(Layout, c_name="ANSWER"):
    """ANSWER: the outcome of a SOLVE and the colouring (no counters)."""
    status: u8(", ".join(f"{s.value} {s.name}" for s in Status if s is not Status.ERROR))
    flags: u8(f"bit 0 (0x{RESULT_ABORTED:02X}) ABORTED, bit 1 (0x{RESULT_UNIQUE:02X}) UNIQUE "
              f"requested, bit 2 (0x{RESULT_TRAIL_FULL:02X}) TRAIL_FULL (deduce mode: the "
              f"hardware trail was full, status LIMIT), bit 3 (0x{RESULT_DEDUCE:02X}) DEDUCE "
              "mode")
    rows: u8("of the puzzle")
    cols: u8("of the puzzle")
    colouring: Tail(1, "only when the status is SOLVED_UNIQUE, SOLVED or MULTIPLE (the first "
                    "solution found): one bit per cell, row-major, cell i at bit i%8 of byte "
                    "i/8, 1 = inside")


def _layout(name, c_name, doc, fields):
    """A :class:`Layout` from ``fields`` (``{name: Int or Tail}`` in wire order): for the
    layouts whose fields follow a list declared elsewhere (:mod:`spec.counters`)."""
    return type(name, (Layout,), {"__doc__": doc, "__module__": __name__,
                                  "__annotations__": dict(fields)}, c_name=c_name)


#: DEDUCE_RESULT's field of the engine's ``clocks`` register (spec.counters.ENGINE_CLOCKS).
_ENGINE_CLOCKS_FIELD = "engine_clocks"

Result = _layout("Result", "RESULT", "RESULT: the outcome of a SOLVE, its counters and the "
                 "colouring.", {
    "status": u8("as ANSWER"),
    "flags": u8("as ANSWER"),
    "rows": u8("of the puzzle"),
    "cols": u8("of the puzzle"),
    **{c.name: u64(c.doc) for c in _counters.PAPER_COUNTERS},
    "cycles": u64("solve cycles of the SoC's cycle counter, from 'puzzle loaded' (clues written "
                  "to the accelerator) to 'answer ready' (search ended)"),
    "colouring": Tail(1, "as ANSWER"),
})

DeduceResult = _layout("DeduceResult", "DEDUCE_RESULT", "DEDUCE_RESULT: the outcome of a SOLVE "
                       "in deduce mode, the engine's counters (model.deduce.Counters, "
                       "docs/deduce.md section 6) and the colouring.", {
    "status": u8("as ANSWER"),
    "flags": u8("as ANSWER"),
    "rows": u8("of the puzzle"),
    "cols": u8("of the puzzle"),
    **{c.name: u32(c.doc) for c in _counters.DEDUCE_COUNTERS},
    _ENGINE_CLOCKS_FIELD: u32(_counters.ENGINE_CLOCKS.doc),
    "cycles": u64("solve cycles of the SoC's cycle counter, as RESULT; with requests "
                  "waiting behind the SOLVE, the serving of them during its first DEDUCE "
                  "too (clocks is the engine's alone)"),
    "colouring": Tail(1, "as ANSWER"),
})


class Version(Layout, c_name="VERSION"):
    """VERSION: what the build is."""
    protocol: u8(f"PROTOCOL_VERSION ({PROTOCOL_VERSION})")
    regmap: u8("the accelerator's register map version (spec/registers.py)")
    max_rows: u8("the build's largest grid")
    max_cols: u8("")
    clock_hz: u32("the SoC's design clock (its UART's clock is spec.uart.UART_CLOCK_RATIO "
                  "times it)")
    baud: u32("the UART's rate now")
    start_baud: u32("the rate the device starts at, and goes back to when a new rate is not "
                    "confirmed")
    max_baud: u32("the fastest rate the build offers (its board's USB-UART bridge's, as the "
                  "UART's clock can make it)")
    max_payload: u16("the largest request payload the build takes (its largest SOLVE)")
    queue: u8(f"SOLVE requests it holds ({QUEUE_DEPTH_MIN} to {QUEUE_DEPTH_MAX}: "
              "spec.registers.queue_depth of the build)")
    flags: u8(f"bit 0 (0x{VERSION_ACCEL_OK:02X}) the accelerator's ID and size are right; "
              f"bit 1 (0x{VERSION_DEDUCE_OK:02X}) the build has the deduction engine (deduce "
              "mode)")


class Baud(Layout, c_name="BAUD"):
    """BAUD: the rate the device switches to once this frame is sent."""
    baud: u32("the rate the UART's clock makes (the one asked for, within 2 %)")
    divisor: u16("the UART's clock cycles a bit, rounded")


class Error(Layout, c_name="ERROR"):
    """ERROR: why a frame was dropped or a request refused."""
    code: u8("the reason, below")
    type: u8("type of the offending frame; 0 when the frame was not received whole "
             "(BAD_HEADER, BAD_LENGTH of LEN, BAD_CRC, TIMEOUT, OVERRUN)")
    detail: u16("per code")


class Stats(Layout, c_name="STATS"):
    """STATS_REPLY: the receiver's counters since reset (each wraps at 2^32)."""
    rx_bytes: u32("bytes received (moved from the UART into the frame buffer)")
    frames_good: u32("frames received whole with a good CRC (every request, answered or "
                     "refused; this STATS included)")
    frames_bad: u32("candidate frames dropped: CHECK wrong, LEN too large, bad CRC or timeout")
    garbage_bytes: u32("bytes skipped outside frames (not a START byte)")
    errors_sent: u32("ERROR frames sent")
    errors_suppressed: u32("ERROR frames not sent because the transmitter was busy (see the "
                           "rule above)")
    rx_overruns: u32("bytes the UART lost because its receive ring was full (its "
                     "RX_OVERRUNS register)")
    rx_frame_errors: u32("bytes received with a 0 stop bit, dropped by the UART (its "
                         "RX_FRAME_ERRORS register)")


#: The payload layout of every message type.
PAYLOADS = {MsgType.PING: Empty, MsgType.SOLVE: Solve, MsgType.ABORT: Empty,
            MsgType.STATS: Empty, MsgType.SET_BAUD: SetBaud, MsgType.RESEND: Resend,
            MsgType.VERSION: Version,
            MsgType.ANSWER: Answer, MsgType.RESULT: Result, MsgType.STATS_REPLY: Stats,
            MsgType.BAUD: Baud, MsgType.ERROR: Error, MsgType.DEDUCE_RESULT: DeduceResult}

#: The payload length of every request but SOLVE (whose length follows its grid).
REQUEST_LENGTHS = {MsgType.PING: Empty.SIZE, MsgType.ABORT: Empty.SIZE,
                   MsgType.STATS: Empty.SIZE, MsgType.SET_BAUD: SetBaud.SIZE,
                   MsgType.RESEND: Resend.SIZE}

#: The counters of STATS_REPLY, in payload order.
STATS_COUNTERS = tuple(f.name for f in Stats.FIELDS)

#: Counters of RESULT, in payload order (u64 each): spec.counters.PAPER_COUNTERS and
#: ``cycles``.
COUNTERS = _counters.names(_counters.PAPER_COUNTERS) + ("cycles",)

#: Counters of DEDUCE_RESULT, in payload order (u32 each): spec.counters.DEDUCE_COUNTERS
#: (model.deduce.Counters).
DEDUCE_COUNTERS = _counters.names(_counters.DEDUCE_COUNTERS)

#: Largest payload of any frame: a SOLVE of a MAX_GRID x MAX_GRID grid.
MAX_PAYLOAD = Solve.SIZE + Solve.TAIL.nbytes(MAX_GRID * MAX_GRID)


def solve_length(rows, cols):
    """Payload bytes of a SOLVE for a ``rows`` x ``cols`` grid."""
    return Solve.SIZE + Solve.TAIL.nbytes(rows * cols)


def answer_length(rows, cols, solved):
    """Payload bytes of an ANSWER (with a colouring when ``solved``)."""
    return Answer.SIZE + (Answer.TAIL.nbytes(rows * cols) if solved else 0)


def result_length(rows, cols, solved, mode=Mode.PAPER):
    """Payload bytes of a RESULT, or a DEDUCE_RESULT in deduce ``mode`` (with a colouring when
    ``solved``)."""
    layout = DeduceResult if mode == Mode.DEDUCE else Result
    return layout.SIZE + (layout.TAIL.nbytes(rows * cols) if solved else 0)


def reply_length(rows, cols, solved, *, mode=Mode.DEDUCE, counters=False):
    """Payload bytes of the reply to a SOLVE: ANSWER, or with ``counters`` RESULT or
    DEDUCE_RESULT."""
    if counters:
        return result_length(rows, cols, solved, mode)
    return answer_length(rows, cols, solved)


# -- generated artefacts --------------------------------------------------------------------

def _c_layout(layout):
    name = f"PROTO_{layout.C_NAME}"
    lines = [f"/* {layout.__name__}: {layout.__doc__.strip().splitlines()[0]} */",
             f"#define {name}_SIZE {layout.SIZE}u"]
    for f in layout.FIELDS:
        field = f"{name}_{f.name.upper()}"
        lines += [f"#define {field}_OFFSET {f.offset}u",
                  f"#define PROTO_GET_{layout.C_NAME}_{f.name.upper()}(p) "
                  f"proto_get_{f.kind}((p) + {field}_OFFSET)",
                  f"#define PROTO_PUT_{layout.C_NAME}_{f.name.upper()}(p, v) "
                  f"proto_put_{f.kind}((p) + {field}_OFFSET, (v))"]
    if layout.TAIL:
        tail, bits = f"{name}_{layout.TAIL.name.upper()}", layout.TAIL.bits
        per = 8 // bits
        shift = per.bit_length() - 1
        lines += [f"#define {tail}_OFFSET {layout.TAIL.offset}u",
                  f"#define {tail}_BITS {bits}u",
                  f"/* bytes of the {layout.TAIL.name} of n cells; the payload length */",
                  f"#define {tail}_BYTES(n) (((n) + {per - 1}u) >> {shift})",
                  f"#define {name}_LENGTH(n) ({name}_SIZE + {tail}_BYTES(n))",
                  f"/* cell i of the {layout.TAIL.name} at t (the tail's first byte) */",
                  f"#define PROTO_GET_{layout.C_NAME}_{layout.TAIL.name.upper()}(t, i) "
                  f"(((t)[(i) >> {shift}] >> (((i) & {per - 1}u) * {bits}u)) "
                  f"& 0x{(1 << bits) - 1:X}u)",
                  f"#define PROTO_SET_{layout.C_NAME}_{layout.TAIL.name.upper()}(t, i) "
                  f"((t)[(i) >> {shift}] |= (uint8_t)(0x{(1 << bits) - 1:X}u << "
                  f"(((i) & {per - 1}u) * {bits}u)))"]
    return lines + [""]


def _c_accessors():
    out = []
    for size in (1, 2, 4, 8):
        kind, ctype = f"u{8 * size}", f"uint{8 * size}_t"
        out.append(f"static inline {ctype} proto_get_{kind}(const uint8_t *p)")
        body = " | ".join(f"(({ctype})p[{i}] << {8 * i})" if i else f"({ctype})p[0]"
                          for i in range(size))
        out += [f"{{ return {body}; }}",
                f"static inline void proto_put_{kind}(uint8_t *p, {ctype} v)", "{"]
        out += [f"    p[{i}] = (uint8_t)(v >> {8 * i});" if i else "    p[0] = (uint8_t)v;"
                for i in range(size)]
        out += ["}"]
    return out + [""]


def _x_macro(name, doc, entries):
    """A C X-macro: ``name(X)`` expands to ``X(a, b)`` for every pair of ``entries``."""
    lines = [f"/* {doc} */", f"#define {name}(X) \\"]
    lines += [f"    X({a}, {b}) \\" for a, b in entries]
    return lines + ["    /* end */", ""]


#: The found-solutions values the status rule tells apart (0, 1, 2 or more).
_STATUS_FOUND = 3


def _c_status():
    """``proto_status``: :func:`status_of` as a table, and PROTO_STATUS_OF to read it."""
    for exhausted in (False, True):
        for unique in (False, True):
            last = status_of(_STATUS_FOUND - 1, exhausted=exhausted, unique=unique)
            assert all(status_of(n, exhausted=exhausted, unique=unique) == last
                       for n in range(_STATUS_FOUND, 2 * _STATUS_FOUND + 8))
    rows = ["    {" + ", ".join(
        "{" + ", ".join(f"STATUS_{status_of(found, exhausted=e, unique=u).name}"
                        for u in (False, True)) + "}" for e in (False, True))
        + f"}},  /* found {found}{'+' if found == _STATUS_FOUND - 1 else ''} */"
        for found in range(_STATUS_FOUND)]
    return ["/* spec.protocol.status_of: proto_status[found solutions][exhausted its search "
            "space][asked for uniqueness] */",
            f"static const uint8_t proto_status[{_STATUS_FOUND}][2][2] = {{", *rows, "};",
            "#define PROTO_STATUS_OF(found, exhausted, unique) \\",
            f"    proto_status[(found) < {_STATUS_FOUND - 1}u ? (found) : "
            f"{_STATUS_FOUND - 1}u][(exhausted) != 0][(unique) != 0]", ""]


def c_header():
    """``slk_protocol.h``: constants, codes, layouts (offsets, sizes, accessors), the counters'
    X-macros, the status rule, CRC table."""
    lines = ["/* Generated by spec/protocol.py -- do not edit; 'python -m slitherlink.spec.generate' "
             "rewrites it. */",
             "#ifndef SLK_PROTOCOL_H", "#define SLK_PROTOCOL_H", "", "#include <stdint.h>", "",
             f"#define PROTO_START 0x{START:02X}u",
             f"#define PROTO_VERSION {PROTOCOL_VERSION}u",
             f"#define PROTO_MAX_GRID {MAX_GRID}u",
             f"#define PROTO_MAX_PAYLOAD {MAX_PAYLOAD}u",
             f"#define PROTO_OVERHEAD {OVERHEAD}u",
             f"#define PROTO_TIMEOUT_BYTE_TIMES {TIMEOUT_BYTE_TIMES}u",
             f"#define PROTO_STORE_DEPTH {STORE_DEPTH}u",
             f"#define PROTO_BAUD_CONFIRM_CYCLES_SHIFT {BAUD_CONFIRM_CYCLES_SHIFT}u",
             f"#define PROTO_CLUE_BLANK 0x{CLUE_BLANK:X}u",
             f"#define PROTO_FLAG_UNIQUE 0x{FLAG_UNIQUE:02X}u",
             f"#define PROTO_FLAG_DEDUCE 0x{FLAG_DEDUCE:02X}u",
             f"#define PROTO_FLAG_COUNTERS 0x{FLAG_COUNTERS:02X}u",
             f"#define PROTO_SOLVE_FLAGS 0x{SOLVE_FLAGS:02X}u",
             f"#define PROTO_RESULT_ABORTED 0x{RESULT_ABORTED:02X}u",
             f"#define PROTO_RESULT_UNIQUE 0x{RESULT_UNIQUE:02X}u",
             f"#define PROTO_RESULT_TRAIL_FULL 0x{RESULT_TRAIL_FULL:02X}u",
             f"#define PROTO_RESULT_DEDUCE 0x{RESULT_DEDUCE:02X}u",
             f"#define PROTO_VERSION_ACCEL_OK 0x{VERSION_ACCEL_OK:02X}u",
             f"#define PROTO_VERSION_DEDUCE_OK 0x{VERSION_DEDUCE_OK:02X}u",
             f"#define PROTO_CRC_INIT 0x{CRC_INIT:04X}u", ""]
    for t in MsgType:
        lines.append(f"#define MSG_{t.name} 0x{t.value:02X}u")
    lines += ["", "/* The payload length of a request of `type` but SOLVE (REQUEST_LENGTHS); "
              "`other` for SOLVE and unknown types. */",
              "#define PROTO_REQUEST_LENGTH(type, other) \\"]
    for t, n in REQUEST_LENGTHS.items():
        lines.append(f"    ((type) == MSG_{t.name} ? {n}u : \\")
    lines += ["    (other)" + ")" * len(REQUEST_LENGTHS), ""]
    for e in ErrorCode:
        lines.append(f"#define ERR_{e.name} {e.value}u")
    lines.append("")
    for s in Status:
        lines.append(f"#define STATUS_{s.name} {s.value}u")
    lines += ["", "/* Little-endian fields of a message, at the offsets below. */"]
    lines += _c_accessors()
    for layout in (FrameHeader, FrameCrc) + tuple(dict.fromkeys(PAYLOADS.values())):
        lines += _c_layout(layout)
    lines += _x_macro("PROTO_RESULT_COUNTERS", "RESULT's counters (spec.counters.PAPER_COUNTERS): "
                      "X(name, NAME) for PROTO_PUT_RESULT_<NAME>",
                      [(c.name, c.name.upper()) for c in _counters.PAPER_COUNTERS])
    engine = [(c.name.upper(), c.name.upper()) for c in _counters.DEDUCE_COUNTERS if c.engine]
    engine.append((_ENGINE_CLOCKS_FIELD.upper(), _counters.ENGINE_CLOCKS.name.upper()))
    lines += _x_macro("PROTO_DEDUCE_RESULT_ENGINE_COUNTERS", "DEDUCE_RESULT's fields that are "
                      "the deduction engine's counter registers (spec.counters): X(FIELD, "
                      "REGISTER) for PROTO_PUT_DEDUCE_RESULT_<FIELD> and SLK_DEDUCE_COUNTER_"
                      "<REGISTER> of slk_regs.h", engine)
    lines += _c_status()
    # the frame's CRC-16 is the UART's CRC register (hw/crc.py); the header's CHECK is
    # computed by the firmware
    lines += ["/* CRC-8 of the header's CHECK, one byte at a time: "
              "crc = proto_crc8_table[crc ^ byte] */",
              "static const uint8_t proto_crc8_table[256] = {"]
    for i in range(0, 256, 16):
        lines.append("    " + ", ".join(f"0x{v:02X}" for v in CRC8_TABLE[i:i + 16]) + ",")
    lines += ["};", "", "#endif /* SLK_PROTOCOL_H */", ""]
    return "\n".join(lines)


def _table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return out


def layout_table(layout):
    """The Markdown table of a layout: offset, size, field, meaning."""
    rows = []
    for f in layout.FIELDS:
        doc = f.doc if f.size == 1 else f"{f.kind}: {f.doc}" if f.doc else f.kind
        rows.append((f.offset, f.size, f.name, doc))
    if layout.TAIL:
        rows.append((layout.TAIL.offset, layout.TAIL.length, layout.TAIL.name, layout.TAIL.doc))
    return _table(["offset", "size", "field", "meaning"], rows)


_DETAILS = {
    ErrorCode.BAD_CRC: "the CRC received",
    ErrorCode.BAD_LENGTH: "the payload length expected (0 when LEN exceeded the build's "
                          "largest request)",
    ErrorCode.UNKNOWN_TYPE: "the type", ErrorCode.BAD_SIZE: "rows << 8 | cols",
    ErrorCode.TOO_LARGE: "rows << 8 | cols", ErrorCode.BAD_CLUE: "the cell index r*cols + c",
    ErrorCode.BAD_FLAGS: "the flags", ErrorCode.BUSY: "0", ErrorCode.NOT_BUSY: "0",
    ErrorCode.TIMEOUT: "0", ErrorCode.OVERRUN: "0",
    ErrorCode.NO_ACCELERATOR: "the low 16 bits of the ID register read",
    ErrorCode.NO_DEDUCE: "the low 16 bits of the deduction engine's ID register read",
    ErrorCode.BAD_HEADER: "the CHECK received",
    ErrorCode.BAD_BAUD: "the UART clock cycles a bit the rate would need (0 when beyond 16 "
                        "bits)",
    ErrorCode.PENDING: "the SOLVE's place in the queue (0: being solved)",
    ErrorCode.UNKNOWN_SEQ: "0",
}

_TYPES = {
    MsgType.PING: ("host -> device", "empty; answered by VERSION, also while a search runs"),
    MsgType.SOLVE: ("host -> device", "see below; queued, then answered by ANSWER (RESULT or "
                    "DEDUCE_RESULT with FLAG_COUNTERS) or ERROR (BUSY when the queue is full)"),
    MsgType.ABORT: ("host -> device", "empty; ends a running search, which replies with the "
                    "ABORTED flag and what it has so far (status LIMIT, or SOLVED when a "
                    "solution was already found), empties the queue and forgets the stored "
                    "answers; when idle: ERROR NOT_BUSY"),
    MsgType.STATS: ("host -> device", "empty; answered by STATS_REPLY, also while a search "
                    "runs"),
    MsgType.SET_BAUD: ("host -> device", "see below; answered by BAUD at the old rate (or "
                       "ERROR BAD_BAUD, or BUSY while a search runs or waits)"),
    MsgType.RESEND: ("host -> device", "see below; the stored answer to the SOLVE it names, "
                     "or ERROR PENDING (queued or being solved) or UNKNOWN_SEQ (not there)"),
    MsgType.VERSION: ("device -> host", "see below"),
    MsgType.ANSWER: ("device -> host", "see below"),
    MsgType.STATS_REPLY: ("device -> host", "see below"),
    MsgType.BAUD: ("device -> host", "see below"),
    MsgType.RESULT: ("device -> host", "see below"),
    MsgType.DEDUCE_RESULT: ("device -> host", "see below"),
    MsgType.ERROR: ("device -> host", "see below"),
}


def markdown():
    """``docs/protocol.md``, generated from this module."""
    doc = __doc__.split("\n\n", 1)
    out = ["<!-- Generated by spec/protocol.py (python -m slitherlink.spec.generate) -- do not edit. -->", "",
           "# The UART protocol", "", doc[0].strip(), "", doc[1].strip(), "",
           "## Constants", ""]
    out += _table(["name", "value", "meaning"], [
        ("START", f"0x{START:02X}", "first byte of a frame"),
        ("PROTOCOL_VERSION", PROTOCOL_VERSION, "reported by VERSION"),
        ("MAX_PAYLOAD", MAX_PAYLOAD, f"largest LEN (a SOLVE of {MAX_GRID}x{MAX_GRID})"),
        ("OVERHEAD", OVERHEAD, "bytes of a frame around its payload"),
        ("TIMEOUT_BYTE_TIMES", TIMEOUT_BYTE_TIMES,
         "inter-byte timeout inside a frame, in byte times at the current baud"),
        ("QUEUE_DEPTH_MIN", QUEUE_DEPTH_MIN, "SOLVE requests a device holds at least"),
        ("QUEUE_DEPTH_MAX", QUEUE_DEPTH_MAX, "SOLVE requests a device holds at most (a build "
                                             "of small grids; VERSION's queue)"),
        ("STORE_DEPTH", STORE_DEPTH, "answers the device keeps to send again"),
        ("BAUD_CONFIRM_CYCLES_SHIFT", BAUD_CONFIRM_CYCLES_SHIFT,
         "a new rate must be confirmed within clock_hz >> this many cycles"),
        ("SERVICE_INTERVAL_CYCLES", SERVICE_INTERVAL_CYCLES,
         "the longest the device goes without serving its UART while it runs, in cycles"),
        ("CLUE_BLANK", f"0x{CLUE_BLANK:X}", "4-bit code of a blank cell"),
        ("CRC", "CRC-16/CCITT-FALSE", f"poly 0x{CRC_POLY:04X}, init 0x{CRC_INIT:04X}, "
         f"check 0x{crc16(b'123456789'):04X}"),
        ("CHECK", "CRC-8", f"poly 0x{CRC8_POLY:02X}, init 0, check 0x{crc8(b'123456789'):02X}"),
    ])
    out += ["", "## Message types", ""]
    out += _table(["type", "name", "direction", "payload"],
                  [(f"0x{t.value:02X}", t.name, *_TYPES[t]) for t in MsgType])
    out += ["", "### Frame header and trailer", ""] + layout_table(FrameHeader)
    out += [""] + layout_table(FrameCrc)
    out += ["", "### SOLVE payload", ""] + layout_table(Solve)
    out += ["", f"Checked in this order: payload shorter than {Solve.SIZE} bytes (BAD_LENGTH), "
            "rows or cols zero (BAD_SIZE), rows or cols above the build maximum (TOO_LARGE), "
            "payload length (BAD_LENGTH), flags (BAD_FLAGS), clues (BAD_CLUE), then the "
            "accelerator of the mode (NO_ACCELERATOR, or NO_DEDUCE in deduce mode).", "",
            "### ANSWER payload", ""] + layout_table(Answer)
    out += ["", "### RESULT payload", ""] + layout_table(Result)
    out += ["", "### DEDUCE_RESULT payload", ""] + layout_table(DeduceResult)
    out += ["", "### SET_BAUD payload", ""] + layout_table(SetBaud)
    out += ["", "### RESEND payload", ""] + layout_table(Resend)
    out += ["", "### BAUD payload", ""] + layout_table(Baud)
    out += ["", "### VERSION payload", ""] + layout_table(Version)
    out += ["", "### STATS_REPLY payload", ""] + layout_table(Stats)
    out += ["", "### ERROR payload", ""] + layout_table(Error)
    out += ["", "### Error codes", ""]
    out += _table(["code", "name", "detail"], [(e.value, e.name, _DETAILS[e]) for e in ErrorCode])
    out += ["", "Every refused request gets exactly one ERROR frame; every malformed frame "
            "(bad CHECK, bad LEN, bad CRC, timeout) and every loss of bytes (OVERRUN) gets at most one, "
            "sent only when the transmitter is idle (the rule above); garbage outside frames "
            "is skipped without one.", ""]
    return "\n".join(out)
