"""The host's side of the UART protocol: framing, the receiver, message encoders and decoders.

The protocol itself -- constants, codes, the device's rules and every message layout -- is
declared once in :mod:`spec.protocol` (docs/protocol.md is generated from it); this module
frames and unframes messages with those layouts for the host, the fake device
(:mod:`host.fakedevice`) and the tests.  Sizes and offsets all come from the layouts;
nothing here is typed again.

Every frame carries a SEQ (:data:`spec.protocol.REQUEST_SEQS` for a request, the request's
in its reply, 0 in an ERROR about bytes that were no whole request) and a header CHECK; the
receiver (:class:`FrameDecoder`) drops a candidate whose CHECK is wrong or whose LEN is more
than its TYPE may carry (:func:`length_limits`) as soon as its header is in.
"""

from dataclasses import dataclass, field, make_dataclass
from itertools import chain, islice

from slitherlink.spec.protocol import (  # noqa: F401 (re-exported for the host)
                           CLUE_BLANK, COUNTERS, DEDUCE_COUNTERS, FLAG_COUNTERS,
                           FLAG_DEDUCE, FLAG_UNIQUE, MAX_GRID, MAX_PAYLOAD, OVERHEAD,
                           PROTOCOL_VERSION, QUEUE_DEPTH_MAX, QUEUE_DEPTH_MIN,
                           REQUEST_LENGTHS, REQUEST_SEQS, RESULT_ABORTED, RESULT_DEDUCE,
                           RESULT_TRAIL_FULL, RESULT_UNIQUE,
                           SOLVE_FLAGS, START, STORE_DEPTH, TIMEOUT_BYTE_TIMES,
                           VERSION_ACCEL_OK, VERSION_DEDUCE_OK, ErrorCode, FrameCrc,
                           FrameHeader, Mode, MsgType, Status, answer_length, crc16,
                           clue_code_bad, header_check, reply_length, result_length,
                           solve_length)
from slitherlink.spec.protocol import STATS_COUNTERS
from slitherlink.spec.protocol import Answer as AnswerLayout
from slitherlink.spec.protocol import Baud as BaudLayout
from slitherlink.spec.protocol import DeduceResult as DeduceResultLayout
from slitherlink.spec.protocol import Error as ErrorLayout
from slitherlink.spec.protocol import Resend as ResendLayout
from slitherlink.spec.protocol import Result as ResultLayout
from slitherlink.spec.protocol import SetBaud as SetBaudLayout
from slitherlink.spec.protocol import Solve as SolveLayout
from slitherlink.spec.protocol import Stats as StatsLayout
from slitherlink.spec.protocol import Version as VersionLayout
from slitherlink.spec.registers import VERSION as REGMAP_VERSION, queue_depth

from .puzzle import BLANK

__all__ = [
    "START", "PROTOCOL_VERSION", "MAX_PAYLOAD", "MAX_GRID", "TIMEOUT_BYTE_TIMES", "OVERHEAD",
    "QUEUE_DEPTH_MIN", "QUEUE_DEPTH_MAX", "STORE_DEPTH", "REQUEST_SEQS", "CLUE_BLANK",
    "FLAG_UNIQUE", "FLAG_DEDUCE", "FLAG_COUNTERS", "RESULT_ABORTED", "RESULT_UNIQUE",
    "RESULT_TRAIL_FULL", "RESULT_DEDUCE",
    "VERSION_ACCEL_OK", "VERSION_DEDUCE_OK", "COUNTERS", "DEDUCE_COUNTERS",
    "DEDUCE_RESULT_COUNTERS", "SOLVE_HEADER", "ANSWER_HEADER", "RESULT_HEADER",
    "DEDUCE_RESULT_HEADER", "VERSION_PAYLOAD", "ERROR_PAYLOAD", "Mode", "as_mode", "MsgType",
    "ErrorCode", "ProtocolError", "crc16", "header_check", "Frame", "BadFrame",
    "FrameDecoder", "length_limits", "encode_frame", "encode_ping", "encode_abort",
    "encode_stats", "encode_set_baud", "decode_set_baud", "encode_resend", "decode_resend",
    "frame_crc", "encode_solve", "encode_solve_raw",
    "SolveRequest", "decode_solve", "AnswerReply", "encode_answer", "decode_answer",
    "ResultReply", "encode_result", "decode_result", "DeduceResultReply",
    "encode_deduce_result", "decode_deduce_result", "OUTCOMES", "VersionReply",
    "encode_version", "decode_version", "BaudReply", "encode_baud", "decode_baud",
    "ErrorReply", "encode_error", "decode_error", "decode_reply", "pack_clues",
    "pack_colouring", "unpack_colouring", "solve_length", "answer_length", "result_length",
    "reply_length", "STATS_COUNTERS", "StatsReply", "encode_stats_reply", "decode_stats",
]

