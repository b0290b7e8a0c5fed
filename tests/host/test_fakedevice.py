"""The fake device (host/fakedevice.py): the protocol's device side in pure Python, following
the device's rules of spec/protocol.py: its receiver, SEQ, the queue and the store of
answers, ABORT, SET_BAUD with its confirmation window, the transmitter's rule for ERRORs.

Every test but the pty's runs on a clock of its own (tests/host/clock.py): the device's time
passes only while the test reads, so no verdict depends on the machine's speed.
"""

import time

import pytest
import serial

from slitherlink.host import protocol as P
from slitherlink.host.fakedevice import BITS_PER_BYTE, FakeDevice
from slitherlink.host.puzzle import Puzzle
from slitherlink.host.result import Status
from slitherlink.model.band import FIRMWARE_CYCLES_PER_BRANCH, band_solve
from slitherlink.model.paper import search
from slitherlink.spec.protocol import BAUD_CONFIRM_CYCLES_SHIFT
from slitherlink.spec.registers import queue_depth
from slitherlink.spec.uart import uart_clock_hz
from tests.conftest import load
from tests.host.clock import Clock


def device(**options):
    return FakeDevice(timer=Clock(), timeout=0.05, **options)


def exchange(dev, data=b"", *, want=1, seconds=1.0):
    """Write ``data`` and read for up to ``seconds`` of the device's time until ``want``
    reply frames have come; returns them decoded."""
    if data:
        dev.write(data)
    decoder, frames = P.FrameDecoder(), []
    end = dev.timer() + seconds
    while len(frames) < want and dev.timer() < end:
        frames += decoder.feed(dev.read(max(1, dev.in_waiting)))
    return [P.decode_reply(f) for f in frames]


@pytest.mark.parametrize("name, unique, status", [
    ("edge_1x2_3", True, Status.SOLVED_UNIQUE),
    ("edge_1x3_two_solutions", True, Status.MULTIPLE),
    ("edge_1x3_two_solutions", False, Status.SOLVED),
    ("edge_2x4_global_unsat", True, Status.NO_SOLUTION),
    ("janko_0002", True, Status.SOLVED_UNIQUE),
])
def test_solve_matches_model(name, unique, status):
    puzzle, solution = load(name)
    dev = device()
    reply, = exchange(dev, P.encode_solve(puzzle, mode="paper", unique=unique, counters=True,
                                          seq=33))
    model = search(puzzle, max_solutions=2 if unique else 1)
    assert isinstance(reply, P.ResultReply) and reply.seq == 33
    assert reply.status == status and reply.unique == unique
    assert reply.counters == model.counters.as_dict()
    assert reply.cycles > 0
    if status.solved:
        assert reply.solution == model.solutions[0]
    if status is Status.SOLVED_UNIQUE:
        assert reply.solution == solution
    # without FLAG_COUNTERS: the same answer, without counters
    answer, = exchange(dev, P.encode_solve(puzzle, mode="paper", unique=unique, seq=34))
    assert answer == P.AnswerReply(status, reply.rows, reply.cols, reply.solution, False,
                                   unique, False, P.Mode.PAPER, 34)


def test_limit():
    puzzle, _ = load("janko_0002")
    reply, = exchange(device(), P.encode_solve(puzzle, mode="paper", unique=True,
                                               max_checks=5, counters=True))
    assert reply.status == Status.LIMIT and reply.counters["checks"] == 5
    assert reply.counters == search(puzzle, max_solutions=2, max_checks=5).counters.as_dict()


def test_version():
    v, = exchange(device(max_rows=8, max_cols=9, clock_hz=25_000_000, baud=250_000,
                         max_baud=1_000_000), P.encode_ping(seq=9))
    assert (v.max_rows, v.max_cols, v.clock_hz, v.baud, v.start_baud, v.max_baud, v.queue,
            v.seq) == (8, 9, 25_000_000, 250_000, 250_000, 1_000_000, queue_depth(8, 9), 9)
    assert v.max_payload == P.solve_length(8, 9)  # its largest request: its largest SOLVE
    assert v.deduce_ok  # a build with the deduction engine, unless told otherwise


