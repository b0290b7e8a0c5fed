"""cocotb tests of the whole SoC through its UART pins (run by test_soc_cocotb.py).

Parameters come from the environment: SOC_CLOCK_HZ, SOC_BAUD, SOC_MAX_BAUD, SOC_MAX_ROWS,
SOC_MAX_COLS; SOC_PUZZLES (comma-separated corpus names) and SOC_REPORT (a JSON file for
the measured cycles) for :func:`solve_puzzles`; SOC_LIMITED_PUZZLE and SOC_LONG_PUZZLE
(optional) for :func:`modes_and_limits`.  The frames are the protocol's own bytes
(tests/sim/frames.py, on spec.protocol).
"""

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import Timer, with_timeout

from slitherlink.host.corpus import load
from slitherlink.sim.cocotb.uart import UartSink, UartSource
from slitherlink.spec import protocol as S
from slitherlink.spec.registers import queue_depth
from slitherlink.spec.uart import UART_CLOCK_RATIO
from tests.sim import frames as F

MT = S.MsgType


class Bench:
    """The SoC with its clocks (the design clock and the UART's, UART_CLOCK_RATIO times it,
    in phase), resets and a UART model on its pins."""

    def __init__(self, dut):
        self.dut = dut
        self.clock_hz = int(os.environ["SOC_CLOCK_HZ"])
        self.baud = int(os.environ["SOC_BAUD"])
        self.max_baud = int(os.environ["SOC_MAX_BAUD"])
        self.max_rows = int(os.environ["SOC_MAX_ROWS"])
        self.max_cols = int(os.environ["SOC_MAX_COLS"])
        # the UART's half period in whole ps, the design clock's period a multiple of it
        self.line_half_ps = round(1e12 / self.clock_hz / UART_CLOCK_RATIO / 2)
        self.period_ns = 2 * self.line_half_ps * UART_CLOCK_RATIO / 1000
        self.source = UartSource(dut.uart_rx, 1e9 / self.baud)
        self.sink = UartSink(dut.uart_tx, 1e9 / self.baud)
        self.decoder = F.Decoder()
        self.frames = []

    async def set_rate(self, baud):
        """The host's side of the line at ``baud`` (an exact bit time in ns), after the BAUD
        reply: two byte times at the old rate later (a real host, behind its USB bridge,
        answers much later), so the device has switched (it does once its reply's stop bit
        is out)."""
        await Timer(2 * self.byte_time_ns(), unit="ns")
        self.source.bit_ns = self.sink.bit_ns = 1e9 / baud

    async def start(self):
        self.dut.rst.value = self.dut.uart_rst.value = 1
        Clock(self.dut.uart_clk, 2 * self.line_half_ps, unit="ps").start()
        Clock(self.dut.clk, 2 * self.line_half_ps * UART_CLOCK_RATIO, unit="ps").start()
        await Timer(10 * self.period_ns, unit="ns")
        self.dut.rst.value = self.dut.uart_rst.value = 0
        await Timer(10 * self.period_ns, unit="ns")

    def byte_time_ns(self):
        return 10 * self.source.bit_ns

    async def send(self, data, **kw):
        await self.source.send(data, **kw)

    async def replies(self, count=1, *, timeout_ms=50.0):
        """The next ``count`` decoded replies (:class:`tests.sim.frames.Reply`)."""
        async def collect():
            while len(self.frames) < count:
                byte = await self.sink.queue.get()
                self.frames += self.decoder.feed(bytes([byte]))
        await with_timeout(collect(), timeout_ms, "ms")
        assert not self.decoder.bad and not self.decoder.garbage, "the SoC sent bad frames"
        assert int(self.dut.trap.value) == 0, "the CPU trapped (a firmware bug)"
        assert self.sink.framing_errors == 0, "the SoC's UART sent a bad stop bit"
        out, self.frames = self.frames[:count], self.frames[count:]
        return out

    async def request(self, data, **kw):
        await self.send(data)
        reply, = await self.replies(1, **kw)
        return reply

    async def quiet(self, ns):
        """Wait ``ns`` and check that nothing was sent meanwhile."""
        await Timer(ns, unit="ns")
        assert self.sink.queue.empty() and not self.frames, "unexpected reply"

    async def ping(self, seq=1):
        reply = await self.request(F.frame(MT.PING, seq=seq))
        assert reply.type == MT.VERSION and reply.seq == seq, reply
        return reply


