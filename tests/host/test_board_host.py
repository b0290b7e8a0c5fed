"""The board engine (host/engines/board.py, through the device session host/device/) against
the fake device on a pseudo-terminal.

No simulator: :class:`host.fakedevice.FakeDevice` serves the protocol on a pty
(a thread of this process), and the board engine opens it with pyserial, the
same code path as for /dev/ttyUSB1 or the virtual board's /dev/pts/N.  No verdict
depends on the machine's speed: a test of the conversation waits :data:`WAIT` per
attempt (a slow answer on a busy machine is never taken for a lost one), and a
test of timeouts, resends and time limits runs the host and the device on a clock
of the test's own (:func:`on_clock`: the device itself as the host's line).
"""

import os
import subprocess
import sys
import time

import pytest

from slitherlink.host import device as B
from slitherlink.host import protocol as P
from slitherlink.host.engines import get_engine
from slitherlink.host.engines.board import answer_result, solve, solve_on
from slitherlink.host.errors import OptionError
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host.puzzle import Puzzle, transpose_colouring
from slitherlink.host.result import Status
from slitherlink.model.band import band_solve
from slitherlink.model.paper import search
from tests.conftest import HANG_SECONDS, PUZZLES, REPO, load
from tests.host.clock import Clock
from tests.host.forgetful import Forgetful

PAPER, DEDUCE = P.Mode.PAPER, P.Mode.DEDUCE
#: the wait per attempt of a test about the conversation, not about its timing
WAIT = 60.0


def requests_of(device, type):
    return [f for f in device.requests if f.type == type]


#: the conversation of a connection: ABORT (a stale search?), PING (the build), SET_BAUD and
#: a PING at the fastest rate the device offers
CONNECT = [P.MsgType.ABORT, P.MsgType.PING, P.MsgType.SET_BAUD, P.MsgType.PING]


def on_clock(device_class=FakeDevice, *, timeout=None, retries=None, **options):
    """``(connection, device, clock)``: a ``device_class(**options)`` as the line of a
    :class:`host.device.Connection` (not yet connected), both on a new :class:`Clock`."""
    clock = Clock()
    device = device_class(timer=clock, **options)
    connection = B.Connection("/dev/fake-board", line=device, clock=clock, timeout=timeout,
                              retries=retries)
    return connection, device, clock


SOLVES = [
    ("edge_1x2_3", True, Status.SOLVED_UNIQUE),
    ("edge_1x3_two_solutions", True, Status.MULTIPLE),
    ("edge_1x3_two_solutions", False, Status.SOLVED),
    ("edge_2x4_global_unsat", True, Status.NO_SOLUTION),
    ("janko_0002", True, Status.SOLVED_UNIQUE),
    ("janko_0002", False, Status.SOLVED),
]


@pytest.mark.parametrize("name, unique, status", SOLVES)
def test_solves_like_the_model(serve, name, unique, status):
    puzzle, solution = load(name)
    device = FakeDevice(max_rows=10, max_cols=10, clock_hz=100_000_000)
    port = serve(device)
    result = solve(puzzle, unique=unique, port=port, timeout=WAIT, mode=PAPER)
    model = search(puzzle, max_solutions=2 if unique else 1)
    assert result.engine == "board"
    assert result.status is status
    for key, value in model.counters.as_dict().items():
        assert result.counters[key] == value, key
    if status.solved:
        assert result.solution == model.solutions[0]
        assert result.solutions == [result.solution]
    else:
        assert result.solution is None
    if status is Status.SOLVED_UNIQUE:
        assert result.solution == solution
    cycles = result.counters["cycles"]
    assert cycles > 0
    assert result.counters["seconds_at_clock"] == pytest.approx(cycles / 100e6)
    assert result.counters["seconds_at_50mhz"] == pytest.approx(cycles / 50e6)
    # the conversation: connecting (at the fast rate), one SOLVE
    assert [f.type for f in device.requests] == CONNECT + [P.MsgType.SOLVE]
    assert device.baud == device.max_baud > device.start_baud
    assert result.mode == "paper" and P.decode_solve(device.requests[-1]).mode is PAPER


@pytest.mark.parametrize("name, unique, status", SOLVES + [("janko_0047", True,
                                                            Status.SOLVED_UNIQUE)])
