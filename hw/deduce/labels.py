"""The deduction engine's label stage: no early loop (docs/deduce.md section 3).

Golden model :func:`model.deduce.labels`.  One register per lattice point of
the build (the point at the bottom-right of cell ``q``, ``q`` in rows
0..max_rows and columns 0..max_cols of the framed array, as the model): its
label (initially its own index ``q``) and an ``open`` bit (initially: the
point is the end of a segment, i.e. has exactly one line).  Each clock every
point takes the minimum label and the OR of the open bits of itself and its
line neighbours (``q - W`` across a LINE on ``H@q``, ``q + W`` on ``H@(q+W)``,
``q - 1`` on ``V@q``, ``q + 1`` on ``V@(q+1)``).  The open bits settle no later
than the labels (a point is never farther from its nearest end than the
component's minimum is from its farthest point), so ``iterations`` counts the
clocks up to and including the first in which no label changed - the model's
count.

Then, with the registers settled (``done``), combinationally:

* a *root* is a point on a line whose label is its own index (one per
  component); ``multi``: two or more roots;
* ``closed``: some point on a line is not ``open`` (a cycle);
* ``conflict`` = closed and multi;
* ``out_h0``/``out_v0`` (NOLINE deductions): with closed and not multi, every
  unknown edge of the puzzle (``valid_h``/``valid_v``); with multi, every
  unknown edge between two points of one label (at a sweep fixpoint: the two
  ends of one segment).

``start`` loads the registers (not counted); the inputs must not change while
``busy``.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from slitherlink.model.deduce import Geometry

__all__ = ["LabelArray"]

COUNT_WIDTH = 16


class LabelArray(wiring.Component):
    """Min-label propagation over the lines; see the module docstring."""

    def __init__(self, max_rows, max_cols):
        self.geometry = geo = Geometry(max_rows, max_cols)
        n = geo.cells
        super().__init__({
            "h0": In(n), "h1": In(n), "v0": In(n), "v1": In(n),
            "valid_h": In(n), "valid_v": In(n),
            "start": In(1),
            "busy": Out(1), "done": Out(1), "conflict": Out(1),
            "out_h0": Out(n), "out_v0": Out(n),
            "iterations": Out(COUNT_WIDTH),
        })

    def elaborate(self, platform):
        m = Module()
        geo, n, w = self.geometry, self.geometry.cells, self.geometry.width
        bits = max(1, (n - 1).bit_length())
        points = [q for q in range(n) if geo.points >> q & 1]
        on = set(points)

        def line(board, q):
            return board[q] if 0 <= q < n else Const(0, 1)

        label, opened, nxt_label, nxt_open, links, onl = {}, {}, {}, {}, {}, {}
        for q in points:
            label[q] = Signal(bits, name=f"label_{q}")
            opened[q] = Signal(name=f"open_{q}")
        for q in points:
            # (neighbour, the edge joining them)
            links[q] = [(r, e) for r, e in ((q - w, line(self.h1, q)),
                                            (q + w, line(self.h1, q + w)),
                                            (q - 1, line(self.v1, q)),
                                            (q + 1, line(self.v1, q + 1))) if r in on]
            degree = Signal(3, name=f"degree_{q}")
            m.d.comb += degree.eq(sum((e for _, e in links[q]), Const(0, 3)))
            onl[q] = Signal(name=f"online_{q}")
            m.d.comb += onl[q].eq(degree != 0)
            best = label[q]
            any_open = opened[q]
            for r, e in links[q]:  # a chain of compare-and-select, one per line neighbour
                pick = Signal(bits, name=f"pick_{q}_{r}")
                m.d.comb += pick.eq(Mux(e & (label[r] < best), label[r], best))
                best = pick
                any_open = any_open | (e & opened[r])
            nxt_label[q] = best
            nxt_open[q] = Signal(name=f"nxt_open_{q}")
            m.d.comb += nxt_open[q].eq(any_open)
            links[q] = (links[q], degree)

        changed = Signal()
        m.d.comb += changed.eq(Cat(*((nxt_label[q] != label[q]) | (nxt_open[q] != opened[q])
                                     for q in points)).any())

        root = Cat(*(onl[q] & (label[q] == q) for q in points))
        multi = Signal()
        closed = Signal()
        m.d.comb += [
            multi.eq((root & (root - 1)).any()),
            closed.eq(Cat(*(onl[q] & ~opened[q] for q in points)).any()),
            self.conflict.eq(closed & multi),
        ]
        # NOLINE deductions
        same_h = [Const(0, 1)] * n  # H@q joins points q - W and q
        same_v = [Const(0, 1)] * n  # V@q joins points q - 1 and q
        for q in points:
            if q - w in on:
                same_h[q] = onl[q] & onl[q - w] & (label[q] == label[q - w])
            if q - 1 in on:
                same_v[q] = onl[q] & onl[q - 1] & (label[q] == label[q - 1])
        unknown_h = self.valid_h & ~self.h0 & ~self.h1
        unknown_v = self.valid_v & ~self.v0 & ~self.v1
        settle = closed & ~multi
        m.d.comb += [
            self.out_h0.eq((unknown_h & settle.replicate(n))
                           | (unknown_h & Cat(*same_h) & multi.replicate(n))),
            self.out_v0.eq((unknown_v & settle.replicate(n))
                           | (unknown_v & Cat(*same_v) & multi.replicate(n))),
        ]

        def load():
            stmts = [self.iterations.eq(0)]
            for q in points:
                _, degree = links[q]
                stmts += [label[q].eq(q), opened[q].eq(degree == 1)]
            return stmts

        with m.FSM(name="labels"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += load()
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.iterations.eq(self.iterations + 1)
                for q in points:
                    m.d.sync += [label[q].eq(nxt_label[q]), opened[q].eq(nxt_open[q])]
                with m.If(~changed):
                    m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
                with m.If(self.start):
                    m.d.sync += load()
                    m.next = "RUN"
        return m
