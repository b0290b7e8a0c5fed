"""The UART protocol between the host and the SoC, defined once.

Paper Fig. 7 puts the solver behind a soft CPU; our CPU talks to the host over
a UART with the framed messages below.  This module is the single source of
the protocol: the host and the tests encode/decode with it, the fake device
(:mod:`host.fakedevice`) serves it, :func:`c_header` generates the firmware's
``slk_protocol.h`` at build time and :func:`markdown` generates
``docs/protocol.md`` (``python -m host.protocol --markdown docs/protocol.md``).

Frame (every multi-byte integer is little-endian)::

    START  LEN_LO LEN_HI  TYPE  PAYLOAD (LEN bytes)  CRC_LO CRC_HI

* ``START`` is 0xA5; bytes outside a frame that are not ``START`` are skipped
  silently (garbage between frames is not an error).
* ``LEN`` counts the payload only (0 .. :data:`MAX_PAYLOAD`).  A larger LEN is
  a BAD_LENGTH error.
* The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no
  final xor; check value 0x29B1 for ``b"123456789"``) over LEN, TYPE and
  PAYLOAD (not over START).

Resynchronisation (the firmware and :class:`FrameDecoder` do exactly this):
a candidate frame starts at a START byte.  When it fails (LEN too large, CRC
wrong, or no byte arrived for the inter-byte timeout in the middle of it), the
receiver reports the error and starts again at the byte after that START byte,
so a valid frame hidden inside garbage or behind a truncated frame is still
found.  The inter-byte timeout is :data:`TIMEOUT_BYTE_TIMES` byte times (10
bits each) at the build's baud rate, measured with the SoC's cycle counter.
"""

import argparse
import enum
import struct
import sys
from dataclasses import dataclass, field

from .result import Status

__all__ = [
    "START", "PROTOCOL_VERSION", "MAX_PAYLOAD", "MAX_GRID", "TIMEOUT_BYTE_TIMES",
    "CLUE_BLANK", "FLAG_UNIQUE", "RESULT_ABORTED", "RESULT_UNIQUE", "VERSION_ACCEL_OK",
    "MsgType", "ErrorCode", "ProtocolError", "crc16", "Frame", "BadFrame", "FrameDecoder",
    "encode_frame", "encode_ping", "encode_abort", "encode_solve", "encode_solve_raw",
    "SolveRequest", "decode_solve", "ResultReply", "encode_result", "decode_result",
    "VersionReply", "encode_version", "decode_version", "ErrorReply", "encode_error",
    "decode_error", "decode_reply", "pack_clues", "pack_colouring", "unpack_colouring",
    "c_header", "markdown",
]

#: First byte of every frame.
START = 0xA5
#: Version of this protocol, reported by VERSION.
PROTOCOL_VERSION = 1
#: Largest grid side the protocol can carry (the register map's 64x64 window).
MAX_GRID = 64
#: SOLVE header: rows, cols, flags, max_checks (u32).
SOLVE_HEADER = 7
#: Largest payload of any frame: a SOLVE of a 64x64 grid.
MAX_PAYLOAD = SOLVE_HEADER + (MAX_GRID * MAX_GRID + 1) // 2
#: Bytes around the payload: START, LEN (2), TYPE before; CRC (2) after.
OVERHEAD = 6
#: Inter-byte timeout inside a frame, in byte times (10 bits) at the build's baud.
TIMEOUT_BYTE_TIMES = 256  # 22 ms at 115200 baud: room for USB-serial gaps

#: 4-bit clue code of a blank cell in SOLVE (0..3 are the digits; 4..14 are errors).
CLUE_BLANK = 0xF

#: SOLVE flags.
FLAG_UNIQUE = 0x01  # search on for a second solution (status SOLVED_UNIQUE / MULTIPLE)
SOLVE_FLAGS = FLAG_UNIQUE

#: RESULT flags.
RESULT_ABORTED = 0x01  # the search was ended by an ABORT request
RESULT_UNIQUE = 0x02   # the request asked for uniqueness (echo of FLAG_UNIQUE)

#: VERSION flags.
VERSION_ACCEL_OK = 0x01  # the accelerator answered with the right ID and size