def test_solves_like_the_deduction_model(serve, name, unique, status):
    """Deduce mode (the default): the SOLVE carries the DEDUCE flag, the DEDUCE_RESULT's
    counters are the default build's band model's, every one of them, and its cycles."""
    puzzle, solution = load(name)
    device = FakeDevice(max_rows=10, max_cols=10, clock_hz=100_000_000)
    port = serve(device)
    result = solve(puzzle, unique=unique, port=port, timeout=WAIT)
    banded = band_solve(puzzle, max_solutions=2 if unique else 1)
    model, cycles = banded.outcome, banded.cycles(1)
    assert result.engine == "board" and result.mode == "deduce"
    assert result.status is status
    expected = dict(banded.counters(), cycles=cycles, clock_hz=100_000_000,
                    seconds_at_clock=pytest.approx(cycles / 100e6),
                    seconds_at_50mhz=pytest.approx(cycles / 50e6))
    # every field of the DEDUCE_RESULT, the model's counters equal to the model's
    assert set(result.counters) == set(expected) | set(P.DEDUCE_RESULT_COUNTERS)
    assert {key: result.counters[key] for key in expected} == expected
    if status.solved:
        assert result.solution == model.solutions[0]
    else:
        assert result.solution is None
    if status is Status.SOLVED_UNIQUE:
        assert result.solution == solution
    assert [f.type for f in device.requests] == CONNECT + [P.MsgType.SOLVE]
    request = P.decode_solve(device.requests[-1])
    assert request.mode is DEDUCE and request.unique == unique and request.counters


def test_session_is_reused_for_several_puzzles(serve):
    device = FakeDevice()
    port = serve(device)
    for name in ("janko_0002", "janko_0003", "janko_0004"):
        puzzle, solution = load(name)
        assert solve(puzzle, unique=True, port=port, timeout=WAIT).solution == solution
    assert [f.type for f in device.requests] == CONNECT + [P.MsgType.SOLVE] * 3


def test_max_checks_limit(serve):
    puzzle, _ = load("janko_0002")
    result = solve(puzzle, unique=True, port=serve(FakeDevice()), max_checks=5, mode=PAPER)
    assert result.status is Status.LIMIT
    assert result.counters["checks"] == 5


def test_max_decisions_limit(serve):
    """Deduce mode: SOLVE's max_checks field carries --max-decisions."""
    device = FakeDevice()
    puzzle, _ = load("janko_0103")  # 3 decisions to solve and prove it unique
    result = solve(puzzle, unique=True, port=serve(device), max_decisions=1)
    assert result.status is Status.LIMIT
    assert result.counters["decisions"] == 1
    assert P.decode_solve(device.requests[-1]).max_checks == 1


@pytest.mark.parametrize("mode, options, wrong", [
    (DEDUCE, {"max_checks": 5}, "--max-checks"), ("deduce", {"max_checks": 5}, "--max-checks"),
    (PAPER, {"max_decisions": 5}, "--max-decisions"),
    (DEDUCE, {"max_decisions": 2 ** 32}, "--max-decisions 4294967296"),
    ("fast", {}, "unknown mode 'fast'"),
])
def test_a_bound_of_the_other_mode_is_a_usage_error(mode, options, wrong):
    with pytest.raises(OptionError) as error:
        solve(Puzzle(((3,),)), port="/dev/ttyUSB_never_opened", mode=mode, **options)
    assert wrong in str(error.value) and error.value.exit_code == 2


@pytest.mark.parametrize("mode", [PAPER, DEDUCE])
def test_wrong_solution_is_never_returned(serve, mode):
    """A device that answers with a wrong colouring: the checker turns it into ERROR."""
    class Liar(FakeDevice):
        def _send(self, frame, at):
            events = P.FrameDecoder().feed(frame)
            if events and events[0].type == P.MsgType.RESULT:
                reply = P.decode_result(events[0])
                if reply.status.solved:
                    wrong = tuple(tuple(not v for v in row) for row in reply.solution)
                    frame = P.encode_result(reply.status, reply.rows, reply.cols,
                                            solution=wrong, counters=reply.counters,
                                            cycles=reply.cycles, seq=reply.seq)
            if events and events[0].type == P.MsgType.DEDUCE_RESULT:
                reply = P.decode_deduce_result(events[0])
                if reply.status.solved:
                    wrong = tuple(tuple(not v for v in row) for row in reply.solution)
                    frame = P.encode_deduce_result(reply.status, reply.rows, reply.cols,
                                                   solution=wrong, counters=reply.counters,
                                                   cycles=reply.cycles, seq=reply.seq)
            super()._send(frame, at)

    puzzle, _ = load("janko_0002")
    result = get_engine("board")(puzzle, port=serve(Liar()), mode=mode)
    assert result.status is Status.ERROR
    assert result.solution is None and "wrong solution" in result.message


