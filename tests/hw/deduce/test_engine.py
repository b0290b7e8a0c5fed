"""The deduction engine behind its bus (hw/deduce/engine.py) against the band model.

A testbench plays the firmware (firmware/src/deduce.c does the same, register for
register): it writes the clues and the size, LOAD, DEDUCE, then DECIDE / BACKTRACK as
:func:`model.deduce.solve` would, reading STATUS after each command, and each solution
as the ANSWER's colouring (DEDUCE_COLOURING).  The solutions, the
end of the search and every counter must equal :func:`model.band.band_solve`'s (the
search of :func:`model.deduce.solve`, DEDUCE_FLOOD_ITERATIONS and DEDUCE_LABEL_ITERATIONS
counted as the flood and label passes), on builds of several band heights, on corpus
puzzles smaller than the build and on small random puzzles with several solutions or
none (where the trail is used hardest).  The 10x10 build runs on the virtual board
(tests/sim/test_vboard_deduce.py), where the same search is thousands of times faster.
"""

import gc
import random
import warnings

import pytest
from amaranth.hdl import UnusedElaboratable
from amaranth.sim import Simulator

from slitherlink.host.puzzle import Puzzle
from slitherlink.hw.deduce.engine import DeduceEngine
from slitherlink.model.band import band_solve
from slitherlink.spec import registers as regmap
from slitherlink.spec.protocol import CLUE_BLANK
from slitherlink.spec.deduce import island_free
from tests.conftest import PUZZLES, load
from tests.hw.deduce.test_colouring import colouring_of

COUNTERS = [name for name in regmap.DEDUCE_HW_COUNTERS if name != "clocks"]


async def write(ctx, bus, address, value):
    ctx.set(bus.addr, address)
    ctx.set(bus.wdata, value)
    ctx.set(bus.wstrb, 0xF)
    ctx.set(bus.valid, 1)
    while True:
        await ctx.tick()
        if ctx.get(bus.ready):
            break
    ctx.set(bus.valid, 0)
    ctx.set(bus.wstrb, 0)


async def read(ctx, bus, address):
    ctx.set(bus.addr, address)
    ctx.set(bus.wstrb, 0)
    ctx.set(bus.valid, 1)
    while True:
        await ctx.tick()
        if ctx.get(bus.ready):
            value = ctx.get(bus.rdata)
            break
    ctx.set(bus.valid, 0)
    return value


async def command(ctx, bus, name):
    await write(ctx, bus, regmap.DeduceControl.address, regmap.DeduceControl.pack(**{name: 1}))
    while True:
        status = regmap.DeduceStatus.unpack(await read(ctx, bus, regmap.DeduceStatus.address))
        if not status["busy"]:
            return status


def stream_words(puzzle, blank=CLUE_BLANK):
    """The DEDUCE_CLUES words of ``puzzle``: its codes row-major, eight a word (a blank as
    ``blank``, the last word's unused codes 0)."""
    codes = [blank if v is None else v for row in puzzle.clues for v in row]
    n = regmap.DEDUCE_STREAM_CELLS
    return [regmap.DeduceClues.pack(**{f"code{j}": code for j, code in enumerate(codes[k:k + n])})
            for k in range(0, len(codes), n)]