# -- deduce mode -----------------------------------------------------------------------------

@pytest.mark.parametrize("name, unique, status", [
    ("edge_1x2_3", True, Status.SOLVED_UNIQUE),
    ("edge_1x3_two_solutions", True, Status.MULTIPLE),
    ("edge_1x3_two_solutions", False, Status.SOLVED),
    ("edge_2x4_global_unsat", True, Status.NO_SOLUTION),
    ("janko_0002", True, Status.SOLVED_UNIQUE),
    ("janko_0047", True, Status.SOLVED_UNIQUE),   # 1 decision, 1 backtrack
])
def test_deduce_mode_matches_the_deduction_model(name, unique, status):
    puzzle, solution = load(name)
    reply, = exchange(device(), P.encode_solve(puzzle, unique=unique, mode=P.Mode.DEDUCE,
                                               counters=True))
    banded = band_solve(puzzle, max_solutions=2 if unique else 1)
    model = banded.outcome
    assert isinstance(reply, P.DeduceResultReply)
    assert reply.status == status and reply.unique == unique and not reply.aborted
    assert {k: reply.counters[k] for k in P.DEDUCE_COUNTERS} == banded.counters()
    assert reply.cycles == banded.cycles(1) > 0  # the model's estimate
    if "engine_clocks" in reply.counters:     # the engine's part: no firmware branches
        branches = model.counters.decisions + model.counters.backtracks
        assert reply.counters["engine_clocks"] == \
            banded.cycles(1) - FIRMWARE_CYCLES_PER_BRANCH * branches
    if status.solved:
        assert reply.solution == model.solutions[0]
    if status is Status.SOLVED_UNIQUE:
        assert reply.solution == solution


def test_deduce_limit_bounds_decisions():
    puzzle, _ = load("janko_0103")  # 3 decisions to solve and prove it unique
    reply, = exchange(device(), P.encode_solve(puzzle, unique=True, max_checks=1,
                                               mode=P.Mode.DEDUCE, counters=True))
    assert reply.status == Status.LIMIT and reply.counters["decisions"] == 1
    limited = band_solve(puzzle, max_solutions=2, max_decisions=1)
    assert {k: reply.counters[k] for k in P.DEDUCE_COUNTERS} == limited.counters()


def test_a_build_without_the_deduction_engine():
    dev = device(deduce=False)
    v, = exchange(dev, P.encode_ping())
    assert v.accelerator_ok and not v.deduce_ok
    puzzle, _ = load("janko_0002")
    err, = exchange(dev, P.encode_solve(puzzle, mode=P.Mode.DEDUCE, seq=5))
    assert isinstance(err, P.ErrorReply)
    assert (err.code, err.request_type, err.seq) == (P.ErrorCode.NO_DEDUCE, P.MsgType.SOLVE, 5)
    # the request is validated first (the firmware's order), and paper mode still works
    err, = exchange(dev, P.encode_solve_raw(11, 2, [15] * 22, flags=P.FLAG_DEDUCE))
    assert err.code == P.ErrorCode.TOO_LARGE
    reply, = exchange(dev, P.encode_solve(puzzle, mode="paper", unique=True, seq=6))
    assert isinstance(reply, P.AnswerReply) and reply.status == Status.SOLVED_UNIQUE


# -- the queue, the store of answers, ABORT ---------------------------------------------------