#: Counters of RESULT, in payload order (u64 each); the first five are hw.model.Counters.
COUNTERS = ("checks", "backtracks", "candidates", "floods", "flood_iterations", "cycles")
RESULT_HEADER = 4 + 8 * len(COUNTERS)
VERSION_PAYLOAD = 15
ERROR_PAYLOAD = 4


class MsgType(enum.IntEnum):
    """Frame types; a reply's type is its request's type with bit 7 set."""
    PING = 0x01     # request: empty payload; reply VERSION
    SOLVE = 0x02    # request: a puzzle; reply RESULT (or ERROR)
    ABORT = 0x03    # request: empty payload; reply RESULT (ABORTED flag) or ERROR NOT_BUSY
    VERSION = 0x81  # reply to PING
    RESULT = 0x82   # reply to SOLVE (and to ABORT of a running search)
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


class ProtocolError(ValueError):
    """A message could not be decoded or was refused; ``code`` is an :class:`ErrorCode`."""

    def __init__(self, code, message, detail=0):
        self.code, self.detail = ErrorCode(code), detail
        super().__init__(message)


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


CRC_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data`` (``crc16(b"123456789") == 0x29B1``)."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


# -- frames ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Frame:
    """A frame that passed the length and CRC checks."""
    type: int
    payload: bytes = b""

    def encode(self):
        return encode_frame(self.type, self.payload)


@dataclass(frozen=True)
class BadFrame:
    """A candidate frame the receiver dropped: ``code`` is BAD_LENGTH, BAD_CRC or TIMEOUT."""
    code: ErrorCode
    detail: int = 0
    raw: bytes = b""


def encode_frame(type, payload=b""):
    """One frame of ``type`` around ``payload``."""
    payload = bytes(payload)
    if not 0 <= type <= 0xFF:
        raise ValueError(f"frame type {type} is not a byte")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds MAX_PAYLOAD={MAX_PAYLOAD}")
    body = struct.pack("<HB", len(payload), type) + payload
    return bytes([START]) + body + struct.pack("<H", crc16(body))


class FrameDecoder:
    """Incremental receiver with the resynchronisation rules of the module docstring.

    ``feed(data)`` returns the good frames completed by ``data``; the dropped
    candidates are kept in :attr:`bad_frames`.  ``feed_events`` returns both, in
    order.  Call :meth:`timeout` when no byte arrived for the inter-byte
    timeout; :attr:`pending` says whether a frame is in progress.
    """

    def __init__(self):
        self._buf = bytearray()
        self.bad_frames = []
        self.garbage = 0  # bytes skipped outside frames

    @property
    def pending(self):
        """True while a candidate frame is incomplete."""
        return bool(self._buf)

    def feed(self, data):
        frames = []
        for event in self.feed_events(data):
            (frames if isinstance(event, Frame) else self.bad_frames).append(event)
        return frames

    def feed_events(self, data):
        self._buf += bytes(data)
        return self._process()

    def timeout(self):
        """The inter-byte timeout expired: drop the pending candidate (TIMEOUT) and rescan."""
        if not self._buf:
            return []
        raw = bytes(self._buf)
        del self._buf[0]
        return [BadFrame(ErrorCode.TIMEOUT, 0, raw)] + self._process()

    def _process(self):
        events, buf = [], self._buf
        while True:
            skip = 0
            while skip < len(buf) and buf[skip] != START:
                skip += 1
            self.garbage += skip
            del buf[:skip]
            if len(buf) < 3:
                return events
            length = buf[1] | buf[2] << 8
            if length > MAX_PAYLOAD:
                events.append(BadFrame(ErrorCode.BAD_LENGTH, 0, bytes(buf[:3])))
                del buf[0]
                continue
            total = length + OVERHEAD
            if len(buf) < total:
                return events
            received = buf[total - 2] | buf[total - 1] << 8
            if crc16(buf[1:total - 2]) != received:
                events.append(BadFrame(ErrorCode.BAD_CRC, received, bytes(buf[:total])))
                del buf[0]
                continue
            events.append(Frame(buf[3], bytes(buf[4:total - 2])))
            del buf[:total]


# -- requests -------------------------------------------------------------------------------

