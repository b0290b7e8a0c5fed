"""Several SOLVEs in flight (host/device/pipeline.py, through host/engines/board.py's
solve_stream) against the fake device as the host's line, both on a clock of the test's own
(no verdict depends on the machine's speed): the queue kept full, answers matched by SEQ and
given back in input order, a lost request or answer asked for again with the same SEQ (and
answered from the device's store), a queue smaller than it says refused with BUSY and sent
again, and no wrong answer under damage."""

import pytest

from slitherlink.host import device as B
from slitherlink.host import protocol as P
from slitherlink.host.engines import checked_stream
from slitherlink.host.engines.board import RECONNECTS, solve_stream
from slitherlink.host.errors import ExitCode
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host.lossy import LossyLine
from slitherlink.host.result import Result, Status
from tests.conftest import load
from tests.host.clock import Clock
from tests.host.forgetful import Forgetful

NAMES = ["janko_0002", "janko_0011", "janko_0003", "janko_0013", "janko_0004",
         "janko_0014", "janko_0005", "janko_0016"]


def on_clock(device_class=FakeDevice, *, timeout=None, retries=None, **options):
    clock = Clock()
    device = device_class(timer=clock, **options)
    connection = B.Connection("/dev/fake-board", line=device, clock=clock, timeout=timeout,
                              retries=retries)
    connection.connect()
    return connection, device, clock


def stream(connection, names, **options):
    """``[(name, outcome)]`` of the board's stream over ``connection``, checked."""
    items = [(name, load(name)[0]) for name in names]
    solve = checked_stream(solve_stream)
    return list(solve(items, opener=lambda: connection, **options))


def solves(device):
    return [f for f in device.requests if f.type == P.MsgType.SOLVE]


def assert_right(outcomes, names):
    assert [name for name, _ in outcomes] == names  # in input order
    for name, outcome in outcomes:
        assert isinstance(outcome, Result), outcome
        assert outcome.status is Status.SOLVED_UNIQUE
        assert outcome.solution == load(name)[1]


def test_the_queue_is_kept_full_and_answers_come_in_input_order():
    connection, device, _ = on_clock(delay=0.5)
    assert connection.depth == device.queue_depth == P.QUEUE_DEPTH_MAX
    start = len(device.requests)
    outcomes = stream(connection, NAMES, unique=True)
    assert_right(outcomes, NAMES)
    sent = solves(device)
    assert len(sent) == len(NAMES)  # none sent again
    assert len({f.seq for f in sent}) == len(NAMES)  # each its own SEQ
    # the first SOLVEs, as many as the queue holds (all of them here), went out before any
    # answer could come back
    first = device.requests[start:start + min(len(NAMES), device.queue_depth)]
    assert [f.type for f in first] == [P.MsgType.SOLVE] * len(first)
    assert device.searches == len(NAMES)


def test_the_solves_that_go_out_together_go_in_one_write_that_waits_for_nothing():
    """The first SOLVEs (as many as the queue holds) go out in one write, and so do those
    whose places the answers read together freed (a host slower than the board: it takes
    10 ms over each answer here); no write waits for its bytes to leave the port."""
    connection, device, clock = on_clock(delay=0.0001)
    writes, write = [], device.write
    device.write = lambda data: writes.append(len(P.FrameDecoder().feed(data))) or write(data)
    device.flush = lambda: pytest.fail("a write waited for its bytes to leave the port")
    names = NAMES * 4
    outcomes = []
    for pair in checked_stream(solve_stream)([(name, load(name)[0]) for name in names],
                                             opener=lambda: connection, unique=True):
        outcomes.append(pair)
        clock.sleep(0.01)
    assert_right(outcomes, names)
    assert writes[0] == device.queue_depth < len(names)
    assert sum(writes) == len(names) == len(solves(device))  # none sent again
    assert max(writes[1:]) > 1  # places freed together, filled together


def test_plain_solving_asks_for_no_counters_and_gets_none():
    connection, device, _ = on_clock()
    outcomes = stream(connection, NAMES[:3], unique=True, counters=False)
    assert_right(outcomes, NAMES[:3])
    assert not any(P.decode_solve(f).counters for f in solves(device))
    assert all(outcome.counters == {} for _, outcome in outcomes)
    outcomes = stream(connection, NAMES[:1], unique=True, counters=True)
    assert outcomes[0][1].counters["decisions"] >= 0