#: Fixed sizes of the payloads, from the layouts of :mod:`spec.protocol`.
SOLVE_HEADER = SolveLayout.SIZE
ANSWER_HEADER = AnswerLayout.SIZE
RESULT_HEADER = ResultLayout.SIZE
DEDUCE_RESULT_HEADER = DeduceResultLayout.SIZE

#: DEDUCE_RESULT's integer fields other than status, flags, rows, cols and cycles, in
#: payload order: the model's counters (DEDUCE_COUNTERS) and those only the hardware
#: counts (e.g. the engine's busy clocks); :attr:`DeduceResultReply.counters` has them all.
DEDUCE_RESULT_COUNTERS = tuple(f.name for f in DeduceResultLayout.FIELDS
                               if f.name not in ("status", "flags", "rows", "cols", "cycles"))
VERSION_PAYLOAD = VersionLayout.SIZE
ERROR_PAYLOAD = ErrorLayout.SIZE

_LENGTH = FrameHeader.offset("length")
_TYPE = FrameHeader.offset("type")
_SEQ = FrameHeader.offset("seq")
_CHECK = FrameHeader.offset("check")


class ProtocolError(ValueError):
    """A message could not be decoded or was refused; ``code`` is an :class:`ErrorCode`."""

    def __init__(self, code, message, detail=0):
        self.code, self.detail = ErrorCode(code), detail
        super().__init__(message)


# -- frames ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Frame:
    """A frame that passed the header CHECK, the length limit of its type and the CRC."""
    type: int
    payload: bytes = b""
    seq: int = 0

    def encode(self):
        return encode_frame(self.type, self.payload, seq=self.seq)


@dataclass(frozen=True)
class BadFrame:
    """A candidate frame the receiver dropped: ``code`` is BAD_HEADER (``detail``: the
    CHECK received), BAD_LENGTH, BAD_CRC (``detail``: the CRC received) or TIMEOUT."""
    code: ErrorCode
    detail: int = 0
    raw: bytes = b""


def encode_frame(type, payload=b"", *, seq=0):
    """One frame of ``type`` and ``seq`` around ``payload``."""
    payload = bytes(payload)
    if not 0 <= type <= 0xFF:
        raise ValueError(f"frame type {type} is not a byte")
    if not 0 <= seq <= 0xFF:
        raise ValueError(f"SEQ {seq} is not a byte")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds MAX_PAYLOAD={MAX_PAYLOAD}")
    header = FrameHeader.pack(start=START, length=len(payload), type=type, seq=seq,
                              check=header_check(len(payload), type, seq))
    body = header[_LENGTH:] + payload
    return header[:_LENGTH] + body + FrameCrc.pack(crc=crc16(body))


def length_limits(max_payload=MAX_PAYLOAD, *, replies=True):
    """The largest LEN of every frame type a receiver takes: the requests' as the device
    takes them (PING, ABORT, STATS empty, SET_BAUD its 4 bytes, SOLVE ``max_payload``: the
    build's largest), and with ``replies`` every reply's largest (for a grid of
    :data:`MAX_GRID`).  A type not listed may carry ``max_payload``."""
    limits = {MsgType(t): n for t, n in REQUEST_LENGTHS.items()}
    limits[MsgType.SOLVE] = max_payload
    if replies:
        limits.update({
            MsgType.VERSION: VersionLayout.SIZE, MsgType.STATS_REPLY: StatsLayout.SIZE,
            MsgType.BAUD: BaudLayout.SIZE, MsgType.ERROR: ErrorLayout.SIZE,
            MsgType.ANSWER: answer_length(MAX_GRID, MAX_GRID, True),
            MsgType.RESULT: result_length(MAX_GRID, MAX_GRID, True, Mode.PAPER),
            MsgType.DEDUCE_RESULT: result_length(MAX_GRID, MAX_GRID, True, Mode.DEDUCE)})
    return limits


