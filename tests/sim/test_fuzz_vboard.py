"""The firmware under garbage: seeded fuzzing of the SoC on the virtual board.

Rounds of noise -- random bytes with START bytes among them, valid frames with a
byte flipped, truncated frames, a LEN beyond MAX_PAYLOAD, well-formed frames of
unknown type or wrong length -- each followed by one valid request (PING, STATS,
ABORT while idle, or a small SOLVE in paper or in deduce mode).  Every valid request
must be answered correctly (a SOLVE like the golden model of its mode, counters
included); every well-formed
bad frame gets its ERROR, in order; the only other frames allowed are ERRORs of
dropped candidates (request type 0; the firmware sends them only when its
transmitter is idle, docs/protocol.md).  At the end STATS must show that no byte
was lost: every byte sent was received, no overrun, no framing error.

The virtual board is the SoC at 50 MHz with its UART at clock/16 (3.125 Mbaud),
so the inter-byte timeout that resynchronises after a truncated frame (256 byte
times) costs 41 k cycles instead of 1.1 M.  The CI run is small; the ``slow``
one tries many more rounds (``make test-slow``).
"""

import random
import time

import pytest
import serial

from slitherlink.host import protocol as P
from slitherlink.host.result import Result
from slitherlink.model.band import band_solve
from slitherlink.model.paper import search
from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.spec.uart import FAST_BAUD
from slitherlink.spec.target import PAPER_CLOCK_HZ
from tests.conftest import load

CLOCK_HZ = PAPER_CLOCK_HZ
BAUD = FAST_BAUD
PUZZLES = ["edge_1x2_3", "edge_1x3_two_solutions", "edge_2x4_global_unsat", "janko_0002"]
#: seconds to wait for the reply to one round (several timeouts may be needed)
ROUND_TIMEOUT = 120.0


@pytest.fixture(scope="module")
def fuzz_board():
    build = build_design("soc", params={"clock_hz": CLOCK_HZ, "baud": BAUD}, quiet=True)
    with VirtualBoard("soc", build=build) as board:
        with serial.Serial(board.port, board.baud, timeout=0.05) as port:
            yield board, port


def _flip(rng, frame):
    """The frame with one byte (not its START) changed."""
    i = rng.randrange(1, len(frame))
    return frame[:i] + bytes([frame[i] ^ rng.randrange(1, 256)]) + frame[i + 1:]


def noise(rng, expected):
    """One burst of noise; appends the ERROR replies it must get to ``expected``."""
    parts = []
    for _ in range(rng.randrange(0, 5)):
        kind = rng.randrange(8)
        if kind == 0:    # random bytes, some of them START
            parts.append(bytes(P.START if rng.random() < 0.15 else rng.randrange(256)
                               for _ in range(rng.randrange(1, 48))))
        elif kind == 7:  # a long burst, a quarter of it START bytes: more failed candidates
            # than ERROR frames the line can carry back
            parts.append(bytes(P.START if rng.random() < 0.25 else rng.randrange(256)
                               for _ in range(rng.randrange(100, 400))))
        elif kind == 1:  # a valid request with one byte changed: a bad CRC or bad LEN
            parts.append(_flip(rng, rng.choice([P.encode_ping(), P.encode_stats(),
                                                P.encode_solve(load(rng.choice(PUZZLES))[0],
                                                               mode="paper")])))
        elif kind == 2:  # a truncated frame: resynchronised by the inter-byte timeout
            frame = P.encode_solve(load(rng.choice(PUZZLES))[0], mode="paper")
            parts.append(frame[:rng.randrange(1, len(frame))])
        elif kind == 3:  # LEN beyond MAX_PAYLOAD
            parts.append(bytes([P.START]) + (P.MAX_PAYLOAD + 1 + rng.randrange(1000))
                         .to_bytes(2, "little") + bytes([rng.randrange(256)]))
        elif kind == 4:  # a well-formed frame of no known type: always answered
            kind_type = rng.choice([0x05, 0x42, 0x7F, 0x81, 0xFE])  # not 0: "no type"
            parts.append(P.encode_frame(kind_type, bytes(rng.randrange(256)
                                                         for _ in range(rng.randrange(4)))))
            expected.append((P.ErrorCode.UNKNOWN_TYPE, kind_type))
        elif kind == 5:  # a PING with a payload: refused
            parts.append(P.encode_frame(P.MsgType.PING, b"\x00"))
            expected.append((P.ErrorCode.BAD_LENGTH, P.MsgType.PING))
        else:            # a SOLVE with a clue code 4..14: refused
            parts.append(P.encode_solve_raw(2, 2, [1, 2, rng.randrange(4, 15), 0xF]))
            expected.append((P.ErrorCode.BAD_CLUE, P.MsgType.SOLVE))
        if kind in (0, 1, 3, 7) or rng.random() < 0.3:
            # random bytes after a dropped candidate, before the next part
            parts.append(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 8))))
    return b"".join(parts)


