"""Partial-condition checker (paper section 3.3, Tables 1-6, Figs. 12-15).

Every assigned cell requires colours of its eight neighbours, ``b_1 .. b_8``
(from its clue, pattern and attribute), plus a ninth, ``b_0``, of itself (the
cell's own attribute; a deviation from the paper documented in
:mod:`model.paper`).  :class:`Requirements` is that lookup, generated from
:func:`spec.combinations.requirements` by a loop over
:func:`spec.combinations.combinations`: no table is typed by hand.  The paper
puts this decoder in every cell; we put one at the cell array's write port and
store its 18 output bits per cell (:class:`hw.cells.CellArray`), which costs
18 flip-flops per cell and saves the decoder's LUTs in every cell.

Each cell's ``s0`` (required outside) is the OR of the ``b_k[0]`` aimed at it
by itself and its eight neighbours, plus 1 for a frame cell; ``s1`` likewise
from ``b_k[1]``.  The verdict flags whether a cell is required both
(``conflict``) and whether a fully determined 2x2 block is a checkerboard
(Fig. 15).

Pipeline (``latency`` = 2 cycles from ``needs``/``grid`` to the flags):

1. the 9-input ORs, registered as ``s0``/``s1``;
2. the per-cell conflict and per-block checkerboard terms, OR-reduced over the
   grid, registered as ``conflict``/``checkerboard``.
"""

from amaranth import Cat, Const, Module, Shape
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .cells import OFFSETS, CellLayout, NeedLayout, build_geometry, grid_index
from slitherlink.spec.combinations import Attribute, combinations, requirements
from slitherlink.spec import registers as regmap

__all__ = ["OFFSETS", "requirement_table", "Requirements", "Checker"]


def _key(clue, pattern, attribute):
    fields = {"clue": clue, "pattern": pattern, "attribute": int(attribute)}
    return sum(value << CellLayout[name].offset for name, value in fields.items())


def requirement_table():
    """The lookup ``cell state -> (s0 mask, s1 mask)`` over :data:`OFFSETS`.

    Keys are the packed :data:`hw.cells.CellLayout` value of a cell (clue,
    pattern, attribute); bit ``i`` of a mask is the requirement on the cell
    at ``OFFSETS[i]``.  Generated from :mod:`spec.combinations`:

    * a clue cell with a valid combination forces :func:`requirements`;
    * a blank cell with an attribute forces itself (any pattern value);
    * every other state (unassigned, attribute 0b11, a pattern index beyond
      the digit's patterns, clue codes 5..7) forces nothing; such keys are
      simply absent.
    """
    pattern_values = 1 << Shape.cast(CellLayout["pattern"].shape).width
    table = {}

    def add(key, forced):
        s0 = s1 = 0
        for offset, colour in forced.items():
            bit = 1 << OFFSETS.index(offset)
            if colour is Attribute.OUTSIDE:
                s0 |= bit
            else:
                s1 |= bit
        table[key] = (s0, s1)

    for digit in range(4):
        for pattern, attribute in combinations(digit):
            add(_key(digit, pattern, attribute), requirements(digit, pattern, attribute))
    for attribute in (Attribute.OUTSIDE, Attribute.INSIDE):
        for pattern in range(pattern_values):
            add(_key(regmap.CLUE_BLANK, pattern, attribute), {(0, 0): attribute})
    return table


class Requirements(wiring.Component):
    """The b_0..b_8 of one cell state (combinational), from :func:`requirement_table`."""

    def __init__(self):
        super().__init__({"state": In(CellLayout), "need": Out(NeedLayout)})

    def elaborate(self, platform):
        m = Module()
        with m.Switch(self.state.as_value()):
            for key, (mask0, mask1) in requirement_table().items():
                with m.Case(key):
                    m.d.comb += [self.need.s0.eq(mask0), self.need.s1.eq(mask1)]
        return m


class Checker(wiring.Component):
    """The partial-condition checker over the whole framed grid (section 3.3).

    ``needs`` and ``grid`` come from :class:`hw.cells.CellArray` (which keeps
    every cell outside the run-time size free of requirements); ``s0``/``s1``
    are framed bitboards (frame included: every frame cell has ``s0``);
    ``inside`` is ``s1`` within the run-time grid (registered with them, for
    the hole detector).
    """

    #: cycles from ``needs``/``grid`` to ``s0``/``s1``/``inside``
    s_latency = 1
    #: cycles from ``needs``/``grid`` to ``conflict``/``checkerboard``
    latency = 2

    def __init__(self, max_rows, max_cols):
        self.geometry = geo = build_geometry(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        super().__init__({
            "needs": In(data.ArrayLayout(NeedLayout, max_rows * max_cols)),
            "grid": In(geo.cells),
            "s0": Out(geo.cells, init=geo.frame),
            "s1": Out(geo.cells),
            "inside": Out(geo.cells),
            "conflict": Out(1),
            "checkerboard": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        geo, mr, mc, w = self.geometry, self.max_rows, self.max_cols, self.geometry.width

        # stage 1: s0/s1 of every framed cell = OR of the b_k aimed at it
        s0_next, s1_next = [], []
        for fr in range(mr + 2):
            for fc in range(mc + 2):
                t0, t1 = [], []
                for k, (dr, dc) in enumerate(OFFSETS):
                    r, c = fr - 1 - dr, fc - 1 - dc  # the grid cell whose b_k lands here
                    if 0 <= r < mr and 0 <= c < mc:
                        need = self.needs[grid_index(mc, r, c)]
                        t0.append(need.s0[k])
                        t1.append(need.s1[k])
                index = fr * w + fc
                frame = ~self.grid[index] if geo.grid >> index & 1 else Const(1, 1)
                s0_next.append(Cat(frame, *t0).any())
                s1_next.append(Cat(*t1).any() if t1 else Const(0, 1))
        m.d.sync += [self.s0.eq(Cat(*s0_next)), self.s1.eq(Cat(*s1_next)),
                     self.inside.eq(Cat(*s1_next) & self.grid)]

        # stage 2: conflict and checkerboard (Fig. 15), as bitboard operations
        s0, s1 = self.s0, self.s1
        d = s0 | s1
        determined = d & (d >> 1) & (d >> w) & (d >> (w + 1))
        checker = (determined & (s1 ^ (s1 >> 1)) & ~(s1 ^ (s1 >> (w + 1)))
                   & ~((s1 >> 1) ^ (s1 >> w)) & Const(geo.blocks, geo.cells))
        m.d.sync += [self.conflict.eq((s0 & s1).any()),
                     self.checkerboard.eq(checker[:geo.cells].any())]
        return m