class FrameDecoder:
    """Incremental receiver with the resynchronisation rules of :mod:`spec.protocol`.

    ``feed(data)`` returns the good frames completed by ``data``; the dropped candidates
    are kept in :attr:`bad_frames`.  ``feed_events`` returns both, in order.  Call
    :meth:`timeout` when no byte arrived for the inter-byte timeout; :attr:`pending` says
    whether a frame is in progress.  A candidate is dropped as soon as its six header
    bytes are in when its CHECK is wrong (BAD_HEADER) or its LEN is more than
    ``limits`` allows its type (BAD_LENGTH; ``limits``: type -> largest LEN, ``default``
    for the others); the host's receiver takes :func:`length_limits`, the device's
    :meth:`device` its build's.
    """

    def __init__(self, limits=None, default=MAX_PAYLOAD):
        self._buf = bytearray()
        self.limits = length_limits() if limits is None else dict(limits)
        self.default = default
        self.bad_frames = []
        self.garbage = 0  # bytes skipped outside frames

    @classmethod
    def device(cls, max_payload):
        """The receiver of a device whose largest request payload is ``max_payload``."""
        return cls(length_limits(max_payload, replies=False), default=max_payload)

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
            skip = buf.find(START)
            if skip < 0:
                skip = len(buf)
            self.garbage += skip
            del buf[:skip]
            if len(buf) < FrameHeader.SIZE:
                return events
            length = int.from_bytes(buf[_LENGTH:_TYPE], "little")
            type, seq, check = buf[_TYPE], buf[_SEQ], buf[_CHECK]
            if header_check(length, type, seq) != check:
                events.append(BadFrame(ErrorCode.BAD_HEADER, check,
                                       bytes(buf[:FrameHeader.SIZE])))
                del buf[0]
                continue
            if length > self.limits.get(type, self.default):
                events.append(BadFrame(ErrorCode.BAD_LENGTH, 0, bytes(buf[:FrameHeader.SIZE])))
                del buf[0]
                continue
            total = length + OVERHEAD
            if len(buf) < total:
                return events
            end = total - FrameCrc.SIZE
            received = FrameCrc.unpack(bytes(buf[end:total]))[0]["crc"]
            if crc16(buf[_LENGTH:end]) != received:
                events.append(BadFrame(ErrorCode.BAD_CRC, received, bytes(buf[:total])))
                del buf[0]
                continue
            events.append(Frame(type, bytes(buf[FrameHeader.SIZE:end]), seq))
            del buf[:total]


# -- requests -------------------------------------------------------------------------------

def as_mode(mode):
    """A :class:`Mode` from a Mode, its value (0, 1) or its name ("paper", "deduce", any
    case); ValueError otherwise."""
    if isinstance(mode, Mode):
        return mode
    if isinstance(mode, str):
        try:
            return Mode[mode.strip().upper()]
        except KeyError:
            pass
    elif isinstance(mode, int) and not isinstance(mode, bool):
        try:
            return Mode(mode)
        except ValueError:
            pass
    raise ValueError(f"unknown mode {mode!r}; choose one of: "
                     f"{', '.join(m.name.lower() for m in Mode)}")


# A request's ``seq`` (1 to 255) is the device session's to choose (host.device); the
# encoders' default, 1, is for tests and for frame lengths.

def encode_ping(seq=1):
    return encode_frame(MsgType.PING, seq=seq)


def encode_abort(seq=1):
    return encode_frame(MsgType.ABORT, seq=seq)


def encode_stats(seq=1):
    """The STATS request: the device answers with its receiver's counters."""
    return encode_frame(MsgType.STATS, seq=seq)


def encode_set_baud(baud, seq=1):
    """SET_BAUD: ask the device for ``baud`` (it answers BAUD at the old rate)."""
    return encode_frame(MsgType.SET_BAUD, SetBaudLayout.pack(baud=int(baud)), seq=seq)


def decode_set_baud(frame):
    """The rate a SET_BAUD asks for; ProtocolError (BAD_LENGTH) for a wrong length."""
    _expect(frame, MsgType.SET_BAUD)
    _exact_length(frame, SetBaudLayout)
    return SetBaudLayout.unpack(frame.payload)[0]["baud"]


