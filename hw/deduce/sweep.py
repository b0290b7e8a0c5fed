"""The deduction engine's rule array: the state registers and the one-clock sweep.

docs/deduce.md sections 1-3; golden model :func:`model.deduce.sweep`.  The
sweep is generated from :func:`model.deduce_rules.rule_table`, exactly as the
model's: for every window, every rule and every anchor at once, the
conclusion's bit is set when the premises' bits are set in the current state.

Bitboards use :class:`model.deduce.Geometry` of the *build* size
(``max_rows`` x ``max_cols``, ``W = max_cols + 2``); a puzzle of run-time size
``rows`` x ``cols`` occupies the top-left corner (``grid`` is its cells, as
:class:`hw.cells.CellArray` gives it).  The run-time framed box is ``grid``
and its eight neighbours; a variable whose cells are not all in that box does
not exist for the puzzle and is held at S (value 0 = same: OUT, NOLINE), so
the puzzle's part of the state evolves exactly as the model's state of the
puzzle's own size.  The lattice windows are anchored at every lattice point
of the build (beyond the run-time size they see only held cells and
variables and derive nothing the puzzle's frame windows do not derive in the
same sweep); the clue windows at the clue cells (``clue[d]``, bitboards); the 3-3
windows at pairs of 3s, with the ``island`` flag (:func:`model.deduce_rules.island_free`,
computed when the puzzle is loaded) choosing the island variants.

Ports: ``load`` copies ``state_in`` into the registers (a snapshot restore);
``step`` replaces them by ``next`` (one sweep).  ``next`` (combinational:
the sweep of the registered state), ``changed`` (``next != state``) and
``conflict`` (some variable of ``next`` has both values) let the sequencer
decide in the same clock.
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from slitherlink.model.deduce import Geometry
from slitherlink.model.deduce_rules import VARS, rule_table

__all__ = ["SweepArray", "shift", "runtime_valid"]

BOARDS = 10


def shift(value, k, n):
    """``value`` (``n`` bits) moved so that bit ``p + k`` lands on bit ``p``; zeros come in."""
    if k == 0:
        return value
    if k > 0:
        return Cat(value[k:], Const(0, k)) if k < n else Const(0, n)
    k = -k
    return Cat(Const(0, k), value[:n - k]) if k < n else Const(0, n)


def runtime_valid(grid, width, n):
    """Per variable, the positions that exist for the run-time puzzle (``grid``)."""
    dil = grid
    for k in (1, -1):
        dil = dil | shift(dil, k, n)
    for k in (width, -width):
        dil = dil | shift(dil, k, n)
    box = dil  # grid and its eight neighbours: the run-time framed array
    right, down = shift(box, 1, n), shift(box, width, n)
    block = box & right & down & shift(box, width + 1, n)
    return {"C": box, "H": box & right, "V": box & down, "A": block, "B": block}


class SweepArray(wiring.Component):
    """State registers and the one-clock sweep; see the module docstring."""

    def __init__(self, max_rows, max_cols):
        self.geometry = geo = Geometry(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        n = geo.cells
        super().__init__({
            "grid": In(n),
            "clue": In(data.ArrayLayout(n, 4)),
            "island": In(1),
            "load": In(1),
            "state_in": In(data.ArrayLayout(n, BOARDS)),
            "step": In(1),
            "state": Out(data.ArrayLayout(n, BOARDS)),
            "next": Out(data.ArrayLayout(n, BOARDS)),
            "changed": Out(1),
            "conflict": Out(1),
        })

    def anchors(self, m, valid):
        geo, n, w = self.geometry, self.geometry.cells, self.geometry.width
        clue = [self.clue[d] & self.grid for d in range(4)]
        three = clue[3]
        h = three & shift(three, 1, n)
        v = three & shift(three, w, n)
        island = self.island.replicate(n)
        # every lattice point of the build: beyond the run-time size the cells are held
        # OUT and the other variables S, so those windows only derive what the
        # puzzle's own frame windows derive in the same sweep (docs/deduce.md section 8)
        out = {"lattice": Const(geo.points, n), "clue0": clue[0], "clue1": clue[1], "clue2": clue[2],
               "clue3": three, "h33": h & ~island, "h33i": h & island,
               "v33": v & ~island, "v33i": v & island,
               "d33": three & shift(three, w + 1, n), "a33": three & shift(three, w - 1, n)}
        signals = {"lattice": out.pop("lattice")}
        for name, value in out.items():
            signals[name] = Signal(n, name=f"anchor_{name}")
            m.d.comb += signals[name].eq(value)
        return signals

    def elaborate(self, platform):
        m = Module()
        geo, n, w = self.geometry, self.geometry.cells, self.geometry.width
        s = [self.state[i] for i in range(BOARDS)]
        valid = {}
        for var, value in runtime_valid(self.grid, w, n).items():
            valid[var] = Signal(n, name=f"valid_{var}")
            m.d.comb += valid[var].eq(value & Const(geo.valid[var], n))
        anchors = self.anchors(m, valid)

        aligned = {}

        def lit(var, off, value):
            k = off[0] * w + off[1]
            key = (var, value, k)
            if key not in aligned:
                aligned[key] = shift(s[VARS.index(var) * 2 + value], k, n)
            return aligned[key]

        concl = [[] for _ in range(BOARDS)]
        for wname, rules in rule_table().items():
            groups = {}
            for rule in rules:
                var, off, value = rule.conclusion
                k = off[0] * w + off[1]
                groups.setdefault((VARS.index(var) * 2 + value, k), []).append(rule.premises)
            for (board, k), premise_sets in sorted(groups.items()):
                terms = []
                for premises in premise_sets:
                    term = anchors[wname]
                    for p in premises:
                        term = term & lit(*p)
                    terms.append(term)
                acc = terms[0]
                for t in terms[1:]:
                    acc = acc | t
                concl[board].append(shift(acc, -k, n))

        for i in range(BOARDS):
            var = VARS[i // 2]
            total = s[i]
            for c in concl[i]:
                total = total | c
            if i % 2 == 0:  # value S: held set where the variable does not exist
                value = (total | ~valid[var]) & Const(geo.valid[var], n)
            else:
                value = total & valid[var]
            m.d.comb += self.next[i].eq(value)

        m.d.comb += [
            self.changed.eq(self.next.as_value() != self.state.as_value()),
            self.conflict.eq(Cat(*((self.next[i] & self.next[i + 1]).any()
                                   for i in range(0, BOARDS, 2))).any()),
        ]
        with m.If(self.load):
            m.d.sync += self.state.eq(self.state_in)
        with m.Elif(self.step):
            m.d.sync += self.state.eq(self.next)
        return m