async def solve_and_compare(bench, puzzle, *, unique=True, max_checks=0, solution=None,
                            seq=1, timeout_ms=2000.0):
    """SOLVE in paper mode with the counters; the status, colouring and every counter must
    equal the model's."""
    status, first, counters = F.expected_paper(puzzle, unique=unique, max_checks=max_checks)
    reply = await bench.request(F.solve(puzzle, seq=seq, mode=S.Mode.PAPER, unique=unique,
                                        counters=True, max_checks=max_checks),
                                timeout_ms=timeout_ms)
    assert reply.type == MT.RESULT and reply.seq == seq, f"{puzzle.name}: {reply}"
    assert reply.status == status, f"{puzzle.name}: status {reply.status!r}, model {status!r}"
    got = {key: reply.fields[key] for key in counters}
    assert got == counters, f"{puzzle.name}: counters {got}, model {counters}"
    if status.solved:
        assert F.colouring(reply, puzzle.rows, puzzle.cols) == first, \
            f"{puzzle.name}: colouring differs"
    if solution is not None and status is S.Status.SOLVED_UNIQUE:
        assert F.colouring(reply, puzzle.rows, puzzle.cols) == solution, \
            f"{puzzle.name}: colouring differs from .sol"
    assert reply.flags == (S.RESULT_UNIQUE if unique else 0) and reply.cycles > 0
    return reply


@cocotb.test()
async def version(dut):
    """PING answers VERSION with the build's parameters and a working accelerator."""
    bench = Bench(dut)
    await bench.start()
    v = await bench.ping(seq=42)
    assert (v.protocol, v.max_rows, v.max_cols, v.clock_hz, v.baud, v.start_baud) == (
        S.PROTOCOL_VERSION, bench.max_rows, bench.max_cols, bench.clock_hz, bench.baud,
        bench.baud)
    assert v.max_baud == bench.max_baud
    assert v.queue == queue_depth(bench.max_rows, bench.max_cols)
    assert v.flags & S.VERSION_ACCEL_OK
    assert v.max_payload == S.solve_length(bench.max_rows, bench.max_cols)


@cocotb.test()
async def solve_puzzles(dut):
    """Corpus puzzles: answers equal the .sol files, counters equal model.paper.search."""
    bench = Bench(dut)
    await bench.start()
    report = []
    for seq, name in enumerate(os.environ["SOC_PUZZLES"].split(","), start=1):
        puzzle, solution = load(name)
        start = time.monotonic()
        reply = await solve_and_compare(bench, puzzle, unique=True, solution=solution, seq=seq,
                                        timeout_ms=float(os.environ.get("SOC_TIMEOUT_MS", 4000)))
        counters = {key: reply.fields[key] for key in S.COUNTERS}
        report.append({"name": name, "rows": puzzle.rows, "cols": puzzle.cols,
                       "unique": True, "status": reply.status.name, **counters,
                       "cycles_per_check": reply.cycles / max(1, reply.checks),
                       "wall_seconds": round(time.monotonic() - start, 2)})
        dut._log.info("%s: %s, %d checks, %d cycles (%.1f cycles/check)", name,
                      reply.status.name, reply.checks, reply.cycles,
                      report[-1]["cycles_per_check"])
    if os.environ.get("SOC_REPORT"):
        with open(os.environ["SOC_REPORT"], "w") as f:
            json.dump(report, f, indent=1)


