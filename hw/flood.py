"""Connectivity flood register array (paper section 3.3.1, extended).

Every cell has a flip-flop ``p``; each cycle ``p |= (p of the N/S/E/W
neighbours) & region``, until nothing grows.  Two modes (:class:`spec.registers.FloodMode`):

* REACH: ``region`` = grid cells not required outside, seeded with the first
  inside cell in row-major scan order (chosen in hardware by two priority
  encoders: the first row that has an inside cell, then, on that row picked
  out by an AND-OR multiplexer, its first inside cell); complete when every inside cell is reached.  On a
  fully determined colouring this is the paper's flood over the inside cells.
  The paper seeds with the right-most inside cell of row 1 and assumes one.
* ESCAPE: ``region`` = cells not required inside, seeded with every frame cell
  in the region; complete when every grid cell required outside is reached.

Cycles.  ``start`` (in IDLE) latches ``mode``; one set-up cycle (SEED) loads
``p`` with the seed and registers the region (so that a step is one LUT per
cell: ``p | region & (N | S | E | W)``); then ITERATE runs one step per cycle
and ``iterations`` counts them, including the final step in which nothing grew, exactly like
:func:`model.paper.flood`.  ``busy`` is high from the cycle after ``start`` until
the cycle after the last step; a flood of ``n`` iterations keeps ``busy`` high
for ``n + 1`` cycles.  The paper detects "no growth" by comparing popcounts of
successive cycles; we OR-reduce the newly reached cells instead (equivalent,
and no adder on the cycle's critical path).

``s0``/``s1``/``grid`` must stay stable while ``busy`` (the accelerator
holds off writes).  Frame cells (the border, and grid cells beyond the
run-time size) never change after SEED.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .cells import build_geometry
from slitherlink.spec.registers import FloodMode
from slitherlink.spec import registers as regmap

__all__ = ["Flood"]

_MODE_WIDTH = regmap.Control.field("flood_mode").width
_COUNT_WIDTH = regmap.FloodIterations.field("count").width


def _first_one(m, value, name):
    """``value & -value``: only the lowest set bit of ``value``."""
    result = Signal(len(value), name=name)
    m.d.comb += result.eq(value & (~value + 1))
    return result


def _or_rows(rows):
    """Bitwise OR of equal-width values, as a balanced tree."""
    while len(rows) > 1:
        rows = [rows[i] | rows[i + 1] if i + 1 < len(rows) else rows[i]
                for i in range(0, len(rows), 2)]
    return rows[0]


class Flood(wiring.Component):
    """The flood register array; see the module docstring for modes and cycles."""

    def __init__(self, max_rows, max_cols):
        self.geometry = geo = build_geometry(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        super().__init__({
            "s0": In(geo.cells),
            "s1": In(geo.cells),
            "grid": In(geo.cells),
            "start": In(1),
            "mode": In(_MODE_WIDTH),
            "busy": Out(1),
            "complete": Out(1),
            "iterations": Out(_COUNT_WIDTH),
            "reached": Out(geo.cells),
        })

    def elaborate(self, platform):
        m = Module()
        geo, w, n = self.geometry, self.geometry.width, self.geometry.cells
        cells = Const(geo.grid, n)  # every grid position of the build (fixed)

        escape = Signal()
        p = self.reached
        inside = self.s1 & self.grid
        region = Signal(n)
        region_r = Signal(n)  # the region, registered in SEED
        target = Signal(n)
        seed = Signal(n)
        m.d.comb += [
            region.eq(Mux(escape, ~self.s1, self.grid & ~self.s0)),
            target.eq(Mux(escape, self.s0 & self.grid, inside)),
        ]

        # REACH seed: the first grid row holding an inside cell (a priority encoder
        # over the rows), that row selected (AND-OR), then its first inside cell
        # (one priority encoder over a row, shared by all rows)
        mr, mc = geo.rows, geo.cols
        rows = [inside[(r + 1) * w + 1:(r + 1) * w + 1 + mc] for r in range(mr)]
        first_row = _first_one(m, Cat(*(row.any() for row in rows)), "first_row")
        chosen = Signal(mc)
        m.d.comb += chosen.eq(_or_rows([rows[r] & first_row[r].replicate(mc) for r in range(mr)]))
        first_col = _first_one(m, chosen, "first_col")
        reach_seed = [Const(0, 1)] * n
        for r in range(mr):
            for c in range(mc):
                reach_seed[(r + 1) * w + c + 1] = first_row[r] & first_col[c]
        m.d.comb += seed.eq(Mux(escape, ~self.grid & region, Cat(*reach_seed)))

        neighbours = ((p << 1) | (p >> 1) | (p << w) | (p >> w))[:n]
        fresh = Signal(n)  # cells reached for the first time in this step
        m.d.comb += fresh.eq(neighbours & region_r & cells & ~p)

        # p: loaded in SEED, otherwise p | fresh; outside a flood region_r is
        # unchanged, so p is already a fixpoint and holds (no hold multiplexer)
        seeding = Signal()
        with m.If(seeding):
            m.d.sync += [p.eq(seed & region), region_r.eq(region)]
        with m.Else():
            m.d.sync += p.eq(p | fresh)

        with m.FSM(name="flood"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += escape.eq(self.mode == FloodMode.ESCAPE)
                    m.next = "SEED"
            with m.State("SEED"):
                m.d.comb += [self.busy.eq(1), seeding.eq(1)]
                m.d.sync += self.iterations.eq(0)
                m.next = "ITERATE"
            with m.State("ITERATE"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.iterations.eq(self.iterations + 1)
                with m.If(~fresh.any()):
                    m.d.sync += self.complete.eq(~(target & ~p).any())
                    m.next = "IDLE"
        return m
