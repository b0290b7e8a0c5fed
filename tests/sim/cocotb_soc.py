"""cocotb tests of the whole SoC through its UART pins (run by test_soc_cocotb.py).

Parameters come from the environment: SOC_CLOCK_HZ, SOC_BAUD, SOC_MAX_ROWS,
SOC_MAX_COLS; SOC_PUZZLES (comma-separated corpus names) and SOC_REPORT (a
JSON file for the measured cycles) for :func:`solve_puzzles`.
"""

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import Timer, with_timeout

from slitherlink.host import protocol as P
from slitherlink.host.corpus import load
from slitherlink.host.result import Result, Status
from slitherlink.model.paper import search
from slitherlink.sim.cocotb.uart import UartSink, UartSource



class Bench:
    """The SoC with its clock, reset and a UART model on its pins."""

    def __init__(self, dut):
        self.dut = dut
        self.clock_hz = int(os.environ["SOC_CLOCK_HZ"])
        self.baud = int(os.environ["SOC_BAUD"])
        self.max_rows = int(os.environ["SOC_MAX_ROWS"])
        self.max_cols = int(os.environ["SOC_MAX_COLS"])
        self.period_ns = 1e9 / self.clock_hz
        divisor = round(self.clock_hz / self.baud)
        self.bit_ns = divisor * self.period_ns
        self.source = UartSource(dut.uart_rx, self.bit_ns)
        self.sink = UartSink(dut.uart_tx, self.bit_ns)
        self.decoder = P.FrameDecoder()
        self.frames = []

    async def start(self):
        self.dut.rst.value = 1
        Clock(self.dut.clk, self.period_ns, unit="ns").start()
        await Timer(10 * self.period_ns, unit="ns")
        self.dut.rst.value = 0
        await Timer(10 * self.period_ns, unit="ns")

    def byte_time_ns(self):
        return 10 * self.bit_ns

    async def send(self, data, **kw):
        await self.source.send(data, **kw)

    async def replies(self, count=1, *, timeout_ms=50.0):
        """The next ``count`` decoded replies (ResultReply/VersionReply/ErrorReply)."""
        async def collect():
            while len(self.frames) < count:
                byte = await self.sink.queue.get()
                self.frames += self.decoder.feed(bytes([byte]))
        await with_timeout(collect(), timeout_ms, "ms")
        assert not self.decoder.bad_frames, f"the SoC sent bad frames: {self.decoder.bad_frames}"
        assert int(self.dut.trap.value) == 0, "the CPU trapped (a firmware bug)"
        assert self.sink.framing_errors == 0, "the SoC's UART sent a bad stop bit"
        out, self.frames = self.frames[:count], self.frames[count:]
        return [P.decode_reply(f) for f in out]

    async def request(self, data, **kw):
        await self.send(data)
        reply, = await self.replies(1, **kw)
        return reply

    async def quiet(self, ns):
        """Wait ``ns`` and check that nothing was sent meanwhile."""
        await Timer(ns, unit="ns")
        assert self.sink.queue.empty() and not self.frames, "unexpected reply"

    async def ping(self):
        reply = await self.request(P.encode_ping())
        assert isinstance(reply, P.VersionReply), reply
        return reply




async def solve_and_compare(bench, puzzle, *, unique=True, max_checks=0, solution=None,
                            timeout_ms=2000.0):
    """SOLVE on the SoC; the status, colouring and every counter must equal the model's."""
    wanted = 2 if unique else 1
    model = search(puzzle, max_solutions=wanted, max_checks=max_checks or (1 << 32) - 1)
    status = Result.status_for(len(model.solutions), wanted_unique=unique,
                               exhausted=model.exhausted)
    reply = await bench.request(P.encode_solve(puzzle, mode="paper", unique=unique,
                                               max_checks=max_checks), timeout_ms=timeout_ms)
    assert isinstance(reply, P.ResultReply), f"{puzzle.name}: {reply}"
    assert reply.status == status, f"{puzzle.name}: status {reply.status!r}, model {status!r}"
    assert reply.counters == model.counters.as_dict(), \
        f"{puzzle.name}: counters {reply.counters}, model {model.counters.as_dict()}"
    if status.solved:
        assert reply.solution == model.solutions[0], f"{puzzle.name}: colouring differs"
    if solution is not None and status is Status.SOLVED_UNIQUE:
        assert reply.solution == solution, f"{puzzle.name}: colouring differs from .sol"
    assert not reply.aborted and reply.unique == unique and reply.cycles > 0
    return reply