def encode_ping():
    return encode_frame(MsgType.PING)


def encode_abort():
    return encode_frame(MsgType.ABORT)


def pack_clues(codes):
    """4-bit codes, two per byte, cell 2i in the low nibble of byte i."""
    out = bytearray((len(codes) + 1) // 2)
    for i, code in enumerate(codes):
        if not 0 <= code <= 0xF:
            raise ValueError(f"clue code {code} does not fit in 4 bits")
        out[i // 2] |= code << (4 * (i % 2))
    return bytes(out)


def encode_solve_raw(rows, cols, codes, *, flags=0, max_checks=0):
    """A SOLVE frame from raw values, unchecked (tests use it to send bad requests)."""
    payload = struct.pack("<BBBI", rows, cols, flags, max_checks) + pack_clues(codes)
    return encode_frame(MsgType.SOLVE, payload)


def encode_solve(puzzle, *, unique=False, max_checks=0):
    """The SOLVE frame of a :class:`host.puzzle.Puzzle`.

    ``unique`` asks the device to search on for a second solution;
    ``max_checks`` bounds the search (status LIMIT); 0 means no bound other
    than 2**32 - 1 checks.
    """
    if not 1 <= puzzle.rows <= MAX_GRID or not 1 <= puzzle.cols <= MAX_GRID:
        raise ValueError(f"a {puzzle.size} grid does not fit the protocol "
                         f"(at most {MAX_GRID}x{MAX_GRID})")
    if not 0 <= max_checks < 1 << 32:
        raise ValueError(f"max_checks must be 0..2**32-1, not {max_checks}")
    codes = [CLUE_BLANK if v is None else v for row in puzzle.clues for v in row]
    return encode_solve_raw(puzzle.rows, puzzle.cols, codes,
                            flags=FLAG_UNIQUE if unique else 0, max_checks=max_checks)


@dataclass(frozen=True)
class SolveRequest:
    rows: int
    cols: int
    clues: tuple        # rows of 0..3 or None
    unique: bool
    max_checks: int     # 0: no bound other than 2**32 - 1

    @property
    def check_limit(self):
        """The number of checks after which the search stops (LIMIT)."""
        return self.max_checks or (1 << 32) - 1

    def puzzle(self):
        from .puzzle import Puzzle
        return Puzzle(self.clues)


def solve_length(rows, cols):
    return SOLVE_HEADER + (rows * cols + 1) // 2


def decode_solve(frame, *, max_rows=MAX_GRID, max_cols=MAX_GRID):
    """Validate a SOLVE payload in the firmware's order; raise :class:`ProtocolError`.

    Order: payload shorter than the header (BAD_LENGTH), a zero size
    (BAD_SIZE), a size beyond the build (TOO_LARGE), the payload length
    (BAD_LENGTH), flags (BAD_FLAGS), clue codes (BAD_CLUE, first bad cell).
    """
    p = frame.payload
    if len(p) < SOLVE_HEADER:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"SOLVE payload of {len(p)} bytes is "
                            f"shorter than its {SOLVE_HEADER}-byte header", SOLVE_HEADER)
    rows, cols, flags, max_checks = struct.unpack_from("<BBBI", p)
    size = rows << 8 | cols
    if rows == 0 or cols == 0:
        raise ProtocolError(ErrorCode.BAD_SIZE, f"a {rows}x{cols} grid is empty", size)
    if rows > max_rows or cols > max_cols:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"a {rows}x{cols} grid is larger than "
                            f"the build's {max_rows}x{max_cols}", size)
    expected = solve_length(rows, cols)
    if len(p) != expected:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"SOLVE of {rows}x{cols} needs {expected} "
                            f"payload bytes, got {len(p)}", expected)
    if flags & ~SOLVE_FLAGS:
        raise ProtocolError(ErrorCode.BAD_FLAGS, f"unknown SOLVE flags {flags:#04x}", flags)
    clues = []
    for i in range(rows * cols):
        code = (p[SOLVE_HEADER + i // 2] >> (4 * (i % 2))) & 0xF
        if code == CLUE_BLANK:
            clues.append(None)
        elif code <= 3:
            clues.append(code)
        else:
            raise ProtocolError(ErrorCode.BAD_CLUE, f"cell ({i // cols}, {i % cols}) has "
                                f"clue code {code}; clues are 0..3 or {CLUE_BLANK} (blank)", i)
    grid = tuple(tuple(clues[r * cols:(r + 1) * cols]) for r in range(rows))
    return SolveRequest(rows, cols, grid, bool(flags & FLAG_UNIQUE), max_checks)


# -- replies --------------------------------------------------------------------------------

def pack_colouring(colouring):
    """One bit per cell, row-major, cell i at bit i % 8 of byte i // 8 (1 = inside)."""
    cells = [bool(v) for row in colouring for v in row]
    out = bytearray((len(cells) + 7) // 8)
    for i, v in enumerate(cells):
        if v:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def unpack_colouring(data, rows, cols):
    return tuple(tuple(bool(data[(r * cols + c) // 8] >> ((r * cols + c) % 8) & 1)
                       for c in range(cols)) for r in range(rows))


@dataclass(frozen=True)
class ResultReply:
    status: Status
    rows: int
    cols: int
    solution: tuple = None      # rows of booleans when the status is a solved one
    counters: dict = field(default_factory=dict)  # checks .. flood_iterations
    cycles: int = 0             # solve cycles: puzzle loaded -> answer ready
    aborted: bool = False
    unique: bool = False        # the request asked for uniqueness


def encode_result(status, rows, cols, *, solution=None, counters=None, cycles=0,
                  aborted=False, unique=False):
    status = Status(status)
    if status is Status.ERROR:
        raise ValueError("a RESULT never carries status ERROR; send an ERROR frame")
    counters = dict(counters or {})
    values = [int(counters.get(name, 0)) for name in COUNTERS[:-1]] + [int(cycles)]
    flags = (RESULT_ABORTED if aborted else 0) | (RESULT_UNIQUE if unique else 0)
    payload = struct.pack("<BBBB6Q", status, flags, rows, cols, *values)
    if status.solved:
        if solution is None:
            raise ValueError(f"status {status.name} needs a solution")
        payload += pack_colouring(solution)
    return encode_frame(MsgType.RESULT, payload)


def _expect(frame, type):
    if frame.type != type:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"expected a {type.name} frame, got type "
                            f"{frame.type:#04x}", frame.type)


def decode_result(frame):
    _expect(frame, MsgType.RESULT)
    p = frame.payload
    if len(p) < RESULT_HEADER:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"RESULT payload of {len(p)} bytes is "
                            f"shorter than {RESULT_HEADER}", RESULT_HEADER)
    status, flags, rows, cols, *values = struct.unpack_from("<BBBB6Q", p)
    try:
        status = Status(status)
    except ValueError:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"RESULT has unknown status {status}",
                            status) from None
    expected = RESULT_HEADER + ((rows * cols + 7) // 8 if status.solved else 0)
    if len(p) != expected:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"RESULT for {rows}x{cols} with status "
                            f"{status.name} has {len(p)} bytes, expected {expected}", expected)
    solution = unpack_colouring(p[RESULT_HEADER:], rows, cols) if status.solved else None
    counters = dict(zip(COUNTERS[:-1], values[:-1]))
    return ResultReply(status, rows, cols, solution, counters, values[-1],
                       bool(flags & RESULT_ABORTED), bool(flags & RESULT_UNIQUE))


@dataclass(frozen=True)
class VersionReply:
    protocol: int
    regmap: int
    max_rows: int
    max_cols: int
    clock_hz: int
    baud: int
    max_payload: int
    accelerator_ok: bool


def encode_version(*, max_rows, max_cols, clock_hz, baud, regmap=None, accelerator_ok=True):
    if regmap is None:
        from hw.regmap import VERSION as regmap
    payload = struct.pack("<BBBBIIHB", PROTOCOL_VERSION, regmap, max_rows, max_cols,
                          int(clock_hz), int(baud), MAX_PAYLOAD,
                          VERSION_ACCEL_OK if accelerator_ok else 0)
    return encode_frame(MsgType.VERSION, payload)


def decode_version(frame):
    _expect(frame, MsgType.VERSION)
    if len(frame.payload) != VERSION_PAYLOAD:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"VERSION payload of {len(frame.payload)} "
                            f"bytes, expected {VERSION_PAYLOAD}", VERSION_PAYLOAD)
    v = struct.unpack("<BBBBIIHB", frame.payload)
    return VersionReply(*v[:7], bool(v[7] & VERSION_ACCEL_OK))


@dataclass(frozen=True)
class ErrorReply:
    code: int            # an ErrorCode (kept as int when the device sends an unknown one)
    request_type: int    # type of the offending frame, 0 when it had none
    detail: int

    @property
    def name(self):
        try:
            return ErrorCode(self.code).name
        except ValueError:
            return f"error {self.code}"

    def __str__(self):
        return f"device error {self.name} (request type {self.request_type:#04x}, " \
               f"detail {self.detail})"


def encode_error(code, request_type=0, detail=0):
    return encode_frame(MsgType.ERROR, struct.pack("<BBH", code, request_type, detail & 0xFFFF))


def decode_error(frame):
    _expect(frame, MsgType.ERROR)
    if len(frame.payload) != ERROR_PAYLOAD:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"ERROR payload of {len(frame.payload)} "
                            f"bytes, expected {ERROR_PAYLOAD}", ERROR_PAYLOAD)
    code, request_type, detail = struct.unpack("<BBH", frame.payload)
    try:
        code = ErrorCode(code)
    except ValueError:
        pass
    return ErrorReply(code, request_type, detail)


