"""The device's side of the link on the virtual board (the default build: the Arty's 10x10
SoC at its design clock, starting at 115200 baud), in the protocol's own bytes
(tests/sim/frames.py on spec.protocol):

* the receiver: a header announcing a long payload and then silence, and a fuzz of
  truncated headers, never keep a new session from being answered; a damaged CHECK and a
  LEN beyond what a type carries in this build are dropped at once, without swallowing the
  frame behind them;
* the replies: ANSWER by default, RESULT / DEDUCE_RESULT with the counters when asked,
  every reply with its request's SEQ;
* the queue: SOLVEs queued behind a running one and answered in order, BUSY when full;
  a resend answered from the kept answers (one search, two answers, the same bytes) or
  dropped while its request is queued; RESEND (PENDING, UNKNOWN_SEQ, the kept answer);
  ABORT with a queue; a flood of requests behind a search slows it, never stops it;
* the rate: SET_BAUD to a faster rate and back, its fallback when the host does not
  confirm, rates the build does not offer (BAD_BAUD), streaming at the fastest rate with
  the queue full and no byte lost;
* the harness: the host's line rate is the pty's, so a host at another rate than the
  board's garbles, as on a real link.

The default build's tests run at :data:`RATE`, switched to once by SET_BAUD and confirmed
(:class:`Board`): the rules they check are the same at every rate (the inter-byte timeout
is in byte times), and a byte takes about 35 times fewer cycles than at the start rate.
The tests of the rate itself (SET_BAUD from the start rate and back, its fallback, a host
at another rate) run on the small build (tests/sim/builds.py: a 4x4 paper-only grid at the
default build's clock and start rate), which simulates about six times as fast; they wait
out the confirmation window (a quarter of a second of device time).

Device time is the board's exact cycle count (SIGUSR1); wall-clock deadlines only bound a
test that would otherwise hang.
"""

import random
import time

import pytest
import serial

from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.spec import protocol as S
from slitherlink.spec import uart as rates
from slitherlink.spec.registers import queue_depth
from slitherlink.spec.target import BOARDS, DEFAULT_TARGET
from tests.conftest import load
from tests.sim import builds
from tests.sim import frames as F

#: seconds of wall time before a wait is a failure (the board never takes this long)
DEADLINE = 120.0
#: fewest device cycles a second the virtual board runs, however busy the machine (it runs
#: about 100 k to 1 M): bounds a wait for many cycles
SLOWEST = 10_000
#: the default board's rate in these tests: the fastest it offers, at which the UART's
#: receive ring holds the fewest cycles of a full line, and the firmware must take the
#: frames often enough also during a paper-mode search (every 32 checks)
RATE = rates.max_baud(DEFAULT_TARGET.uart_clock_hz,
                      BOARDS[DEFAULT_TARGET.board].bridge_max_baud)
#: a puzzle whose paper-mode search runs for more than 300k checks
LONG = "janko_0101"
#: checks of a long search: about 2 M cycles, far more than a request and its answer take
#: on the line (about 0.3 M cycles at 115200 baud)
LONG_CHECKS = 20_000
MT = S.MsgType


def made(board, baud):
    """The rate the board's UART makes of ``baud`` (VERSION's ``baud``)."""
    return rates.made_baud(rates.uart_clock_hz(board.clock_hz), baud)


class Board:
    """A running virtual board and the rate its link is at (``rate``); everything else is
    the :class:`sim.vboard.VirtualBoard`'s (``baud`` is its start rate)."""

    def __init__(self, vboard, rate):
        self.vboard, self.rate = vboard, rate

    def __getattr__(self, name):
        return getattr(self.vboard, name)