def test_the_queue_takes_solves_while_one_runs_and_answers_them_in_order():
    """Each search takes ``delay``: the queue's SOLVEs are answered one after the other, in
    order, each under its SEQ; one more than the queue holds is refused BUSY; PING is
    answered at any time."""
    puzzle, _ = load("janko_0002")
    dev = device(delay=1.0)
    depth = dev.queue_depth
    assert depth == queue_depth(10, 10) == P.QUEUE_DEPTH_MAX   # a 10x10 build's deep queue
    frames = [P.encode_solve(puzzle, mode="deduce", unique=True, seq=seq)
              for seq in range(10, 10 + depth + 1)]
    dev.write(b"".join(frames[:depth]))
    busy, = exchange(dev, frames[depth], seconds=0.5)
    assert (busy.code, busy.seq) == (P.ErrorCode.BUSY, 10 + depth)
    version, = exchange(dev, P.encode_ping(seq=99), seconds=0.1)
    assert (version.seq, version.queue) == (99, depth)
    replies = exchange(dev, want=depth, seconds=depth * 1.0 + 0.1)
    assert [r.seq for r in replies] == list(range(10, 10 + depth))
    assert all(r.status is Status.SOLVED_UNIQUE for r in replies)
    assert dev.timer() >= depth * 1.0  # one at a time
    assert dev.searches == depth


def test_a_resend_is_dropped_while_queued_and_answered_from_the_store_once_done():
    """The same SEQ and CRC again: dropped while the request waits or runs (its answer is on
    its way); once answered, the stored answer again, byte for byte, without a search.  The
    same SEQ with another CRC is a new request."""
    puzzle, _ = load("janko_0002")
    dev = device(delay=1.0)
    frame = P.encode_solve(puzzle, mode="deduce", unique=True, seq=21)
    dev.write(frame)
    assert exchange(dev, frame, seconds=0.5) == []  # running: dropped
    first, = exchange(dev, seconds=1.0)
    dev.timeout = 0.05
    start = dev.timer()
    dev.write(frame)
    raw = dev.read(100)
    again = P.decode_reply(P.FrameDecoder().feed(raw)[0])
    assert again == first and dev.searches == 1
    assert dev.timer() - start < 0.5  # no search: the stored answer
    other = P.encode_solve(puzzle, mode="paper", unique=True, seq=21)
    new, = exchange(dev, other, seconds=2.0)
    assert new.seq == 21 and new.mode is P.Mode.PAPER and dev.searches == 2


def test_the_store_keeps_the_last_answers_only():
    puzzles = [Puzzle([[3, 3]]), Puzzle([[3], [3]]), Puzzle([[2, 2]]), Puzzle([[None, 3]]),
               Puzzle([[3, None]]), Puzzle([[3, 3], [3, 3]])]
    dev = device()
    frames = [P.encode_solve(p, mode="paper", seq=40 + i) for i, p in enumerate(puzzles)]
    for frame in frames:
        exchange(dev, frame)
    assert dev.searches == len(frames)
    exchange(dev, frames[-P.STORE_DEPTH])  # still stored
    assert dev.searches == len(frames)
    exchange(dev, frames[0])               # forgotten: solved again
    assert dev.searches == len(frames) + 1


def test_abort_ends_the_search_empties_the_queue_and_forgets_the_store():
    puzzle, _ = load("janko_0872")  # 6 decisions
    dev = device(delay=10.0)
    done = P.encode_solve(Puzzle([[3, 3]]), mode="paper", seq=1)
    dev.delay = 0.0
    exchange(dev, done)
    dev.delay = 10.0
    running = P.encode_solve(puzzle, mode=P.Mode.DEDUCE, counters=True, seq=2)
    queued = P.encode_solve(puzzle, mode="paper", seq=3)
    assert exchange(dev, running + queued, seconds=5.0) == []
    replies = exchange(dev, P.encode_abort(seq=4), want=2, seconds=1.0)
    assert len(replies) == 1  # the running search's reply; the queued SOLVE gets none
    r, = replies
    assert isinstance(r, P.DeduceResultReply) and r.aborted and r.seq == 2
    partial = band_solve(puzzle, max_decisions=r.counters["decisions"])
    assert {k: r.counters[k] for k in P.DEDUCE_COUNTERS} == partial.counters()
    assert r.status == (Status.SOLVED if partial.outcome.solutions else Status.LIMIT)
    err, = exchange(dev, P.encode_abort(seq=5))
    assert (err.code, err.seq) == (P.ErrorCode.NOT_BUSY, 5)
    searches = dev.searches
    dev.delay = 0.0
    exchange(dev, done)  # the store was forgotten: solved again
    assert dev.searches == searches + 1