@cocotb.test()
async def modes_and_limits(dut):
    """Unique off/on, the check limit (on SOC_LIMITED_PUZZLE); with SOC_LONG_PUZZLE (a search
    of more than 300k checks), during its search PING answers, SOLVEs queue up to the
    queue's depth and one more is BUSY, ABORT ends the search and empties the queue."""
    bench = Bench(dut)
    await bench.start()
    two, _ = load("edge_1x3_two_solutions")
    r = await solve_and_compare(bench, two, unique=False)
    assert r.status == S.Status.SOLVED
    r = await solve_and_compare(bench, two, unique=True, seq=2)
    assert r.status == S.Status.MULTIPLE
    limited, _ = load(os.environ["SOC_LIMITED_PUZZLE"])
    r = await solve_and_compare(bench, limited, unique=True, max_checks=37, seq=3)
    assert r.status == S.Status.LIMIT and r.checks == 37
    if not os.environ.get("SOC_LONG_PUZZLE"):
        return
    puzzle, _ = load(os.environ["SOC_LONG_PUZZLE"])
    await bench.send(F.solve(puzzle, seq=10, mode=S.Mode.PAPER, unique=True, counters=True))
    await Timer(2000 * bench.period_ns, unit="ns")
    await bench.ping(seq=11)
    depth = queue_depth(bench.max_rows, bench.max_cols)
    for seq in range(12, 12 + depth - 1):
        await bench.send(F.solve(two, seq=seq, mode=S.Mode.PAPER))
    busy = await bench.request(F.solve(two, seq=12 + depth, mode=S.Mode.PAPER))
    assert (busy.type, busy.seq, busy.code) == (MT.ERROR, 12 + depth, S.ErrorCode.BUSY), busy
    r = await bench.request(F.frame(MT.ABORT, seq=13 + depth))
    assert r.type == MT.RESULT and r.seq == 10 and r.flags & S.RESULT_ABORTED, r
    status, _, counters = F.expected_paper(puzzle, unique=True, max_checks=r.checks)
    assert {key: r.fields[key] for key in counters} == counters and r.checks > 0
    assert r.status == (S.Status.SOLVED if status.solved else S.Status.LIMIT), r
    nb = await bench.request(F.frame(MT.ABORT, seq=14 + depth))   # the queued ones were dropped
    assert (nb.type, nb.seq, nb.code) == (MT.ERROR, 14 + depth, S.ErrorCode.NOT_BUSY), nb
    await solve_and_compare(bench, two, unique=True, seq=15 + depth)


@cocotb.test()
async def set_baud(dut):
    """SET_BAUD to a rate of a fractional bit time (8 Mbaud at a 100 MHz UART clock: 12.5
    cycles): BAUD at the old rate, then both sides at the new one; back again; a rate
    beyond the build's fastest is refused."""
    bench = Bench(dut)
    await bench.start()
    fast = 8_000_000
    r = await bench.request(F.frame(MT.SET_BAUD, S.SetBaud.pack(baud=fast), seq=5))
    assert (r.type, r.seq, r.baud, r.divisor) == (MT.BAUD, 5, fast, 13), r
    await bench.set_rate(fast)
    v = await bench.ping(seq=6)
    assert (v.baud, v.start_baud) == (fast, bench.baud)
    two, _ = load("edge_1x3_two_solutions")
    await solve_and_compare(bench, two, unique=True, seq=7)
    r = await bench.request(F.frame(MT.SET_BAUD, S.SetBaud.pack(baud=bench.max_baud + 1),
                                    seq=8))
    assert (r.type, r.code) == (MT.ERROR, S.ErrorCode.BAD_BAUD), r
    r = await bench.request(F.frame(MT.SET_BAUD, S.SetBaud.pack(baud=bench.baud), seq=9))
    assert (r.type, r.baud) == (MT.BAUD, bench.baud), r
    await bench.set_rate(bench.baud)
    assert (await bench.ping(seq=10)).baud == bench.baud