class Link:
    """A session with the board: the pty at a rate (the board's by default), the replies
    decoded strictly."""

    def __init__(self, board, baud=None):
        self.board = board
        self.port = serial.Serial(board.port, baud or board.rate, timeout=0.02)
        self.decoder = F.Decoder()
        self.replies = []

    def close(self):
        self.port.close()

    def send(self, data):
        self.port.write(data)

    def set_rate(self, baud):
        self.port.baudrate = baud

    def read(self, count):
        """The next ``count`` frames."""
        deadline = time.monotonic() + DEADLINE
        while len(self.replies) < count:
            assert time.monotonic() < deadline, f"{len(self.replies)} of {count} replies"
            self.replies += self.decoder.feed(self.port.read(4096))
        assert self.decoder.bad == 0 and self.decoder.garbage == 0, "the board sent garbage"
        out, self.replies = self.replies[:count], self.replies[count:]
        return out

    def ask(self, data):
        self.send(data)
        reply, = self.read(1)
        return reply

    def until(self, data, accept):
        """Send ``data``; the frames up to the first that ``accept`` takes: every one before it
        must be an ERROR about dropped bytes (SEQ 0)."""
        self.send(data)
        while True:
            reply, = self.read(1)
            if accept(reply):
                return reply
            assert reply.type == MT.ERROR and reply.seq == 0, reply

    def ping(self, seq=1):
        reply = self.until(F.frame(MT.PING, seq=seq), lambda r: r.type == MT.VERSION)
        assert reply.seq == seq
        return reply

    def stats(self, seq=1):
        return self.until(F.frame(MT.STATS, seq=seq), lambda r: r.type == MT.STATS_REPLY)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def cycles_now(board):
    """The board's exact cycle count (:meth:`sim.vboard.VirtualBoard.stamp`)."""
    return board.stamp()[0]


def wait_cycles(board, link, cycles):
    """Let ``cycles`` device cycles pass, the host attached (the clock runs only then)."""
    end = cycles_now(board) + cycles
    # a hang's bound only: a board on a busy machine runs far more than SLOWEST cycles a second
    deadline = time.monotonic() + DEADLINE + cycles / SLOWEST
    while cycles_now(board) < end:
        assert time.monotonic() < deadline
        link.replies += link.decoder.feed(link.port.read(4096))


@pytest.fixture(scope="module")
def board():
    """The default board, switched to :data:`RATE` (SET_BAUD, confirmed by the next frame):
    it stays there for every session after (its clock stops between them)."""
    with VirtualBoard("soc", build=build_design("soc", quiet=True)) as vboard:
        with Link(Board(vboard, vboard.baud)) as session:
            session.ping()
            assert set_baud(session, RATE, seq=1).type == MT.BAUD
            session.set_rate(RATE)
            assert session.ping(seq=2).baud == made(vboard, RATE)
        yield Board(vboard, RATE)


@pytest.fixture(scope="module")
def small_board():
    """The rate's board: the default build's clock and start rate on a 4x4 paper-only grid,
    which simulates about six times as fast (the rate is the firmware's and the UART's, not
    the grid's)."""
    with VirtualBoard("soc", build=builds.small()) as vboard:
        yield Board(vboard, vboard.baud)


@pytest.fixture
def link(board):
    with Link(board) as session:
        session.ping()      # whatever an earlier test left pending is over
        yield session


@pytest.fixture
def small_link(small_board):
    assert (small_board.clock_hz, small_board.baud) == (DEFAULT_TARGET.clock_hz,
                                                        DEFAULT_TARGET.baud)
    with Link(small_board) as session:
        session.ping()
        yield session


def check_answer(reply, puzzle, want, *, seq, flags=0):
    status, solution, _ = want
    assert reply.seq == seq
    assert reply.status is status and reply.flags == flags
    assert (reply.rows, reply.cols) == (puzzle.rows, puzzle.cols)
    if status.solved:
        assert F.colouring(reply, puzzle.rows, puzzle.cols) == solution
    else:
        assert reply.tail == b""


# -- what the build is ----------------------------------------------------------------------

def test_version_says_the_build_and_its_rates(board, link):
    version = link.ping(seq=77)
    bridge = BOARDS[DEFAULT_TARGET.board].bridge_max_baud
    assert (version.protocol, version.max_rows, version.max_cols) == (S.PROTOCOL_VERSION, 10, 10)
    assert version.clock_hz == board.clock_hz == DEFAULT_TARGET.clock_hz
    assert version.start_baud == board.baud == DEFAULT_TARGET.baud
    assert version.max_baud == rates.max_baud(rates.uart_clock_hz(board.clock_hz), bridge)
    assert version.baud == made(board, board.rate) and board.rate == RATE   # its SET_BAUD
    assert version.max_payload == S.solve_length(10, 10)
    assert version.queue == queue_depth(10, 10) == S.QUEUE_DEPTH_MAX
    assert version.flags == S.VERSION_ACCEL_OK | S.VERSION_DEDUCE_OK