def frame_crc(frame):
    """The CRC of an encoded frame (its last two bytes): with its SEQ, the name of a SOLVE
    that RESEND gives."""
    return FrameCrc.unpack(bytes(frame[-FrameCrc.SIZE:]))[0]["crc"]


def encode_resend(crc, seq=1):
    """RESEND: ask again for the answer to the SOLVE of SEQ ``seq`` whose frame's CRC is
    ``crc`` (:func:`frame_crc`)."""
    return encode_frame(MsgType.RESEND, ResendLayout.pack(crc=crc), seq=seq)


def decode_resend(frame):
    """The SOLVE frame CRC a RESEND names; ProtocolError (BAD_LENGTH) for a wrong length."""
    _expect(frame, MsgType.RESEND)
    _exact_length(frame, ResendLayout)
    return ResendLayout.unpack(frame.payload)[0]["crc"]


def pack_clues(codes):
    """The clue codes packed as SOLVE's tail (4 bits per cell, :data:`spec.protocol.Solve`)."""
    try:
        return SolveLayout.TAIL.pack(codes)
    except ValueError:
        bad = next(c for c in codes if not 0 <= c < 1 << SolveLayout.TAIL.bits)
        raise ValueError(f"clue code {bad} does not fit in {SolveLayout.TAIL.bits} "
                         f"bits") from None


def encode_solve_raw(rows, cols, codes, *, flags=0, max_checks=0, seq=1):
    """A SOLVE frame from raw values, unchecked (tests use it to send bad requests)."""
    payload = SolveLayout.pack(pack_clues(codes), rows=rows, cols=cols, flags=flags,
                               max_checks=max_checks)
    return encode_frame(MsgType.SOLVE, payload, seq=seq)


def encode_solve(puzzle, *, mode, unique=False, max_checks=0, counters=False, seq=1):
    """The SOLVE frame of a :class:`host.puzzle.Puzzle`.

    ``mode`` (:class:`Mode`, or its name; always given: the default mode is the
    engines' choice, :data:`host.engines.DEFAULT_MODE`) chooses the paper's
    search or the deduction engine (the DEDUCE flag); ``unique`` asks the device
    to search on for a second solution; ``max_checks`` bounds the search (status
    LIMIT): checks in paper mode, decisions in deduce mode; 0 means no bound other
    than 2**32 - 1; ``counters`` asks for the mode's counters (FLAG_COUNTERS: the reply
    is RESULT or DEDUCE_RESULT, else ANSWER); ``seq`` numbers the request.
    """
    mode = as_mode(mode)
    if not 1 <= puzzle.rows <= MAX_GRID or not 1 <= puzzle.cols <= MAX_GRID:
        raise ValueError(f"a {puzzle.size} grid does not fit the protocol "
                         f"(at most {MAX_GRID}x{MAX_GRID})")
    if not 0 <= max_checks < 1 << 32:
        raise ValueError(f"max_checks must be 0..2**32-1, not {max_checks}")
    flags = (FLAG_UNIQUE if unique else 0) | mode.flag | (FLAG_COUNTERS if counters else 0)
    return encode_solve_raw(puzzle.rows, puzzle.cols, puzzle.cells.translate(_CLUE_CODE),
                            flags=flags, max_checks=max_checks, seq=seq)


#: a puzzle's cell (:attr:`host.puzzle.Puzzle.cells`: a clue 0..3 or BLANK) -> its code in
#: SOLVE
_CLUE_CODE = bytes.maketrans(bytes([*range(4), BLANK]), bytes([*range(4), CLUE_BLANK]))


@dataclass(frozen=True)
class SolveRequest:
    rows: int
    cols: int
    clues: tuple        # rows of 0..3 or None
    unique: bool
    max_checks: int     # 0: no bound other than 2**32 - 1 (checks, or decisions in deduce mode)
    mode: Mode          # the DEDUCE flag: deduce, else paper
    counters: bool = False  # FLAG_COUNTERS: the reply carries the counters

    @property
    def check_limit(self):
        """The number of checks (deduce mode: decisions) after which the search stops
        (LIMIT)."""
        return self.max_checks or (1 << 32) - 1

    def puzzle(self):
        from .puzzle import Puzzle
        return Puzzle(self.clues)