def test_an_empty_stream_sends_nothing():
    connection, device, _ = on_clock()
    before = len(device.requests)
    assert stream(connection, []) == []
    assert len(device.requests) == before


class LosesAnswers(FakeDevice):
    """Loses the first ``lose`` answers to SOLVEs on the way out (their bytes never arrive)."""

    def __init__(self, *, lose=1, **options):
        super().__init__(**options)
        self.lose = lose

    def _send(self, frame, at):
        if self.lose and frame[3] in (P.MsgType.ANSWER, P.MsgType.DEDUCE_RESULT):
            self.lose -= 1
            return None
        return super()._send(frame, at)


def resends(device):
    return [f for f in device.requests if f.type == P.MsgType.RESEND]


def test_a_lost_answer_is_asked_for_again_with_a_resend_and_answered_from_the_store():
    """The first answer is lost: the answer to the second comes first, so the host asks
    for the first answer at once with a RESEND naming the first SOLVE (its SEQ and CRC),
    and the device answers it from its store without a new search; no SOLVE is sent
    again."""
    connection, device, _ = on_clock(LosesAnswers, lose=1, delay=0.5, timeout=5.0)
    outcomes = stream(connection, NAMES[:4], unique=True)
    assert_right(outcomes, NAMES[:4])
    sent, asked = solves(device), resends(device)
    assert len(sent) == 4
    assert [(f.seq, P.decode_resend(f)) for f in asked] == \
        [(sent[0].seq, P.frame_crc(sent[0].encode()))]
    assert device.searches == 4  # its answer came from the store


class LosesSolves(FakeDevice):
    """Gets the first ``lose`` SOLVEs damaged: each is dropped and its ERROR BAD_CRC comes
    back damaged too (the host hears a frame with a bad CRC)."""

    def __init__(self, *, lose=1, **options):
        super().__init__(**options)
        self.lose = lose

    def _request(self, frame, at):
        if frame.type == P.MsgType.SOLVE and self.lose:
            self.lose -= 1
            error = P.encode_error(P.ErrorCode.BAD_CRC, 0, 0)
            return self._send(error[:-1] + bytes([error[-1] ^ 0xFF]), at)
        return super()._request(frame, at)


def test_a_resend_for_a_solve_the_device_never_got_brings_the_solve_again():
    """A damaged frame comes back while the one SOLVE in flight never arrived whole: the
    host asks for its answer (RESEND), the device says UNKNOWN_SEQ, and the SOLVE follows."""
    connection, device, _ = on_clock(LosesSolves, lose=1, timeout=5.0)
    outcomes = stream(connection, NAMES[:1], unique=True)
    assert_right(outcomes, NAMES[:1])
    kinds = [f.type for f in device.requests if f.type in (P.MsgType.SOLVE,
                                                           P.MsgType.RESEND)]
    assert kinds == [P.MsgType.SOLVE, P.MsgType.RESEND, P.MsgType.SOLVE]
    assert device.searches == 1


def test_a_resend_while_the_solve_is_searched_is_answered_pending():
    """RESEND of a SOLVE still being solved: ERROR PENDING with its place (0); of one
    queued behind it: its place; of one the device never had: UNKNOWN_SEQ."""
    clock = Clock()
    device = FakeDevice(timer=clock, delay=10.0)
    puzzle = load(NAMES[0])[0]
    first = P.encode_solve(puzzle, mode=P.Mode.DEDUCE, seq=5)
    second = P.encode_solve(puzzle, mode=P.Mode.DEDUCE, unique=True, seq=6)
    device.write(first + second)
    clock.sleep(0.1)
    device.read(device.in_waiting)
    for frame, seq, code, detail in ((first, 5, P.ErrorCode.PENDING, 0),
                                     (second, 6, P.ErrorCode.PENDING, 1),
                                     (first, 7, P.ErrorCode.UNKNOWN_SEQ, 0)):
        device.write(P.encode_resend(P.frame_crc(frame), seq))
        clock.sleep(0.1)
        (reply,) = P.FrameDecoder().feed(device.read(device.in_waiting))
        error = P.decode_error(reply)
        assert (reply.seq, error.code, error.request_type, error.detail) == \
            (seq, code, P.MsgType.RESEND, detail)
    clock.sleep(30.0)
    answers = P.FrameDecoder().feed(device.read(device.in_waiting))
    assert [a.seq for a in answers] == [5, 6]
    device.write(P.encode_resend(P.frame_crc(first), 5))
    clock.sleep(0.1)
    (again,) = P.FrameDecoder().feed(device.read(device.in_waiting))
    assert again.encode() == answers[0].encode()


