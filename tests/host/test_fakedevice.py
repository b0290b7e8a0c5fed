"""The fake device (host/fakedevice.py): the protocol's device side in pure Python."""

import time

import pytest
import serial

from slitherlink.host import protocol as P
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host.puzzle import Puzzle
from slitherlink.host.result import Status
from slitherlink.model.band import FIRMWARE_CYCLES_PER_BRANCH, band_solve
from slitherlink.model.paper import search
from tests.conftest import load


def exchange(dev, data, *, want=1, timeout=2.0):
    """Write ``data`` and collect ``want`` reply frames."""
    dev.write(data)
    decoder, frames = P.FrameDecoder(), []
    deadline = time.monotonic() + timeout
    while len(frames) < want and time.monotonic() < deadline:
        frames += decoder.feed(dev.read(dev.in_waiting or 1))
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
    dev = FakeDevice(timeout=0.05)
    reply, = exchange(dev, P.encode_solve(puzzle, mode="paper", unique=unique))
    model = search(puzzle, max_solutions=2 if unique else 1)
    assert reply.status == status and reply.unique == unique
    assert reply.counters == model.counters.as_dict()
    assert reply.cycles > 0
    if status.solved:
        assert reply.solution == model.solutions[0]
    if status is Status.SOLVED_UNIQUE:
        assert reply.solution == solution


def test_limit():
    puzzle, _ = load("janko_0002")
    reply, = exchange(FakeDevice(timeout=0.05),
                      P.encode_solve(puzzle, mode="paper", unique=True, max_checks=5))
    assert reply.status == Status.LIMIT and reply.counters["checks"] == 5
    assert reply.counters == search(puzzle, max_solutions=2, max_checks=5).counters.as_dict()


def test_version():
    v, = exchange(FakeDevice(max_rows=8, max_cols=9, clock_hz=25_000_000, baud=2_000_000,
                             timeout=0.05), P.encode_ping())
    assert (v.max_rows, v.max_cols, v.clock_hz, v.baud) == (8, 9, 25_000_000, 2_000_000)
    assert v.deduce_ok  # a build with the deduction engine, unless told otherwise


# -- deduce mode -----------------------------------------------------------------------------

def model_counters(banded):
    """The DEDUCE counters the default build reports: the band model's."""
    return banded.counters()


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
    dev = FakeDevice(timeout=0.05)
    reply, = exchange(dev, P.encode_solve(puzzle, unique=unique, mode=P.Mode.DEDUCE))
    banded = band_solve(puzzle, max_solutions=2 if unique else 1)
    model = banded.outcome
    assert isinstance(reply, P.DeduceResultReply)
    assert reply.status == status and reply.unique == unique and not reply.aborted
    assert {k: reply.counters[k] for k in P.DEDUCE_COUNTERS} == model_counters(banded)
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
    reply, = exchange(FakeDevice(timeout=0.05),
                      P.encode_solve(puzzle, unique=True, max_checks=1, mode=P.Mode.DEDUCE))
    assert reply.status == Status.LIMIT and reply.counters["decisions"] == 1
    limited = band_solve(puzzle, max_solutions=2, max_decisions=1)
    assert {k: reply.counters[k] for k in P.DEDUCE_COUNTERS} == model_counters(limited)


def test_a_build_without_the_deduction_engine():
    dev = FakeDevice(deduce=False, timeout=0.05)
    v, = exchange(dev, P.encode_ping())
    assert v.accelerator_ok and not v.deduce_ok
    puzzle, _ = load("janko_0002")
    err, = exchange(dev, P.encode_solve(puzzle, mode=P.Mode.DEDUCE))
    assert isinstance(err, P.ErrorReply)
    assert (err.code, err.request_type) == (P.ErrorCode.NO_DEDUCE, P.MsgType.SOLVE)
    # the request is validated first (the firmware's order), and paper mode still works
    err, = exchange(dev, P.encode_solve_raw(11, 2, [15] * 22, flags=P.FLAG_DEDUCE))
    assert err.code == P.ErrorCode.TOO_LARGE
    reply, = exchange(dev, P.encode_solve(puzzle, mode="paper", unique=True))
    assert isinstance(reply, P.ResultReply) and reply.status == Status.SOLVED_UNIQUE


def test_abort_of_a_deduce_search():
    puzzle, _ = load("janko_0872")  # 6 decisions
    dev = FakeDevice(delay=10.0, timeout=0.05)
    assert exchange(dev, P.encode_solve(puzzle, mode=P.Mode.DEDUCE), timeout=0.1) == []
    busy, = exchange(dev, P.encode_solve(puzzle, mode="paper"))
    assert busy.code == P.ErrorCode.BUSY
    r, = exchange(dev, P.encode_abort())
    assert isinstance(r, P.DeduceResultReply) and r.aborted
    partial = band_solve(puzzle, max_decisions=r.counters["decisions"])
    assert {k: r.counters[k] for k in P.DEDUCE_COUNTERS} == model_counters(partial)
    assert r.status == (Status.SOLVED if partial.outcome.solutions else Status.LIMIT)
    err, = exchange(dev, P.encode_abort())
    assert err.code == P.ErrorCode.NOT_BUSY