def decode_solve(frame, *, max_rows=MAX_GRID, max_cols=MAX_GRID):
    """Validate a SOLVE payload in the firmware's order; raise :class:`ProtocolError`.

    Order: payload shorter than the header (BAD_LENGTH), a zero size
    (BAD_SIZE), a size beyond the build (TOO_LARGE), the payload length
    (BAD_LENGTH), flags (BAD_FLAGS), clue codes (BAD_CLUE, first bad cell).
    The request's :class:`Mode` is its DEDUCE flag.
    """
    p = frame.payload
    if len(p) < SOLVE_HEADER:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"SOLVE payload of {len(p)} bytes is "
                            f"shorter than its {SOLVE_HEADER}-byte header", SOLVE_HEADER)
    header, codes = SolveLayout.unpack(p)
    rows, cols, flags, max_checks = (header[n] for n in ("rows", "cols", "flags", "max_checks"))
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
    for i, code in enumerate(SolveLayout.TAIL.unpack(codes, rows * cols)):
        if clue_code_bad(code):
            raise ProtocolError(ErrorCode.BAD_CLUE, f"cell ({i // cols}, {i % cols}) has "
                                f"clue code {code}; clues are 0..3 or {CLUE_BLANK} (blank)", i)
        clues.append(None if code == CLUE_BLANK else code)
    grid = tuple(tuple(clues[r * cols:(r + 1) * cols]) for r in range(rows))
    mode = Mode.DEDUCE if flags & FLAG_DEDUCE else Mode.PAPER
    return SolveRequest(rows, cols, grid, bool(flags & FLAG_UNIQUE), max_checks, mode,
                        bool(flags & FLAG_COUNTERS))


# -- replies --------------------------------------------------------------------------------

def pack_colouring(colouring):
    """The colouring tail of ANSWER, RESULT and DEDUCE_RESULT: one bit per cell, row-major
    (1 = inside; :data:`spec.protocol.Answer`)."""
    return AnswerLayout.TAIL.pack(bytes(map(bool, chain.from_iterable(colouring))))


def unpack_colouring(data, rows, cols):
    """The colouring (rows of booleans) of a colouring tail."""
    count = rows * cols
    size = _TAIL.nbytes(count)
    if len(data) < size:
        _TAIL.cells(data, count)  # its error
    cells = islice(chain.from_iterable(map(_INSIDE.__getitem__, data[:size])), count)
    return tuple(zip(*[cells] * cols))  # (each row takes the next cols cells)