@cocotb.test()
async def version(dut):
    """PING answers VERSION with the build's parameters and a working accelerator."""
    bench = Bench(dut)
    await bench.start()
    v = await bench.ping()
    assert (v.protocol, v.max_rows, v.max_cols, v.clock_hz, v.baud) == (
        P.PROTOCOL_VERSION, bench.max_rows, bench.max_cols, bench.clock_hz, bench.baud)
    assert v.accelerator_ok and v.max_payload == P.MAX_PAYLOAD


@cocotb.test()
async def solve_puzzles(dut):
    """Corpus puzzles: answers equal the .sol files, counters equal model.paper.search."""
    bench = Bench(dut)
    await bench.start()
    report = []
    for name in os.environ["SOC_PUZZLES"].split(","):
        puzzle, solution = load(name)
        unique = True
        start = time.monotonic()
        reply = await solve_and_compare(bench, puzzle, unique=unique, solution=solution,
                                        timeout_ms=float(os.environ.get("SOC_TIMEOUT_MS", 4000)))
        report.append({"name": name, "rows": puzzle.rows, "cols": puzzle.cols,
                       "unique": unique, "status": reply.status.name,
                       **reply.counters, "cycles": reply.cycles,
                       "cycles_per_check": reply.cycles / max(1, reply.counters["checks"]),
                       "wall_seconds": round(time.monotonic() - start, 2)})
        dut._log.info("%s: %s, %d checks, %d cycles (%.1f cycles/check)", name,
                      reply.status.name, reply.counters["checks"], reply.cycles,
                      report[-1]["cycles_per_check"])
    if os.environ.get("SOC_REPORT"):
        with open(os.environ["SOC_REPORT"], "w") as f:
            json.dump(report, f, indent=1)


@cocotb.test()
async def modes_and_limits(dut):
    """Unique off/on, the check limit, ABORT, BUSY and PING during a search."""
    bench = Bench(dut)
    await bench.start()
    two, _ = load("edge_1x3_two_solutions")
    r = await solve_and_compare(bench, two, unique=False)
    assert r.status == Status.SOLVED
    r = await solve_and_compare(bench, two, unique=True)
    assert r.status == Status.MULTIPLE
    # a puzzle whose search runs for more than 300k checks
    puzzle, _ = load(os.environ["SOC_LONG_PUZZLE"])
    r = await solve_and_compare(bench, puzzle, unique=True, max_checks=37)
    assert r.status == Status.LIMIT and r.counters["checks"] == 37
    # a long search: PING answers, SOLVE is BUSY, ABORT ends it with the model's counters
    await bench.send(P.encode_solve(puzzle, mode="paper", unique=True))
    await Timer(2000 * bench.period_ns, unit="ns")
    v = await bench.request(P.encode_ping())
    assert isinstance(v, P.VersionReply)
    busy = await bench.request(P.encode_solve(puzzle, mode="paper"))
    assert isinstance(busy, P.ErrorReply) and busy.code == P.ErrorCode.BUSY
    r = await bench.request(P.encode_abort())
    assert isinstance(r, P.ResultReply) and r.aborted, r
    model = search(puzzle, max_solutions=2, max_checks=r.counters["checks"])
    assert r.counters == model.counters.as_dict() and r.counters["checks"] > 0
    assert r.status == (Status.SOLVED if model.solutions else Status.LIMIT), r
    nb = await bench.request(P.encode_abort())
    assert isinstance(nb, P.ErrorReply) and nb.code == P.ErrorCode.NOT_BUSY
    await solve_and_compare(bench, two, unique=True)