def decode_reply(frame):
    """A :class:`ResultReply`, :class:`VersionReply` or :class:`ErrorReply`."""
    decoders = {MsgType.RESULT: decode_result, MsgType.VERSION: decode_version,
                MsgType.ERROR: decode_error}
    if frame.type not in decoders:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"frame type {frame.type:#04x} is not "
                            f"a reply", frame.type)
    return decoders[frame.type](frame)


# -- generated artefacts --------------------------------------------------------------------

def c_header():
    """``slk_protocol.h``: the constants, codes and CRC table for the firmware."""
    lines = ["/* Generated by host/protocol.py -- do not edit; 'make firmware' regenerates it. */",
             "#ifndef SLK_PROTOCOL_H", "#define SLK_PROTOCOL_H", "", "#include <stdint.h>", "",
             f"#define PROTO_START 0x{START:02X}u",
             f"#define PROTO_VERSION {PROTOCOL_VERSION}u",
             f"#define PROTO_MAX_GRID {MAX_GRID}u",
             f"#define PROTO_MAX_PAYLOAD {MAX_PAYLOAD}u",
             f"#define PROTO_OVERHEAD {OVERHEAD}u",
             f"#define PROTO_TIMEOUT_BYTE_TIMES {TIMEOUT_BYTE_TIMES}u",
             f"#define PROTO_SOLVE_HEADER {SOLVE_HEADER}u",
             f"#define PROTO_RESULT_HEADER {RESULT_HEADER}u",
             f"#define PROTO_VERSION_PAYLOAD {VERSION_PAYLOAD}u",
             f"#define PROTO_ERROR_PAYLOAD {ERROR_PAYLOAD}u",
             f"#define PROTO_CLUE_BLANK 0x{CLUE_BLANK:X}u",
             f"#define PROTO_FLAG_UNIQUE 0x{FLAG_UNIQUE:02X}u",
             f"#define PROTO_SOLVE_FLAGS 0x{SOLVE_FLAGS:02X}u",
             f"#define PROTO_RESULT_ABORTED 0x{RESULT_ABORTED:02X}u",
             f"#define PROTO_RESULT_UNIQUE 0x{RESULT_UNIQUE:02X}u",
             f"#define PROTO_VERSION_ACCEL_OK 0x{VERSION_ACCEL_OK:02X}u", ""]
    for t in MsgType:
        lines.append(f"#define MSG_{t.name} 0x{t.value:02X}u")
    lines.append("")
    for e in ErrorCode:
        lines.append(f"#define ERR_{e.name} {e.value}u")
    lines.append("")
    for s in Status:
        lines.append(f"#define STATUS_{s.name} {s.value}u")
    lines += ["", "/* CRC-16/CCITT-FALSE, one byte at a time: "
              "crc = (crc << 8) ^ proto_crc_table[(crc >> 8) ^ byte] */",
              "static const uint16_t proto_crc_table[256] = {"]
    for i in range(0, 256, 8):
        lines.append("    " + ", ".join(f"0x{v:04X}" for v in CRC_TABLE[i:i + 8]) + ",")
    lines += ["};", "", "#endif /* SLK_PROTOCOL_H */", ""]
    return "\n".join(lines)