def test_silent_device_times_out_after_one_retry():
    """--timeout fixes the wait per attempt: three silent attempts at the start rate, one
    at each rate an earlier host may have left the device at, then NoAnswer."""
    connection, device, clock = on_clock(misbehave="silent", timeout=0.3)
    others = connection.candidate_rates()[1:]
    assert others and connection.candidate_rates()[0] == device.start_baud
    with pytest.raises(B.NoAnswer) as error:
        connection.connect()
    assert "no answer" in str(error.value) and "3 attempts" in str(error.value)
    assert error.value.exit_code == 9
    assert clock.now == pytest.approx((3 + len(others)) * 0.3, abs=0.01)
    # the request and two resends at the start rate (the device hears the others garbled)
    assert len(requests_of(device, P.MsgType.ABORT)) == 3


@pytest.mark.parametrize("misbehaviour, attempts", [("garbage", 3), ("bad_crc", 4),
                                                    ("truncate", 4)])
def test_garbled_answers(misbehaviour, attempts):
    """Damaged frames back: the request and its three resends (--retries 3); bytes that never
    form a frame (a device at another rate sends those): three attempts."""
    connection, device, clock = on_clock(misbehave=misbehaviour, seed=3, timeout=0.3,
                                         retries=3)
    others = len(connection.candidate_rates()) - 1
    with pytest.raises(B.GarbledAnswer) as error:
        connection.connect()
    assert "garbled" in str(error.value) and f"{attempts} attempts" in str(error.value)
    assert "\n" not in str(error.value)
    assert error.value.exit_code == 10
    assert len(requests_of(device, P.MsgType.ABORT)) == attempts
    assert clock.now <= (attempts + others) * 0.3 + 0.01


def test_lost_request_is_looked_for_and_sent_again():
    """After silence a RESEND looks for the SOLVE; the device does not have it
    (UNKNOWN_SEQ), so the SOLVE goes again (the same SEQ): no flush, no probe."""
    connection, device, clock = on_clock(Forgetful, lose=1, timeout=0.3)
    connection.connect()
    start, heard, resends = clock.now, device.stats["rx_bytes"], connection.resends
    puzzle, solution = load("janko_0002")
    assert solve_on(connection, puzzle, unique=True).solution == solution
    solves, looks = requests_of(device, P.MsgType.SOLVE), requests_of(device, P.MsgType.RESEND)
    assert len(solves) == 2 and solves[0] == solves[1] and len(looks) == 1
    assert device.requests[-2:] == [looks[0], solves[1]]
    assert (looks[0].seq, P.decode_resend(looks[0])) == \
        (solves[0].seq, P.frame_crc(solves[0].encode()))
    assert device.stats["rx_bytes"] - heard == 2 * len(solves[0].encode()) + \
        len(looks[0].encode())
    assert connection.resends - resends == 1  # the SOLVE; the look is no resend
    assert clock.now - start == pytest.approx(0.3, abs=0.01)  # one wait, then at once


def test_silence_to_the_look_too_brings_the_flush_the_request_and_a_probe():
    """The SOLVE and the RESEND that looks for it both lost: after the second silence, the
    flush, the SOLVE again (the same SEQ) and a PING that probes."""
    connection, device, clock = on_clock(
        Forgetful, lose=2, forgets=(P.MsgType.SOLVE, P.MsgType.RESEND), timeout=0.3)
    connection.connect()
    start, heard, resends = clock.now, device.stats["rx_bytes"], connection.resends
    puzzle, solution = load("janko_0002")
    assert solve_on(connection, puzzle, unique=True).solution == solution
    solves = requests_of(device, P.MsgType.SOLVE)
    assert len(solves) == 2 and solves[0] == solves[1]
    assert device.requests[-2:] == [solves[1], requests_of(device, P.MsgType.PING)[-1]]
    flush = P.OVERHEAD + device.max_payload
    assert device.stats["rx_bytes"] - heard == 2 * len(solves[0].encode()) + flush + \
        len(P.encode_resend(0, 1)) + len(P.encode_ping())
    assert connection.resends - resends == 1   # the SOLVE, counted once
    assert clock.now - start == pytest.approx(0.6, abs=0.01)  # two waits, then at once


def test_an_answer_arriving_as_the_wait_ends_is_waited_for():
    """At 2,400 baud the answer is still coming in when the head's wait of 0.3 s ends:
    the wait is extended for it, and nothing is sent again."""
    connection, device, clock = on_clock(FakeDevice, delay=0.05, baud=2400, max_baud=2400,
                                         timeout=0.3)
    connection.connect()
    start, resends = clock.now, connection.resends
    puzzle, solution = load("janko_0002")
    assert solve_on(connection, puzzle, unique=True).solution == solution
    assert len(requests_of(device, P.MsgType.SOLVE)) == 1
    assert not requests_of(device, P.MsgType.RESEND) and connection.resends == resends
    assert clock.now - start > 0.3   # the answer ended after the wait's first end