# -- the replies ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, unique", [("janko_1165", True), ("edge_1x3_two_solutions", True),
                                          ("edge_2x4_global_unsat", False)])
def test_answer_by_default_counters_when_asked(link, name, unique):
    """ANSWER carries no counters; FLAG_COUNTERS gets RESULT (paper) or DEDUCE_RESULT (deduce)
    with the golden models' counters; every reply has its request's SEQ; RESULT_DEDUCE marks
    deduce mode's."""
    puzzle, _ = load(name)
    u = S.RESULT_UNIQUE if unique else 0
    deduce, paper = F.expected_deduce(puzzle, unique=unique), F.expected_paper(puzzle,
                                                                               unique=unique)
    reply = link.ask(F.solve(puzzle, seq=11, unique=unique))
    assert reply.type == MT.ANSWER
    check_answer(reply, puzzle, deduce, seq=11, flags=u | S.RESULT_DEDUCE)
    reply = link.ask(F.solve(puzzle, seq=12, unique=unique, mode=S.Mode.PAPER))
    assert reply.type == MT.ANSWER
    check_answer(reply, puzzle, paper, seq=12, flags=u)
    reply = link.ask(F.solve(puzzle, seq=13, unique=unique, counters=True))
    assert reply.type == MT.DEDUCE_RESULT
    check_answer(reply, puzzle, deduce, seq=13, flags=u | S.RESULT_DEDUCE)
    assert {k: reply.fields[k] for k in S.DEDUCE_COUNTERS} == deduce[2]
    assert 0 < reply.engine_clocks < reply.cycles
    reply = link.ask(F.solve(puzzle, seq=14, unique=unique, counters=True, mode=S.Mode.PAPER))
    assert reply.type == MT.RESULT
    check_answer(reply, puzzle, paper, seq=14, flags=u)
    assert {k: reply.fields[k] for k in paper[2]} == paper[2] and reply.cycles > 0


def test_refusals_carry_the_seq(link):
    reply = link.ask(F.solve_raw(11, 2, [S.CLUE_BLANK] * 22, seq=5))
    assert (reply.type, reply.seq, reply.code, reply.detail) == (MT.ERROR, 5, S.ErrorCode.TOO_LARGE,
                                                                 11 << 8 | 2)
    reply = link.ask(F.solve_raw(2, 2, [3, 3, 4, S.CLUE_BLANK], seq=6))
    assert (reply.seq, reply.code, reply.detail) == (6, S.ErrorCode.BAD_CLUE, 2)
    reply = link.ask(F.frame(0x42, b"xy", seq=7))
    assert (reply.seq, reply.code, reply.type, reply.detail) == (7, S.ErrorCode.UNKNOWN_TYPE,
                                                                 MT.ERROR, 0x42)
    reply = link.ask(F.frame(MT.ABORT, seq=8))
    assert (reply.seq, reply.code) == (8, S.ErrorCode.NOT_BUSY)


