"""The firmware under garbage: seeded fuzzing of the SoC on the virtual board.

Rounds of noise -- random bytes with START bytes among them, valid frames with a
byte flipped, truncated frames, headers whose LEN is beyond what their type carries,
well-formed frames of unknown type or wrong length -- each followed by one valid request
(PING, STATS, ABORT while idle, or a small SOLVE in paper or in deduce mode, with the
counters or without).  Every valid request must be answered correctly, with its SEQ (a
SOLVE like the golden model of its mode, counters included when asked); every well-formed
bad frame gets its ERROR, with its SEQ, in order; the only other frames allowed are ERRORs
of dropped candidates (SEQ 0, request type 0; the firmware sends them only when its
transmitter is idle, docs/protocol.md).  At the end STATS must show that no byte was lost:
every byte sent was received, no overrun, no framing error.

The virtual board is the default build (the Arty's SoC), switched by SET_BAUD from its start
rate to 1 Mbaud before the fuzz, so the inter-byte timeout that resynchronises after a
truncated frame (256 byte times at the current rate) costs about 100 k cycles instead of
880 k.
The CI run is small; the ``slow`` one tries many more rounds (``make test-slow``).  The
frames are the protocol's own bytes (tests/sim/frames.py, on spec.protocol).
"""

import random
import time

import pytest
import serial

from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.spec import protocol as S
from slitherlink.spec.target import DEFAULT_TARGET
from slitherlink.spec.uart import FAST_BAUD, made_baud
from tests.conftest import load
from tests.sim import frames as F

#: the rate of the fuzz, switched to after the start (SET_BAUD, confirmed by a PING)
BAUD = FAST_BAUD
#: the rate the board's UART makes of it (VERSION's ``baud``)
MADE = made_baud(DEFAULT_TARGET.uart_clock_hz, BAUD)
PUZZLES = ["edge_1x2_3", "edge_1x3_two_solutions", "edge_2x4_global_unsat", "janko_0002"]
#: seconds to wait for the reply to one round (several timeouts may be needed)
ROUND_TIMEOUT = 120.0
MT = S.MsgType
#: the ERROR codes of a dropped candidate
DROPS = (S.ErrorCode.BAD_HEADER, S.ErrorCode.BAD_LENGTH, S.ErrorCode.BAD_CRC,
         S.ErrorCode.TIMEOUT)


@pytest.fixture(scope="module")
def fuzz_board():
    """The default virtual board and a port to it, both at :data:`BAUD`."""
    with VirtualBoard("soc", build=build_design("soc", quiet=True)) as board:
        with serial.Serial(board.port, board.baud, timeout=0.05) as port:
            switch_rate(port, BAUD)
            yield board, port


def switch_rate(port, baud):
    """SET_BAUD to ``baud`` (its BAUD reply comes at the old rate), then the port at the new
    rate and a PING that confirms it (docs/protocol.md)."""
    decoder = F.Decoder()
    exchange(port, decoder, F.frame(MT.SET_BAUD, S.SetBaud.pack(baud=baud), seq=1),
             lambda r: r.type == MT.BAUD and r.seq == 1
             and r.baud == made_baud(DEFAULT_TARGET.uart_clock_hz, baud), [])
    port.baudrate = baud
    exchange(port, decoder, F.frame(MT.PING, seq=2),
             lambda r: r.type == MT.VERSION and r.seq == 2
             and r.baud == made_baud(DEFAULT_TARGET.uart_clock_hz, baud), [])


def _flip(rng, frame):
    """The frame with one byte (not its START) changed."""
    i = rng.randrange(1, len(frame))
    return frame[:i] + bytes([frame[i] ^ rng.randrange(1, 256)]) + frame[i + 1:]


def seq(rng):
    return rng.randrange(1, 256)