@cocotb.test()
async def malformed_frames(dut):
    """Every malformed frame gets an ERROR (garbage is skipped); the next request is served."""
    bench = Bench(dut)
    await bench.start()
    good, _ = load("edge_2x2_33")

    async def served():
        await solve_and_compare(bench, good)

    async def expect_error(data, code, *, request_type=None, detail=None):
        reply = await bench.request(data)
        assert isinstance(reply, P.ErrorReply) and reply.code == code, (code, reply)
        if request_type is not None:
            assert reply.request_type == request_type, reply
        if detail is not None:
            assert reply.detail == detail, reply

    # bad CRC
    frame = bytearray(P.encode_solve(good, mode="paper"))
    frame[-2] ^= 0x01
    await expect_error(bytes(frame), P.ErrorCode.BAD_CRC)
    await served()
    # a grid larger than the build maximum, a zero size, a clue of 4, bad flags, bad length
    big = bench.max_rows + 1
    await expect_error(P.encode_solve_raw(big, 2, [P.CLUE_BLANK] * 2 * big),
                       P.ErrorCode.TOO_LARGE, request_type=P.MsgType.SOLVE, detail=big << 8 | 2)
    await expect_error(P.encode_solve_raw(2, 0, []), P.ErrorCode.BAD_SIZE)
    await expect_error(P.encode_solve_raw(2, 2, [3, 3, 4, P.CLUE_BLANK]),
                       P.ErrorCode.BAD_CLUE, detail=2)
    await expect_error(P.encode_solve_raw(1, 1, [1], flags=0x10), P.ErrorCode.BAD_FLAGS)
    await expect_error(P.encode_frame(P.MsgType.SOLVE,
                                      P.encode_solve(good, mode="paper")[4:-2] + b"\0"),
                       P.ErrorCode.BAD_LENGTH, detail=P.SOLVE_HEADER + 2)
    await expect_error(P.encode_frame(0x42), P.ErrorCode.UNKNOWN_TYPE, detail=0x42)
    await expect_error(P.encode_frame(P.MsgType.PING, b"x"), P.ErrorCode.BAD_LENGTH)
    await expect_error(P.encode_abort(), P.ErrorCode.NOT_BUSY)
    await expect_error(bytes([P.START, 0xFF, 0xFF]), P.ErrorCode.BAD_LENGTH, detail=0)
    await served()
    # random garbage without a START byte is skipped silently
    garbage = bytes((i * 37 + 11) % 256 for i in range(40) if (i * 37 + 11) % 256 != P.START)
    await bench.send(garbage)
    await bench.quiet(P.TIMEOUT_BYTE_TIMES * 2 * bench.byte_time_ns())
    await served()
    # a truncated frame: the inter-byte timeout ends it with TIMEOUT
    await bench.send(P.encode_solve(good, mode="paper")[:7])
    reply = await bench.request(b"", timeout_ms=50)
    assert isinstance(reply, P.ErrorReply) and reply.code == P.ErrorCode.TIMEOUT, reply
    await served()
    # a truncated frame followed at once by a valid one: the rescan finds the valid one
    data = P.encode_solve(good, mode="paper")[:5] + P.encode_solve(good, mode="paper")
    await bench.send(data)
    replies = await bench.replies(2, timeout_ms=100)
    assert isinstance(replies[0], P.ErrorReply), replies
    assert replies[0].code in (P.ErrorCode.BAD_CRC, P.ErrorCode.TIMEOUT), replies
    assert isinstance(replies[1], P.ResultReply) and replies[1].status == Status.SOLVED
    # a START byte inside garbage, then a valid frame after the timeout
    await bench.send(b"\x13\x37" + bytes([P.START, 0x20, 0x00, 0x99]) + b"\x00" * 5)
    reply = await bench.request(b"", timeout_ms=50)
    assert isinstance(reply, P.ErrorReply) and reply.code == P.ErrorCode.TIMEOUT, reply
    await served()