def test_a_long_search_is_looked_for_not_sent_again():
    """A search longer than the wait: after each silence a RESEND looks for the SOLVE and
    the device answers PENDING (it is searching); the SOLVE is sent once, nothing is
    flushed, no resend is counted, and the answer is taken when it comes."""
    connection, device, clock = on_clock(FakeDevice, delay=1.0, timeout=0.3)
    connection.connect()
    start, heard, resends = clock.now, device.stats["rx_bytes"], connection.resends
    puzzle, solution = load("janko_0002")
    assert solve_on(connection, puzzle, unique=True).solution == solution
    solves, looks = requests_of(device, P.MsgType.SOLVE), requests_of(device, P.MsgType.RESEND)
    assert len(solves) == 1 and len(looks) == 3   # at 0.3, 0.6 and 0.9 s of a 1 s search
    assert device.stats["rx_bytes"] - heard == len(solves[0].encode()) + \
        sum(len(look.encode()) for look in looks)
    assert connection.resends == resends
    assert clock.now - start == pytest.approx(1.0, abs=0.01)


def test_a_new_connection_flushes_the_last_version_s_largest_request(serve):
    """Before its own VERSION, a connection's flush is as long as the largest request the
    port's device last told this program of, not the protocol's largest."""
    device = Forgetful(lose=0, forgets=(P.MsgType.ABORT,), max_rows=4, max_cols=4)
    port = serve(device)
    with B.Connection(port, timeout=0.3) as first:
        first.connect()
    device.lose = {device.count + 1}
    heard, before = device.stats["rx_bytes"], len(device.requests)
    with B.Connection(port, timeout=0.3) as second:
        assert second.max_payload == device.max_payload < P.MAX_PAYLOAD
        second.connect()
    requests = device.requests[before:]
    assert [f.type for f in requests[:2]] == [P.MsgType.ABORT] * 2   # lost, then again
    flush = P.OVERHEAD + device.max_payload
    assert device.stats["rx_bytes"] - heard == sum(len(f.encode()) for f in requests) + flush


def test_solve_request_lost_again_and_again():
    """Two lost SOLVEs in a row: sent a third time (three silent attempts would be a
    silent device)."""
    connection, device, _ = on_clock(Forgetful, lose=2, timeout=0.2)
    connection.connect()
    puzzle, solution = load("janko_0002")
    assert solve_on(connection, puzzle, unique=True).solution == solution
    assert len(requests_of(device, P.MsgType.SOLVE)) == 3


def test_solve_request_lost_more_often_than_the_retries_by_a_device_that_answers_probes():
    """A device alive (it answers every probe and RESEND) is given its time, as a long
    search is: the SOLVE is sent again with each probe, and after each RESEND the device
    answers without it (UNKNOWN_SEQ), until it is answered; but not more than ``retries``
    such answers in a row: a SOLVE that never arrives whole ends with NoAnswer."""
    connection, device, clock = on_clock(Forgetful, lose=5, timeout=0.2, retries=3)
    connection.connect()
    puzzle, solution = load("janko_0002")
    assert solve_on(connection, puzzle, unique=True).solution == solution
    assert len(requests_of(device, P.MsgType.SOLVE)) == 6   # more than the retries
    connection, device, clock = on_clock(Forgetful, lose=10**4, timeout=0.2, retries=3)
    connection.connect()
    with pytest.raises(B.NoAnswer, match="it said so to 4 RESENDs in a row"):
        solve_on(connection, puzzle, unique=True)
    assert len(requests_of(device, P.MsgType.SOLVE)) <= 2 * 4 + 1


def test_solve_request_lost_more_often_than_the_retries_by_a_silent_device():
    class Silent(Forgetful):
        def _request(self, frame, at):
            if frame.type == P.MsgType.SOLVE:
                self.misbehave = frozenset({"silent"})
            return super()._request(frame, at)

    connection, device, clock = on_clock(Silent, lose=0, timeout=0.2, retries=1)
    connection.connect()
    start = clock.now
    with pytest.raises(B.NoAnswer, match="SOLVE"):
        solve_on(connection, load("janko_0002")[0])
    # two attempts: a RESEND looked for it after the first silence, the second ended it
    assert len(requests_of(device, P.MsgType.SOLVE)) == 1
    assert len(requests_of(device, P.MsgType.RESEND)) == 1
    assert clock.now - start == pytest.approx(2 * 0.2, abs=0.01)