def noise(rng, expected):
    """One burst of noise; appends the ERROR replies it must get to ``expected``
    (``(code, request type, seq)``)."""
    parts = []
    for _ in range(rng.randrange(0, 5)):
        kind = rng.randrange(8)
        if kind == 0:    # random bytes, some of them START
            parts.append(bytes(S.START if rng.random() < 0.15 else rng.randrange(256)
                               for _ in range(rng.randrange(1, 48))))
        elif kind == 7:  # a long burst, a quarter of it START bytes: more failed candidates
            # than ERROR frames the line can carry back
            parts.append(bytes(S.START if rng.random() < 0.25 else rng.randrange(256)
                               for _ in range(rng.randrange(100, 400))))
        elif kind == 1:  # a valid request with one byte changed: a bad CHECK, LEN or CRC
            puzzle = load(rng.choice(PUZZLES))[0]
            parts.append(_flip(rng, rng.choice([F.frame(MT.PING, seq=seq(rng)),
                                                F.frame(MT.STATS, seq=seq(rng)),
                                                F.solve(puzzle, seq=seq(rng))])))
        elif kind == 2:  # a truncated frame: resynchronised by the inter-byte timeout
            frame = F.solve(load(rng.choice(PUZZLES))[0], seq=seq(rng), mode=S.Mode.PAPER)
            parts.append(frame[:rng.randrange(1, len(frame))])
        elif kind == 3:  # a good header whose LEN is beyond what its type carries
            kind_type = rng.choice([MT.PING, MT.ABORT, MT.SOLVE, MT.SET_BAUD, 0x42])
            least = 1 if kind_type in (MT.PING, MT.ABORT) else (
                S.SetBaud.SIZE + 1 if kind_type == MT.SET_BAUD else S.solve_length(10, 10) + 1)
            parts.append(F.frame(kind_type, seq=seq(rng), length=rng.randrange(
                least, S.MAX_PAYLOAD + 1))[:S.FrameHeader.SIZE])
        elif kind == 4:  # a well-formed frame of no known type: always answered
            kind_type = rng.choice([0x07, 0x42, 0x7F, 0x81, 0xFE])  # not 0: "no type"
            n = seq(rng)
            parts.append(F.frame(kind_type, bytes(rng.randrange(256)
                                                  for _ in range(rng.randrange(4))), seq=n))
            expected.append((S.ErrorCode.UNKNOWN_TYPE, kind_type, n))
        elif kind == 5:  # a SET_BAUD too short: refused
            n = seq(rng)
            parts.append(F.frame(MT.SET_BAUD, b"\x00", seq=n))
            expected.append((S.ErrorCode.BAD_LENGTH, MT.SET_BAUD, n))
        else:            # a SOLVE with a clue code 4..14: refused
            n = seq(rng)
            parts.append(F.solve_raw(2, 2, [1, 2, rng.randrange(4, 15), 0xF], seq=n))
            expected.append((S.ErrorCode.BAD_CLUE, MT.SOLVE, n))
        if kind in (0, 1, 3, 7) or rng.random() < 0.3:
            # random bytes after a dropped candidate, before the next part
            parts.append(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 8))))
    return b"".join(parts)


def request(rng):
    """``(frame, check)``: a valid request and the function that checks its reply."""
    kind = rng.randrange(5)  # 3 and 4: a SOLVE, in paper and in deduce mode
    n = seq(rng)
    if kind == 0:
        def check(reply):
            return reply.type == MT.VERSION and reply.seq == n and reply.max_rows == 10 \
                and reply.baud == MADE and reply.flags == (S.VERSION_ACCEL_OK
                                                           | S.VERSION_DEDUCE_OK)
        return F.frame(MT.PING, seq=n), check
    if kind == 1:
        return F.frame(MT.STATS, seq=n), lambda r: r.type == MT.STATS_REPLY and r.seq == n
    if kind == 2:
        def check(reply):
            return reply.type == MT.ERROR and reply.seq == n \
                and reply.code == S.ErrorCode.NOT_BUSY and reply.fields["type"] == MT.ABORT
        return F.frame(MT.ABORT, seq=n), check
    puzzle = load(rng.choice(PUZZLES))[0]
    unique, counters = rng.random() < 0.5, rng.random() < 0.5
    mode = S.Mode.DEDUCE if kind == 4 else S.Mode.PAPER
    max_checks = rng.choice([0, 0, 0, 1]) if kind == 4 else rng.choice([0, 0, 7, 100])
    want = (F.expected_deduce if kind == 4 else F.expected_paper)(
        puzzle, unique=unique, max_checks=max_checks)
    status, solution, model = want
    kind_type = (MT.ANSWER if not counters else
                 MT.DEDUCE_RESULT if kind == 4 else MT.RESULT)

    def check(reply):
        return reply.type == kind_type and reply.seq == n and reply.status is status \
            and all(reply.fields[k] == v for k, v in model.items() if counters) \
            and (not status.solved
                 or F.colouring(reply, puzzle.rows, puzzle.cols) == solution)
    return F.solve(puzzle, seq=n, mode=mode, unique=unique, counters=counters,
                   max_checks=max_checks), check