_TAIL = AnswerLayout.TAIL
#: per byte of a colouring tail: the cells it holds as booleans, in the tail's order
_INSIDE = tuple(tuple(map(bool, _TAIL.cells(bytes([byte]), 8 // _TAIL.bits)))
                for byte in range(256))


@dataclass(frozen=True)
class AnswerReply:
    """ANSWER: the outcome of a SOLVE without its counters (``counters`` and ``cycles`` are
    None: not asked for)."""
    status: Status
    rows: int
    cols: int
    solution: tuple = None      # rows of booleans when the status is a solved one
    aborted: bool = False
    unique: bool = False        # the request asked for uniqueness
    trail_full: bool = False    # deduce mode: LIMIT because the hardware trail was full
    mode: Mode = Mode.PAPER     # the DEDUCE flag
    seq: int = 0

    counters = None             # not fields: an ANSWER carries none
    cycles = None


@dataclass(frozen=True)
class ResultReply:
    """RESULT: the outcome of a SOLVE in paper mode, with the counters (FLAG_COUNTERS)."""
    status: Status
    rows: int
    cols: int
    solution: tuple = None      # rows of booleans when the status is a solved one
    counters: dict = field(default_factory=dict)  # checks .. flood_iterations
    cycles: int = 0             # solve cycles: puzzle loaded -> answer ready
    aborted: bool = False
    unique: bool = False        # the request asked for uniqueness
    seq: int = 0

    mode = Mode.PAPER           # the mode whose reply this is (not a field)
    trail_full = False


@dataclass(frozen=True)
class DeduceResultReply:
    """DEDUCE_RESULT: the outcome of a SOLVE in deduce mode, with the deduction engine's
    counters (:data:`DEDUCE_COUNTERS`, model.deduce.Counters; FLAG_COUNTERS)."""
    status: Status
    rows: int
    cols: int
    solution: tuple = None      # rows of booleans when the status is a solved one
    counters: dict = field(default_factory=dict)  # DEDUCE_RESULT_COUNTERS
    cycles: int = 0             # solve cycles: puzzle loaded -> answer ready
    aborted: bool = False
    unique: bool = False        # the request asked for uniqueness
    trail_full: bool = False    # LIMIT because the hardware trail was full
    seq: int = 0

    mode = Mode.DEDUCE          # the mode whose reply this is (not a field)


#: The replies that answer a SOLVE (each a dataclass with ``status``, ``rows``, ``cols``,
#: ``solution``, ``counters``, ``cycles``, ``aborted``, ``unique``, ``trail_full``,
#: ``mode`` and ``seq``).
OUTCOMES = (AnswerReply, ResultReply, DeduceResultReply)


def _flags(aborted, unique, trail_full, mode):
    return ((RESULT_ABORTED if aborted else 0) | (RESULT_UNIQUE if unique else 0)
            | (RESULT_TRAIL_FULL if trail_full else 0)
            | (RESULT_DEDUCE if as_mode(mode) is Mode.DEDUCE else 0))


def _outcome_frame(layout, type, status, rows, cols, solution, values, flags, seq):
    status = Status(status)
    if status is Status.ERROR:
        raise ValueError(f"a {type.name} never carries status ERROR; send an ERROR frame")
    tail = b""
    if status.solved:
        if solution is None:
            raise ValueError(f"status {status.name} needs a solution")
        tail = pack_colouring(solution)
    return encode_frame(type, layout.pack(tail, status=status, flags=flags, rows=rows,
                                          cols=cols, **values), seq=seq)


def encode_answer(status, rows, cols, *, solution=None, aborted=False, unique=False,
                  trail_full=False, mode=Mode.PAPER, seq=0):
    """An ANSWER frame (no counters)."""
    return _outcome_frame(AnswerLayout, MsgType.ANSWER, status, rows, cols, solution, {},
                          _flags(aborted, unique, trail_full, mode), seq)


def encode_result(status, rows, cols, *, solution=None, counters=None, cycles=0,
                  aborted=False, unique=False, seq=0):
    counters = dict(counters or {})
    values = {name: int(counters.get(name, 0)) for name in COUNTERS if name != "cycles"}
    return _outcome_frame(ResultLayout, MsgType.RESULT, status, rows, cols, solution,
                          dict(values, cycles=int(cycles)),
                          _flags(aborted, unique, False, Mode.PAPER), seq)


def encode_deduce_result(status, rows, cols, *, solution=None, counters=None, cycles=0,
                         aborted=False, unique=False, trail_full=False, seq=0):
    """A DEDUCE_RESULT frame; ``counters`` names :data:`DEDUCE_RESULT_COUNTERS` (those not
    given are 0; another name is a ValueError)."""
    counters = dict(counters or {})
    unknown = set(counters) - set(DEDUCE_RESULT_COUNTERS)
    if unknown:
        raise ValueError(f"unknown DEDUCE_RESULT counters {sorted(unknown)}")
    values = {name: int(counters.get(name, 0)) for name in DEDUCE_RESULT_COUNTERS}
    return _outcome_frame(DeduceResultLayout, MsgType.DEDUCE_RESULT, status, rows, cols,
                          solution, dict(values, cycles=int(cycles)),
                          _flags(aborted, unique, trail_full, Mode.DEDUCE), seq)


def _expect(frame, type):
    if frame.type != type:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"expected a {type.name} frame, got type "
                            f"{frame.type:#04x}", frame.type)


def _exact_length(frame, layout):
    if len(frame.payload) != layout.SIZE:
        name = MsgType(frame.type).name
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"{name} payload of {len(frame.payload)} "
                            f"bytes, expected {layout.SIZE}", layout.SIZE)


def _decode_outcome(frame, type, layout, length):
    """The common part of ANSWER, RESULT and DEDUCE_RESULT: ``(fields, status, solution)``,
    the payload's length (``length(rows, cols, solved)``) checked against its status and
    size; a status no reply carries (ERROR, or unknown) is refused."""
    _expect(frame, type)
    p = frame.payload
    if len(p) < layout.SIZE:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"{type.name} payload of {len(p)} bytes is "
                            f"shorter than {layout.SIZE}", layout.SIZE)
    fields, colouring = layout.unpack(p)
    status, rows, cols = (fields[n] for n in ("status", "rows", "cols"))
    try:
        status = Status(status)
    except ValueError:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"{type.name} has unknown status {status}",
                            status) from None
    if status is Status.ERROR:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"{type.name} has status {status.name}",
                            int(status))
    expected = length(rows, cols, status.solved)
    if len(p) != expected:
        raise ProtocolError(ErrorCode.BAD_LENGTH, f"{type.name} for {rows}x{cols} with status "
                            f"{status.name} has {len(p)} bytes, expected {expected}", expected)
    solution = unpack_colouring(colouring, rows, cols) if status.solved else None
    return fields, status, solution