@cocotb.test()
async def malformed_frames(dut):
    """Every malformed frame gets an ERROR (garbage is skipped); the next request is served."""
    bench = Bench(dut)
    await bench.start()
    good, _ = load("edge_2x2_33")
    largest = S.solve_length(bench.max_rows, bench.max_cols)   # the build's largest SOLVE

    async def served():
        await solve_and_compare(bench, good, seq=99)

    async def expect_error(data, code, *, request_type=None, detail=None, seq=None):
        reply = await bench.request(data)
        assert reply.type == MT.ERROR and reply.code == code, (code, reply)
        if request_type is not None:
            assert reply.fields["type"] == request_type, reply
        if detail is not None:
            assert reply.detail == detail, reply
        if seq is not None:
            assert reply.seq == seq, reply

    # bad CRC: a drop, SEQ 0
    frame = bytearray(F.solve(good, mode=S.Mode.PAPER))
    frame[-2] ^= 0x01
    await expect_error(bytes(frame), S.ErrorCode.BAD_CRC, request_type=0, seq=0)
    await served()
    # a grid larger than the build maximum, a zero size, a clue of 4, bad flags, bad length
    big = bench.max_rows + 1
    await expect_error(F.solve_raw(big, 2, [S.CLUE_BLANK] * 2 * big, seq=3),
                       S.ErrorCode.TOO_LARGE, request_type=MT.SOLVE, detail=big << 8 | 2, seq=3)
    await expect_error(F.solve_raw(2, 0, []), S.ErrorCode.BAD_SIZE)
    await expect_error(F.solve_raw(2, 2, [3, 3, 4, S.CLUE_BLANK]), S.ErrorCode.BAD_CLUE, detail=2)
    await expect_error(F.solve_raw(1, 1, [1], flags=0x10), S.ErrorCode.BAD_FLAGS)
    payload = F.solve(good, mode=S.Mode.PAPER)[S.FrameHeader.SIZE:-S.FrameCrc.SIZE]
    await expect_error(F.frame(MT.SOLVE, payload + b"\0"), S.ErrorCode.BAD_LENGTH,
                       detail=S.solve_length(2, 2))
    await expect_error(F.frame(0x42, seq=4), S.ErrorCode.UNKNOWN_TYPE, detail=0x42, seq=4)
    await expect_error(F.frame(MT.ABORT, seq=5), S.ErrorCode.NOT_BUSY, seq=5)
    # a LEN beyond what the type carries: dropped as soon as the header is in
    await expect_error(F.frame(MT.PING, b"x"), S.ErrorCode.BAD_LENGTH, request_type=0, detail=0)
    await expect_error(F.frame(MT.SOLVE, seq=6, length=0xFFFF)[:S.FrameHeader.SIZE],
                       S.ErrorCode.BAD_LENGTH, request_type=0, detail=0, seq=0)
    # a damaged CHECK: dropped as soon as the header is in
    header = bytearray(F.frame(MT.SOLVE, seq=7, length=largest)[:S.FrameHeader.SIZE])
    header[-1] ^= 0x80
    await expect_error(bytes(header), S.ErrorCode.BAD_HEADER, detail=header[-1], seq=0)
    await served()
    # random garbage without a START byte is skipped silently
    garbage = bytes((i * 37 + 11) % 256 for i in range(40) if (i * 37 + 11) % 256 != S.START)
    await bench.send(garbage)
    await bench.quiet(S.TIMEOUT_BYTE_TIMES * 2 * bench.byte_time_ns())
    await served()
    # a truncated frame: the inter-byte timeout ends it with TIMEOUT
    await bench.send(F.solve(good, mode=S.Mode.PAPER)[:9])
    reply = await bench.request(b"", timeout_ms=50)
    assert reply.type == MT.ERROR and reply.code == S.ErrorCode.TIMEOUT, reply
    await served()
    # a truncated frame followed at once by a valid one: the rescan finds the valid one
    data = F.solve(good, mode=S.Mode.PAPER)[:7] + F.solve(good, mode=S.Mode.PAPER,
                                                          counters=True)
    await bench.send(data)
    replies = await bench.replies(2, timeout_ms=100)
    assert replies[0].type == MT.ERROR, replies
    assert replies[0].code in (S.ErrorCode.BAD_CRC, S.ErrorCode.TIMEOUT), replies
    assert replies[1].type == MT.RESULT and replies[1].status == S.Status.SOLVED
    # a good header (a LEN the build takes) inside garbage, then nothing: the timeout ends it
    await bench.send(b"\x13\x37" + F.frame(MT.SOLVE, length=largest)[:S.FrameHeader.SIZE]
                     + b"\x00" * 5)
    reply = await bench.request(b"", timeout_ms=50)
    assert reply.type == MT.ERROR and reply.code == S.ErrorCode.TIMEOUT, reply
    await served()
