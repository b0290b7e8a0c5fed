"""A small codec of the UART protocol for the device's tests, on :mod:`spec.protocol` alone
(its layouts, CRCs and header CHECK): requests as bytes, replies decoded strictly.

The host's own codec (host/protocol.py) is the host's; these tests of the firmware, the
gateware and the virtual board speak the wire format from the specification directly.
"""

from dataclasses import dataclass

from slitherlink.spec import protocol as S

__all__ = ["frame", "solve", "solve_raw", "codes_of", "Reply", "Decoder", "colouring", "expected",
           "expected_paper", "expected_deduce"]


def frame(type, payload=b"", *, seq=1, length=None):
    """A frame of ``type`` answering or asking ``seq``; ``length`` overrides LEN (a lie)."""
    length = len(payload) if length is None else length
    body = (S.FrameHeader.pack(start=S.START, length=length, type=type, seq=seq,
                               check=S.header_check(length, type, seq)) + bytes(payload))
    return body + S.FrameCrc.pack(crc=S.crc16(body[1:]))


def codes_of(puzzle):
    """The 4-bit clue codes of a puzzle, row-major."""
    return [S.CLUE_BLANK if v is None else v for row in puzzle.clues for v in row]


def solve_raw(rows, cols, codes, *, seq=1, flags=0, max_checks=0):
    payload = S.Solve.pack(S.Solve.TAIL.pack(codes), rows=rows, cols=cols, flags=flags,
                           max_checks=max_checks)
    return frame(S.MsgType.SOLVE, payload, seq=seq)


def solve(puzzle, *, seq=1, mode=S.Mode.DEDUCE, unique=False, counters=False, max_checks=0):
    """The SOLVE of a :class:`host.puzzle.Puzzle`."""
    flags = ((S.FLAG_UNIQUE if unique else 0) | S.Mode(mode).flag
             | (S.FLAG_COUNTERS if counters else 0))
    return solve_raw(puzzle.rows, puzzle.cols, codes_of(puzzle), seq=seq, flags=flags,
                     max_checks=max_checks)


@dataclass(frozen=True)
class Reply:
    """A decoded frame: its type, SEQ, payload fields and tail, and its bytes."""
    type: S.MsgType
    seq: int
    fields: dict
    tail: bytes
    raw: bytes

    def __getattr__(self, name):
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def status(self):
        return S.Status(self.fields["status"])

    @property
    def code(self):
        return S.ErrorCode(self.fields["code"])


class Decoder:
    """Frames out of a byte stream, exactly as the specification finds them: a candidate at
    each START, its header CHECK, a LEN up to :data:`spec.protocol.MAX_PAYLOAD`, its CRC;
    after a failed candidate the scan goes on at the byte after its START.  Nothing the
    device sends may fail: ``bad`` counts what did, ``garbage`` the bytes outside frames."""

    def __init__(self):
        self.buffer = bytearray()
        self.bad = self.garbage = 0

    def feed(self, data):
        self.buffer += data
        out = []
        while True:
            start = self.buffer.find(S.START)
            if start < 0:
                self.garbage += len(self.buffer)
                self.buffer.clear()
                return out
            self.garbage += start
            del self.buffer[:start]
            if len(self.buffer) < S.FrameHeader.SIZE:
                return out
            header, _ = S.FrameHeader.unpack(self.buffer)
            if (header["check"] != S.header_check(header["length"], header["type"],
                                                  header["seq"])
                    or header["length"] > S.MAX_PAYLOAD):
                self.bad += 1
                del self.buffer[:1]
                continue
            end = S.FrameHeader.SIZE + header["length"]
            if len(self.buffer) < end + S.FrameCrc.SIZE:
                return out
            crc, _ = S.FrameCrc.unpack(self.buffer[end:])
            if crc["crc"] != S.crc16(self.buffer[1:end]):
                self.bad += 1
                del self.buffer[:1]
                continue
            raw = bytes(self.buffer[:end + S.FrameCrc.SIZE])
            del self.buffer[:end + S.FrameCrc.SIZE]
            out.append(decode(raw))


def decode(raw):
    header, rest = S.FrameHeader.unpack(raw)
    kind = S.MsgType(header["type"])
    fields, tail = S.PAYLOADS[kind].unpack(rest[:header["length"]])
    return Reply(kind, header["seq"], fields, tail, raw)


def colouring(reply, rows, cols):
    """The colouring of an ANSWER, RESULT or DEDUCE_RESULT: rows of booleans (inside)."""
    bits = S.PAYLOADS[reply.type].TAIL.unpack(reply.tail, rows * cols)
    return tuple(tuple(bool(bits[r * cols + c]) for c in range(cols)) for r in range(rows))


def expected(outcome, unique):
    """``(status, first solution or None)`` of a golden model's outcome."""
    status = S.status_of(len(outcome.solutions), exhausted=outcome.exhausted, unique=unique)
    return status, (outcome.solutions[0] if outcome.solutions else None)


def expected_paper(puzzle, *, unique=False, max_checks=0):
    """``(status, solution, counters)`` the device must answer in paper mode."""
    from slitherlink.model.paper import search
    model = search(puzzle, max_solutions=2 if unique else 1,
                   max_checks=max_checks or (1 << 32) - 1)
    return (*expected(model, unique), model.counters.as_dict())


def expected_deduce(puzzle, *, unique=False, max_checks=0, band=1):
    """``(status, solution, counters)`` the device must answer in deduce mode."""
    from slitherlink.model.band import band_solve
    model = band_solve(puzzle, band=band, max_solutions=2 if unique else 1,
                       max_decisions=max_checks or None)
    counters = model.counters()
    return (*expected(model.outcome, unique),
            {key: counters[key] for key in S.DEDUCE_COUNTERS})