def decode_answer(frame):
    """An :class:`AnswerReply`; validated as RESULT is (length for the status and size, a
    status a reply carries)."""
    fields, status, solution = _decode_outcome(frame, MsgType.ANSWER, AnswerLayout,
                                               answer_length)
    flags = fields["flags"]
    return AnswerReply(status, fields["rows"], fields["cols"], solution,
                       bool(flags & RESULT_ABORTED), bool(flags & RESULT_UNIQUE),
                       bool(flags & RESULT_TRAIL_FULL),
                       Mode.DEDUCE if flags & RESULT_DEDUCE else Mode.PAPER, frame.seq)


def decode_result(frame):
    fields, status, solution = _decode_outcome(
        frame, MsgType.RESULT, ResultLayout,
        lambda rows, cols, solved: result_length(rows, cols, solved, Mode.PAPER))
    flags = fields["flags"]
    counters = {name: fields[name] for name in COUNTERS if name != "cycles"}
    return ResultReply(status, fields["rows"], fields["cols"], solution, counters,
                       fields["cycles"], bool(flags & RESULT_ABORTED),
                       bool(flags & RESULT_UNIQUE), frame.seq)


def decode_deduce_result(frame):
    """A :class:`DeduceResultReply`; validated as RESULT is."""
    fields, status, solution = _decode_outcome(
        frame, MsgType.DEDUCE_RESULT, DeduceResultLayout,
        lambda rows, cols, solved: result_length(rows, cols, solved, Mode.DEDUCE))
    flags = fields["flags"]
    counters = {name: fields[name] for name in DEDUCE_RESULT_COUNTERS}
    return DeduceResultReply(status, fields["rows"], fields["cols"], solution, counters,
                             fields["cycles"], bool(flags & RESULT_ABORTED),
                             bool(flags & RESULT_UNIQUE), bool(flags & RESULT_TRAIL_FULL),
                             frame.seq)


@dataclass(frozen=True)
class VersionReply:
    protocol: int
    regmap: int
    max_rows: int
    max_cols: int
    clock_hz: int
    baud: int                   # the rate in use
    max_payload: int            # the largest request payload the build takes
    accelerator_ok: bool
    deduce_ok: bool = False     # the build has the deduction engine (deduce mode)
    start_baud: int = 0         # the rate the device starts at and falls back to
    max_baud: int = 0           # the fastest rate the build offers
    queue: int = QUEUE_DEPTH_MIN    # SOLVE requests it holds
    seq: int = 0


def encode_version(*, max_rows, max_cols, clock_hz, baud, start_baud=None, max_baud=None,
                   max_payload=None, queue=None, regmap=None, accelerator_ok=True,
                   deduce_ok=False, seq=0):
    """A VERSION frame; ``start_baud`` and ``max_baud`` default to ``baud``, ``max_payload``
    to the largest SOLVE of a ``max_rows`` x ``max_cols`` build and ``queue`` to its
    :func:`spec.registers.queue_depth`."""
    flags = (VERSION_ACCEL_OK if accelerator_ok else 0) | (VERSION_DEDUCE_OK if deduce_ok else 0)
    payload = VersionLayout.pack(
        protocol=PROTOCOL_VERSION, regmap=REGMAP_VERSION if regmap is None else regmap,
        max_rows=max_rows, max_cols=max_cols, clock_hz=int(clock_hz), baud=int(baud),
        start_baud=int(baud if start_baud is None else start_baud),
        max_baud=int(baud if max_baud is None else max_baud),
        max_payload=solve_length(max_rows, max_cols) if max_payload is None else max_payload,
        queue=queue_depth(max_rows, max_cols) if queue is None else queue, flags=flags)
    return encode_frame(MsgType.VERSION, payload, seq=seq)