def test_a_lost_request_in_the_middle_is_sent_again_when_a_later_one_is_answered():
    connection, device, _ = on_clock(Forgetful, lose={2}, delay=0.5, timeout=5.0)
    outcomes = stream(connection, NAMES[:4], unique=True)
    assert_right(outcomes, NAMES[:4])
    sent = solves(device)
    assert len(sent) == 5 and sent[4].encode() == sent[1].encode()
    assert device.searches == 4


def test_the_last_request_lost_is_looked_for_after_silence_and_sent_again():
    """Nothing after it tells of its loss: the head's wait runs out; a RESEND looks for it,
    the device does not have it (UNKNOWN_SEQ), and the request goes again (same SEQ); no
    flush."""
    connection, device, _ = on_clock(Forgetful, lose={3}, timeout=1.0)
    heard = device.stats["rx_bytes"]
    outcomes = stream(connection, NAMES[:3], unique=True)
    assert_right(outcomes, NAMES[:3])
    sent = solves(device)
    assert len(sent) == 4 and sent[3].encode() == sent[2].encode()
    (look,) = [f for f in device.requests if f.type == P.MsgType.RESEND]
    assert look.seq == sent[2].seq
    assert device.stats["rx_bytes"] - heard == sum(len(f.encode()) for f in sent) + \
        len(look.encode())


class SmallQueue(FakeDevice):
    """Says it holds its build's queue of SOLVEs but holds two: BUSY for the others."""

    def _solve(self, frame, at, error):
        searches = ([self._running] if self._running else []) + list(self._queue)
        crc = P.crc16(frame.encode()[1:-2])
        if len(searches) >= 2 and all((s.seq, s.crc) != (frame.seq, crc) for s in searches):
            return error(P.ErrorCode.BUSY)
        return super()._solve(frame, at, error)


def test_busy_requests_are_sent_again_as_places_free():
    connection, device, _ = on_clock(SmallQueue, delay=0.5, timeout=5.0)
    outcomes = stream(connection, NAMES[:6], unique=True)
    assert_right(outcomes, NAMES[:6])
    assert len(solves(device)) > 6  # some refused BUSY, then sent again
    assert device.searches == 6


@pytest.mark.parametrize("seed", range(4))
def test_a_lossy_line_at_the_fast_rate_with_several_in_flight_gives_no_wrong_answer(seed):
    """Bytes damaged both ways at 1 %, the device switched to its fastest rate (or back at
    its start rate when the switch was damaged), the queue full: every answer is right or a clean error (never a wrong colouring)."""
    clock = Clock()
    device = FakeDevice(timer=clock, delay=0.05)
    line = LossyLine(device, loss=0.01, seed=seed)
    connection = B.Connection("/dev/fake-board", line=line, clock=clock, timeout=None)
    connection.connect()
    # switched, or (SET_BAUD's exchange damaged) back at the start rate: in step with it
    assert connection.baud == device.baud in (device.max_baud, device.start_baud)
    outcomes = stream(connection, NAMES, unique=True)
    assert [name for name, _ in outcomes] == NAMES
    right = 0
    for name, outcome in outcomes:
        if isinstance(outcome, Result) and outcome.solution is not None:
            assert outcome.solution == load(name)[1]
            right += 1
        else:
            assert isinstance(outcome, (B.BoardError, Result))
    assert right >= len(NAMES) - 1


