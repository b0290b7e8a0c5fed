"""The deduction engine's probing sequencer (docs/deduce.md section 4).

Golden model :meth:`model.deduce.Engine.deduce`: propagate; then passes over
the grid cells in row-major order, probing every cell that is unknown and has
a known orthogonal neighbour *in the current state* (a near pass): IN, then
(if IN did not fail) OUT - snapshot, assume, propagate, restore; a failed probe
fixes the other colour in the live state and propagates it.  When a near pass
fixed nothing and cells are unknown, a far pass probes the unknown cells with
no known neighbour; a pass that fixed something starts a new near pass, and a
near pass and a far pass that fixed nothing end probing.

The branch picker's registers: a probe that succeeded counts the known grid
cells of its propagated state (a popcount); a cell whose two probes succeeded
scores the smaller count, and ``best_cell`` (one-hot, 0 for none) is the first
cell, in probing order, with the highest score since the last near pass
began (cleared at ``start``, at every new near pass and on ``load``).

**Implied colours** (docs/deduce.md section 12.15): ``implied`` holds, as a
state's C0 and C1 boards, every colour that a successful probe's propagated
state held since the live state last changed (cleared at ``start`` and by a
failed probe); an implied colour is not tried, a cell with both implied is
not a candidate, and a cell with one implied is not scored.  When no cell
scored, ``best_cell`` is the first candidate (unknown, with a known
neighbour) of the state.

The next cell to probe comes from a priority encoder over the candidates
after the current one (the lowest set bit of ``candidates & after``), so a
pass costs one clock per probed cell, not per cell.  The snapshot is a shadow
copy of the state registers (one clock to save or restore in this fully
parallel build; the model's cycle estimate charges ``rows`` clocks, the
band-of-rows design's cost).

Ports as :class:`~hw.deduce.propagator.Propagator` (``clear_labels``,
``restore_labels`` + ``labels_in``: the label registers, for a state that is
not a descendant of the last one; ``labels_saved``: their contents, for a trail);
counters (cleared by
``start``): ``probes``, ``probe_hits``, ``saves``, ``restores`` and the
propagator's totals ``sweeps``, ``flood_iterations``, ``label_iterations``,
``floods``, ``label_runs`` (equal to the model's), and ``clocks`` from
``start`` to ``done``.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from slitherlink.spec.deduce import C0, C1

from .labels import popcount
from .propagator import COUNT_WIDTH, Propagator
from .sweep import BOARDS, shift

__all__ = ["Prober"]

PROPAGATOR_COUNTERS = ("sweeps", "flood_iterations", "label_iterations", "floods", "label_runs")


class Prober(wiring.Component):
    """Propagation plus failed-literal probing; see the module docstring."""

    def __init__(self, max_rows, max_cols):
        self.propagator = Propagator(max_rows, max_cols)
        self.geometry = geo = self.propagator.geometry
        n = geo.cells
        counters = ("probes", "probe_hits", "saves", "restores", "clocks") + PROPAGATOR_COUNTERS
        #: width of a score: a number of grid cells
        self.score_bits = max(1, n.bit_length())
        super().__init__({
            "grid": In(n), "clue": In(data.ArrayLayout(n, 4)), "island": In(1),
            "load": In(1), "state_in": In(data.ArrayLayout(n, BOARDS)),
            "start": In(1), "clear_labels": In(1),
            "restore_labels": In(1), "labels_in": In(len(self.propagator.labels_saved)),
            "labels_saved": Out(len(self.propagator.labels_saved)),
            "busy": Out(1), "done": Out(1), "conflict": Out(1),
            "state": Out(data.ArrayLayout(n, BOARDS)),
            "best_cell": Out(n),
            **{name: Out(COUNT_WIDTH) for name in counters},
        })

    def elaborate(self, platform):
        m = Module()
        prop = self.propagator
        m.submodules.propagator = prop
        n, w = self.geometry.cells, self.geometry.width
        s = prop.state
        m.d.comb += [prop.grid.eq(self.grid), prop.clue.eq(self.clue),
                     prop.island.eq(self.island), self.state.eq(prop.state),
                     prop.clear_labels.eq(self.clear_labels),
                     prop.restore_labels.eq(self.restore_labels),
                     prop.labels_in.eq(self.labels_in), self.labels_saved.eq(prop.labels_saved)]

        snapshot = Signal(data.ArrayLayout(n, BOARDS))
        snapshot_labels = Signal(len(prop.labels_saved))  # the label registers too
        cell = Signal(n)        # one-hot: the cell being probed
        after = Signal(n)       # cells after it in scan order
        colour = Signal()       # 1 = IN is being tried
        fixed = Signal()        # this pass fixed a cell
        far = Signal()          # a far pass: cells with no known neighbour
        best = Signal(self.score_bits)    # the branch picker's best score ...
        best_cell = Signal(n)             # ... and its cell (one-hot; 0: none)
        count_in = Signal(self.score_bits)  # the IN probe's known grid cells
        implied_in, implied_out = Signal(n), Signal(n)   # colours that cannot fail
        skipped = Signal()      # the cell's IN probe was skipped (implied): no score
        bad = Signal()
        m.d.comb += self.conflict.eq(bad)

        known = s[C0] | s[C1]
        near = shift(known, 1, n) | shift(known, -1, n) | shift(known, w, n) | shift(known, -w, n)
        # no cell scored (their colours were implied): the first candidate of the state
        all_cands = Signal(n)
        m.d.comb += [all_cands.eq(self.grid & ~known & near),
                     self.best_cell.eq(Mux(best_cell.any() | bad, best_cell,
                                           all_cands & (~all_cands + 1)))]
        candidates = Signal(n)
        first = Signal(n)
        upto = Signal(n)        # the first candidate and every cell before it
        m.d.comb += [candidates.eq(self.grid & ~known & Mux(far, ~near, near) & after
                                   & ~(implied_in & implied_out)),
                     first.eq(candidates & (~candidates + 1)),
                     upto.eq(first | (first - 1))]

        # the branch picker's score of a probe: the known grid cells after it propagated;
        # a cell scores the smaller count of its two probes
        count = Signal(self.score_bits)
        score = Signal(self.score_bits)
        m.d.comb += [count.eq(popcount(m, self.grid & known, "known")),
                     score.eq(Mux(count < count_in, count, count_in))]
        with m.If(self.load):
            m.d.sync += [best.eq(0), best_cell.eq(0)]

        # the array's load port: from outside, or a snapshot with an assumed colour
        load = Signal()
        load_value = Signal(data.ArrayLayout(n, BOARDS))
        m.d.comb += [prop.load.eq(self.load | load), prop.state_in.eq(self.state_in)]
        with m.If(load):
            m.d.comb += prop.state_in.eq(load_value)

        def assume(base, inside):
            """Load ``base`` with the current cell set IN (``inside``) or OUT."""
            m.d.comb += [load.eq(1), load_value.eq(base)]
            m.d.comb += [load_value[C1].eq(base[C1] | (cell & inside.replicate(n))),
                         load_value[C0].eq(base[C0] | (cell & (~inside).replicate(n)))]

        def accumulate():
            m.d.sync += [getattr(self, name).eq(getattr(self, name) + getattr(prop, name))
                         for name in PROPAGATOR_COUNTERS]

        with m.FSM(name="probe"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [getattr(self, name).eq(0) for name in
                                 ("probes", "probe_hits", "saves", "restores", "clocks")
                                 + PROPAGATOR_COUNTERS]
                    m.d.sync += [bad.eq(0), fixed.eq(0), after.eq(self.grid), far.eq(0),
                                 best.eq(0), best_cell.eq(0), implied_in.eq(0),
                                 implied_out.eq(0)]
                    m.d.comb += prop.start.eq(1)
                    m.next = "FIRST"
            with m.State("FIRST"):          # the initial propagation
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(prop.done):
                    accumulate()
                    with m.If(prop.conflict):
                        m.d.sync += bad.eq(1)
                        m.next = "DONE"
                    with m.Else():
                        m.next = "NEXT"
            with m.State("NEXT"):           # pick the next candidate
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(first.any()):   # IN first, unless IN is implied
                    in_implied = (first & implied_in).any()
                    m.d.sync += [cell.eq(first), after.eq(~upto), colour.eq(~in_implied),
                                 skipped.eq(in_implied)]
                    m.next = "SAVE"
                with m.Elif(fixed):         # a new near pass; the scores start again
                    m.d.sync += [fixed.eq(0), far.eq(0), after.eq(self.grid),
                                 best.eq(0), best_cell.eq(0)]
                with m.Elif(~far & (self.grid & ~known).any()):   # the far pass
                    m.d.sync += [far.eq(1), after.eq(self.grid)]
                with m.Else():
                    m.next = "DONE"
            with m.State("SAVE"):           # snapshot, assume, propagate
                m.d.comb += self.busy.eq(1)
                m.d.sync += [self.clocks.eq(self.clocks + 1), snapshot.eq(s),
                             snapshot_labels.eq(prop.labels_saved),
                             self.saves.eq(self.saves + 1), self.probes.eq(self.probes + 1)]
                assume(s, colour)
                m.next = "PROBE_START"
            with m.State("PROBE_START"):
                m.d.comb += [self.busy.eq(1), prop.start.eq(1)]
                m.d.sync += self.clocks.eq(self.clocks + 1)
                m.next = "PROBE"
            with m.State("PROBE"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(prop.done):
                    accumulate()
                    m.d.sync += self.restores.eq(self.restores + 1)
                    m.d.comb += [prop.restore_labels.eq(1), prop.labels_in.eq(snapshot_labels)]
                    with m.If(prop.conflict):  # restore with the other colour, propagate
                        m.d.sync += [self.probe_hits.eq(self.probe_hits + 1), fixed.eq(1),
                                     implied_in.eq(0), implied_out.eq(0)]
                        assume(snapshot, ~colour)
                        m.next = "FIX_START"
                    with m.Else():             # restore; score; try OUT, or go on
                        m.d.comb += [load.eq(1), load_value.eq(snapshot)]
                        m.d.sync += [implied_in.eq(implied_in | s[C1]),
                                     implied_out.eq(implied_out | s[C0])]
                        with m.If(colour & ~(cell & implied_out).any()):
                            m.d.sync += [colour.eq(0), count_in.eq(count)]
                            m.next = "SAVE"
                        with m.Elif(colour):   # OUT is implied: no score
                            m.next = "NEXT"
                        with m.Else():
                            with m.If(~skipped & (score > best)):
                                m.d.sync += [best.eq(score), best_cell.eq(cell)]
                            m.next = "NEXT"
            with m.State("FIX_START"):
                m.d.comb += [self.busy.eq(1), prop.start.eq(1)]
                m.d.sync += self.clocks.eq(self.clocks + 1)
                m.next = "FIX"
            with m.State("FIX"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(prop.done):
                    accumulate()
                    with m.If(prop.conflict):
                        m.d.sync += bad.eq(1)
                        m.next = "DONE"
                    with m.Else():
                        m.next = "NEXT"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        return m
