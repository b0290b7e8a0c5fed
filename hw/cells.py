"""Cell state register array: the paper's x, a0, a1 registers (section 3.2.1, Fig. 11).

Every grid cell of the build-time maximum grid (``max_rows`` x ``max_cols``)
holds its clue and its assignment (pattern and attribute) in flip-flops, so
that the checker sees the whole grid at once.  The puzzle's own size
(``rows`` x ``cols``, 1..max in each dimension) is a run-time register; cells
beyond it are *frame*: always outside, never assigned, never inside.  The
paper instead rebuilt its hardware for each puzzle and limited rows to 32
columns.

Bitboards.  Whole-grid signals (``grid`` here, ``s0``/``s1`` of the checker,
``p`` of the flood array) use the bit layout of :class:`spec.geometry.Geometry`
for the *build* size: bit ``r * (max_cols + 2) + c`` is the cell at framed row
``r``, framed column ``c`` (row 0, row max_rows+1, column 0 and column
max_cols+1 are the fixed frame).  A puzzle of size rows x cols occupies the
top-left corner: its cell ``(r, c)`` (0-based) is framed ``(r + 1, c + 1)``.
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from slitherlink.spec import registers as regmap
from slitherlink.spec.registers import check_build_size
from slitherlink.spec.geometry import Geometry

__all__ = ["CellLayout", "NeedLayout", "OFFSETS", "CELL_FIELDS", "check_build_size",
           "build_geometry", "grid_index", "CellArray", "BLANK"]

#: The writable fields of the CELL register, in bit order: the cell's state.
CELL_FIELDS = tuple(f for f in sorted(regmap.Cell.fields, key=lambda f: f.offset)
                    if f.name in ("pattern", "attribute", "clue"))

#: The stored state of one cell, bit for bit the low byte of the CELL register.
CellLayout = data.StructLayout({f.name: f.width for f in CELL_FIELDS})

for _f in CELL_FIELDS:  # the layout packs fields in order; it must match the register
    assert CellLayout[_f.name].offset == _f.offset, f"CELL.{_f.name} is not packed"

#: The nine cells a cell's assignment can constrain, as (drow, dcol): its eight
#: neighbours of Fig. 12 and itself (``b_0``; the model's deviation), row-major.
OFFSETS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1))

#: The requirements an assigned cell puts on the cells at :data:`OFFSETS` (the
#: paper's b_k[0] in ``s0``, b_k[1] in ``s1``; bit i is ``OFFSETS[i]``).
NeedLayout = data.StructLayout({"s0": len(OFFSETS), "s1": len(OFFSETS)})

#: A blank, unassigned cell (CONTROL.clear, reset).
BLANK = {"clue": regmap.CLUE_BLANK, "pattern": 0, "attribute": 0}

_SIZE_WIDTH = regmap.Size.field("rows").width
_ROW_WIDTH = (regmap.CELL_ROWS_MAX - 1).bit_length()
_COL_WIDTH = (regmap.CELL_STRIDE - 1).bit_length()


def build_geometry(max_rows, max_cols):
    """The framed bitboard geometry of a build (see the module docstring)."""
    check_build_size(max_rows, max_cols)
    return Geometry(max_rows, max_cols)


def grid_index(max_cols, row, col):
    """Index of grid cell ``(row, col)`` (0-based) in the ``cells`` array."""
    return row * max_cols + col


class CellArray(wiring.Component):
    """The x/a0/a1 register array with the run-time puzzle size (section 3.2.1).

    Beside each cell's state (clue, pattern, attribute: the CELL register) it
    keeps the cell's requirements ``need`` (the paper's b_0..b_8), decoded
    once per write by :class:`hw.checker.Requirements` at the write port
    instead of by a decoder in every cell.

    Ports:

    * ``write``, ``row``, ``col``, ``data``, ``need``: store ``data`` and
      ``need`` into cell ``(row, col)``; ignored outside the run-time size.
    * ``size_write``, ``size_rows``, ``size_cols``: set the run-time size;
      ignored unless 1 <= rows <= max_rows and 1 <= cols <= max_cols.  Cells
      that fall outside the new size are unassigned (their clues are kept).
    * ``clear``: every cell blank and unassigned; ``unassign``: every cell
      unassigned (pattern 0, attribute NONE), clues kept.  A command in the
      same cycle as a write wins over it for the fields it clears (the bus
      never issues both).
    * ``cells``, ``needs``: every cell's state and requirements
      (``grid_index`` order); ``rows``/``cols``: the run-time size; ``grid``:
      bitboard of the cells inside the run-time size.  All outputs are
      registers and change one cycle after the command.

    Invariant: a cell outside the run-time size has no requirement, so the
    checker needs no per-cell gating.  Reset: size = build size, every cell
    blank and unassigned.
    """

    def __init__(self, max_rows, max_cols):
        self.geometry = build_geometry(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        n = max_rows * max_cols
        super().__init__({
            "write": In(1),
            "row": In(_ROW_WIDTH),
            "col": In(_COL_WIDTH),
            "data": In(CellLayout),
            "need": In(NeedLayout),
            "size_write": In(1),
            "size_rows": In(_SIZE_WIDTH),
            "size_cols": In(_SIZE_WIDTH),
            "clear": In(1),
            "unassign": In(1),
            "cells": Out(data.ArrayLayout(CellLayout, n)),
            "needs": Out(data.ArrayLayout(NeedLayout, n)),
            "rows": Out(_SIZE_WIDTH, init=max_rows),
            "cols": Out(_SIZE_WIDTH, init=max_cols),
            "grid": Out(self.geometry.cells, init=self.geometry.grid),
        })

    def elaborate(self, platform):
        m = Module()
        geo, mr, mc = self.geometry, self.max_rows, self.max_cols

        # run-time size; the grid bitboard is computed from the written value so
        # that it changes in the same cycle as rows/cols (no extra latency)
        valid = ((self.size_rows >= 1) & (self.size_rows <= mr)
                 & (self.size_cols >= 1) & (self.size_cols <= mc))
        resize = Signal()
        m.d.comb += resize.eq(self.size_write & valid)
        row_on = [self.size_rows > r for r in range(mr)]
        col_on = [self.size_cols > c for c in range(mc)]
        with m.If(resize):
            bits = [Const(0, 1)] * geo.cells
            for r in range(mr):
                for c in range(mc):
                    bits[(r + 1) * geo.width + c + 1] = row_on[r] & col_on[c]
            m.d.sync += [self.rows.eq(self.size_rows), self.cols.eq(self.size_cols),
                         self.grid.eq(Cat(*bits))]

        # the run-time size as one flag per row and per column (the grid is their
        # product), and the one-hot selects and resets built from them, shared by
        # the cells of a row or a column: a cell's write enable and its reset are
        # then one small LUT each, driving the flip-flops' CE and R pins
        row_active = Signal(mr, init=(1 << mr) - 1)
        col_active = Signal(mc, init=(1 << mc) - 1)
        with m.If(resize):
            m.d.sync += [row_active.eq(Cat(*row_on)), col_active.eq(Cat(*col_on))]
        row_sel = [Signal(name=f"row_sel_{r}") for r in range(mr)]
        col_sel = [Signal(name=f"col_sel_{c}") for c in range(mc)]
        row_cut = [Signal(name=f"row_cut_{r}") for r in range(mr)]
        col_cut = [Signal(name=f"col_cut_{c}") for c in range(mc)]
        wipe = Signal()  # every cell loses its assignment
        m.d.comb += wipe.eq(self.clear | self.unassign)
        for r in range(mr):
            m.d.comb += [row_sel[r].eq(self.write & (self.row == r) & row_active[r]),
                         row_cut[r].eq(resize & ~row_on[r])]
        for c in range(mc):
            m.d.comb += [col_sel[c].eq((self.col == c) & col_active[c]),
                         col_cut[c].eq(resize & ~col_on[c])]

        # one register per cell (a partial assignment per cell to one wide signal
        # would make Amaranth's netlist quadratic in the number of cells)
        states, needs = [], []
        for r in range(mr):
            for c in range(mc):
                cell = Signal(CellLayout, init=BLANK, name=f"cell_{r}_{c}")
                need = Signal(NeedLayout, name=f"need_{r}_{c}")
                states.append(cell)
                needs.append(need)
                selected = row_sel[r] & col_sel[c]
                # the clue: cleared by CONTROL.clear, else written
                with m.If(self.clear):
                    m.d.sync += cell.clue.eq(BLANK["clue"])
                with m.Elif(selected):
                    m.d.sync += cell.clue.eq(self.data.clue)
                # the assignment and its requirements: also cleared by CONTROL.unassign
                # and by a SIZE that leaves the cell out
                with m.If(wipe | row_cut[r] | col_cut[c]):
                    m.d.sync += [cell.pattern.eq(0), cell.attribute.eq(0), need.eq(0)]
                with m.Elif(selected):
                    m.d.sync += [cell.pattern.eq(self.data.pattern),
                                 cell.attribute.eq(self.data.attribute), need.eq(self.need)]
        m.d.comb += [self.cells.as_value().eq(Cat(*(v.as_value() for v in states))),
                     self.needs.as_value().eq(Cat(*(v.as_value() for v in needs)))]
        return m