def _table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return out


def markdown():
    """``docs/protocol.md``, generated from this module."""
    doc = __doc__.split("\n\n", 1)
    out = ["<!-- Generated by host/protocol.py (python -m host.protocol --markdown "
           "docs/protocol.md) -- do not edit. -->", "",
           "# The UART protocol", "", doc[0].strip(), "", doc[1].strip(), "",
           "## Constants", ""]
    out += _table(["name", "value", "meaning"], [
        ("START", f"0x{START:02X}", "first byte of a frame"),
        ("PROTOCOL_VERSION", PROTOCOL_VERSION, "reported by VERSION"),
        ("MAX_PAYLOAD", MAX_PAYLOAD, f"largest LEN (a SOLVE of {MAX_GRID}x{MAX_GRID})"),
        ("TIMEOUT_BYTE_TIMES", TIMEOUT_BYTE_TIMES,
         "inter-byte timeout inside a frame, in byte times at the build's baud"),
        ("CLUE_BLANK", f"0x{CLUE_BLANK:X}", "4-bit code of a blank cell"),
        ("CRC", "CRC-16/CCITT-FALSE", "poly 0x1021, init 0xFFFF, check 0x29B1"),
    ])
    out += ["", "## Message types", ""]
    out += _table(["type", "name", "direction", "payload"], [
        (f"0x{MsgType.PING:02X}", "PING", "host -> device", "empty; answered by VERSION, "
         "also while a search runs"),
        (f"0x{MsgType.SOLVE:02X}", "SOLVE", "host -> device", "see below; answered by RESULT "
         "or ERROR (BUSY while a search runs)"),
        (f"0x{MsgType.ABORT:02X}", "ABORT", "host -> device", "empty; ends a running search, "
         "which replies RESULT with the ABORTED flag and the counters so far (status LIMIT, "
         "or SOLVED when a solution was already found); when idle: ERROR NOT_BUSY"),
        (f"0x{MsgType.VERSION:02X}", "VERSION", "device -> host", "see below"),
        (f"0x{MsgType.RESULT:02X}", "RESULT", "device -> host", "see below"),
        (f"0x{MsgType.ERROR:02X}", "ERROR", "device -> host", "see below"),
    ])
    out += ["", "### SOLVE payload", ""]
    out += _table(["offset", "size", "field", "meaning"], [
        (0, 1, "rows", f"1 .. the build's maximum (VERSION max_rows; at most {MAX_GRID})"),
        (1, 1, "cols", "1 .. the build's maximum"),
        (2, 1, "flags", f"bit 0 (0x{FLAG_UNIQUE:02X}) UNIQUE: search on for a second "
         "solution; other bits must be 0"),
        (3, 4, "max_checks", "u32: stop with status LIMIT before check number max_checks + 1; "
         "0 = no bound other than 2^32 - 1"),
        (SOLVE_HEADER, "ceil(rows*cols/2)", "clues", "4 bits per cell, row-major, cell 2i in "
         f"the low nibble of byte i: 0..3 a digit, 0x{CLUE_BLANK:X} blank, 4..14 refused "
         "(BAD_CLUE); an odd cell count leaves the last high nibble unused"),
    ])
    out += ["", "Checked in this order: payload shorter than 7 bytes (BAD_LENGTH), rows or "
            "cols zero (BAD_SIZE), rows or cols above the build maximum (TOO_LARGE), payload "
            "length (BAD_LENGTH), flags (BAD_FLAGS), clues (BAD_CLUE).", "",
            "### RESULT payload", ""]
    counter_rows = [(4 + 8 * i, 8, name, "u64: " + {
        "checks": "partial-condition checks (hw.model.Counters)",
        "backtracks": "levels that ran out of options",
        "candidates": "fully assigned states examined",
        "floods": "runs of the flood array",
        "flood_iterations": "flood array iterations (its FLOOD_ITERATIONS register), summed",
        "cycles": "solve cycles of the SoC's cycle counter, from 'puzzle loaded' (clues "
                  "written to the accelerator) to 'answer ready' (search ended)",
    }[name]) for i, name in enumerate(COUNTERS)]
    out += _table(["offset", "size", "field", "meaning"], [
        (0, 1, "status", ", ".join(f"{s.value} {s.name}" for s in Status if s is not Status.ERROR)),
        (1, 1, "flags", f"bit 0 (0x{RESULT_ABORTED:02X}) ABORTED, bit 1 "
         f"(0x{RESULT_UNIQUE:02X}) UNIQUE requested"),
        (2, 1, "rows", "of the puzzle"), (3, 1, "cols", "of the puzzle"),
        *counter_rows,
        (RESULT_HEADER, "ceil(rows*cols/8)", "colouring", "only when the status is SOLVED_UNIQUE, "
         "SOLVED or MULTIPLE (the first solution found): one bit per cell, row-major, cell i "
         "at bit i%8 of byte i/8, 1 = inside"),
    ])
    out += ["", "### VERSION payload", ""]
    out += _table(["offset", "size", "field", "meaning"], [
        (0, 1, "protocol", f"PROTOCOL_VERSION ({PROTOCOL_VERSION})"),
        (1, 1, "regmap", "the accelerator's register map version (hw/regmap.py)"),
        (2, 1, "max_rows", "the build's largest grid"), (3, 1, "max_cols", ""),
        (4, 4, "clock_hz", "u32: the SoC's clock"), (8, 4, "baud", "u32: the UART's baud rate"),
        (12, 2, "max_payload", f"u16: MAX_PAYLOAD ({MAX_PAYLOAD})"),
        (14, 1, "flags", f"bit 0 (0x{VERSION_ACCEL_OK:02X}) the accelerator's ID and size are "
         "right"),
    ])
    out += ["", "### ERROR payload", ""]
    out += _table(["offset", "size", "field", "meaning"], [
        (0, 1, "code", "the reason, below"),
        (1, 1, "type", "type of the offending frame; 0 when the frame was not received whole "
         "(BAD_LENGTH of LEN, BAD_CRC, TIMEOUT, OVERRUN)"),
        (2, 2, "detail", "u16, per code"),
    ])
    details = {
        ErrorCode.BAD_CRC: "the CRC received",
        ErrorCode.BAD_LENGTH: "the payload length expected (0 when LEN exceeded MAX_PAYLOAD)",
        ErrorCode.UNKNOWN_TYPE: "the type", ErrorCode.BAD_SIZE: "rows << 8 | cols",
        ErrorCode.TOO_LARGE: "rows << 8 | cols", ErrorCode.BAD_CLUE: "the cell index r*cols + c",
        ErrorCode.BAD_FLAGS: "the flags", ErrorCode.BUSY: "0", ErrorCode.NOT_BUSY: "0",
        ErrorCode.TIMEOUT: "0", ErrorCode.OVERRUN: "0",
        ErrorCode.NO_ACCELERATOR: "the low 16 bits of the ID register read",
    }
    out += ["", "### Error codes", ""]
    out += _table(["code", "name", "detail"], [(e.value, e.name, details[e]) for e in ErrorCode])
    out += ["", "Every malformed frame (bad LEN, bad CRC, timeout) and every refused request "
            "gets exactly one ERROR frame; garbage outside frames is skipped without one.", ""]
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Generate the protocol's C header or docs.")
    parser.add_argument("--c-header", metavar="FILE", help="write slk_protocol.h")
    parser.add_argument("--markdown", metavar="FILE", help="write docs/protocol.md")
    args = parser.parse_args(argv)
    if not (args.c_header or args.markdown):
        parser.error("give --c-header FILE and/or --markdown FILE")
    for path, text in ((args.c_header, c_header), (args.markdown, markdown)):
        if path:
            with open(path, "w") as f:
                f.write(text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
