"""The deduction engine's label stage: no early loop (docs/deduce.md section 3).

Golden model :func:`model.deduce.labels`.  One label register per lattice
point of the build (the point at the bottom-right of cell ``q``, ``q`` in rows
0..max_rows and columns 0..max_cols of the framed array, as the model).  The
registers keep their contents between runs: a probe only adds lines, so the
labels settled for the live state are a valid start (``clear`` sets every
label to its own index; ``saved``/``restore`` move the labels and the lines
they settled on to and from a snapshot).  Each clock every point takes the
minimum of its label and its line neighbours' labels (``q - W`` across a LINE
on ``H@q``, ``q + W`` on ``H@(q+W)``, ``q - 1`` on ``V@q``, ``q + 1`` on
``V@(q+1)``); ``iterations`` counts the clocks up to and including the first
in which no label changed - the model's count.  ``dirty``: the lines differ
from those the labels settled on (the stage is worth running).

Then, with the registers settled (``done``), combinationally:

* a *root* is a point on a line whose label is its own index (one per
  component); ``multi``: two or more roots;
* ``closed``: some component is a cycle, i.e. ``2 x roots > ends`` (every
  path has two ends, a cycle none), with popcounts;
* ``conflict`` = closed and multi;
* ``out_h0``/``out_v0`` (NOLINE deductions): with closed and not multi, every
  unknown edge of the puzzle (``valid_h``/``valid_v``); with multi, every
  unknown edge between two points of one label (at a sweep fixpoint: the two
  ends of one segment).

``start`` begins a run (not counted); the inputs must not change while
``busy``.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from slitherlink.spec.deduce import Geometry

__all__ = ["LabelArray"]

COUNT_WIDTH = 16


class LabelArray(wiring.Component):
    """Min-label propagation over the lines; see the module docstring."""

    def __init__(self, max_rows, max_cols):
        self.geometry = geo = Geometry(max_rows, max_cols)
        n = geo.cells
        self.points = [q for q in range(n) if geo.points >> q & 1]
        self.label_bits = max(1, (n - 1).bit_length())
        saved = len(self.points) * self.label_bits + 2 * n
        super().__init__({
            "h0": In(n), "h1": In(n), "v0": In(n), "v1": In(n),
            "valid_h": In(n), "valid_v": In(n),
            "start": In(1), "clear": In(1),
            "restore": In(1), "saved_in": In(saved), "saved": Out(saved),
            "busy": Out(1), "done": Out(1), "conflict": Out(1), "dirty": Out(1),
            "out_h0": Out(n), "out_v0": Out(n),
            "iterations": Out(COUNT_WIDTH),
        })

    def elaborate(self, platform):
        m = Module()
        geo, n, w = self.geometry, self.geometry.cells, self.geometry.width
        bits, points = self.label_bits, self.points
        on = set(points)

        def line(board, q):
            return board[q] if 0 <= q < n else Const(0, 1)

        label, nxt_label, onl, degree = {}, {}, {}, {}
        for q in points:
            label[q] = Signal(bits, name=f"label_{q}", init=q)
        settled_h, settled_v = Signal(n), Signal(n)  # the lines the labels settled on
        for q in points:
            # (neighbour, the edge joining them)
            links = [(r, e) for r, e in ((q - w, line(self.h1, q)),
                                         (q + w, line(self.h1, q + w)),
                                         (q - 1, line(self.v1, q)),
                                         (q + 1, line(self.v1, q + 1))) if r in on]
            degree[q] = Signal(3, name=f"degree_{q}")
            m.d.comb += degree[q].eq(sum((e for _, e in links), Const(0, 3)))
            onl[q] = Signal(name=f"online_{q}")
            m.d.comb += onl[q].eq(degree[q] != 0)
            best = label[q]
            for r, e in links:  # a chain of compare-and-select, one per line neighbour
                pick = Signal(bits, name=f"pick_{q}_{r}")
                m.d.comb += pick.eq(Mux(e & (label[r] < best), label[r], best))
                best = pick
            nxt_label[q] = best

        changed = Signal()
        m.d.comb += changed.eq(Cat(*(nxt_label[q] != label[q] for q in points)).any())

        root = Cat(*(onl[q] & (label[q] == q) for q in points))
        ends = Cat(*(degree[q] == 1 for q in points))
        multi = Signal()
        closed = Signal()
        roots, end_count = popcount(m, root, "roots"), popcount(m, ends, "ends")
        m.d.comb += [
            multi.eq((root & (root - 1)).any()),
            closed.eq((roots << 1) > end_count),
            self.conflict.eq(closed & multi),
            self.dirty.eq((self.h1 != settled_h) | (self.v1 != settled_v)),
            self.saved.eq(Cat(*(label[q] for q in points), settled_h, settled_v)),
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

        def begin():
            return [self.iterations.eq(0), settled_h.eq(self.h1), settled_v.eq(self.v1)]

        # clear / restore (a snapshot) whenever asked; a run starts from what is there
        with m.If(self.clear):
            m.d.sync += [label[q].eq(q) for q in points]
            m.d.sync += [settled_h.eq(0), settled_v.eq(0)]
        with m.Elif(self.restore):
            offset = 0
            for q in points:
                m.d.sync += label[q].eq(self.saved_in[offset:offset + bits])
                offset += bits
            m.d.sync += [settled_h.eq(self.saved_in[offset:offset + n]),
                         settled_v.eq(self.saved_in[offset + n:offset + 2 * n])]

        with m.FSM(name="labels"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += begin()
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.iterations.eq(self.iterations + 1)
                for q in points:
                    m.d.sync += label[q].eq(nxt_label[q])
                with m.If(~changed):
                    m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
                with m.If(self.start):
                    m.d.sync += begin()
                    m.next = "RUN"
        return m


def popcount(m, value, name):
    """The number of set bits of ``value``, as a balanced adder tree."""
    terms = [value[i] for i in range(len(value))]
    width = 1
    level = 0
    while len(terms) > 1:
        width += 1
        nxt = []
        for i in range(0, len(terms), 2):
            if i + 1 < len(terms):
                t = Signal(width, name=f"{name}_{level}_{i // 2}")
                m.d.comb += t.eq(terms[i] + terms[i + 1])
                nxt.append(t)
            else:
                nxt.append(terms[i])
        terms = nxt
        level += 1
    return terms[0] if terms else Const(0, 1)
