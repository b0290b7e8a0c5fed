"""Partial-condition checker (paper section 3.3, Tables 1-6, Figs. 12-15).

Every cell generates the requirements ``b_1 .. b_8`` for its eight neighbours
from its clue, pattern and attribute, plus a ninth, ``b_0``, for itself (the
cell's own attribute; a deviation from the paper documented in
:mod:`hw.model`).  The lookup is generated here from
:func:`hw.combinations.requirements` by a loop over
:func:`hw.combinations.combinations`: no table is typed by hand.

Each cell's ``s0`` (required outside) is the OR of the neighbours' ``b_k[0]``
aimed at it, plus 1 for a frame cell; ``s1`` likewise from ``b_k[1]``.  The
verdict flags whether a cell is required both (``conflict``) and whether a
fully determined 2x2 block is a checkerboard (Fig. 15).

Pipeline (``latency`` = 2 cycles from ``cells``/``grid`` to the flags):

1. ``b_k`` lookup and the 9-input ORs, registered as ``s0``/``s1``;
2. the per-cell conflict and per-block checkerboard terms, OR-reduced over the
   grid, registered as ``conflict``/``checkerboard``.
"""

from amaranth import Cat, Const, Module, Shape, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .cells import CellLayout, build_geometry, grid_index
from .combinations import Attribute, combinations, patterns, requirements
from . import regmap

__all__ = ["OFFSETS", "requirement_table", "Checker"]

#: The nine cells a cell's assignment can constrain, as (drow, dcol): itself
#: (``b_0``, index 4 here) and its eight neighbours of Fig. 12.
OFFSETS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1))


def _key(clue, pattern, attribute):
    fields = {"clue": clue, "pattern": pattern, "attribute": int(attribute)}
    return sum(value << CellLayout[name].offset for name, value in fields.items())


def requirement_table():
    """The lookup ``cell state -> (s0 mask, s1 mask)`` over :data:`OFFSETS`.

    Keys are the packed :data:`hw.cells.CellLayout` value of a cell (clue,
    pattern, attribute); bit ``i`` of a mask is the requirement on the cell
    at ``OFFSETS[i]``.  Generated from :mod:`hw.combinations`:

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


class Checker(wiring.Component):
    """The partial-condition checker over the whole framed grid (section 3.3).

    ``cells`` and ``grid`` come from :class:`hw.cells.CellArray`; ``s0``/``s1``
    are framed bitboards (frame included: every frame cell has ``s0``).
    """

    #: cycles from ``cells``/``grid`` to ``s0``/``s1``
    s_latency = 1
    #: cycles from ``cells``/``grid`` to ``conflict``/``checkerboard``
    latency = 2

    def __init__(self, max_rows, max_cols):
        self.geometry = geo = build_geometry(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        super().__init__({
            "cells": In(data.ArrayLayout(CellLayout, max_rows * max_cols)),
            "grid": In(geo.cells),
            "s0": Out(geo.cells, init=geo.frame),
            "s1": Out(geo.cells),
            "conflict": Out(1),
            "checkerboard": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        geo, mr, mc, w = self.geometry, self.max_rows, self.max_cols, self.geometry.width
        table = requirement_table()

        # stage 1a: b_k of every grid cell (zero for a cell outside the run-time size)
        b0, b1 = {}, {}
        for r in range(mr):
            for c in range(mc):
                cell = self.cells[grid_index(mc, r, c)]
                n0 = Signal(len(OFFSETS), name=f"b0_{r}_{c}")
                n1 = Signal(len(OFFSETS), name=f"b1_{r}_{c}")
                with m.If(self.grid[(r + 1) * w + c + 1]):
                    with m.Switch(cell.as_value()):
                        for key, (mask0, mask1) in table.items():
                            with m.Case(key):
                                m.d.comb += [n0.eq(mask0), n1.eq(mask1)]
                b0[r, c], b1[r, c] = n0, n1

        # stage 1b: s0/s1 of every framed cell = OR of the b_k aimed at it
        s0_next, s1_next = [], []
        for fr in range(mr + 2):
            for fc in range(mc + 2):
                t0, t1 = [], []
                for k, (dr, dc) in enumerate(OFFSETS):
                    src = (fr - 1 - dr, fc - 1 - dc)  # grid cell whose b_k lands here
                    if src in b0:
                        t0.append(b0[src][k])
                        t1.append(b1[src][k])
                index = fr * w + fc
                frame = ~self.grid[index] if geo.grid >> index & 1 else Const(1, 1)
                s0_next.append(Cat(frame, *t0).any())
                s1_next.append(Cat(*t1).any() if t1 else Const(0, 1))
        m.d.sync += [self.s0.eq(Cat(*s0_next)), self.s1.eq(Cat(*s1_next))]

        # stage 2: conflict and checkerboard (Fig. 15), as bitboard operations
        s0, s1 = self.s0, self.s1
        d = s0 | s1
        determined = d & (d >> 1) & (d >> w) & (d >> (w + 1))
        checker = (determined & (s1 ^ (s1 >> 1)) & ~(s1 ^ (s1 >> (w + 1)))
                   & ~((s1 >> 1) ^ (s1 >> w)) & Const(geo.blocks, geo.cells))
        m.d.sync += [self.conflict.eq((s0 & s1).any()),
                     self.checkerboard.eq(checker[:geo.cells].any())]
        return m