def test_time_limit_aborts_the_search():
    connection, device, clock = on_clock(delay=5.0, timeout=2.0)
    connection.connect()
    puzzle, _ = load("janko_0002")
    start = clock.now
    result = solve_on(connection, puzzle, unique=True, time_limit=0.4, mode=PAPER)
    assert clock.now - start == pytest.approx(0.4, abs=0.01)  # the ABORT answered at once
    assert result.status is Status.LIMIT
    assert "time limit" in result.message
    assert requests_of(device, P.MsgType.ABORT)[-1] is device.requests[-1]


def test_time_limit_aborts_a_deduce_search():
    """The ABORT of a deduce search is answered by a DEDUCE_RESULT (ABORTED), taken as
    the answer, with the counters so far."""
    connection, device, clock = on_clock(delay=5.0, timeout=2.0)
    connection.connect()
    puzzle, _ = load("janko_0872")  # 6 decisions
    start = clock.now
    result = solve_on(connection, puzzle, unique=True, time_limit=0.4)
    assert clock.now - start == pytest.approx(0.4, abs=0.01)
    assert result.status is Status.LIMIT and result.mode == "deduce"
    assert result.message.startswith("stopped by the time limit after 0 decisions")
    partial = band_solve(puzzle, max_solutions=2, max_decisions=result.counters["decisions"])
    assert {k: result.counters[k] for k in P.DEDUCE_COUNTERS} == partial.counters()
    assert requests_of(device, P.MsgType.ABORT)[-1] is device.requests[-1]


def test_abort_handshake_ends_a_deduce_search(serve):
    """ABORT (at connection, and after a repeated SOLVE) takes the DEDUCE_RESULT of an
    aborted deduce search as its answer, as it takes an aborted RESULT."""
    board, device, clock = on_clock(delay=30.0, timeout=WAIT)
    board.connect()
    puzzle, _ = load("janko_0872")
    for mode in (DEDUCE, PAPER):
        board.send(P.encode_solve(puzzle, mode=mode, counters=mode is PAPER))
        clock.sleep(0.1)
        assert board.abort() is True
        assert not [r for r in board.stale if not isinstance(r, P.ErrorReply)]
    assert board.abort() is False  # nothing runs now


def test_trail_full_is_a_limit_with_its_reason(serve):
    class SmallTrail(FakeDevice):
        def _send(self, frame, at):
            events = P.FrameDecoder().feed(frame)
            if events and events[0].type == P.MsgType.DEDUCE_RESULT:
                reply = P.decode_deduce_result(events[0])
                frame = P.encode_deduce_result(Status.LIMIT, reply.rows, reply.cols,
                                               counters=reply.counters, cycles=reply.cycles,
                                               unique=reply.unique, trail_full=True,
                                               seq=reply.seq)
            super()._send(frame, at)

    puzzle, _ = load("janko_0103")  # 3 decisions
    result = solve(puzzle, unique=True, port=serve(SmallTrail()))
    assert result.status is Status.LIMIT
    assert result.message == "stopped: the hardware trail was full after 3 decisions"


@pytest.mark.parametrize("first", [PAPER, DEDUCE])
def test_a_late_reply_of_the_other_mode_is_not_the_answer(serve, first):
    """A reply of the other mode for the same size, uniqueness and SEQ (a late answer to an
    earlier request of the same SEQ) arrives before the answer: it is kept aside, never
    returned."""
    class Late(FakeDevice):
        def _request(self, frame, at):
            if frame.type == P.MsgType.SOLVE:
                request = P.decode_solve(frame)
                other = PAPER if request.mode is DEDUCE else DEDUCE
                late = P.encode_solve(request.puzzle(), unique=request.unique, mode=other,
                                      counters=True, seq=frame.seq)
                super()._request(P.FrameDecoder().feed(late)[0], at)
            return super()._request(frame, at)

    puzzle, solution = load("janko_0002")
    board = B.open_connection(serve(Late()), timeout=WAIT)
    for mode in (first, PAPER if first is DEDUCE else DEDUCE):
        result = solve_on(board, puzzle, unique=True, mode=mode)
        assert result.mode == mode.name.lower() and result.solution == solution
        counters = P.DEDUCE_COUNTERS if mode is DEDUCE else ("checks", "backtracks")
        assert set(counters) <= set(result.counters)
        late = board.stale[-1]
        assert late.mode is not mode and (late.rows, late.cols) == (puzzle.rows, puzzle.cols)


