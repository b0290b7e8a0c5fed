"""Pick's-theorem hole detector (paper section 3.3.2, Figs. 16-17).

From the inside cells (the checker's ``inside``: ``s1`` within the run-time
grid) it counts

* ``S``: inside cells;
* ``I``: lattice points whose four surrounding cells are all inside (Fig. 16);
* ``B``: lines, i.e. adjacent cell pairs with exactly one inside (Fig. 17);

and tests Pick's theorem ``2S == 2I + B - 2``.  Counting uses the counter
trees of :mod:`hw.popcount`.  The lines are counted five at a time along
each row and each column: five consecutive lines depend on six cells, so the
XORs and their 3-bit count fit three LUT6s, instead of one LUT per line
plus the tree; only the bit positions of the build's grid are counted.

Pipeline: the trees register every ``register_every`` logic levels and at
their output; one more register stage holds ``ok`` and ``empty``, and
``S``/``I``/``B`` are delayed to match, so every output has ``latency``
cycles.
"""

from amaranth import Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .cells import build_geometry
from .popcount import _counter, columns_latency, count_columns
from slitherlink.spec import registers as regmap

__all__ = ["Holes"]

_COUNT_WIDTH = regmap.PickS.field("count").width

#: lines counted together by one fused LUT counter (they span six cells)
SEGMENT = 5


def _segments(length):
    """Cut ``length`` consecutive lines into runs of at most :data:`SEGMENT`."""
    return [(start, min(start + SEGMENT, length)) for start in range(0, length, SEGMENT)]


class Holes(wiring.Component):
    """The hole detector; ``inside`` is a framed bitboard (:mod:`hw.cells`) that is
    zero outside the run-time grid (the checker's ``inside`` output)."""

    def __init__(self, max_rows, max_cols, *, register_every=4):
        self.geometry = geo = build_geometry(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        self.register_every = register_every
        self.limits = {"S": max_rows * max_cols, "I": (max_rows - 1) * (max_cols - 1),
                       "B": max_rows * (max_cols + 1) + (max_rows + 1) * max_cols}
        if 2 * self.limits["B"] >= 1 << _COUNT_WIDTH:
            raise ValueError(f"a {max_rows}x{max_cols} grid overflows the "
                             f"{_COUNT_WIDTH}-bit PICK registers")
        line_heights = {0: 0, 1: 0, 2: 0}
        for length, count in ((max_cols + 1, max_rows), (max_rows + 1, max_cols)):
            for start, stop in _segments(length):
                outputs = 1 if stop - start == 1 else 2 if stop - start <= 3 else 3
                for k in range(outputs):
                    line_heights[k] += count
        self._heights = {"S": {0: self.limits["S"]}, "I": {0: self.limits["I"]},
                         "B": line_heights}
        self.tree_latency = max(columns_latency(h, register_every)
                                for h in self._heights.values())
        self.latency = self.tree_latency + 1
        super().__init__({
            "inside": In(geo.cells),
            "S": Out(_COUNT_WIDTH),
            "I": Out(_COUNT_WIDTH),
            "B": Out(_COUNT_WIDTH),
            "ok": Out(1),
            "empty": Out(1, init=1),
        })

    def elaborate(self, platform):
        m = Module()
        geo, mr, mc, w = self.geometry, self.max_rows, self.max_cols, self.geometry.width

        def x(r, c):  # framed coordinates; the border is never inside
            return self.inside[r * w + c] if 1 <= r <= mr and 1 <= c <= mc else Const(0, 1)

        cells = [x(r, c) for r in range(1, mr + 1) for c in range(1, mc + 1)]
        points = [x(r, c) & x(r, c + 1) & x(r + 1, c) & x(r + 1, c + 1)
                  for r in range(1, mr) for c in range(1, mc)]
        lines = {0: [], 1: [], 2: []}
        runs = [[x(r, c) for c in range(mc + 2)] for r in range(1, mr + 1)]   # rows
        runs += [[x(r, c) for r in range(mr + 2)] for c in range(1, mc + 1)]  # columns
        for run in runs:
            for start, stop in _segments(len(run) - 1):
                segment = [run[j] ^ run[j + 1] for j in range(start, stop)]
                if len(segment) == 1:
                    counts = segment
                else:
                    counts = _counter(segment)[:2 if len(segment) <= 3 else 3]
                for k, bit in enumerate(counts):
                    lines[k].append(bit)

        def count(name, inputs):
            total = count_columns(m, inputs, self.limits[name],
                                  register_every=self.register_every, name=name)
            # align every count to the slowest tree's latency
            heights = {k: len(v) for k, v in inputs.items()}
            for stage in range(columns_latency(heights, self.register_every),
                               self.tree_latency):
                delayed = Signal(len(total), name=f"{name}_d{stage}")
                m.d.sync += delayed.eq(total)
                total = delayed
            return total

        S = count("S", {0: cells})
        I = count("I", {0: points})
        B = count("B", lines)
        m.d.sync += [
            self.S.eq(S), self.I.eq(I), self.B.eq(B),
            self.ok.eq(2 * S + 2 == 2 * I + B),
            self.empty.eq(S == 0),
        ]
        return m