def request(rng):
    """``(frame, check)``: a valid request and the function that checks its reply."""
    kind = rng.randrange(5)  # 3 and 4: a SOLVE, in paper and in deduce mode
    if kind == 0:
        def check(reply):
            return isinstance(reply, P.VersionReply) and reply.max_rows == 10 \
                and reply.baud == BAUD and reply.accelerator_ok and reply.deduce_ok
        return P.encode_ping(), check
    if kind == 1:
        return P.encode_stats(), lambda reply: isinstance(reply, P.StatsReply)
    if kind == 2:
        def check(reply):
            return isinstance(reply, P.ErrorReply) and reply.code == P.ErrorCode.NOT_BUSY \
                and reply.request_type == P.MsgType.ABORT
        return P.encode_abort(), check
    puzzle = load(rng.choice(PUZZLES))[0]
    unique = rng.random() < 0.5
    if kind == 4:  # deduce mode: the deduction engine, bounded by decisions
        max_decisions = rng.choice([0, 0, 0, 1])
        banded = band_solve(puzzle, max_solutions=2 if unique else 1,
                            max_decisions=max_decisions or None)
        outcome = banded.outcome
        status = Result.status_for(len(outcome.solutions), wanted_unique=unique,
                                   exhausted=outcome.exhausted)

        def check(reply):
            return isinstance(reply, P.DeduceResultReply) and reply.status is status \
                and all(reply.counters[k] == v for k, v in banded.counters().items()) \
                and (not status.solved or reply.solution == outcome.solutions[0])
        return P.encode_solve(puzzle, unique=unique, max_checks=max_decisions,
                              mode=P.Mode.DEDUCE), check
    max_checks = rng.choice([0, 0, 7, 100])
    model = search(puzzle, max_solutions=2 if unique else 1, max_checks=max_checks or None)
    status = Result.status_for(len(model.solutions), wanted_unique=unique,
                               exhausted=model.exhausted)

    def check(reply):
        return isinstance(reply, P.ResultReply) and reply.status is status \
            and reply.counters == model.counters.as_dict() \
            and (not status.solved or reply.solution == model.solutions[0])
    return P.encode_solve(puzzle, mode="paper", unique=unique, max_checks=max_checks), check


def exchange(port, decoder, data, check, expected):
    """Send ``data``; read until ``check`` accepts a reply.  Every other frame must be an
    expected refusal (in order) or the ERROR of a dropped candidate."""
    port.write(data)
    deadline = time.monotonic() + ROUND_TIMEOUT
    expected = list(expected)
    while time.monotonic() < deadline:
        for frame in decoder.feed(port.read(4096)):
            reply = P.decode_reply(frame)
            if check(reply):
                assert not expected, f"refusals never answered: {expected}"
                assert not decoder.bad_frames, "the device sent a garbled frame"
                return
            assert isinstance(reply, P.ErrorReply), f"unexpected reply {reply}"
            if reply.request_type == 0:
                assert reply.code in (P.ErrorCode.BAD_LENGTH, P.ErrorCode.BAD_CRC,
                                      P.ErrorCode.TIMEOUT), f"unexpected {reply}"
            else:
                assert expected and (reply.code, reply.request_type) == expected[0], \
                    f"unexpected {reply}, expected {expected[:1]}"
                expected.pop(0)
    raise AssertionError(f"no answer within {ROUND_TIMEOUT} s")


def fuzz(fuzz_board, seed, rounds):
    board, port = fuzz_board
    rng = random.Random(seed)
    decoder = P.FrameDecoder()
    port.reset_input_buffer()
    # the counters before, to compare with at the end
    got = []
    exchange(port, decoder, P.encode_stats(),
             lambda r: got.append(r) or isinstance(r, P.StatsReply), [])
    before = got[-1]
    sent = tried_bad = 0
    for _ in range(rounds):
        expected = []
        junk = noise(rng, expected)
        frame, check = request(rng)
        tried_bad += junk.count(P.START)
        exchange(port, decoder, junk + frame, check, expected)
        sent += len(junk) + len(frame)
    stats_frame = P.encode_stats()
    exchange(port, decoder, stats_frame, lambda r: got.append(r) or isinstance(r, P.StatsReply),
             [])
    after = got[-1]
    delta = {k: (v - before.as_dict()[k]) % (1 << 32) for k, v in after.as_dict().items()}
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