def test_busy_abort_and_ping_while_running():
    puzzle, _ = load("janko_0002")
    dev = device(delay=10.0)
    frames = [P.encode_solve(puzzle, mode="paper", counters=True, seq=seq)
              for seq in range(1, dev.queue_depth + 2)]
    assert exchange(dev, b"".join(frames[:-1]), seconds=0.1) == []
    busy, = exchange(dev, frames[-1])
    assert busy.code == P.ErrorCode.BUSY
    v, = exchange(dev, P.encode_ping())
    assert isinstance(v, P.VersionReply)
    r, = exchange(dev, P.encode_abort(seq=77))
    partial = search(puzzle, max_checks=r.counters["checks"])
    assert r.aborted and r.seq == 1 and r.counters == partial.counters.as_dict()
    assert r.status == (Status.SOLVED if partial.solutions else Status.LIMIT)


# -- the receiver ---------------------------------------------------------------------------

def _header(length, type, seq=1):
    return P.FrameHeader.pack(start=P.START, length=length, type=type, seq=seq,
                              check=P.header_check(length, type, seq))


@pytest.mark.parametrize("data, code, type", [
    (P.encode_solve_raw(11, 2, [15] * 22), P.ErrorCode.TOO_LARGE, P.MsgType.SOLVE),
    (P.encode_solve_raw(2, 2, [4, 15, 15, 15]), P.ErrorCode.BAD_CLUE, P.MsgType.SOLVE),
    (P.encode_solve_raw(0, 2, []), P.ErrorCode.BAD_SIZE, P.MsgType.SOLVE),
    (P.encode_frame(0x33, seq=1), P.ErrorCode.UNKNOWN_TYPE, 0x33),
    (P.encode_frame(P.MsgType.PING, b"x", seq=1), P.ErrorCode.BAD_LENGTH, 0),
    (_header(P.solve_length(10, 10) + 1, P.MsgType.SOLVE), P.ErrorCode.BAD_LENGTH, 0),
    (P.encode_ping()[:-1] + b"\x00", P.ErrorCode.BAD_CRC, 0),
    (P.encode_ping()[:5] + b"\x00" + P.encode_ping()[6:], P.ErrorCode.BAD_HEADER, 0),
    (P.encode_abort(), P.ErrorCode.NOT_BUSY, P.MsgType.ABORT),
])
def test_errors_then_next_request_served(data, code, type):
    """A refused request gets its ERROR with its SEQ; a dropped candidate an ERROR with SEQ
    0 and type 0 (its transmitter idle); the next frame is answered."""
    dev = device()
    err, = exchange(dev, data)
    assert isinstance(err, P.ErrorReply) and err.code == code and err.request_type == type
    assert err.seq == (1 if type else 0)
    v, = exchange(dev, P.encode_ping(seq=2))
    assert isinstance(v, P.VersionReply) and v.seq == 2


def test_a_header_with_a_long_payload_then_silence_times_out_and_the_next_frame_is_answered():
    """A header announcing a long payload, then nothing: the inter-byte timeout (256 byte
    times at the current rate) drops it; a PING after it is answered."""
    dev = device()
    dev.write(_header(P.solve_length(10, 10), P.MsgType.SOLVE))
    replies = exchange(dev, want=1, seconds=2 * P.TIMEOUT_BYTE_TIMES * 10 / dev.baud)
    assert [r.code for r in replies] == [P.ErrorCode.TIMEOUT]
    assert dev.timer() >= P.TIMEOUT_BYTE_TIMES * BITS_PER_BYTE / dev.baud
    v, = exchange(dev, P.encode_ping(seq=3))
    assert v.seq == 3