@pytest.mark.parametrize("rows, cols", [(10, 10), (9, 7), (3, 5)])
def test_a_bad_clue_code_in_any_word_is_refused_with_its_cell(link, rows, cols):
    """A clue code 4..14 in any cell of a grid of several clue words: the UART's ring
    reader checks the words before the last as the firmware copies them (RX_CLUE_WORD),
    the firmware the last; the ERROR names the first bad cell, and a good SOLVE after it
    is solved (nothing stays marked bad)."""
    cells = rows * cols
    blank = [S.CLUE_BLANK] * cells
    for seq, bad in enumerate((0, 7, 8, cells // 2, cells - 9, cells - 8, cells - 1), 20):
        codes = list(blank)
        codes[bad] = 4 + bad % 11
        if bad + 3 < cells:
            codes[bad + 3] = 14          # a later bad code: the first one is named
        reply = link.ask(F.solve_raw(rows, cols, codes, seq=seq))
        assert (reply.type, reply.seq) == (MT.ERROR, seq), (rows, cols, bad)
        assert (reply.code, reply.detail) == (S.ErrorCode.BAD_CLUE, bad), (rows, cols, bad)
    reply = link.ask(F.solve_raw(rows, cols, [2 if k % 5 else S.CLUE_BLANK
                                              for k in range(cells)], seq=40,
                                 flags=S.FLAG_DEDUCE))
    assert reply.seq == 40 and reply.type == MT.ANSWER


# -- the receiver ---------------------------------------------------------------------------

def test_a_four_byte_header_then_silence_does_not_wedge_the_board(board):
    """START, a LEN of 256, a type, and nothing more; the port is closed (the board's clock
    stops).  A new session solves, with no flush before it."""
    with Link(board) as first:
        first.ping()
        first.send(bytes([S.START, 0x00, 0x01, 0x03]))
    puzzle, _ = load("loopy_7x7_normal_03")
    with Link(board) as again:
        reply = again.until(F.solve(puzzle, seq=3), lambda r: r.type == MT.ANSWER)
        check_answer(reply, puzzle, F.expected_deduce(puzzle), seq=3, flags=S.RESULT_DEDUCE)


def test_a_fuzz_of_truncated_headers(board):
    """Sessions that end inside a header (1 to 5 bytes of it: a real frame's, or START and
    random bytes) or inside a payload, then a new session: its PING is answered, with
    (every other round) the host's flush first or without it, the CHECK or the inter-byte
    timeout ending what was pending."""
    rng = random.Random(31)
    puzzle, _ = load("janko_1165")
    requests = [F.frame(MT.PING, seq=9), F.solve(puzzle, seq=9),
                F.frame(MT.SET_BAUD, S.SetBaud.pack(baud=2_000_000), seq=9)]
    flush = bytes(S.OVERHEAD + S.solve_length(10, 10))
    for round in range(12):
        with Link(board) as session:
            kind = rng.randrange(3)
            if kind == 0:
                tail = rng.choice(requests)[:rng.randrange(1, S.FrameHeader.SIZE)]
            elif kind == 1:
                tail = bytes([S.START]) + bytes(rng.randrange(256)
                                                for _ in range(rng.randrange(0, 5)))
            else:   # a whole header, then part of its payload
                tail = requests[1][:rng.randrange(S.FrameHeader.SIZE, len(requests[1]) - 1)]
            session.send(tail)
        with Link(board) as session:
            if round % 2:
                session.send(flush)
            session.ping(seq=round + 1)
    with Link(board) as session:
        reply = session.until(F.solve(puzzle, seq=200), lambda r: r.type == MT.ANSWER)
        check_answer(reply, puzzle, F.expected_deduce(puzzle), seq=200, flags=S.RESULT_DEDUCE)
        stats = session.stats()
    assert stats.rx_overruns == 0 and stats.rx_frame_errors == 0


def test_a_damaged_check_is_dropped_at_once(link):
    """A header whose CHECK is wrong announces a long payload: it is dropped as soon as it is
    in (BAD_HEADER, SEQ 0, the CHECK received), and the PING right behind it is answered."""
    bad = bytearray(F.frame(MT.SOLVE, bytes(40), seq=4))
    bad[S.FrameHeader.offset("check")] ^= 0x5A
    received = bad[S.FrameHeader.offset("check")]
    link.send(bytes(bad[:S.FrameHeader.SIZE]) + F.frame(MT.PING, seq=5))
    drop, version = link.read(2)
    assert (drop.type, drop.seq, drop.code, drop.fields["type"], drop.detail) == (
        MT.ERROR, 0, S.ErrorCode.BAD_HEADER, 0, received)
    assert version.type == MT.VERSION and version.seq == 5


@pytest.mark.parametrize("request_type, length", [
    (MT.PING, 1), (MT.STATS, 3), (MT.ABORT, 200), (MT.SET_BAUD, S.SetBaud.SIZE + 1),
    (MT.RESEND, S.Resend.SIZE + 1),
    (MT.SOLVE, S.solve_length(10, 10) + 1), (0x42, S.solve_length(10, 10) + 1),
    (MT.SOLVE, S.MAX_PAYLOAD)])
def test_a_len_beyond_the_build_is_dropped_at_once(link, request_type, length):
    """A good header whose LEN is more than its type carries in this build (PING, STATS and
    ABORT nothing, SET_BAUD 4 bytes, SOLVE and unknown types the largest SOLVE): BAD_LENGTH
    at once (SEQ 0, detail 0), and the PING right behind it is answered."""
    header = F.frame(request_type, seq=3, length=length)[:S.FrameHeader.SIZE]
    link.send(header + F.frame(MT.PING, seq=6))
    drop, version = link.read(2)
    assert (drop.type, drop.seq, drop.code, drop.fields["type"], drop.detail) == (
        MT.ERROR, 0, S.ErrorCode.BAD_LENGTH, 0, 0)
    assert version.type == MT.VERSION and version.seq == 6


def test_a_short_set_baud_is_refused(link):
    reply = link.ask(F.frame(MT.SET_BAUD, b"\x00\x10", seq=9))
    assert (reply.seq, reply.code, reply.fields["type"], reply.detail) == (
        9, S.ErrorCode.BAD_LENGTH, MT.SET_BAUD, S.SetBaud.SIZE)


# -- the queue and the kept answers -------------------------------------------------------------

def long_solve(seq, checks=LONG_CHECKS):
    puzzle, _ = load(LONG)
    return F.solve(puzzle, seq=seq, mode=S.Mode.PAPER, unique=True, max_checks=checks)


def test_a_resend_is_answered_from_the_kept_answers(board, link):
    """One search, two answers, the same bytes: the second comes back in less device time
    than the search took."""
    request = long_solve(21)
    first = link.ask(request)
    assert first.type == MT.ANSWER and first.seq == 21 and first.status is S.Status.LIMIT
    search = F.expected_paper(load(LONG)[0], unique=True, max_checks=LONG_CHECKS)
    assert first.status is search[0]
    start = cycles_now(board)
    again = link.ask(request)
    elapsed = cycles_now(board) - start
    assert again.raw == first.raw
    timed = link.ask(F.solve(load(LONG)[0], seq=22, mode=S.Mode.PAPER, unique=True,
                             counters=True, max_checks=LONG_CHECKS))
    assert timed.cycles > 2 * elapsed   # the search is long, the resend is not


def test_the_firmware_serves_its_uart_within_its_interval(board, link):
    """What lets a host tell a hung firmware on the virtual board without a byte on the
    link (host/device/virtual.py): a healthy one serves its UART far more often than
    spec.protocol.SERVICE_INTERVAL_CYCLES, in a long paper-mode search and in deduce mode,
    and the harness's stamps say so (the last access, the longest stretch between two)."""
    before = board.stamp()
    search = link.ask(F.solve(load(LONG)[0], seq=25, mode=S.Mode.PAPER, unique=True,
                              counters=True, max_checks=LONG_CHECKS))
    deduce = link.ask(F.solve(load(LONG)[0], seq=26, counters=True))
    after = board.stamp()
    assert search.type == MT.RESULT and deduce.type == MT.DEDUCE_RESULT
    assert before.served is not None and after.served > before.cycles
    assert 0 < after.gap < S.SERVICE_INTERVAL_CYCLES // 16
    assert search.cycles > 4 * after.gap   # the stretches measured lie inside the search


def test_a_resend_of_a_running_request_is_dropped(link):
    request = long_solve(23)
    link.send(request)
    link.send(request)            # while it is being solved
    answer, = link.read(1)
    assert answer.type == MT.ANSWER and answer.seq == 23
    version = link.ask(F.frame(MT.PING, seq=24))
    assert version.type == MT.VERSION     # and nothing between: one answer only


def resend(request, seq=None):
    """RESEND of the SOLVE frame ``request``: its SEQ (or ``seq``) and its CRC."""
    return F.frame(MT.RESEND, request[-S.FrameCrc.SIZE:],
                   seq=request[S.FrameHeader.offset("seq")] if seq is None else seq)


def test_resend_names_a_solve_by_seq_and_crc(link):
    """RESEND of the SOLVE being solved: PENDING 0; of the one queued behind it: PENDING 1;
    of a SEQ and CRC the board never had: UNKNOWN_SEQ; once answered: the answer's bytes
    again, without a search; a short one: BAD_LENGTH."""
    running, waiting = long_solve(61), F.solve(load("janko_1165")[0], seq=62)
    link.send(running + waiting)
    link.ping(seq=60)             # the search runs: both are in
    for request, seq, code, detail in ((running, 61, S.ErrorCode.PENDING, 0),
                                       (waiting, 62, S.ErrorCode.PENDING, 1),
                                       (running, 63, S.ErrorCode.UNKNOWN_SEQ, 0)):
        reply = link.ask(resend(request, seq))
        assert (reply.type, reply.seq, reply.code, reply.fields["type"], reply.detail) == (
            MT.ERROR, seq, code, MT.RESEND, detail)
    answers = link.read(2)
    assert [a.seq for a in answers] == [61, 62]
    for answer, request in zip(answers, (running, waiting)):
        assert link.ask(resend(request)).raw == answer.raw
    short = link.ask(F.frame(MT.RESEND, b"\x01", seq=64))
    assert (short.seq, short.code, short.fields["type"], short.detail) == (
        64, S.ErrorCode.BAD_LENGTH, MT.RESEND, S.Resend.SIZE)


@pytest.mark.parametrize("name, unique", [("loopy_7x7_normal_03", False), ("janko_1165", True),
                                          ("edge_2x4_global_unsat", True)])
def test_an_answer_sent_as_it_is_made_is_the_one_kept(link, name, unique):
    """A deduce-mode SOLVE alone is answered as its answer is made (its header made while the
    engine runs, each word of the colouring sent as it is packed; no colouring, a header of
    its own): the model's answer, and the bytes a resend and a RESEND get back."""
    puzzle, _ = load(name)
    request = F.solve(puzzle, seq=71, unique=unique)
    first = link.ask(request)
    check_answer(first, puzzle, F.expected_deduce(puzzle, unique=unique), seq=71,
                 flags=S.RESULT_DEDUCE | (S.RESULT_UNIQUE if unique else 0))
    assert link.ask(request).raw == first.raw
    assert link.ask(resend(request)).raw == first.raw


#: RESENDs in the flood below: their line time is several times the search's
FLOOD = 1200
#: checks of the search beneath the flood: about 0.12 M cycles
FLOOD_CHECKS = 2000


def test_a_flood_of_requests_does_not_stop_the_search(board, link):
    """Requests without a pause behind a running search (RESENDs of a SOLVE the board never
    had, each answered UNKNOWN_SEQ by a reply longer than itself, so that they come faster
    than the answers can leave; the ring overruns): the search still ends, and is answered
    while the flood goes on, not after it; the answer is right."""
    puzzle, _ = load(LONG)
    request = long_solve(31, checks=FLOOD_CHECKS)
    stray = resend(F.solve(load("janko_1165")[0], seq=32))
    link.send(request + stray * FLOOD)
    flood_cycles = len(stray) * FLOOD * 10 * board.clock_hz // board.rate
    wait_cycles(board, link, 2 * flood_cycles)   # the flood and its replies are over
    replies, link.replies = link.replies, []
    answer = [i for i, r in enumerate(replies) if r.type == MT.ANSWER]
    assert len(answer) == 1 and replies[answer[0]].seq == 31
    assert replies[answer[0]].status is F.expected_paper(puzzle, unique=True,
                                                         max_checks=FLOOD_CHECKS)[0]
    flood = [i for i, r in enumerate(replies) if r.type == MT.ERROR and r.seq == 32]
    assert flood and all(replies[i].code == S.ErrorCode.UNKNOWN_SEQ for i in flood)
    after = sum(i > answer[0] for i in flood)
    # answered while the flood went on (about half of its replies came after the answer;
    # none, when the firmware serves a flood for as long as it lasts)
    assert after >= len(flood) // 4, (answer[0], after, len(flood), len(replies))
    link.ping(seq=33)


def test_the_queue_full_and_empty(link):
    """A running SOLVE and as many behind it as the queue holds (VERSION's queue: 16 in the
    10x10 build); one more is BUSY; the others are answered in order; then nothing runs
    (ABORT: NOT_BUSY)."""
    depth = queue_depth(10, 10)
    small = [load(name)[0] for name in ("edge_1x2_3", "janko_1165", "edge_2x4_global_unsat")]
    small = [small[k % len(small)] for k in range(depth - 1)]
    link.send(long_solve(31))
    link.ping(seq=30)             # the search runs: the PING is answered meanwhile
    for seq, puzzle in enumerate(small, start=32):
        link.send(F.solve(puzzle, seq=seq))
    busy = link.ask(F.solve(small[0], seq=60))
    assert (busy.type, busy.seq, busy.code) == (MT.ERROR, 60, S.ErrorCode.BUSY)
    answers = link.read(depth)
    assert [a.seq for a in answers] == list(range(31, 31 + depth))
    for reply, puzzle in zip(answers[1:], small):
        check_answer(reply, puzzle, F.expected_deduce(puzzle), seq=reply.seq,
                     flags=S.RESULT_DEDUCE)
    reply = link.ask(F.frame(MT.ABORT, seq=61))
    assert (reply.seq, reply.code) == (61, S.ErrorCode.NOT_BUSY)


def test_abort_empties_the_queue_and_forgets_the_answers(board, link):
    """ABORT ends the running search (its counters are the model's up to its checks) and
    drops the queued ones; the kept answers are forgotten."""
    short = long_solve(50, checks=LONG_CHECKS // 2)
    kept = link.ask(short)
    puzzle, _ = load(LONG)
    link.send(F.solve(puzzle, seq=51, mode=S.Mode.PAPER, unique=True, counters=True))
    link.send(long_solve(52))                     # 51 has no bound: runs until ABORTed
    link.send(long_solve(53))
    link.ping(seq=54)
    aborted = link.ask(F.frame(MT.ABORT, seq=55))
    assert (aborted.type, aborted.seq) == (MT.RESULT, 51)
    assert aborted.flags == S.RESULT_ABORTED | S.RESULT_UNIQUE and aborted.checks > 0
    status, _, counters = F.expected_paper(puzzle, unique=True, max_checks=aborted.checks)
    assert {key: aborted.fields[key] for key in counters} == counters
    assert aborted.status == (S.Status.SOLVED if status.solved else S.Status.LIMIT)
    reply = link.ask(F.frame(MT.ABORT, seq=56))   # 52 and 53 were dropped: nothing runs
    assert (reply.seq, reply.code) == (56, S.ErrorCode.NOT_BUSY)
    # the kept answer is forgotten: the resend is searched again (its search's time)
    start = cycles_now(board)
    again = link.ask(short)
    elapsed = cycles_now(board) - start
    assert again.raw == kept.raw
    timed = link.ask(F.solve(load(LONG)[0], seq=57, mode=S.Mode.PAPER, unique=True,
                             counters=True, max_checks=LONG_CHECKS // 2))
    assert elapsed > timed.cycles


# -- the rate ----------------------------------------------------------------------------------

def set_baud(link, baud, seq):
    return link.ask(F.frame(MT.SET_BAUD, S.SetBaud.pack(baud=baud), seq=seq))


def test_set_baud_to_the_fastest_and_back(small_board, small_link):
    board, link = small_board, small_link
    fastest = link.ping().max_baud
    reply = set_baud(link, fastest, seq=60)      # BAUD comes at the old rate
    assert (reply.type, reply.seq, reply.baud) == (MT.BAUD, 60, made(board, fastest))
    assert reply.divisor == rates.divisor_for(rates.uart_clock_hz(board.clock_hz), fastest)
    link.set_rate(fastest)
    version = link.ping(seq=61)                  # confirms
    assert (version.baud, version.start_baud) == (made(board, fastest), board.baud)
    puzzle, _ = load("janko_0002")
    check_answer(link.ask(F.solve(puzzle, seq=62, mode=S.Mode.PAPER, unique=True)), puzzle,
                 F.expected_paper(puzzle, unique=True), seq=62, flags=S.RESULT_UNIQUE)
    wait_cycles(board, link, board.clock_hz >> S.BAUD_CONFIRM_CYCLES_SHIFT)
    assert link.ping(seq=63).baud == made(board, fastest)     # confirmed: kept after the window
    reply = set_baud(link, board.baud, seq=64)
    assert (reply.type, reply.baud) == (MT.BAUD, made(board, board.baud))
    link.set_rate(board.baud)
    assert link.ping(seq=65).baud == made(board, board.baud)


def test_set_baud_falls_back_when_not_confirmed(small_board, small_link):
    """The host stays at the start rate: after the window the device is back at it."""
    board, link = small_board, small_link
    reply = set_baud(link, 2_000_000, seq=70)
    assert (reply.type, reply.baud) == (MT.BAUD, made(board, 2_000_000))
    assert reply.divisor == rates.divisor_for(rates.uart_clock_hz(board.clock_hz), 2_000_000)
    wait_cycles(board, link, (board.clock_hz >> S.BAUD_CONFIRM_CYCLES_SHIFT) + 100_000)
    version = link.ping(seq=71)
    assert version.baud == made(board, board.baud)


def test_rates_the_build_does_not_offer(board, link):
    """BAD_BAUD's detail: the whole cycles a bit the rate would need at the board's UART
    clock (rounded), 0 when beyond 16 bits (or for no rate at all)."""
    def needed(baud):
        uart_hz = rates.uart_clock_hz(board.clock_hz)
        cycles = (2 * uart_hz + baud) // (2 * baud) if baud else 0
        return cycles if cycles < 1 << 16 else 0

    for baud in (2 * RATE, RATE + 1, 0, 100):   # beyond the fastest, none, too slow
        detail = needed(baud)
        reply = set_baud(link, baud, seq=80)
        assert (reply.type, reply.seq, reply.code, reply.detail) == (
            MT.ERROR, 80, S.ErrorCode.BAD_BAUD, detail), baud
    link.send(long_solve(81))
    busy = set_baud(link, 2_000_000, seq=82)     # not while a search runs
    assert (busy.seq, busy.code) == (82, S.ErrorCode.BUSY)
    assert link.read(1)[0].seq == 81
    assert link.ping().baud == made(board, board.rate)


def test_streaming_at_the_fastest_rate(board, link):
    """The queue kept full at the fastest rate (the Arty's 12 Mbaud, made by the UART's
    clock): every answer right, in order, no byte lost."""
    fastest = link.ping().max_baud
    assert fastest == RATE
    assert set_baud(link, fastest, seq=90).type == MT.BAUD
    link.set_rate(fastest)
    before = link.ping()
    assert before.baud == made(board, fastest)
    stats_before = link.stats()
    names = ["janko_1165", "janko_0751", "loopy_7x7_normal_03", "edge_1x3_two_solutions",
             "janko_0103", "janko_0285", "puzzleloop_5x5_medium_8118588", "janko_0002"] * 3
    puzzles = [load(name)[0] for name in names]
    sent = got = 0
    answers = []
    while got < len(puzzles):
        while sent < len(puzzles) and sent - got < queue_depth(10, 10):
            link.send(F.solve(puzzles[sent], seq=100 + sent, unique=True))
            sent += 1
        answers += link.read(1)
        got += 1
    for i, (reply, puzzle) in enumerate(zip(answers, puzzles)):
        check_answer(reply, puzzle, F.expected_deduce(puzzle, unique=True), seq=100 + i,
                     flags=S.RESULT_DEDUCE | S.RESULT_UNIQUE)
    stats = link.stats()
    assert stats.rx_overruns == stats_before.rx_overruns
    assert stats.rx_frame_errors == stats_before.rx_frame_errors
    assert stats.frames_bad == stats_before.frames_bad
    assert set_baud(link, board.rate, seq=99).type == MT.BAUD
    link.set_rate(board.rate)
    link.ping()


# -- the harness ------------------------------------------------------------------------------

def test_a_host_at_another_rate_garbles(small_board):
    """The harness serialises at the pty's rate: a host at half the board's rate is not
    understood, and what comes back is not frames; at the board's rate it is again."""
    board = small_board
    with Link(board, baud=board.baud // 2) as wrong:
        wrong.send(F.frame(MT.PING, seq=1) * 4)
        # the device time of the PINGs at half the rate and four VERSIONs back, twice over
        wait_cycles(board, wrong, 2 * 8 * 40 * 10 * board.clock_hz // board.baud)
        assert not wrong.replies
    with Link(board) as right:
        assert right.ping().type == MT.VERSION