async def firmware_solve(ctx, bus, puzzle, max_solutions, stream=False):
    """The firmware's search (model.deduce.solve's order) through the registers; the clues
    by DEDUCE_CLUE writes before DEDUCE_SIZE, or with ``stream`` by DEDUCE_CLUES writes
    after it (firmware/src/deduce.c)."""
    size = regmap.DeduceSize.pack(rows=puzzle.rows, cols=puzzle.cols,
                                  island=int(island_free(puzzle)))
    if stream:
        await write(ctx, bus, regmap.DeduceSize.address, size)
        for word in stream_words(puzzle):
            await write(ctx, bus, regmap.DeduceClues.address, word)
    else:
        for r, row in enumerate(puzzle.clues):
            for c, v in enumerate(row):
                await write(ctx, bus, regmap.deduce_clue_address(r, c),
                            regmap.CLUE_BLANK if v is None else v)
        await write(ctx, bus, regmap.DeduceSize.address, size)
    await command(ctx, bus, "load")
    status = await command(ctx, bus, "deduce")
    solutions, exhausted = [], False
    while True:
        bad = status["conflict"]
        if not bad and status["complete"]:
            # the solution as the ANSWER's colouring, a word a read, behind a skip
            skip = 8 * (len(solutions) % 4) + len(solutions) // 4 % 8
            await write(ctx, bus, regmap.DeduceColouringStart.address,
                        regmap.DeduceColouringStart.pack(skip=skip))
            count = -(-(skip + puzzle.rows * puzzle.cols) // 32)
            words = [await read(ctx, bus, regmap.DeduceColouring.address) for _ in range(count)]
            assert await read(ctx, bus, regmap.DeduceColouring.address) == 0, "past its end"
            solutions.append(colouring_of(words, skip, puzzle.rows, puzzle.cols))
            if len(solutions) >= max_solutions:
                break
            bad = True
        if bad:
            if status["trail_empty"]:
                exhausted = True
                break
            status = await command(ctx, bus, "backtrack")
            continue
        assert not status["trail_full"], "the test's trail is deep enough"
        status = await command(ctx, bus, "decide")
    counters = {}
    for register, name in zip(regmap.DEDUCE_COUNTER_REGISTERS, regmap.DEDUCE_HW_COUNTERS):
        counters[name] = await read(ctx, bus, register.address)
    return solutions, exhausted, counters


def random_puzzle(rng, rows, cols, density):
    return Puzzle(tuple(tuple(rng.randrange(4) if rng.random() < density else None
                              for _ in range(cols)) for _ in range(rows)))


def run(dut, jobs, model, stream=False):
    """Solve every ``(puzzle, max_solutions)`` on ``dut``; compare with the model
    (``model(puzzle, max_solutions)``: the outcome and the counter registers' values);
    ``stream``: the clues by DEDUCE_CLUES (see :func:`firmware_solve`)."""
    seen = []

    async def bench(ctx):
        for puzzle, max_solutions in jobs:
            solutions, exhausted, counters = await firmware_solve(ctx, dut.bus, puzzle,
                                                                  max_solutions, stream)
            want, registers = model(puzzle, max_solutions)
            assert solutions == want.solutions, puzzle
            assert exhausted == want.exhausted, puzzle
            for name in COUNTERS:
                assert counters[name] == registers[name], (name, puzzle)
            assert counters["clocks"] > want.counters.sweeps
            seen.append((len(solutions), want.counters.decisions, want.counters.backtracks))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return seen


def band_counters(band):
    """``model(puzzle, max_solutions)`` for :func:`run`: the band model's outcome and the
    counter registers it predicts."""
    def model(puzzle, max_solutions):
        want = band_solve(puzzle, band=band, max_solutions=max_solutions)
        return want.outcome, {name: value for name, value in want.counters().items()
                              if name in COUNTERS}
    return model


def corpus(max_rows, max_cols, count):
    jobs = []
    for path in sorted(PUZZLES.glob("*.txt")):
        puzzle, _ = load(path.stem)
        if puzzle.rows <= max_rows and puzzle.cols <= max_cols:
            jobs.append((puzzle, 2))
    assert len(jobs) >= count
    return jobs[:count]


@pytest.mark.parametrize("band,label_network", [(1, "small"), (2, "small"), (3, "small"),
                                                (7, "small"), (1, "fast"), (1, "pairs")])
def test_engine_solves_corpus_puzzles_as_the_model(band, label_network):
    """Band heights 1 to 3 and the whole framed grid in one word (7 at 5x5); the fast and
    pairs label networks change no result or counter (their clocks: test_propagator.py)."""
    dut = DeduceEngine(5, 5, band=band, trail_depth=8, label_network=label_network)
    seen = run(dut, corpus(5, 5, 8), band_counters(band))
    assert any(found == 1 for found, _, _ in seen)


@pytest.mark.parametrize("band", [
    # band 1's stream: the default SoC's firmware loads every deduce-mode puzzle by it, of
    # several sizes one after the other (tests/sim/test_vboard_deduce.py, every counter)
    pytest.param(1, marks=pytest.mark.slow), 2, 7])
def test_clue_stream_loads_as_the_clue_registers(band):
    """DEDUCE_CLUES (eight codes a write, rows spanning words, the protocol's blank code)
    gives every puzzle the model's search; puzzles of several sizes one after the other, so
    a stream must replace every clue of the puzzle before (band 7: the whole 5x5 grid in
    one word)."""
    rng = random.Random(40 + band)
    jobs = corpus(5, 5, 3) + [(random_puzzle(rng, rows, cols, 0.5), 2)
                              for rows, cols in ((5, 5), (3, 4), (2, 5), (5, 3))]
    dut = DeduceEngine(5, 5, band=band, trail_depth=8)
    seen = run(dut, jobs, band_counters(band), stream=True)
    assert any(found == 1 for found, _, _ in seen)


@pytest.mark.parametrize("band", [
    # band 1's trail: the default SoC's engine on the virtual board, decisions and
    # backtracks counted as the model's (tests/sim/test_vboard_deduce.py)
    pytest.param(1, marks=pytest.mark.slow), 2])
def test_engine_backtracks_through_the_trail_as_the_model(band):
    """Random small puzzles smaller than the build: many solutions or none."""
    rng = random.Random(12 + band)
    jobs = [(random_puzzle(rng, rng.randint(2, 4), rng.randint(2, 5), 0.35), 3)
            for _ in range(10)]
    jobs = jobs[:4] if band == 1 else jobs   # band 1's first four: 12 decisions
    dut = DeduceEngine(4, 5, band=band, trail_depth=16)
    seen = run(dut, jobs, band_counters(band))
    assert sum(d for _, d, _ in seen) >= 5 and sum(b for _, _, b in seen) >= 5


@pytest.mark.parametrize("band", [1, 6])
def test_registers_and_a_full_trail(band):
    """ID and CONFIG read back, and DEDUCE_SIZE after a write; rows beyond the build read 0;
    with a one-entry trail the second nested DECIDE is ignored, STATUS.trail_full says
    why, and BACKTRACK still pops the one entry: one framed row a word, and the whole
    framed grid in one word (band 6 at 4x4)."""
    dut = DeduceEngine(4, 4, band=band, trail_depth=1)
    seen = []

    async def bench(ctx):
        b = dut.bus
        ident = regmap.DeduceId.unpack(await read(ctx, b, regmap.DeduceId.address))
        assert ident == {"version": regmap.DEDUCE_VERSION, "magic": regmap.DEDUCE_ID_MAGIC}
        config = regmap.DeduceConfig.unpack(await read(ctx, b, regmap.DeduceConfig.address))
        assert config == {"max_rows": 4, "max_cols": 4, "trail_depth": 1}
        for r in range(4):
            for c in range(4):
                await write(ctx, b, regmap.deduce_clue_address(r, c), regmap.CLUE_BLANK)
        await write(ctx, b, regmap.DeduceSize.address,
                    regmap.DeduceSize.pack(rows=4, cols=4, island=1))
        assert regmap.DeduceSize.unpack(await read(ctx, b, regmap.DeduceSize.address)) == {
            "rows": 4, "cols": 4, "island": 1}
        await command(ctx, b, "load")
        status = await command(ctx, b, "deduce")
        assert status["trail_empty"] and not status["trail_full"] and not status["complete"]
        status = await command(ctx, b, "decide")
        seen.append(status)
        assert status["trail_full"] and not status["trail_empty"]
        decisions = await read(ctx, b, regmap.DEDUCE_COUNTER_REGISTERS[
            regmap.DEDUCE_HW_COUNTERS.index("decisions")].address)
        if not status["complete"] and not status["conflict"]:
            again = await command(ctx, b, "decide")   # ignored: the trail is full
            assert again == status
            assert await read(ctx, b, regmap.DEDUCE_COUNTER_REGISTERS[
                regmap.DEDUCE_HW_COUNTERS.index("decisions")].address) == decisions == 1
        # the 4x4's colouring is one word; the reads after it, and after a command that
        # ended a colouring started before it, read 0
        await write(ctx, b, regmap.DeduceColouringStart.address, 0)
        assert await read(ctx, b, regmap.DeduceColouring.address) >> 16 == 0
        assert await read(ctx, b, regmap.DeduceColouring.address) == 0
        await write(ctx, b, regmap.DeduceColouringStart.address, 0)
        status = await command(ctx, b, "backtrack")
        assert await read(ctx, b, regmap.DeduceColouring.address) == 0
        assert status["trail_empty"] and not status["trail_full"]
        seen.append(status)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(seen) == 2


def test_memories_deeper_than_lut_ram_go_to_block_ram():
    """The prober's memories are block RAM by default when they hold more than
    LUT_RAM_DEPTH groups (the 36x20 build's 38); yosys chooses below; a ram_style given
    is kept.  (The engines are made only to read their choices: Amaranth's "created but
    never used" warning for them says nothing.)"""
    from slitherlink.hw.deduce.engine import LUT_RAM_DEPTH
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        deep = DeduceEngine(LUT_RAM_DEPTH - 1, 20)            # LUT_RAM_DEPTH + 1 framed rows
        assert deep.groups == LUT_RAM_DEPTH + 1
        memories = (deep.prober.propagator.sweep, deep.prober.propagator.floods_block,
                    deep.prober.propagator.labels_block)
        assert [block.ram_style for block in memories] == ["block"] * 3
        shallow = DeduceEngine(LUT_RAM_DEPTH - 2, 20)
        assert shallow.groups == LUT_RAM_DEPTH and shallow.ram_style is None
        assert shallow.prober.propagator.sweep.ram_style is None
        assert DeduceEngine(36, 20, band=2).ram_style is None   # 19 groups
        assert DeduceEngine(36, 20, ram_style="distributed").ram_style == "distributed"
        del deep, memories, shallow
        gc.collect()