@pytest.mark.parametrize("data, code", [
    (P.encode_solve_raw(11, 2, [15] * 22), P.ErrorCode.TOO_LARGE),
    (P.encode_solve_raw(2, 2, [4, 15, 15, 15]), P.ErrorCode.BAD_CLUE),
    (P.encode_solve_raw(0, 2, []), P.ErrorCode.BAD_SIZE),
    (P.encode_frame(0x33), P.ErrorCode.UNKNOWN_TYPE),
    (P.encode_frame(P.MsgType.PING, b"x"), P.ErrorCode.BAD_LENGTH),
    (P.encode_ping()[:-1] + b"\x00", P.ErrorCode.BAD_CRC),
    (P.encode_abort(), P.ErrorCode.NOT_BUSY),
])
def test_errors_then_next_request_served(data, code):
    dev = FakeDevice(timeout=0.05)
    err, = exchange(dev, data)
    assert isinstance(err, P.ErrorReply) and err.code == code
    v, = exchange(dev, P.encode_ping())
    assert isinstance(v, P.VersionReply)


def test_truncated_frame_times_out_and_device_recovers():
    dev = FakeDevice(baud=115200, timeout=0.05)
    dev.write(P.encode_solve(Puzzle([[1, 2], [3, None]]), mode="paper")[:5])
    time.sleep(3 * dev.byte_timeout)
    replies = exchange(dev, P.encode_ping(), want=2)
    assert [type(r) for r in replies] == [P.ErrorReply, P.VersionReply]
    assert replies[0].code == P.ErrorCode.TIMEOUT


def test_busy_abort_and_ping_while_running():
    puzzle, _ = load("janko_0002")
    dev = FakeDevice(delay=10.0, timeout=0.05)
    assert exchange(dev, P.encode_solve(puzzle, mode="paper"), want=1, timeout=0.1) == []
    busy, = exchange(dev, P.encode_solve(puzzle, mode="paper"))
    assert busy.code == P.ErrorCode.BUSY
    v, = exchange(dev, P.encode_ping())
    assert isinstance(v, P.VersionReply)
    r, = exchange(dev, P.encode_abort())
    partial = search(puzzle, max_checks=r.counters["checks"])
    assert r.aborted and r.counters == partial.counters.as_dict()
    assert r.status == (Status.SOLVED if partial.solutions else Status.LIMIT)
    err, = exchange(dev, P.encode_abort())
    assert err.code == P.ErrorCode.NOT_BUSY


def test_delay():
    dev = FakeDevice(delay=0.2, timeout=0.05)
    start = time.monotonic()
    r, = exchange(dev, P.encode_solve(Puzzle([[3, 3]]), mode="paper"), timeout=2.0)
    assert r.status == Status.SOLVED and time.monotonic() - start >= 0.2


@pytest.mark.parametrize("mode", ["silent", "garbage", "bad_crc", "truncate"])
def test_misbehaviour(mode):
    dev = FakeDevice(misbehave=mode, timeout=0.05)
    dev.write(P.encode_ping())
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
        assert 0 < len(data) < len(P.encode_version(max_rows=10, max_cols=10, clock_hz=1,
                                                    baud=1))
    else:
        assert len(data) == P.OVERHEAD + P.VERSION_PAYLOAD


def test_bad_arguments():
    with pytest.raises(ValueError, match="misbehaviour"):
        FakeDevice(misbehave="explode")
    with pytest.raises(ValueError, match="build size"):
        FakeDevice(max_rows=0)


def test_serve_pty_with_pyserial():
    dev = FakeDevice()
    path, stop = dev.serve_pty()
    try:
        with serial.Serial(path, 115200, timeout=2.0) as port:
            port.write(P.encode_solve(Puzzle([[3, 3]]), mode="paper", unique=True))
            decoder, frames = P.FrameDecoder(), []
            deadline = time.monotonic() + 5
            while not frames and time.monotonic() < deadline:
                frames = decoder.feed(port.read(1))
        reply = P.decode_reply(frames[0])
        assert reply.status == Status.SOLVED_UNIQUE
        assert reply.solution == ((True, True),)
    finally:
        stop()


def test_stats_counts_what_the_receiver_saw():
    """STATS: bytes, good and bad frames, garbage and ERRORs sent, like the SoC."""
    dev = FakeDevice(timeout=0.05)
    junk = b"\x00\x11" + bytes([P.START, 0xFF, 0xFF]) + b"\x22"  # LEN too large: 1 bad frame
    replies = exchange(dev, junk + P.encode_ping() + P.encode_frame(0x42), want=3)
    assert [type(r) for r in replies] == [P.ErrorReply, P.VersionReply, P.ErrorReply]
    request = P.encode_stats()
    stats, = exchange(dev, request)
    assert isinstance(stats, P.StatsReply)
    sent = len(junk) + len(P.encode_ping()) + len(P.encode_frame(0x42)) + len(request)
    assert stats.as_dict() == {"rx_bytes": sent, "frames_good": 3, "frames_bad": 1,
                               "garbage_bytes": 2 + 2 + 1, "errors_sent": 2,
                               "errors_suppressed": 0, "rx_overruns": 0, "rx_frame_errors": 0}
    bad, = exchange(dev, P.encode_frame(P.MsgType.STATS, b"x"))
    assert bad.code == P.ErrorCode.BAD_LENGTH and bad.request_type == P.MsgType.STATS