def exchange(port, decoder, data, check, expected):
    """Send ``data``; read until ``check`` accepts a reply.  Every other frame must be an
    expected refusal (in order) or the ERROR of a dropped candidate."""
    port.write(data)
    deadline = time.monotonic() + ROUND_TIMEOUT
    expected = list(expected)
    while time.monotonic() < deadline:
        for reply in decoder.feed(port.read(4096)):
            if check(reply):
                assert not expected, f"refusals never answered: {expected}"
                assert not decoder.bad and not decoder.garbage, "the device sent garbage"
                return
            assert reply.type == MT.ERROR, f"unexpected reply {reply}"
            if reply.seq == 0:
                assert reply.code in DROPS and reply.fields["type"] == 0, f"unexpected {reply}"
            else:
                got = (reply.code, reply.fields["type"], reply.seq)
                assert expected and got == expected[0], \
                    f"unexpected {reply}, expected {expected[:1]}"
                expected.pop(0)
    raise AssertionError(f"no answer within {ROUND_TIMEOUT} s")


def fuzz(fuzz_board, seed, rounds):
    board, port = fuzz_board
    rng = random.Random(seed)
    decoder = F.Decoder()
    port.reset_input_buffer()
    # the counters before, to compare with at the end
    got = []

    def stats(reply):
        got.append(reply)
        return reply.type == MT.STATS_REPLY

    exchange(port, decoder, F.frame(MT.STATS, seq=1), stats, [])
    before = got[-1]
    sent = tried_bad = 0
    for _ in range(rounds):
        expected = []
        junk = noise(rng, expected)
        frame, check = request(rng)
        tried_bad += junk.count(S.START)
        exchange(port, decoder, junk + frame, check, expected)
        sent += len(junk) + len(frame)
    stats_frame = F.frame(MT.STATS, seq=2)
    exchange(port, decoder, stats_frame, stats, [])
    after = got[-1]
    delta = {k: (after.fields[k] - before.fields[k]) % (1 << 32) for k in S.STATS_COUNTERS}
    # no byte lost: every byte sent (the final STATS included) was received
    assert delta["rx_bytes"] == sent + len(stats_frame)
    assert delta["rx_overruns"] == 0 and delta["rx_frame_errors"] == 0
    assert delta["frames_good"] >= rounds + 1
    return {"rounds": rounds, "bytes": sent, "start_bytes_in_noise": tried_bad, **delta}


def test_fuzz_small(fuzz_board, record_property):
    """CI size: 40 rounds (about 60 noise parts and 40 valid requests)."""
    summary = fuzz(fuzz_board, seed=13, rounds=40)
    record_property("fuzz", summary)
    print(summary)
    assert summary["frames_bad"] > 0 and summary["garbage_bytes"] > 0


@pytest.mark.slow
def test_fuzz_large(fuzz_board, record_property):
    summary = fuzz(fuzz_board, seed=1313, rounds=600)
    record_property("fuzz", summary)
    print(summary)
    assert summary["frames_bad"] > 0
