"""Pick's-theorem hole detector (paper section 3.3.2, Figs. 16-17).

From the cells required inside (``s1`` within the run-time grid) it counts

* ``S``: inside cells;
* ``I``: lattice points whose four surrounding cells are all inside (Fig. 16);
* ``B``: lines, i.e. adjacent cell pairs with exactly one inside (Fig. 17);

with balanced counter trees (:mod:`hw.popcount`) and tests Pick's theorem
``2S == 2I + B - 2``.  Only bit positions that can ever be 1 are counted (the
blocks and pairs of the build's grid), so the trees stay as narrow as they can.

Pipeline: the popcount trees register every ``register_every`` logic levels
and at their output; one more register stage holds ``ok`` and ``empty``, and
``S``/``I``/``B`` are delayed to match, so every output has ``latency`` cycles.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .cells import build_geometry
from .popcount import popcount, popcount_latency
from . import regmap

__all__ = ["Holes"]

_COUNT_WIDTH = regmap.PickS.field("count").width


class Holes(wiring.Component):
    """The hole detector; ``s1`` and ``grid`` are framed bitboards (:mod:`hw.cells`)."""

    def __init__(self, max_rows, max_cols, *, register_every=4):
        self.geometry = geo = build_geometry(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        self.register_every = register_every
        w = geo.width
        # the positions each count can see, as framed bit indices
        self._cells = [(r + 1) * w + c + 1 for r in range(max_rows) for c in range(max_cols)]
        self._points = [(r + 1) * w + c + 1 for r in range(max_rows - 1)
                        for c in range(max_cols - 1)]
        self._horizontal = [(r + 1) * w + c for r in range(max_rows) for c in range(max_cols + 1)]
        self._vertical = [r * w + c + 1 for r in range(max_rows + 1) for c in range(max_cols)]
        if 2 * len(self._horizontal + self._vertical) >= 1 << _COUNT_WIDTH:
            raise ValueError(f"a {max_rows}x{max_cols} grid overflows the "
                             f"{_COUNT_WIDTH}-bit PICK registers")
        self.tree_latency = max(popcount_latency(n, register_every) for n in (
            len(self._cells), len(self._points), len(self._horizontal) + len(self._vertical)))
        self.latency = self.tree_latency + 1
        super().__init__({
            "s1": In(geo.cells),
            "grid": In(geo.cells),
            "S": Out(_COUNT_WIDTH),
            "I": Out(_COUNT_WIDTH),
            "B": Out(_COUNT_WIDTH),
            "ok": Out(1),
            "empty": Out(1, init=1),
        })

    def elaborate(self, platform):
        m = Module()
        w = self.geometry.width
        inside = Signal(self.geometry.cells)
        m.d.comb += inside.eq(self.s1 & self.grid)
        interior = inside & (inside >> 1) & (inside >> w) & (inside >> (w + 1))
        across = inside ^ (inside >> 1)  # a line between (r, c) and (r, c + 1)
        down = inside ^ (inside >> w)    # a line between (r, c) and (r + 1, c)

        def count(bits, name):
            total = popcount(m, bits, register_every=self.register_every, name=name)
            # align every count to the widest tree's latency
            for stage in range(popcount_latency(len(bits), self.register_every),
                               self.tree_latency):
                delayed = Signal(len(total), name=f"{name}_d{stage}")
                m.d.sync += delayed.eq(total)
                total = delayed
            return total

        S = count([inside[i] for i in self._cells], "S")
        I = count([interior[i] for i in self._points], "I")
        B = count([across[i] for i in self._horizontal] + [down[i] for i in self._vertical], "B")
        m.d.sync += [
            self.S.eq(S), self.I.eq(I), self.B.eq(B),
            self.ok.eq(2 * S + 2 == 2 * I + B),
            self.empty.eq(S == 0),
        ]
        return m
