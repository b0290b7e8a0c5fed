"""The deduction engine's two floods, run at once (docs/deduce.md section 3).

Golden model :func:`model.deduce.floods`.  Bitboards of the build geometry as
in :mod:`hw.deduce.sweep`; ``grid`` is the run-time grid (everything else is
frame, OUT).

* IN: seeded with the first IN cell in scan order, through grid cells not
  OUT, across edges not LINE;
* OUT: seeded with the frame, through cells not IN, across edges not LINE.

One step per clock: a cell joins when a neighbour is in and the edge between
them is not a LINE (``h1``: the edge to the east, ``v1``: to the south).
``start`` loads both seeds (that clock is not counted, like the model's);
then each clock grows both, and ``iterations`` counts the clocks up to and
including the first one in which neither grew - the model's ``max`` of the two
floods' iterations.  ``busy`` is high during those clocks; in the clock after,
``done`` is high for one clock and ``conflict``, ``out_c0`` (unknown cells
the IN flood missed: OUT) and ``out_c1`` (unknown cells the OUT flood missed:
IN) are valid until the next ``start``.  The inputs must not change while
``busy``.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from slitherlink.model.deduce import Geometry

from .sweep import shift

__all__ = ["FloodPair"]

COUNT_WIDTH = 16


class FloodPair(wiring.Component):
    """Both floods of the deduction engine; see the module docstring."""

    def __init__(self, max_rows, max_cols):
        self.geometry = geo = Geometry(max_rows, max_cols)
        n = geo.cells
        super().__init__({
            "grid": In(n), "c0": In(n), "c1": In(n), "h1": In(n), "v1": In(n),
            "start": In(1),
            "busy": Out(1), "done": Out(1), "conflict": Out(1),
            "out_c0": Out(n), "out_c1": Out(n),
            "iterations": Out(COUNT_WIDTH),
        })

    def elaborate(self, platform):
        m = Module()
        geo, n, w = self.geometry, self.geometry.cells, self.geometry.width

        def grow(p, region):
            h, v = self.h1, self.v1
            spread = (shift(p & ~h, -1, n) | (shift(p, 1, n) & ~h)
                      | shift(p & ~v, -w, n) | (shift(p, w, n) & ~v))
            return p | (spread & region)

        ins = Signal(n)
        seed_in = Signal(n)
        region_in, region_out = Signal(n), Signal(n)
        m.d.comb += [
            ins.eq(self.c1 & self.grid),
            seed_in.eq(ins & (~ins + 1)),      # the lowest set bit: first IN cell in scan order
            region_in.eq(self.grid & ~self.c0),
            region_out.eq(~self.c1),
        ]
        p_in, p_out = Signal(n), Signal(n)
        next_in, next_out = Signal(n), Signal(n)
        m.d.comb += [next_in.eq(grow(p_in, region_in)), next_out.eq(grow(p_out, region_out))]

        unknown = self.grid & ~(self.c0 | self.c1)
        m.d.comb += [
            self.conflict.eq((ins & ~p_in).any() | (self.c0 & self.grid & ~p_out).any()),
            self.out_c0.eq(unknown & ~p_in & ins.any().replicate(n)),
            self.out_c1.eq(unknown & ~p_out),
        ]

        with m.FSM(name="floods"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [p_in.eq(seed_in & region_in),
                                 p_out.eq(~self.grid & region_out),
                                 self.iterations.eq(0)]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [p_in.eq(next_in), p_out.eq(next_out),
                             self.iterations.eq(self.iterations + 1)]
                with m.If((next_in == p_in) & (next_out == p_out)):
                    m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
                with m.If(self.start):
                    m.d.sync += [p_in.eq(seed_in & region_in),
                                 p_out.eq(~self.grid & region_out),
                                 self.iterations.eq(0)]
                    m.next = "RUN"
        return m