def test_the_flush_ends_a_pending_candidate_at_once():
    """OVERHEAD + max_payload zeros end any candidate (with a bad CRC, no waiting for the
    timeout), and the PING behind them is answered."""
    dev = device()
    dev.write(_header(P.solve_length(10, 10), P.MsgType.SOLVE) + b"\x01\x02")
    replies = exchange(dev, bytes(P.OVERHEAD + dev.max_payload) + P.encode_ping(seq=4),
                       want=2, seconds=0.01)
    assert [type(r) for r in replies] == [P.ErrorReply, P.VersionReply]
    assert replies[0].code == P.ErrorCode.BAD_CRC and replies[1].seq == 4


def test_errors_are_suppressed_while_the_transmitter_is_busy():
    """A dropped candidate while a reply is still going out: no ERROR, counted."""
    dev = device()
    bad = P.encode_ping()[:-1] + b"\x00"
    dev.write(P.encode_ping(seq=1) + bad)  # the VERSION is still being sent
    replies = exchange(dev, want=2, seconds=0.1)
    assert [type(r) for r in replies] == [P.VersionReply]
    stats, = exchange(dev, P.encode_stats(seq=2))
    assert (stats.frames_bad, stats.errors_sent, stats.errors_suppressed) == (1, 0, 1)


def test_replies_come_at_the_line_rate():
    dev = device(baud=9600)
    dev.write(P.encode_ping())
    dev.timeout = 0.001
    assert dev.read(1000) == b""  # the first byte needs a byte time
    reply = exchange(dev, seconds=1.0)
    assert reply and dev.timer() >= (P.OVERHEAD + P.VERSION_PAYLOAD) * BITS_PER_BYTE / 9600


def test_stats_counts_what_the_receiver_saw():
    """STATS: bytes, good and bad frames, garbage and ERRORs sent, like the SoC."""
    dev = device()
    junk = b"\x00\x11" + _header(2000, P.MsgType.SOLVE) + b"\x22"  # LEN too large: 1 bad
    replies = exchange(dev, junk, seconds=0.05)
    replies += exchange(dev, P.encode_ping() + P.encode_frame(0x42, seq=1), want=2)
    assert [type(r) for r in replies] == [P.ErrorReply, P.VersionReply, P.ErrorReply]
    request = P.encode_stats()
    stats, = exchange(dev, request)
    assert isinstance(stats, P.StatsReply)
    sent = len(junk) + len(P.encode_ping()) + len(P.encode_frame(0x42)) + len(request)
    # the garbage: 2 before the header, its 5 bytes after the START, 1 after
    assert stats.as_dict() == {"rx_bytes": sent, "frames_good": 3, "frames_bad": 1,
                               "garbage_bytes": 2 + 5 + 1, "errors_sent": 2,
                               "errors_suppressed": 0, "rx_overruns": 0, "rx_frame_errors": 0}


# -- SET_BAUD -----------------------------------------------------------------------------------

def window(dev):
    return (dev.clock_hz >> BAUD_CONFIRM_CYCLES_SHIFT) / dev.clock_hz


def test_set_baud_answers_at_the_old_rate_and_keeps_the_new_one_when_confirmed():
    dev = device(max_baud=1_000_000)
    baud, = exchange(dev, P.encode_set_baud(1_000_000, seq=3))
    assert isinstance(baud, P.BaudReply) and baud.seq == 3
    assert abs(baud.baud - 1_000_000) <= 0.02 * 1_000_000
    assert baud.divisor == round(uart_clock_hz(dev.clock_hz) / 1_000_000)   # UART cycles
    dev.baudrate = 1_000_000  # the host switches its port
    v, = exchange(dev, P.encode_ping(seq=4))
    assert (v.baud, v.start_baud) == (1_000_000, 115200)
    exchange(dev, seconds=2 * window(dev))  # confirmed: no going back
    v, = exchange(dev, P.encode_ping(seq=5))
    assert v.seq == 5 and v.baud == 1_000_000


