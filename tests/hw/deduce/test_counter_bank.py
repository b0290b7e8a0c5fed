"""The engine's counter bank (hw/deduce/counters.py) against a dictionary of counters.

Random clears, additions (of amounts up to the widest, so that counters wrap) and ticks,
an addition and a tick often in the same clock; in every clock the counter that ``index``
names must show the model's value.  The engine's use of the bank (a run's counts added
after it, the bus's reads waiting meanwhile) is checked by every counter of
tests/hw/deduce/test_engine.py and of the virtual board's deduce-mode tests.
"""

import random

from amaranth.sim import Simulator

from slitherlink.hw.deduce.counters import CounterBank

NAMES = ("sweeps", "floods", "probes", "clocks", "saves")
WIDTH, AMOUNT_WIDTH = 8, 6


def test_the_bank_keeps_every_counter():
    dut = CounterBank(NAMES, width=WIDTH, amount_width=AMOUNT_WIDTH, ticked="clocks")
    ticked = NAMES.index("clocks")
    model = [0] * len(NAMES)
    rng = random.Random(3)
    checked = []

    async def bench(ctx):
        for _ in range(3000):
            index = rng.randrange(len(NAMES))
            clear = rng.random() < 0.01
            add = rng.random() < 0.5 and index != ticked
            tick = rng.random() < 0.5
            amount = rng.randrange(1 << AMOUNT_WIDTH)
            ctx.set(dut.index, index)
            ctx.set(dut.clear, clear)
            ctx.set(dut.add, add)
            ctx.set(dut.amount, amount)
            ctx.set(dut.tick, tick)
            checked.append((ctx.get(dut.value), model[index]))
            await ctx.tick()
            if clear:
                model[:] = [0] * len(NAMES)
                continue
            if add:
                model[index] = (model[index] + amount) % (1 << WIDTH)
            if tick:
                model[ticked] = (model[ticked] + 1) % (1 << WIDTH)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(checked) == 3000
    assert all(got == want for got, want in checked), next(
        (k, got, want) for k, (got, want) in enumerate(checked) if got != want)
    assert sum(1 for _, want in checked if want) > 1000, "the counters rose"
    assert any(want > (1 << WIDTH) - (1 << AMOUNT_WIDTH) for _, want in checked), \
        "some counter came near its wrap"

