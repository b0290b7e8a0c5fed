"""The engine's counters: the DEDUCE counter registers as one bank with one adder.

docs/deduce.md sections 6 and 8.6.  The counters change at a few moments of a search (a
run's end adds the prober's counts, a push and a pop add one), never two of them in one
clock, so the bank keeps them in registers that share one adder and one multiplexer:
``index`` selects the counter that ``value`` shows and that ``add`` adds ``amount`` to.
The engine steps through the counters a run added to, one a clock, after the run; the
bus reads a counter through the same multiplexer while the engine adds nothing.  Only
the clock counter, which counts every busy clock of a command, has an incrementer of its
own (``tick``).  On the XC7A35T the bank is about 500 LUTs smaller than a register with
an adder for each counter.
"""

from amaranth import Array, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["CounterBank"]


class CounterBank(wiring.Component):
    """``names``: the counters, in index order; ``width``: their bits (they wrap);
    ``amount_width``: the bits of an addition; ``ticked``: the name of the counter that
    ``tick`` counts.

    Ports: ``clear`` (all counters 0 in the next clock; before ``add`` and ``tick``);
    ``index`` (a counter's index) and ``value`` (that counter, combinationally); ``add``
    (the counter at ``index`` becomes ``value + amount`` in the next clock); ``tick`` (the
    ticked counter counts one more in the next clock; it may come with an ``add`` to
    another counter).
    """

    def __init__(self, names, *, width, amount_width, ticked):
        self.names = tuple(names)
        self.width = width
        self.ticked = self.names.index(ticked)
        super().__init__({
            "clear": In(1), "index": In(range(len(self.names))), "value": Out(width),
            "add": In(1), "amount": In(amount_width), "tick": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        counters = Array(Signal(self.width, name=f"count_{name}") for name in self.names)
        m.d.comb += self.value.eq(counters[self.index])
        total = (self.value + self.amount)[:self.width]
        for k, counter in enumerate(counters):
            with m.If(self.clear):
                m.d.sync += counter.eq(0)
            with m.Elif(self.add & (self.index == k)):
                m.d.sync += counter.eq(total)
            if k == self.ticked:
                with m.Elif(self.tick):
                    m.d.sync += counter.eq(counter + 1)
        return m

    def index_of(self, name):
        """The index of counter ``name``."""
        return self.names.index(name)