def test_a_build_without_the_deduction_engine(serve):
    """VERSION without DEDUCE_OK: deduce mode is refused before the SOLVE is sent, in one
    line, exit code 7; paper mode still works on the same connection."""
    device = FakeDevice(deduce=False)
    port = serve(device)
    puzzle, solution = load("janko_0002")
    with pytest.raises(B.NoDeduceEngine) as error:
        solve(puzzle, unique=True, port=port, mode="deduce")
    message = str(error.value)
    assert message.startswith("this build has no deduction engine: use --mode paper, or "
                              "rebuild the bitstream")
    assert "\n" not in message and error.value.exit_code == 7
    assert not requests_of(device, P.MsgType.SOLVE)
    assert solve(puzzle, unique=True, port=port, mode="paper").solution == solution
    assert len(requests_of(device, P.MsgType.PING)) == 2  # the same session: connected once
    # a puzzle larger than the build is still that (exit code 11), whatever the mode
    with pytest.raises(B.TooLarge):
        solve(load("janko_0068")[0], port=port)  # 12x16


class BothEnginesClaimed(FakeDevice):
    """A device whose VERSION claims both engines (ACCEL_OK and DEDUCE_OK), whatever the
    build has: its refusals of a SOLVE are what a wrong ID register gives."""

    def _request(self, frame, at):
        if frame.type == P.MsgType.PING:
            return self._send(P.encode_version(max_rows=10, max_cols=10,
                                               clock_hz=self.clock_hz, baud=self.baud,
                                               deduce_ok=True, seq=frame.seq), at)
        return super()._request(frame, at)


def test_a_device_that_refuses_deduce_mode(serve):
    """VERSION says DEDUCE_OK, but the SOLVE is answered ERROR NO_DEDUCE (its engine's ID
    is wrong): the same one-line error."""
    device = BothEnginesClaimed(deduce=False)
    puzzle, _ = load("janko_0002")
    with pytest.raises(B.NoDeduceEngine) as error:
        solve(puzzle, port=serve(device))
    assert str(error.value).startswith("this build has no deduction engine: use --mode paper")
    assert "NO_DEDUCE" in str(error.value) and "\n" not in str(error.value)
    assert error.value.exit_code == 7


def test_too_large_is_refused_before_sending(serve):
    device = FakeDevice(max_rows=5, max_cols=5)
    puzzle, _ = load("edge_10x10_two_solutions")
    with pytest.raises(B.TooLarge) as error:
        solve(puzzle, port=serve(device))
    assert "10x10" in str(error.value) and "5x5" in str(error.value)
    assert error.value.exit_code == 11
    assert not requests_of(device, P.MsgType.SOLVE)


@pytest.mark.parametrize("mode", ["deduce", "paper"])
def test_a_puzzle_that_fits_only_transposed(serve, mode):
    """A 10x12 puzzle on a 12x10 build: sent as its 12x10 transpose, answered with the
    solution transposed back (the corpus's), the counters of the transposed puzzle's
    search, and a note; the check on the way out is against the puzzle asked."""
    puzzle, solution = load("pzpr_penpa_1")  # 10x12
    assert (puzzle.rows, puzzle.cols) == (10, 12)
    device = FakeDevice(max_rows=12, max_cols=10)
    result = get_engine("board")(puzzle, unique=True, port=serve(device), mode=mode)
    assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
    sent = P.decode_solve(requests_of(device, P.MsgType.SOLVE)[-1])
    assert (sent.rows, sent.cols) == (12, 10) and sent.clues == puzzle.transposed().clues
    if mode == "deduce":
        model = band_solve(puzzle.transposed(), max_solutions=2).counters()
    else:
        model = search(puzzle.transposed(), max_solutions=2).counters.as_dict()
    assert {key: result.counters[key] for key in model} == model
    assert result.counters["transposed"] is True
    assert "solved transposed: the build is 12x10" in result.message
    # as it is, a puzzle that fits is not transposed
    small, small_solution = load("janko_0002")
    plain = solve(small, unique=True, port=serve(FakeDevice(max_rows=12, max_cols=10)))
    assert plain.solution == small_solution and "transposed" not in plain.counters


def test_transpose_is_its_own_inverse():
    puzzle, solution = load("pzpr_penpa_1")
    assert puzzle.transposed().transposed() == puzzle
    assert puzzle.transposed().clues[3][7] == puzzle.clues[7][3]
    assert transpose_colouring(transpose_colouring(solution)) == solution
    assert len(transpose_colouring(solution)) == puzzle.cols