def decode_version(frame):
    _expect(frame, MsgType.VERSION)
    _exact_length(frame, VersionLayout)
    v = VersionLayout.unpack(frame.payload)[0]
    return VersionReply(v["protocol"], v["regmap"], v["max_rows"], v["max_cols"], v["clock_hz"],
                        v["baud"], v["max_payload"], bool(v["flags"] & VERSION_ACCEL_OK),
                        bool(v["flags"] & VERSION_DEDUCE_OK), v["start_baud"], v["max_baud"],
                        v["queue"], frame.seq)


@dataclass(frozen=True)
class BaudReply:
    """BAUD: the rate the device switches to once this frame is sent."""
    baud: int
    divisor: int
    seq: int = 0


def encode_baud(baud, divisor, seq=0):
    return encode_frame(MsgType.BAUD, BaudLayout.pack(baud=int(baud), divisor=int(divisor)),
                        seq=seq)


def decode_baud(frame):
    _expect(frame, MsgType.BAUD)
    _exact_length(frame, BaudLayout)
    b = BaudLayout.unpack(frame.payload)[0]
    return BaudReply(b["baud"], b["divisor"], frame.seq)


@dataclass(frozen=True)
class ErrorReply:
    code: int            # an ErrorCode (kept as int when the device sends an unknown one)
    request_type: int    # type of the offending frame, 0 when it had none
    detail: int
    seq: int = 0         # the refused request's; 0 for a frame that was not received whole

    @property
    def name(self):
        try:
            return ErrorCode(self.code).name
        except ValueError:
            return f"error {self.code}"

    def __str__(self):
        return f"device error {self.name} (request type {self.request_type:#04x}, " \
               f"detail {self.detail})"


def encode_error(code, request_type=0, detail=0, seq=0):
    return encode_frame(MsgType.ERROR, ErrorLayout.pack(code=int(code), type=request_type,
                                                        detail=detail & 0xFFFF), seq=seq)


def decode_error(frame):
    _expect(frame, MsgType.ERROR)
    _exact_length(frame, ErrorLayout)
    e = ErrorLayout.unpack(frame.payload)[0]
    code, request_type, detail = e["code"], e["type"], e["detail"]
    try:
        code = ErrorCode(code)
    except ValueError:
        pass
    return ErrorReply(code, request_type, detail, frame.seq)


#: The receiver's counters of a STATS_REPLY: one field per :data:`STATS_COUNTERS` name, and
#: the SEQ of the STATS it answers.
StatsReply = make_dataclass(
    "StatsReply", [(name, int, 0) for name in STATS_COUNTERS] + [("seq", int, 0)],
    frozen=True,
    namespace={"as_dict": lambda self: {n: getattr(self, n) for n in STATS_COUNTERS},
               "__doc__": "The receiver's counters of a STATS_REPLY (docs/protocol.md)."})


def encode_stats_reply(seq=0, **counters):
    """A STATS_REPLY frame; counters not given are 0, each is taken modulo 2**32."""
    unknown = set(counters) - set(STATS_COUNTERS)
    if unknown:
        raise ValueError(f"unknown STATS counters {sorted(unknown)}")
    return encode_frame(MsgType.STATS_REPLY, StatsLayout.pack(
        **{name: int(counters.get(name, 0)) & 0xFFFFFFFF for name in STATS_COUNTERS}), seq=seq)


def decode_stats(frame):
    _expect(frame, MsgType.STATS_REPLY)
    _exact_length(frame, StatsLayout)
    return StatsReply(**StatsLayout.unpack(frame.payload)[0], seq=frame.seq)


_DECODERS = {MsgType.ANSWER: decode_answer, MsgType.RESULT: decode_result,
             MsgType.DEDUCE_RESULT: decode_deduce_result, MsgType.VERSION: decode_version,
             MsgType.STATS_REPLY: decode_stats, MsgType.BAUD: decode_baud,
             MsgType.ERROR: decode_error}


def decode_reply(frame):
    """An :class:`AnswerReply`, :class:`ResultReply`, :class:`DeduceResultReply`,
    :class:`VersionReply`, :class:`StatsReply`, :class:`BaudReply` or :class:`ErrorReply`,
    with the frame's SEQ."""
    if frame.type not in _DECODERS:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"frame type {frame.type:#04x} is not "
                            f"a reply", frame.type)
    return _DECODERS[frame.type](frame)
