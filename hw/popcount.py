"""Balanced popcount (adder) trees, the counting logic of paper section 3.3.1-3.3.2.

The paper counts the 1s of each 32-bit row with the five-step SWAR formula of
its section 3.3.1 and adds the rows up.  We count any number of bits with one
balanced binary tree of adders instead: depth ``ceil(log2(n))`` adders, no
Python recursion (``sum()`` over hundreds of bits hits ``RecursionError`` at
elaboration, TOOLCHAIN.md), and optional pipeline registers every ``k`` adder
levels so that wide counts (the ~1,500 line bits of a 20x36 grid) still meet
timing.
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["balanced_sum", "tree_levels", "tree_latency", "PopCount"]


def tree_levels(count):
    """Adder levels of a balanced tree over ``count`` operands."""
    levels = 0
    while count > 1:
        count = (count + 1) // 2
        levels += 1
    return levels


def tree_latency(count, register_every):
    """Register stages :func:`balanced_sum` inserts for ``count`` operands.

    With ``register_every=None`` the tree is combinational (0).  Otherwise a
    register follows every ``register_every``-th adder level and the result is
    always registered, so the latency is ``max(1, ceil(levels / k))``.
    """
    if register_every is None:
        return 0
    if not isinstance(register_every, int) or register_every < 1:
        raise ValueError(f"register_every must be a positive integer or None, "
                         f"not {register_every!r}")
    levels = tree_levels(count)
    return max(1, -(-levels // register_every))


def balanced_sum(m, values, *, register_every=None, domain="sync", name="sum"):
    """Sum of ``values`` (unsigned Amaranth values) by a balanced tree of adders.

    Returns the sum as a Value; with ``register_every`` set, the result lags the
    inputs by :func:`tree_latency` clock cycles of ``domain``.
    """
    layer = list(values) or [Const(0, 1)]
    latency = tree_latency(len(layer), register_every)
    level = stage = 0

    def register(layer):
        nonlocal stage
        out = []
        for i, v in enumerate(layer):
            r = Signal(len(v), name=f"{name}_s{stage}_{i}")
            m.d[domain] += r.eq(v)
            out.append(r)
        stage += 1
        return out

    while len(layer) > 1:
        pairs = [layer[i] + layer[i + 1] for i in range(0, len(layer) - 1, 2)]
        if len(layer) % 2:
            pairs.append(layer[-1])
        layer = pairs
        level += 1
        if register_every is not None and level % register_every == 0:
            layer = register(layer)
    while stage < latency:
        layer = register(layer)
    return layer[0]


class PopCount(wiring.Component):
    """Number of 1s in ``bits``, by a balanced adder tree (see :func:`balanced_sum`).

    ``latency`` is the number of clock cycles from ``bits`` to ``count``.
    """

    def __init__(self, width, *, register_every=None):
        if not isinstance(width, int) or width < 0:
            raise ValueError(f"popcount width must be a non-negative integer, not {width!r}")
        self.width = width
        self.register_every = register_every
        self.latency = tree_latency(max(width, 1), register_every)
        super().__init__({
            "bits": In(width),
            "count": Out(max(width, 1).bit_length()),
        })

    def elaborate(self, platform):
        m = Module()
        total = balanced_sum(m, [self.bits[i] for i in range(self.width)],
                             register_every=self.register_every, name="pop")
        m.d.comb += self.count.eq(total)
        return m