def test_set_baud_without_confirmation_goes_back_to_the_start_rate():
    dev = device(max_baud=1_000_000)
    exchange(dev, P.encode_set_baud(1_000_000, seq=3))
    # the host never switches: its PINGs at 115200 reach a device at 1 Mbaud as garbage
    assert exchange(dev, P.encode_ping(seq=4), seconds=0.1) == []
    assert dev.baud == 1_000_000
    exchange(dev, seconds=window(dev))
    assert dev.baud == 115200  # its window is over
    v, = exchange(dev, P.encode_ping(seq=6))
    assert (v.seq, v.baud) == (6, 115200)


def test_set_baud_refusals():
    puzzle, _ = load("janko_0002")
    dev = device(max_baud=1_000_000)
    err, = exchange(dev, P.encode_set_baud(2_000_000, seq=1))  # faster than it offers
    assert (err.code, err.seq) == (P.ErrorCode.BAD_BAUD, 1)
    assert err.detail == round(uart_clock_hz(dev.clock_hz) / 2_000_000)
    slow = device(clock_hz=2_000_000, max_baud=1_000_000)    # a UART clock of 4 MHz
    err, = exchange(slow, P.encode_set_baud(600_000, seq=2))  # under 7.5 cycles a bit
    assert err.code == P.ErrorCode.BAD_BAUD
    dev.delay = 5.0
    dev.write(P.encode_solve(puzzle, mode="paper", seq=3))
    err, = exchange(dev, P.encode_set_baud(1_000_000, seq=4))  # a search runs
    assert (err.code, err.seq) == (P.ErrorCode.BUSY, 4)
    assert dev.baud == 115200


# -- misbehaviour, the pty ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["silent", "garbage", "bad_crc", "truncate"])
def test_misbehaviour(mode):
    dev = device(misbehave=mode)
    dev.write(P.encode_ping())
    dev.timeout = 0.1
    data = dev.read(100)
    decoder = P.FrameDecoder()
    frames = decoder.feed(data)
    frames += [e for e in decoder.timeout() if isinstance(e, P.Frame)]
    assert frames == []  # no good frame ever comes out of a misbehaving device
    if mode == "silent":
        assert data == b""
    elif mode == "bad_crc":
        assert [b.code for b in decoder.bad_frames] == [P.ErrorCode.BAD_CRC]
    elif mode == "truncate":
        assert 0 < len(data) < P.OVERHEAD + P.VERSION_PAYLOAD
    else:
        assert len(data) == P.OVERHEAD + P.VERSION_PAYLOAD


def test_bad_arguments():
    with pytest.raises(ValueError, match="misbehaviour"):
        FakeDevice(misbehave="explode")
    with pytest.raises(ValueError, match="build size"):
        FakeDevice(max_rows=0)


def test_serve_pty_with_pyserial_and_its_rate():
    """On its pty the device hears the rate the program set: at its own rate a SOLVE is
    answered, at another it is garbage."""
    dev = FakeDevice(threaded=True)
    path, stop = dev.serve_pty()
    try:
        with serial.Serial(path, 115200, timeout=0.2) as port:
            port.write(P.encode_solve(Puzzle([[3, 3]]), mode="paper", unique=True))
            decoder, frames = P.FrameDecoder(), []
            deadline = time.monotonic() + 10
            while not frames and time.monotonic() < deadline:
                frames = decoder.feed(port.read(1))
            reply = P.decode_reply(frames[0])
            assert reply.status == Status.SOLVED_UNIQUE
            assert reply.solution == ((True, True),)
            port.baudrate = 1_000_000
            port.write(P.encode_ping())
            time.sleep(0.3)
            assert decoder.feed(port.read(1000)) == []
    finally:
        stop()
