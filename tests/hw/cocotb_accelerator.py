"""cocotb bench of the accelerator's generated Verilog (run by test_cocotb_accelerator.py).

Drives the bus like PicoRV32 with addresses and masks parsed from the C header
the firmware includes (:func:`spec.registers.c_header`), and compares every answer
with the golden model (:mod:`model.paper`): random puzzles and assignments at
run-time sizes up to the build size, then the states of real searches.

Parameters (environment): ACC_MAX_ROWS, ACC_MAX_COLS (the build), ACC_STATES
(random states), ACC_SEED, ACC_PUZZLES (comma-separated corpus names),
ACC_MAX_CHECKS (checks replayed per puzzle).
"""

import os
import random
import re

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

from tests.hw import accelerator_golden as golden
from slitherlink.model.paper import FloodMode, flood, partial_condition, pick
from slitherlink.spec.registers import c_header

MAX_ROWS = int(os.environ.get("ACC_MAX_ROWS", "5"))
MAX_COLS = int(os.environ.get("ACC_MAX_COLS", "6"))
H = {name: int(value, 0) for name, value in
     re.findall(r"^#define (SLK_\w+) (0x[0-9A-Fa-f]+|\d+)u$",
                c_header(), re.M)}


def put(register, field, value):
    return (value << H[f"SLK_{register}_{field}_SHIFT"]) & H[f"SLK_{register}_{field}_MASK"]


def get(register, field, word):
    return (word & H[f"SLK_{register}_{field}_MASK"]) >> H[f"SLK_{register}_{field}_SHIFT"]


def cell_addr(r, c):
    return H["SLK_CELL_BASE"] + 4 * (r * H["SLK_CELL_STRIDE"] + c)


class Bus:
    """One access at a time; inputs change after the falling edge, sampled at the rising one."""

    def __init__(self, dut):
        self.dut = dut
        self.cycles = 0

    async def access(self, addr, wdata=0, wstrb=0):
        d = self.dut
        await FallingEdge(d.clk)
        d.bus__valid.value = 1
        d.bus__addr.value = addr
        d.bus__wdata.value = wdata
        d.bus__wstrb.value = wstrb
        for cycles in range(1, 10_000):
            await RisingEdge(d.clk)
            await ReadOnly()
            if int(d.bus__ready.value):
                rdata = int(d.bus__rdata.value)
                break
        else:
            raise AssertionError(f"no ready for the access at {addr:#x}")
        await FallingEdge(d.clk)
        d.bus__valid.value = 0
        d.bus__wstrb.value = 0
        self.cycles += cycles
        return rdata

    async def read(self, addr):
        return await self.access(addr)

    async def write(self, addr, value):
        await self.access(addr, value, 0xF)


class Device:
    def __init__(self, dut):
        self.bus = Bus(dut)
        self.words = {}

    async def load(self, puzzle):
        await self.bus.write(H["SLK_SIZE"], put("SIZE", "ROWS", puzzle.rows)
                             | put("SIZE", "COLS", puzzle.cols))
        await self.bus.write(H["SLK_CONTROL"], put("CONTROL", "CLEAR", 1))
        self.words = {}
        for r, c in puzzle.clue_cells():
            await self.write_cell(r, c, (puzzle.clues[r][c], 0, 0))

    async def write_cell(self, r, c, word):
        clue, pattern, attribute = word
        await self.bus.write(cell_addr(r, c), put("CELL", "CLUE", clue)
                             | put("CELL", "PATTERN", pattern)
                             | put("CELL", "ATTRIBUTE", attribute))
        self.words[r, c] = word

    async def assign(self, puzzle, assignment):
        for r in range(puzzle.rows):
            for c in range(puzzle.cols):
                word = golden.cell_word(puzzle.clues[r][c], assignment.get((r, c)))
                if self.words.get((r, c), (4, 0, 0)) != word:
                    await self.write_cell(r, c, word)

    async def status(self):
        return await self.bus.read(H["SLK_STATUS"])

    async def check_state(self, state, *, cells=False):
        status = await self.status()
        assert get("STATUS", "CONFLICT", status) == state.conflict
        assert get("STATUS", "CHECKERBOARD", status) == state.checkerboard
        p = pick(state.geometry, state.s1)
        assert get("STATUS", "PICK_OK", status) == p.ok
        assert get("STATUS", "INSIDE_EMPTY", status) == (p.S == 0)
        if cells:
            geo = state.geometry
            for r in range(geo.rows):
                for c in range(geo.cols):
                    word = await self.bus.read(cell_addr(r, c))
                    assert get("CELL", "S0", word) == bool(state.s0 & geo.bit(r, c)), (r, c)
                    assert get("CELL", "S1", word) == bool(state.s1 & geo.bit(r, c)), (r, c)
            for name, value in (("S", p.S), ("I", p.I), ("B", p.B)):
                got = get(f"PICK_{name}", "COUNT", await self.bus.read(H[f"SLK_PICK_{name}"]))
                assert got == value, name

    async def flood(self, mode):
        await self.bus.write(H["SLK_CONTROL"], put("CONTROL", "FLOOD", 1)
                             | put("CONTROL", "FLOOD_MODE", int(mode)))
        while get("STATUS", "FLOOD_BUSY", status := await self.status()):
            pass
        count = get("FLOOD_ITERATIONS", "COUNT", await self.bus.read(H["SLK_FLOOD_ITERATIONS"]))
        return get("STATUS", "FLOOD_COMPLETE", status), count


