"""The UART protocol (host/protocol.py): CRC, framing, resynchronisation, messages."""

import random
import struct

import pytest
from hypothesis import given, settings, strategies as st

from slitherlink.host import protocol as P
from slitherlink.spec import protocol as SP
from slitherlink.spec.registers import queue_depth
from slitherlink.host.puzzle import Puzzle
from slitherlink.host.result import Status


def test_crc16_ccitt_false_check_value():
    assert P.crc16(b"123456789") == 0x29B1
    assert P.crc16(b"") == 0xFFFF
    assert P.crc16(b"\x00") == 0xE1F0


def _crc16_by_table(data, crc=SP.CRC_INIT):
    """The CRC a bit at a time from :data:`spec.protocol.CRC_POLY` (not reflected): the
    reference :func:`crc16` is held to."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ SP.CRC_POLY if crc & 0x8000 else crc << 1) & 0xFFFF
    return crc


def test_crc16_is_the_table_s_crc():
    rng = random.Random(16)
    assert _crc16_by_table(b"123456789") == 0x29B1
    for length in list(range(12)) + [255, 1000, P.MAX_PAYLOAD + 2]:
        data = rng.randbytes(length)
        start = rng.randrange(1 << 16)
        assert P.crc16(data) == _crc16_by_table(data)
        assert P.crc16(bytearray(data), start) == _crc16_by_table(data, start)


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
def test_tail_packs_cell_i_at_its_bits(bits):
    """Cell i in bits ``(i * bits) % 8`` up of byte ``i * bits // 8``, as the layout
    says, for every count of cells up to a few bytes' worth; a value too wide is
    refused by name."""
    tail = SP.Tail(bits, name="cells")
    rng = random.Random(bits)
    for cells in range(0, 41):
        values = [rng.randrange(1 << bits) for _ in range(cells)]
        expected = bytearray(tail.nbytes(cells))
        for i, v in enumerate(values):
            expected[i * bits // 8] |= v << (i * bits % 8)
        assert tail.pack(values) == bytes(expected)
        assert tail.unpack(bytes(expected), cells) == values
        assert tail.unpack(bytes(expected) + b"\xff", cells) == values  # extra bytes ignored
    for bad in ([1 << bits], [0, -1], [0, 300]):
        with pytest.raises(ValueError, match=f"cells: {bad[-1]} does not fit"):
            tail.pack(bad)
    with pytest.raises(ValueError, match="need"):
        tail.unpack(b"", 1)


def test_a_layout_packs_each_field_to_its_limits_and_refuses_beyond():
    """Every field of every layout: 0 and its largest value packed little-endian at its
    offset; one more, or -1, refused by name; a tail on a layout without one refused."""
    layouts = [SP.FrameHeader, SP.FrameCrc, SP.Solve, SP.SetBaud, SP.Answer, SP.Result,
               SP.DeduceResult, SP.Version, SP.Baud, SP.Error, SP.Stats, SP.Resend]
    for layout in layouts:
        for f in layout.FIELDS:
            top = (1 << 8 * f.size) - 1
            for value in (0, top):
                values = {g.name: 0 for g in layout.FIELDS} | {f.name: value}
                payload = layout.pack(**values)
                assert payload[f.offset:f.offset + f.size] == value.to_bytes(f.size, "little")
                assert layout.unpack(payload)[0] == values
            for bad in (top + 1, -1):
                values = {g.name: 0 for g in layout.FIELDS} | {f.name: bad}
                with pytest.raises(ValueError, match=f"{layout.__name__}.{f.name}: {bad} "
                                                     f"does not fit in u{8 * f.size}"):
                    layout.pack(**values)
    with pytest.raises(ValueError, match="has no tail"):
        SP.Error.pack(b"\x01", code=1, type=2, detail=0)


def test_a_damaged_answer_is_never_taken():
    """Every single-bit error in a 30x30 ANSWER after its START is dropped (in its header:
    BAD_HEADER; in its payload or CRC: BAD_CRC, with the CRC received), and the next
    frame is decoded."""
    rng = random.Random(30)
    solution = tuple(tuple(rng.random() < 0.5 for _ in range(30)) for _ in range(30))
    frame = P.encode_answer(P.Status.SOLVED, 30, 30, solution=solution, seq=7)
    assert P.decode_reply(P.FrameDecoder().feed(frame)[0]).solution == solution
    for bit in range(8, 8 * len(frame)):
        damaged = bytearray(frame)
        damaged[bit // 8] ^= 1 << (bit % 8)
        decoder = P.FrameDecoder()
        frames = decoder.feed(bytes(damaged) + P.encode_ping(seq=2))
        # the PING, unless a START inside the damaged frame began a candidate still pending
        assert frames == [P.Frame(P.MsgType.PING, b"", 2)] or \
            (frames == [] and decoder.pending), bit
        if bit >= 8 * P.FrameHeader.SIZE:
            assert decoder.bad_frames[0].code == P.ErrorCode.BAD_CRC, bit
            received = int.from_bytes(damaged[-P.FrameCrc.SIZE:], "little")
            assert decoder.bad_frames[0].detail == received, bit


def test_crc8_check_value_and_header_check():
    assert P.header_check(3, 0x42, 9) == SP.crc8(bytes([3, 0, 0x42, 9]))
    assert SP.crc8(b"123456789") == 0xF4


def test_frame_layout():
    frame = P.encode_frame(0x42, b"\x01\x02\x03", seq=9)
    assert frame[0] == P.START
    assert frame[1:3] == b"\x03\x00"           # LEN, little-endian, payload only
    assert frame[3] == 0x42                    # TYPE
    assert frame[4] == 9                       # SEQ
    assert frame[5] == P.header_check(3, 0x42, 9)  # CHECK over LEN, TYPE, SEQ
    assert frame[6:9] == b"\x01\x02\x03"
    assert len(frame) == P.OVERHEAD + 3
    assert struct.unpack("<H", frame[9:])[0] == P.crc16(frame[1:9])
    assert P.FrameDecoder().feed(frame) == [P.Frame(0x42, b"\x01\x02\x03", 9)]
    with pytest.raises(ValueError, match="SEQ"):
        P.encode_frame(0x42, seq=256)


def test_decoder_byte_by_byte_and_garbage_between_frames():
    d = P.FrameDecoder()
    stream = b"\x00\x13garbage" + P.encode_ping(seq=3) + b"\xff\xfe" + P.encode_abort(seq=4)
    frames = []
    for b in stream:
        frames += d.feed(bytes([b]))
    assert frames == [P.Frame(P.MsgType.PING, b"", 3), P.Frame(P.MsgType.ABORT, b"", 4)]
    assert d.bad_frames == [] and not d.pending and d.garbage == 11


def test_bad_crc_is_reported_and_next_frame_decoded():
    bad = bytearray(P.encode_ping())
    bad[-1] ^= 0x40
    events = P.FrameDecoder().feed_events(bytes(bad) + P.encode_abort())
    assert [type(e) for e in events] == [P.BadFrame, P.Frame]
    assert events[0].code == P.ErrorCode.BAD_CRC
    assert events[1] == P.Frame(P.MsgType.ABORT, b"", 1)


@pytest.mark.parametrize("at", [1, 2, 3, 4, 5], ids=["len-lo", "len-hi", "type", "seq", "check"])
def test_a_damaged_header_is_dropped_at_once(at):
    """A damaged LEN, TYPE, SEQ or CHECK fails the CHECK as soon as the six header bytes are
    in: the frame behind is found at once, not swallowed as a payload."""
    solve = bytearray(P.encode_solve(Puzzle([[1, None], [None, 3]]), mode="paper"))
    solve[at] ^= 0x10
    d = P.FrameDecoder()
    events = d.feed_events(bytes(solve[:P.FrameHeader.SIZE]))
    assert events == [P.BadFrame(P.ErrorCode.BAD_HEADER, solve[5],
                                 bytes(solve[:P.FrameHeader.SIZE]))]
    events = d.feed_events(bytes(solve[P.FrameHeader.SIZE:]) + P.encode_ping(seq=7))
    assert events == [P.Frame(P.MsgType.PING, b"", 7)]


def test_length_limits_per_type():
    """The device's receiver takes an empty PING/ABORT/STATS, a 4-byte SET_BAUD, a SOLVE
    up to its build's largest; a longer LEN is dropped (BAD_LENGTH) as soon as the header
    is in (its CHECK good)."""
    build = P.solve_length(10, 10)
    device = P.FrameDecoder.device(build)
    assert device.limits[P.MsgType.PING] == 0 and device.limits[P.MsgType.SET_BAUD] == 4
    for type, length in ((P.MsgType.PING, 1), (P.MsgType.SET_BAUD, 5),
                         (P.MsgType.SOLVE, build + 1), (0x42, build + 1)):
        header = P.FrameHeader.pack(start=P.START, length=length, type=type, seq=1,
                                    check=P.header_check(length, type, 1))
        events = device.feed_events(header + P.encode_ping(seq=2))
        assert events == [P.BadFrame(P.ErrorCode.BAD_LENGTH, 0, header),
                          P.Frame(P.MsgType.PING, b"", 2)], type
    frame = P.encode_solve_raw(10, 10, [15] * 100, seq=3)
    assert device.feed(frame) == P.FrameDecoder().feed(frame)
    # the host's receiver: a reply no longer than the largest of its type
    host = P.FrameDecoder()
    length = P.ERROR_PAYLOAD + 1
    header = P.FrameHeader.pack(start=P.START, length=length, type=P.MsgType.ERROR, seq=0,
                                check=P.header_check(length, P.MsgType.ERROR, 0))
    assert host.feed_events(header)[0].code == P.ErrorCode.BAD_LENGTH
    with pytest.raises(ValueError, match="MAX_PAYLOAD"):
        P.encode_frame(P.MsgType.SOLVE, bytes(P.MAX_PAYLOAD + 1))


def test_truncated_frame_followed_by_valid_frame_is_found_by_rescan():
    # A SOLVE cut after its header swallows the next frame into its payload; the inter-byte
    # timeout drops it and the rescan finds the valid frame inside.
    truncated = P.encode_solve(Puzzle([[1, None], [None, 3]]), mode="paper")[:7]
    d = P.FrameDecoder()
    events = d.feed_events(truncated + P.encode_ping())
    assert events == []  # still waiting for the truncated frame's payload
    assert d.pending
    events = d.timeout()
    assert events[0].code == P.ErrorCode.TIMEOUT
    assert events[-1] == P.Frame(P.MsgType.PING, b"", 1)
    assert not d.pending


def test_timeout_without_pending_frame_is_nothing():
    d = P.FrameDecoder()
    assert d.feed_events(b"xyz") == [] and d.timeout() == []


@settings(max_examples=200, deadline=None)
@given(garbage=st.binary(max_size=40), payload=st.binary(max_size=30))
def test_valid_frame_after_any_garbage_is_found(garbage, payload):
    """Whatever precedes it, a valid frame is delivered once the garbage is resolved."""
    d = P.FrameDecoder()
    frame = P.encode_frame(0x55, payload, seq=5)
    events = d.feed_events(garbage + frame)
    for _ in range(len(garbage) + 1):  # each timeout resolves one pending candidate
        if P.Frame(0x55, payload, 5) in events:
            break
        events += d.timeout()
    assert P.Frame(0x55, payload, 5) in events


def test_solve_round_trip():
    puzzle = Puzzle([[3, None, 0], [None, 2, 1]])
    frame, = P.FrameDecoder().feed(P.encode_solve(puzzle, mode="paper", unique=True,
                                                  max_checks=1234))
    assert frame.type == P.MsgType.SOLVE
    assert len(frame.payload) == P.SOLVE_HEADER + 3
    # cell 0 in the low nibble: 3 | blank << 4
    assert frame.payload[P.SOLVE_HEADER] == 0xF3
    req = P.decode_solve(frame)
    assert (req.rows, req.cols, req.clues, req.unique, req.max_checks) == (
        2, 3, puzzle.clues, True, 1234)
    assert req.puzzle() == puzzle
    payload = P.encode_solve(puzzle, mode="paper")[P.FrameHeader.SIZE:-2]
    assert P.decode_solve(P.Frame(P.MsgType.SOLVE, payload)).check_limit \
        == 2**32 - 1


def _solve_frame(rows, cols, codes, **kw):
    frame, = P.FrameDecoder().feed(P.encode_solve_raw(rows, cols, codes, **kw))
    return frame


@pytest.mark.parametrize("rows, cols, codes, kw, code, detail", [
    (0, 3, [], {}, P.ErrorCode.BAD_SIZE, 3),
    (11, 2, [15] * 22, {}, P.ErrorCode.TOO_LARGE, 11 << 8 | 2),
    (2, 2, [15] * 4, {"flags": 0x80}, P.ErrorCode.BAD_FLAGS, 0x80),
    (2, 2, [0, 1, 4, 3], {}, P.ErrorCode.BAD_CLUE, 2),
    (1, 3, [15, 15, 14], {}, P.ErrorCode.BAD_CLUE, 2),
])
def test_solve_refusals(rows, cols, codes, kw, code, detail):
    with pytest.raises(P.ProtocolError) as info:
        P.decode_solve(_solve_frame(rows, cols, codes, **kw), max_rows=10, max_cols=10)
    assert info.value.code == code and info.value.detail == detail


def test_solve_bad_lengths():
    with pytest.raises(P.ProtocolError) as info:
        P.decode_solve(P.Frame(P.MsgType.SOLVE, b"\x02\x02"))
    assert info.value.code == P.ErrorCode.BAD_LENGTH
    frame = _solve_frame(2, 2, [1, 1, 1, 1])
    with pytest.raises(P.ProtocolError) as info:
        P.decode_solve(P.Frame(frame.type, frame.payload + b"\x00"))
    assert (info.value.code, info.value.detail) == (P.ErrorCode.BAD_LENGTH, P.SOLVE_HEADER + 2)


def test_encode_solve_validates():
    with pytest.raises(ValueError, match="max_checks"):
        P.encode_solve(Puzzle([[1]]), mode="paper", max_checks=-1)
    with pytest.raises(ValueError, match="protocol"):
        P.encode_solve(Puzzle([[None] * 65]), mode="paper")


@pytest.mark.parametrize("status", [s for s in Status if s is not Status.ERROR])
def test_result_round_trip(status):
    sol = ((True, False, True), (False, True, True)) if status.solved else None
    counters = {"checks": 2**40 + 5, "backtracks": 7, "candidates": 3, "floods": 9,
                "flood_iterations": 123456}
    frame, = P.FrameDecoder().feed(P.encode_result(status, 2, 3, solution=sol,
                                                   counters=counters, cycles=2**33 + 1,
                                                   aborted=status is Status.LIMIT, unique=True))
    reply = P.decode_reply(frame)
    assert reply == P.ResultReply(status, 2, 3, sol, counters, 2**33 + 1,
                                  status is Status.LIMIT, True)
    assert reply.counters is not None and reply.mode is P.Mode.PAPER


def test_result_rejects_garbled_payloads():
    frame, = P.FrameDecoder().feed(P.encode_result(Status.SOLVED, 1, 2, solution=((True, True),)))
    with pytest.raises(P.ProtocolError, match="expected"):
        P.decode_result(P.Frame(frame.type, frame.payload[:-1]))
    with pytest.raises(P.ProtocolError, match="status"):
        P.decode_result(P.Frame(frame.type, b"\x09" + frame.payload[1:]))
    with pytest.raises(P.ProtocolError, match="RESULT"):
        P.decode_result(P.Frame(P.MsgType.VERSION, frame.payload))
    with pytest.raises(ValueError):
        P.encode_result(Status.ERROR, 1, 1)


def test_version_and_error_round_trip():
    frame, = P.FrameDecoder().feed(P.encode_version(
        max_rows=10, max_cols=12, clock_hz=50_000_000, baud=1_000_000, start_baud=115200,
        max_baud=3_000_000, seq=8))
    v = P.decode_reply(frame)
    assert (v.protocol, v.max_rows, v.max_cols, v.clock_hz, v.baud, v.start_baud, v.max_baud,
            v.max_payload, v.queue, v.accelerator_ok, v.seq) == \
        (P.PROTOCOL_VERSION, 10, 12, 50_000_000, 1_000_000, 115200, 3_000_000,
         P.solve_length(10, 12), queue_depth(10, 12), True, 8)
    frame, = P.FrameDecoder().feed(P.encode_error(P.ErrorCode.BAD_CLUE, P.MsgType.SOLVE, 17,
                                                  seq=4))
    e = P.decode_reply(frame)
    assert e == P.ErrorReply(P.ErrorCode.BAD_CLUE, P.MsgType.SOLVE, 17, 4)
    assert "BAD_CLUE" in str(e)
    with pytest.raises(P.ProtocolError, match="not a reply"):
        P.decode_reply(P.Frame(P.MsgType.PING))


def test_colouring_packing():
    rng = random.Random(5)
    for rows, cols in [(1, 1), (3, 5), (10, 10), (7, 9)]:
        sol = tuple(tuple(rng.random() < 0.5 for _ in range(cols)) for _ in range(rows))
        packed = P.pack_colouring(sol)
        assert len(packed) == (rows * cols + 7) // 8
        assert P.unpack_colouring(packed, rows, cols) == sol


def test_a_colouring_is_unpacked_cell_i_from_bit_i():
    """Cell i is bit i % 8 of byte i // 8 (the bits past the last cell ignored), each a
    boolean; a tail short of its cells is refused."""
    rng = random.Random(6)
    for rows, cols in [(1, 1), (1, 7), (3, 5), (10, 10), (13, 29), (60, 60)]:
        count = rows * cols
        data = bytes(rng.randrange(256) for _ in range((count + 7) // 8))
        got = P.unpack_colouring(data, rows, cols)
        cells = [bool(data[i // 8] >> (i % 8) & 1) for i in range(count)]
        assert got == tuple(tuple(cells[r * cols:(r + 1) * cols]) for r in range(rows))
        assert all(type(v) is bool for row in got for v in row)
        with pytest.raises(ValueError, match="cells need"):
            P.unpack_colouring(data[:-1], rows, cols)


def test_c_header_has_constants_and_crc8_table():
    text = SP.c_header()
    assert f"#define PROTO_START 0x{P.START:02X}u" in text
    assert "#define MSG_SOLVE 0x02u" in text and "#define ERR_BAD_CLUE 6u" in text
    assert f"#define STATUS_LIMIT {int(Status.LIMIT)}u" in text
    table = text.split("proto_crc8_table[256] = {")[1].split("};")[0]
    values = [int(v, 16) for v in table.replace(",", " ").split()]
    assert tuple(values) == SP.CRC8_TABLE and len(values) == 256
    assert "proto_crc_table" not in text   # the frame CRC is the UART's register


def test_stats_round_trip():
    """STATS_REPLY: every counter of spec.protocol.Stats, u32 each."""
    values = {name: (i + 1) * 1_000_003 for i, name in enumerate(P.STATS_COUNTERS)}
    frame, = P.FrameDecoder().feed(P.encode_stats_reply(**values))
    assert frame.type == P.MsgType.STATS_REPLY
    reply = P.decode_reply(frame)
    assert reply.as_dict() == values
    assert P.FrameDecoder().feed(P.encode_stats(seq=2))[0] == P.Frame(P.MsgType.STATS, b"", 2)
    with pytest.raises(ValueError, match="unknown"):
        P.encode_stats_reply(bytes_in=1)
    with pytest.raises(P.ProtocolError):
        P.decode_stats(P.Frame(P.MsgType.STATS_REPLY, b"\x00" * 5))


# -- deduce mode: SOLVE's DEDUCE flag, DEDUCE_RESULT, VERSION's DEDUCE_OK ------------------

def test_solve_carries_the_mode():
    puzzle = Puzzle([[3, None, 0], [None, 2, 1]])
    paper = P.encode_solve(puzzle, mode=P.Mode.PAPER, unique=True, max_checks=7)
    # the encoder has no default mode (the engines' is host.engines.DEFAULT_MODE)
    with pytest.raises(TypeError, match="mode"):
        P.encode_solve(puzzle, unique=True, max_checks=7)
    assert P.encode_solve(puzzle, unique=True, max_checks=7, mode="paper") == paper
    assert P.encode_solve(puzzle, unique=True, max_checks=7, mode=0) == paper
    at = SP.Solve.offset("flags")
    paper_payload = P.FrameDecoder().feed(paper)[0].payload
    for mode in (P.Mode.DEDUCE, "deduce", "DEDUCE", 1):
        frame, = P.FrameDecoder().feed(P.encode_solve(puzzle, unique=True, max_checks=7,
                                                      mode=mode))
        assert frame.payload[at] == P.FLAG_UNIQUE | P.FLAG_DEDUCE == 0x03
        # the flag is the only difference
        assert frame.payload[:at] + frame.payload[at + 1:] == \
            paper_payload[:at] + paper_payload[at + 1:]
        req = P.decode_solve(frame)
        assert (req.mode, req.unique, req.max_checks, req.clues) == (P.Mode.DEDUCE, True, 7,
                                                                     puzzle.clues)
    assert P.decode_solve(P.FrameDecoder().feed(paper)[0]).mode is P.Mode.PAPER
    frame, = P.FrameDecoder().feed(P.encode_solve(puzzle, mode="deduce"))
    assert frame.payload[at] == P.FLAG_DEDUCE
    for bad in ("fast", 2, None, True):
        with pytest.raises(ValueError, match="mode"):
            P.encode_solve(puzzle, mode=bad)


def _deduce_counters(seed):
    return {name: (i + 1) * 1_000_003 + seed for i, name in enumerate(P.DEDUCE_RESULT_COUNTERS)}


@pytest.mark.parametrize("status", [s for s in Status if s is not Status.ERROR])
@pytest.mark.parametrize("aborted, unique, trail_full", [(False, False, False),
                                                         (True, True, False),
                                                         (False, True, True)])
def test_deduce_result_round_trip(status, aborted, unique, trail_full):
    sol = ((True, False, True), (False, True, True)) if status.solved else None
    counters = _deduce_counters(int(status))
    assert set(P.DEDUCE_COUNTERS) <= set(counters)
    data = P.encode_deduce_result(status, 2, 3, solution=sol, counters=counters,
                                  cycles=2**40 + 3, aborted=aborted, unique=unique,
                                  trail_full=trail_full)
    frame, = P.FrameDecoder().feed(data)
    assert frame.type == P.MsgType.DEDUCE_RESULT == 0x89
    assert len(frame.payload) == P.result_length(2, 3, status.solved, mode=P.Mode.DEDUCE)
    assert int.from_bytes(frame.payload[SP.DeduceResult.offset("cycles"):][:8], "little") \
        == 2**40 + 3
    flags = frame.payload[SP.DeduceResult.offset("flags")]
    assert flags == (aborted * P.RESULT_ABORTED | unique * P.RESULT_UNIQUE
                     | trail_full * P.RESULT_TRAIL_FULL | P.RESULT_DEDUCE)
    reply = P.decode_reply(frame)
    assert reply == P.DeduceResultReply(status, 2, 3, sol, counters, 2**40 + 3, aborted,
                                        unique, trail_full)
    assert reply.mode is P.Mode.DEDUCE and not isinstance(reply, P.ResultReply)


def test_deduce_result_counters_default_to_zero_and_are_checked():
    frame, = P.FrameDecoder().feed(P.encode_deduce_result(Status.LIMIT, 1, 1,
                                                          counters={"decisions": 9}))
    reply = P.decode_deduce_result(frame)
    assert reply.counters == dict(dict.fromkeys(P.DEDUCE_RESULT_COUNTERS, 0), decisions=9)
    with pytest.raises(ValueError, match="unknown DEDUCE_RESULT counters"):
        P.encode_deduce_result(Status.LIMIT, 1, 1, counters={"checks": 1})
    with pytest.raises(ValueError, match="sweeps"):
        P.encode_deduce_result(Status.LIMIT, 1, 1, counters={"sweeps": 2**32})
    with pytest.raises(ValueError, match="ERROR"):
        P.encode_deduce_result(Status.ERROR, 1, 1)
    with pytest.raises(ValueError, match="needs a solution"):
        P.encode_deduce_result(Status.SOLVED, 1, 1)


def test_deduce_result_rejects_garbled_payloads():
    solved = P.FrameDecoder().feed(P.encode_deduce_result(
        Status.SOLVED, 3, 3, solution=((True,) * 3,) * 3, counters=_deduce_counters(0)))[0]
    limit = P.FrameDecoder().feed(P.encode_deduce_result(Status.LIMIT, 3, 3))[0]
    status = SP.DeduceResult.offset("status")
    assert len(solved.payload) == P.DEDUCE_RESULT_HEADER + 2  # 9 cells: 2 bytes
    garbled = {
        "one byte short": solved.payload[:-1],
        "one byte more": solved.payload + b"\x00",
        "a colouring with a status that has none": limit.payload + b"\x00\x00",
        "a solved status without its colouring": solved.payload[:P.DEDUCE_RESULT_HEADER],
        "shorter than the header": solved.payload[:P.DEDUCE_RESULT_HEADER - 1],
        "empty": b"",
        "a RESULT's payload": P.FrameDecoder().feed(P.encode_result(Status.LIMIT, 3, 3))[0]
        .payload,
        "unknown status": solved.payload[:status] + b"\x09" + solved.payload[status + 1:],
        "status ERROR": limit.payload[:status] + bytes([Status.ERROR])
        + limit.payload[status + 1:],
    }
    for what, payload in garbled.items():
        with pytest.raises(P.ProtocolError) as info:
            P.decode_reply(P.Frame(P.MsgType.DEDUCE_RESULT, payload))
        assert info.value.code == P.ErrorCode.BAD_LENGTH, what
    # the type decides the layout: one never reads as the other
    with pytest.raises(P.ProtocolError, match="expected a DEDUCE_RESULT"):
        P.decode_deduce_result(P.Frame(P.MsgType.RESULT, limit.payload))
    with pytest.raises(P.ProtocolError, match="expected a RESULT"):
        P.decode_result(limit)
    with pytest.raises(P.ProtocolError):
        P.decode_reply(P.Frame(P.MsgType.RESULT, limit.payload))


def test_version_deduce_flag():
    plain = P.encode_version(max_rows=10, max_cols=10, clock_hz=50_000_000, baud=115200)
    frame, = P.FrameDecoder().feed(plain)
    assert frame.payload[SP.Version.offset("flags")] == P.VERSION_ACCEL_OK  # today's bytes
    assert P.decode_version(frame).deduce_ok is False
    frame, = P.FrameDecoder().feed(P.encode_version(max_rows=10, max_cols=10, clock_hz=1,
                                                    baud=1, deduce_ok=True))
    assert frame.payload[SP.Version.offset("flags")] == \
        P.VERSION_ACCEL_OK | P.VERSION_DEDUCE_OK == 0x03
    v = P.decode_reply(frame)
    assert v.deduce_ok and v.accelerator_ok
    frame, = P.FrameDecoder().feed(P.encode_version(max_rows=1, max_cols=1, clock_hz=1, baud=1,
                                                    accelerator_ok=False, deduce_ok=True))
    v = P.decode_version(frame)
    assert (v.accelerator_ok, v.deduce_ok) == (False, True)


def test_no_deduce_error_round_trip():
    frame, = P.FrameDecoder().feed(P.encode_error(P.ErrorCode.NO_DEDUCE, P.MsgType.SOLVE,
                                                  0xBEEF))
    e = P.decode_reply(frame)
    assert e == P.ErrorReply(P.ErrorCode.NO_DEDUCE, P.MsgType.SOLVE, 0xBEEF, 0)
    assert e.code == 13 and "NO_DEDUCE" in str(e)


# -- protocol version 2: ANSWER, FLAG_COUNTERS, SET_BAUD and BAUD, SEQ in every reply --------

def test_solve_asks_for_the_counters_only_when_told():
    puzzle = Puzzle([[3, None, 0], [None, 2, 1]])
    at = SP.Solve.offset("flags")
    plain, = P.FrameDecoder().feed(P.encode_solve(puzzle, mode="deduce", seq=5))
    counted, = P.FrameDecoder().feed(P.encode_solve(puzzle, mode="deduce", counters=True,
                                                    seq=5))
    assert plain.payload[at] == P.FLAG_DEDUCE
    assert counted.payload[at] == P.FLAG_DEDUCE | P.FLAG_COUNTERS
    assert (P.decode_solve(plain).counters, P.decode_solve(counted).counters) == (False, True)
    assert plain.seq == counted.seq == 5


@pytest.mark.parametrize("status", [s for s in Status if s is not Status.ERROR])
@pytest.mark.parametrize("mode", list(P.Mode))
def test_answer_round_trip(status, mode):
    """ANSWER carries the status, the flags (the mode too) and the colouring, no counters."""
    sol = ((True, False, True), (False, True, True)) if status.solved else None
    data = P.encode_answer(status, 2, 3, solution=sol, aborted=True, unique=True, mode=mode,
                           seq=77)
    frame, = P.FrameDecoder().feed(data)
    assert frame.type == P.MsgType.ANSWER and frame.seq == 77
    assert len(frame.payload) == P.answer_length(2, 3, status.solved)
    reply = P.decode_reply(frame)
    assert reply == P.AnswerReply(status, 2, 3, sol, True, True, False, mode, 77)
    assert reply.counters is None and reply.cycles is None
    with pytest.raises(P.ProtocolError):
        P.decode_answer(P.Frame(P.MsgType.ANSWER, frame.payload + b"\x00"))
    with pytest.raises(P.ProtocolError):
        P.decode_answer(P.Frame(P.MsgType.ANSWER, bytes([Status.ERROR]) + frame.payload[1:]))


def test_bytes_per_puzzle_of_each_reply():
    """A 10x10 SOLVE and its replies, from the layouts: the ANSWER is a third of a RESULT."""
    puzzle = Puzzle([[None] * 10 for _ in range(10)])
    blank = tuple((False,) * 10 for _ in range(10))
    assert len(P.encode_solve(puzzle, mode="deduce")) == P.OVERHEAD + SP.Solve.SIZE + 50 == 65
    assert len(P.encode_answer(Status.SOLVED, 10, 10, solution=blank)) == \
        P.OVERHEAD + SP.Answer.SIZE + 13 == 25
    assert len(P.encode_deduce_result(Status.SOLVED, 10, 10, solution=blank)) == \
        P.OVERHEAD + P.DEDUCE_RESULT_HEADER + 13


def test_set_baud_and_baud_round_trip():
    frame, = P.FrameDecoder().feed(P.encode_set_baud(3_000_000, seq=12))
    assert (frame.type, frame.seq, P.decode_set_baud(frame)) == (P.MsgType.SET_BAUD, 12,
                                                                 3_000_000)
    frame, = P.FrameDecoder().feed(P.encode_baud(2_960_000, 25, seq=12))
    assert P.decode_reply(frame) == P.BaudReply(2_960_000, 25, 12)
    with pytest.raises(P.ProtocolError):
        P.decode_set_baud(P.Frame(P.MsgType.SET_BAUD, b"\x00" * 3))
    with pytest.raises(P.ProtocolError):
        P.decode_baud(P.Frame(P.MsgType.BAUD, b"\x00" * 5))