def test_too_large_also_transposed(serve):
    """Neither the puzzle nor its transpose fits: exit code 11, nothing sent."""
    device = FakeDevice(max_rows=12, max_cols=10)
    puzzle, _ = load("janko_0068")  # 12x16
    with pytest.raises(B.TooLarge, match="12x16.*12x10.*also transposed") as error:
        solve(puzzle, port=serve(device))
    assert error.value.exit_code == 11 and not requests_of(device, P.MsgType.SOLVE)


def test_too_large_answered_by_the_device(serve):
    """A device whose VERSION overstates its size still refuses (a SOLVE within its largest
    request, more rows than it takes); the host says so."""
    class Boastful(FakeDevice):
        def _request(self, frame, at):
            if frame.type == P.MsgType.PING:
                return self._send(P.encode_version(max_rows=64, max_cols=64,
                                                   clock_hz=self.clock_hz, baud=self.baud,
                                                   seq=frame.seq), at)
            return super()._request(frame, at)

    device = Boastful(max_rows=5, max_cols=5)
    port = serve(device)
    puzzle = Puzzle([[None] * 4 for _ in range(6)])  # 6x4: 19 bytes of SOLVE, 20 taken
    assert P.solve_length(6, 4) <= device.max_payload
    with pytest.raises(B.TooLarge, match="refused"):
        solve(puzzle, port=port, mode=PAPER)
    # the conversation is still in step: a small puzzle solves on the same session
    small, solution = load("janko_0002")
    assert solve(small, unique=True, port=port, mode=PAPER).solution == solution


def test_missing_port():
    with pytest.raises(B.PortError) as error:
        solve(Puzzle(((3,),)), port="/dev/ttyUSB_does_not_exist_42")
    assert "does not exist" in str(error.value)
    assert error.value.exit_code == 8


def test_not_a_serial_port(tmp_path):
    path = tmp_path / "plain-file"
    path.write_text("")
    with pytest.raises(B.PortError, match="not a serial port|cannot"):
        solve(Puzzle(((3,),)), port=str(path))


def test_busy_port(serve):
    """Another process has the port open exclusively (as pyserial's exclusive=True does)."""
    port = serve(FakeDevice())
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import serial, sys; s = serial.Serial(sys.argv[1], exclusive=True); "
         "print('open', flush=True); sys.stdin.read()", port],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(B.PortError) as error:
            solve(Puzzle(((3,),)), port=port)
        assert "busy" in str(error.value)
    finally:
        holder.stdin.close()
        holder.wait(10)


def test_protocol_version_mismatch(serve):
    class Future(FakeDevice):
        def _request(self, frame, at):
            if frame.type == P.MsgType.PING:
                good = P.encode_version(max_rows=10, max_cols=10, clock_hz=1, baud=1)
                version = bytearray(P.FrameDecoder().feed(good)[0].payload)
                version[0] = P.PROTOCOL_VERSION + 1
                return self._send(P.encode_frame(P.MsgType.VERSION, bytes(version),
                                                 seq=frame.seq), at)
            return super()._request(frame, at)

    with pytest.raises(B.DeviceError, match="protocol version"):
        solve(Puzzle(((3,),)), port=serve(Future()))


