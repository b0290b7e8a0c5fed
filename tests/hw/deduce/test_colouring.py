"""The colouring packer (hw/deduce/colouring.py) against the protocol's own packing.

A process plays the state memory (a row's cells on ``row_data`` in the clock after its
fetch, unless ``hold``), another raises ``hold`` at random; the testbench starts
colourings of random sizes and skips and takes the words at random times.  The words
must be the ANSWER's colouring (host.protocol.pack_colouring) behind ``skip`` zero bits,
then ``idle``.  The whole engine's DEDUCE_COLOURING reads are checked on every solution
of tests/hw/deduce/test_engine.py, and the firmware's on the virtual board.
"""

import random

from amaranth.sim import Simulator

from slitherlink.host.protocol import pack_colouring
from slitherlink.hw.deduce.colouring import WORD_BITS, ColouringPacker

MAX_ROWS, MAX_COLS = 7, 9


def expected_words(colouring, skip):
    """The words a colouring's reads give: its tail's bits behind ``skip`` zeros."""
    cells = sum(len(row) for row in colouring)
    bits = int.from_bytes(pack_colouring(colouring), "little") << skip
    count = -(-(skip + cells) // WORD_BITS)
    return [(bits >> (WORD_BITS * k)) & ((1 << WORD_BITS) - 1) for k in range(count)]


def colouring_of(words, skip, rows, cols):
    """The solution (rows of IN flags) that DEDUCE_COLOURING words carry behind ``skip``
    bits; the skipped bits and those past the last cell must be 0."""
    bits = sum(word << (WORD_BITS * k) for k, word in enumerate(words))
    assert bits & ((1 << skip) - 1) == 0, "a skipped bit is 1"
    bits >>= skip
    assert bits >> (rows * cols) == 0, "a bit past the last cell is 1"
    return tuple(tuple(bool(bits >> (r * cols + c) & 1) for c in range(cols))
                 for r in range(rows))


def row_value(row):
    return sum(1 << c for c, inside in enumerate(row) if inside)


def test_words_are_the_answer_s_colouring():
    rng = random.Random(5)
    dut = ColouringPacker(MAX_ROWS, MAX_COLS)
    state = {"rows": []}
    cases = []
    for _ in range(40):
        rows, cols = rng.randint(1, MAX_ROWS), rng.randint(1, MAX_COLS)
        colouring = tuple(tuple(rng.random() < 0.5 for _ in range(cols)) for _ in range(rows))
        cases.append((colouring, rng.randrange(WORD_BITS), rng.choice((0, 0, 3, 40))))
    cases.append(((tuple([True] * MAX_COLS),) * MAX_ROWS, 0, 0))     # every cell IN
    cases.append(((tuple([True] * 8),) * 4, 0, 0))                    # exactly one word
    seen = []

    async def memory(ctx):
        async for _, _, fetch, hold, row in ctx.tick().sample(dut.fetch, dut.hold,
                                                              dut.fetch_row):
            if fetch and not hold:
                ctx.set(dut.row_data, row_value(state["rows"][row]) if row < len(state["rows"])
                        else 0)

    async def holder(ctx):
        hold_rng = random.Random(9)
        async for _ in ctx.tick():
            ctx.set(dut.hold, hold_rng.random() < 0.3)

    async def bench(ctx):
        for colouring, skip, pause in cases:
            state["rows"] = colouring
            ctx.set(dut.rows, len(colouring))
            ctx.set(dut.cols, len(colouring[0]))
            ctx.set(dut.skip, skip)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            for _ in range(pause):
                await ctx.tick()
            words = []
            while True:
                while not (ctx.get(dut.valid) or ctx.get(dut.idle)):
                    await ctx.tick()
                if ctx.get(dut.idle):
                    assert ctx.get(dut.word) == 0, "no word: 0"
                    break
                words.append(ctx.get(dut.word))
                ctx.set(dut.take, 1)
                await ctx.tick()
                ctx.set(dut.take, 0)
                for _ in range(rng.choice((0, 0, 1, 5))):
                    await ctx.tick()
            seen.append((words, expected_words(colouring, skip)))
        # a stop ends a colouring: no word comes after it
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        await ctx.tick().repeat(3)
        ctx.set(dut.stop, 1)
        await ctx.tick()
        ctx.set(dut.stop, 0)
        await ctx.tick()
        seen.append((ctx.get(dut.idle), ctx.get(dut.valid), ctx.get(dut.word)))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_process(memory)
    sim.add_process(holder)
    sim.add_testbench(bench)
    sim.run()
    *words, stopped = seen
    assert len(words) == len(cases)
    for (got, want), (colouring, skip, _) in zip(words, cases):
        assert got == want
        assert colouring_of(got, skip, len(colouring), len(colouring[0])) == colouring
    assert stopped == (1, 0, 0)
