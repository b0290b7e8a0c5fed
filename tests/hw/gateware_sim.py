"""Shared helpers of the gateware tests (Amaranth simulator)."""

import random

from amaranth.sim import Simulator


from tests.hw import accelerator_golden as golden
from slitherlink.hw.cells import CellLayout, NeedLayout, grid_index
from slitherlink.hw.checker import requirement_table

__all__ = ["golden", "run", "pack_cells", "pack_words", "pack_needs", "word_key", "puzzle_words", "grid_board",
           "BusDriver"]

_TABLE = requirement_table()


def word_key(clue, pattern, attribute):
    """The packed CellLayout value of a cell."""
    return (clue << CellLayout["clue"].offset | pattern << CellLayout["pattern"].offset
            | attribute << CellLayout["attribute"].offset)


def run(dut, bench, *, vcd=None, clock=True):
    """Run the async testbench ``bench(ctx)`` on ``dut`` with a 100 MHz clock."""
    sim = Simulator(dut)
    if clock:
        sim.add_clock(1e-8)
    sim.add_testbench(bench)
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()


def pack_words(words, max_rows, max_cols):
    """The ``cells`` array value from ``{(r, c): (clue, pattern, attribute)}``; others blank."""
    value = 0
    for r in range(max_rows):
        for c in range(max_cols):
            word = word_key(*words.get((r, c), (4, 0, 0)))
            value |= word << (grid_index(max_cols, r, c) * CellLayout.size)
    return value


def pack_needs(words, max_rows, max_cols):
    """The ``needs`` array value (what CellArray stores) for ``{(r, c): (clue, pattern, attr)}``."""
    value = 0
    for (r, c), word in words.items():
        s0, s1 = _TABLE.get(word_key(*word), (0, 0))
        need = s0 << NeedLayout["s0"].offset | s1 << NeedLayout["s1"].offset
        value |= need << (grid_index(max_cols, r, c) * NeedLayout.size)
    return value


def puzzle_words(puzzle, assignment):
    """``{(r, c): (clue, pattern, attribute)}`` of a model puzzle and assignment."""
    return {(r, c): golden.cell_word(puzzle.clues[r][c], assignment.get((r, c)))
            for r in range(puzzle.rows) for c in range(puzzle.cols)}


def pack_cells(puzzle, assignment, max_rows, max_cols):
    """The ``cells`` array value of a build for a model puzzle and assignment."""
    return pack_words(puzzle_words(puzzle, assignment), max_rows, max_cols)


def grid_board(rows, cols, max_rows, max_cols):
    """The ``grid`` bitboard of a build running an R x C puzzle."""
    w, board = max_cols + 2, 0
    for r in range(rows):
        for c in range(cols):
            board |= 1 << ((r + 1) * w + c + 1)
    return board


class BusDriver:
    """PicoRV32-style initiator for an Amaranth testbench: one access at a time.

    ``cycles`` counts the clock edges of each access from ``valid`` rising to
    ``ready`` (so an access without wait states takes 1).
    """

    def __init__(self, ctx, bus):
        self.ctx, self.bus = ctx, bus
        self.last_cycles = 0

    async def _access(self, addr, wdata, wstrb):
        ctx, b = self.ctx, self.bus
        ctx.set(b.valid, 1)
        ctx.set(b.addr, addr)
        ctx.set(b.wdata, wdata)
        ctx.set(b.wstrb, wstrb)
        cycles = 0
        while True:
            await ctx.tick()
            cycles += 1
            if ctx.get(b.ready):
                break
            assert cycles < 10_000, f"no ready for the access at {addr:#x}"
        rdata = ctx.get(b.rdata)
        ctx.set(b.valid, 0)
        ctx.set(b.wstrb, 0)
        self.last_cycles = cycles
        return rdata

    async def read(self, addr):
        return await self._access(addr, 0, 0)

    async def write(self, addr, data, wstrb=0xF):
        await self._access(addr, data, wstrb)

    async def idle(self, cycles=1):
        await self.ctx.tick().repeat(cycles)