def test_cli_with_port(serve):
    """host/solve.py --port PTY: the command line uses this engine end to end."""
    if not (REPO / "host" / "cli.py").exists():
        pytest.fail("host/cli.py is missing")
    device = FakeDevice()
    port = serve(device)
    puzzle_file = PUZZLES / "janko_0002.txt"
    run = subprocess.run([sys.executable, str(REPO / "host" / "solve.py"), "--port", port,
                          "--unique", str(puzzle_file)],
                         capture_output=True, text=True, timeout=HANG_SECONDS,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    assert run.returncode == 0, run.stderr
    assert "solved, unique" in run.stdout
    assert "counters:" not in run.stdout  # plain solving asks for none
    request, = requests_of(device, P.MsgType.SOLVE)
    assert not P.decode_solve(request).counters
    # at its end, the device was asked back to its start rate
    assert device.requests[-1].type == P.MsgType.SET_BAUD
    assert P.decode_set_baud(device.requests[-1]) == device.start_baud


def test_cli_exit_code_for_missing_port():
    run = subprocess.run([sys.executable, str(REPO / "host" / "solve.py"), "--port",
                          "/dev/ttyUSB_does_not_exist_42",
                          str(PUZZLES / "janko_0002.txt")],
                         capture_output=True, text=True, timeout=HANG_SECONDS)
    assert run.returncode == 8, run.stderr
    assert "does not exist" in run.stderr
    assert "Traceback" not in run.stderr


def test_port_discovery():
    """host/ports.py picks the FT2232's second interface (the Arty's UART)."""
    from types import SimpleNamespace as Port

    from slitherlink.host.ports import candidates, find_board

    def port(device, location, vid=0x0403, pid=0x6010, manufacturer="Digilent"):
        return Port(device=device, location=location, vid=vid, pid=pid, interface=None,
                    manufacturer=manufacturer, product="Digilent USB Device",
                    serial_number="210319A8B2C3")

    arty = [port("/dev/ttyUSB0", "1-2:1.0"), port("/dev/ttyUSB1", "1-2:1.1")]
    other = [port("/dev/ttyUSB2", "1-3:1.0", pid=0x6001, manufacturer="FTDI")]
    assert [p.device for p in candidates(arty + other)] == ["/dev/ttyUSB1"]
    assert find_board(arty + other) == "/dev/ttyUSB1"
    with pytest.raises(LookupError, match="no FT2232"):
        find_board(other)
    two = arty + [port("/dev/ttyUSB4", "1-4:1.1")]
    with pytest.raises(LookupError, match="several"):
        find_board(two)


def test_the_default_mode_falls_back_to_paper_on_a_build_without_the_engine(serve):
    """No mode given: deduce when the build has the engine, else paper with a note (an
    explicit deduce mode is refused instead: test above)."""
    puzzle, solution = load("janko_0002")
    for has_engine, want in ((True, "deduce"), (False, "paper")):
        port = serve(FakeDevice(deduce=has_engine))
        result = solve(puzzle, unique=True, port=port)
        assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
        assert result.mode == want
        assert ("no deduction engine" in result.message) == (not has_engine)


def test_a_build_without_the_accelerator_of_the_paper(serve):
    """A soc-deduce build: VERSION has DEDUCE_OK but no ACCEL_OK.  The host connects and
    solves in deduce mode; paper mode is refused before the SOLVE is sent, in one line,
    exit code 7; and a device that refuses a paper-mode SOLVE itself (ERROR NO_ACCELERATOR)
    gives the same line."""
    device = FakeDevice(paper=False)
    port = serve(device)
    puzzle, solution = load("janko_0002")
    assert solve(puzzle, unique=True, port=port).solution == solution
    with pytest.raises(B.DeviceError) as error:
        solve(puzzle, port=port, mode="paper")
    message = str(error.value)
    assert message.startswith("this build has no accelerator of the paper: use --mode deduce")
    assert "no ACCEL_OK" in message and "\n" not in message and error.value.exit_code == 7
    assert len(requests_of(device, P.MsgType.SOLVE)) == 1   # the deduce one only

    with pytest.raises(B.DeviceError) as error:
        solve(puzzle, port=serve(BothEnginesClaimed(paper=False)), mode="paper")
    assert str(error.value).startswith("this build has no accelerator of the paper")
    assert "NO_ACCELERATOR" in str(error.value) and error.value.exit_code == 7


def test_a_build_with_neither_engine_is_refused_at_connection(serve):
    with pytest.raises(B.DeviceError) as error:
        solve(load("janko_0002")[0], port=serve(FakeDevice(paper=False, deduce=False)))
    assert "neither engine answers" in str(error.value) and error.value.exit_code == 7


def test_an_answer_of_the_virtual_board_says_whose_times_it_holds():
    """On the virtual board the times are the simulator's: a plain answer says so and
    where the board's exact time is; an answer with the counters says its cycles are exact;
    a real board's answer says neither."""
    puzzle, solution = load("janko_0011")
    receiver = P.FrameDecoder()
    (frame,) = receiver.feed(P.encode_version(max_rows=10, max_cols=10, clock_hz=50_000_000,
                                              baud=115_200, deduce_ok=True))
    version = P.decode_version(frame)
    size = (P.Status.SOLVED, puzzle.rows, puzzle.cols)
    plain = P.encode_answer(*size, solution=solution, mode=P.Mode.DEDUCE, seq=3)
    counted = P.encode_deduce_result(*size, solution=solution, cycles=1234, seq=3,
                                     counters={name: 1 for name in P.DEDUCE_RESULT_COUNTERS})
    messages = {(kind, virtual): answer_result(P.decode_reply(receiver.feed(frame)[0]),
                                               version, virtual=virtual).message
                for kind, frame in (("plain", plain), ("counted", counted))
                for virtual in (False, True)}
    assert messages[("plain", False)] == messages[("counted", False)] == ""
    assert messages[("plain", True)] == ("on the virtual board (Verilator): the times are "
                                         "the simulator's; --format json gives the board's "
                                         "exact cycles")
    assert messages[("counted", True)] == "on the virtual board (Verilator; cycles are exact)"