async def reset(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.bus__valid.value = 0
    dut.bus__wstrb.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    return Device(dut)


@cocotb.test()
async def identity(dut):
    dev = await reset(dut)
    ident = await dev.bus.read(H["SLK_ID"])
    assert get("ID", "MAGIC", ident) == H["SLK_ID_MAGIC"]
    assert get("ID", "VERSION", ident) == H["SLK_REGMAP_VERSION"]
    config = await dev.bus.read(H["SLK_CONFIG"])
    assert (get("CONFIG", "MAX_ROWS", config), get("CONFIG", "MAX_COLS", config)) == \
        (MAX_ROWS, MAX_COLS)


@cocotb.test()
async def random_states(dut):
    """Random puzzles and assignments: STATUS after every write, cells, Pick, both floods."""
    dev = await reset(dut)
    rng = random.Random(int(os.environ.get("ACC_SEED", "1")))
    count = int(os.environ.get("ACC_STATES", "200"))
    floods = 0
    for i in range(count):
        rows, cols = ((MAX_ROWS, MAX_COLS) if i % 4 == 0
                      else (rng.randint(1, MAX_ROWS), rng.randint(1, MAX_COLS)))
        puzzle, target = golden.random_state(rng, rows, cols)
        await dev.load(puzzle)
        assignment = {}
        cells = sorted(target)
        rng.shuffle(cells)
        for cell in cells[:3]:  # a few single-cell steps, then the rest at once
            assignment[cell] = target[cell]
            await dev.assign(puzzle, assignment)
            await dev.check_state(partial_condition(puzzle, assignment))
        await dev.assign(puzzle, target)
        state = partial_condition(puzzle, target)
        await dev.check_state(state, cells=(i % 5 == 0))
        for mode in (FloodMode.REACH, FloodMode.ESCAPE):
            ref = flood(state.geometry, mode, state.s0, state.s1)
            assert await dev.flood(mode) == (ref.complete, ref.iterations), (i, mode)
            floods += 1
    dut._log.info(f"{count} random states, {floods} floods, {dev.bus.cycles} bus cycles")


@cocotb.test()
async def search_replay(dut):
    """The checks, floods and Pick tests of the golden search on corpus puzzles."""
    dev = await reset(dut)
    names = [n for n in os.environ.get("ACC_PUZZLES", "").split(",") if n]
    max_checks = int(os.environ.get("ACC_MAX_CHECKS", "300"))
    counts = {"check": 0, "flood": 0, "pick": 0}
    for name in names:
        puzzle = golden.load_puzzle(name)
        assert puzzle.rows <= MAX_ROWS and puzzle.cols <= MAX_COLS, name
        events = list(golden.replay(puzzle, max_checks=max_checks))
        golden.check_replay(puzzle, events, max_checks=max_checks)
        await dev.load(puzzle)
        for event in events:
            counts[event[0]] += 1
            if event[0] == "check":
                await dev.assign(puzzle, event[1])
                await dev.check_state(event[2], cells=counts["check"] % 25 == 0)
            elif event[0] == "flood":
                _, mode, _, _, ref = event
                assert await dev.flood(mode) == (ref.complete, ref.iterations)
            else:
                status = await dev.status()
                assert get("STATUS", "PICK_OK", status) == event[2].ok
    dut._log.info(f"replayed {counts} on {names}")
    assert not names or counts["check"] > 0