def test_without_counters_a_lost_request_is_found_without_the_search_allowance():
    """Plain solving (no counters asked for) probes after an attempt's wait, not after the
    search allowance (2^25 device cycles): a probe's cycles disturb no count it shows."""
    connection, device, clock = on_clock(Forgetful, lose={1})
    allowance = connection.timing.search_allowance(connection.version.clock_hz)
    start = clock.now
    outcomes = stream(connection, NAMES[:1], unique=True, counters=False)
    assert_right(outcomes, NAMES[:1])
    assert len(solves(device)) == 2
    assert clock.now - start < allowance
    connection, device, clock = on_clock(Forgetful, lose={1})
    start = clock.now
    assert_right(stream(connection, NAMES[:1], unique=True, counters=True), NAMES[:1])
    assert clock.now - start > allowance  # with the counters, the allowance first


def test_a_board_never_reached_is_tried_once_and_the_rest_is_not_sent():
    """A wrong port or a board not programmed: the first puzzle fails with the error, the
    others at once (not each after its own attempts, some 35 s on a silent port)."""
    calls = []

    def opener():
        calls.append(1)
        raise B.PortError("serial port /dev/ttyUSB9 does not exist")
    items = [(name, load(name)[0]) for name in NAMES[:4]]
    outcomes = [outcome for _, outcome in checked_stream(solve_stream)(items, opener=opener)]
    assert len(calls) == 1
    first, *rest = outcomes
    assert isinstance(first, B.PortError) and "ttyUSB9" in str(first)
    assert len(rest) == 3
    for outcome in rest:
        assert isinstance(outcome, B.NotSent) and outcome.cause is first
        assert outcome.exit_code == first.exit_code == ExitCode.PORT
        assert str(outcome).startswith("not sent: no connection to the board")


def test_a_board_lost_after_it_answered_is_tried_again_then_given_up():
    """Once a connection has worked, each of RECONNECTS puzzles in a row tries a new one
    (a board reset, or plugged back); then the rest is not sent."""
    connection, device, _ = on_clock(Forgetful, lose=set(), retries=1)
    # from here on it hears its first request (the first SOLVE) and nothing after it
    device.forgets, device.count, device.lose = frozenset(P.MsgType), 0, set(range(2, 10**4))
    calls = []

    def opener():
        calls.append(1)
        if len(calls) == 1:
            return connection
        raise B.PortError("serial port /dev/fake-board does not exist")
    names = NAMES[:3 + RECONNECTS]
    items = [(name, load(name)[0]) for name in names]
    outcomes = [outcome for _, outcome in checked_stream(solve_stream)(items, opener=opener)]
    assert len(outcomes) == len(names)
    assert isinstance(outcomes[0], Result) and outcomes[0].solution == load(names[0])[1]
    assert isinstance(outcomes[1], B.NoAnswer)   # the link failed while it was in flight
    assert all(isinstance(o, B.PortError) for o in outcomes[2:2 + RECONNECTS])
    assert all(isinstance(o, B.NotSent) for o in outcomes[2 + RECONNECTS:])
    assert len(calls) == 1 + RECONNECTS


def test_a_solve_the_device_never_gets_fails_after_the_retries_and_the_rest_go_on():
    """A device that answers RESEND (UNKNOWN_SEQ) and PING but never gets one SOLVE whole:
    that puzzle fails after its retries (NoAnswer), not after endless rounds, and the next
    is solved on the same connection."""
    retries = 2
    connection, device, clock = on_clock(Forgetful, lose=set(range(2, 1000)), retries=retries)
    names = NAMES[:3]
    items = [(name, load(name)[0]) for name in names]
    start, outcomes = clock(), []
    for _, outcome in checked_stream(solve_stream)(items, opener=lambda: connection, depth=1,
                                                   counters=False):
        outcomes.append(outcome)
        if len(outcomes) == 2:
            device.lose = set()   # the line mended: the third goes through
    lost = outcomes[1]
    assert isinstance(lost, B.NoAnswer) and lost.exit_code == ExitCode.TIMEOUT
    assert f"it said so to {retries + 1} RESENDs in a row" in str(lost)
    for name, outcome in zip(names[::2], outcomes[::2]):
        assert isinstance(outcome, Result) and outcome.solution == load(name)[1]
    # the lost one's SOLVE: sent again after each RESEND answered and after each silence
    assert device.count <= 1 + 2 * (retries + 1) + 1
    assert clock() - start < 60   # seconds of the test's clock
