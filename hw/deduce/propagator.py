"""The deduction engine's propagation sequencer (docs/deduce.md section 3).

Golden model :meth:`model.deduce.Engine.propagate`: sweeps until nothing
changes, then both floods, then the label stage (only when a LINE was added
since its last run), starting over whenever a stage deduced something, until
a fixpoint or a conflict.  It drives a :class:`~hw.deduce.sweep.SweepArray`
(which holds the state), a :class:`~hw.deduce.flood.FloodPair` and a
:class:`~hw.deduce.labels.LabelArray`; a stage's deductions are written into
the state through the array's ``load`` port.

Ports: ``grid``/``clue``/``island`` as :class:`SweepArray`; ``load`` +
``state_in`` write the state (when idle); ``start`` runs a propagation;
``busy`` until ``done`` (one clock) with ``conflict``; ``state`` is the
state.  Counters, cleared by ``start``: ``sweeps``, ``flood_iterations``,
``label_iterations`` (equal to the model's counters), ``floods``,
``label_runs`` and ``clocks`` (every clock from ``start`` to ``done``: the
model's cycle count plus one hand-off clock per flood run and per label run).
"""

from amaranth import Const, Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from slitherlink.model.deduce import C0, C1, H0, H1, V0, V1

from .flood import FloodPair
from .labels import LabelArray
from .sweep import BOARDS, SweepArray

__all__ = ["Propagator"]

COUNT_WIDTH = 24


class Propagator(wiring.Component):
    """Sweeps, floods and labels to a fixpoint; see the module docstring."""

    def __init__(self, max_rows, max_cols, *, early_loop=True):
        self.array = SweepArray(max_rows, max_cols)
        self.floods_block = FloodPair(max_rows, max_cols)
        self.labels_block = LabelArray(max_rows, max_cols) if early_loop else None
        self.geometry = geo = self.array.geometry
        n = geo.cells
        counters = ("sweeps", "flood_iterations", "label_iterations", "floods", "label_runs",
                    "clocks")
        super().__init__({
            "grid": In(n), "clue": In(data.ArrayLayout(n, 4)), "island": In(1),
            "load": In(1), "state_in": In(data.ArrayLayout(n, BOARDS)),
            "start": In(1),
            "busy": Out(1), "done": Out(1), "conflict": Out(1),
            "state": Out(data.ArrayLayout(n, BOARDS)),
            **{name: Out(COUNT_WIDTH) for name in counters},
        })

    def elaborate(self, platform):
        m = Module()
        arr, fl, lb = self.array, self.floods_block, self.labels_block
        m.submodules.array = arr
        m.submodules.floods = fl
        if lb is not None:
            m.submodules.labels = lb
        n = self.geometry.cells
        s = arr.state
        m.d.comb += [arr.grid.eq(self.grid), arr.clue.eq(self.clue), arr.island.eq(self.island),
                     self.state.eq(arr.state),
                     fl.grid.eq(self.grid), fl.c0.eq(s[C0]), fl.c1.eq(s[C1]),
                     fl.h1.eq(s[H1]), fl.v1.eq(s[V1])]
        if lb is not None:
            m.d.comb += [lb.h0.eq(s[H0]), lb.h1.eq(s[H1]), lb.v0.eq(s[V0]), lb.v1.eq(s[V1]),
                         lb.valid_h.eq(self.array_valid("H")), lb.valid_v.eq(self.array_valid("V"))]

        # the array's load port: from outside when idle, else the stages' deductions
        apply = Signal()
        deduced = Signal(data.ArrayLayout(n, BOARDS))
        m.d.comb += [arr.load.eq(self.load | apply),
                     arr.state_in.eq(self.state_in)]
        with m.If(apply):
            m.d.comb += arr.state_in.eq(deduced)

        bad = Signal()
        lines_added = Signal()   # a LINE was set since the label stage last ran
        all_out = Signal()
        m.d.comb += all_out.eq(~(s[C1] & self.grid).any() & ~(self.grid & ~s[C0]).any())

        def finish(conflict):
            m.d.sync += bad.eq(conflict)
            m.next = "DONE"

        m.d.comb += self.conflict.eq(bad)
        with m.FSM(name="propagate"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [self.sweeps.eq(0), self.flood_iterations.eq(0),
                                 self.label_iterations.eq(0), self.floods.eq(0),
                                 self.label_runs.eq(0), self.clocks.eq(0),
                                 lines_added.eq(1), bad.eq(0)]
                    m.next = "SWEEP"
            with m.State("SWEEP"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += [self.sweeps.eq(self.sweeps + 1), self.clocks.eq(self.clocks + 1)]
                with m.If(arr.conflict):
                    finish(1)
                with m.Elif(arr.changed):
                    m.d.comb += arr.step.eq(1)
                    with m.If((arr.next[H1] != s[H1]) | (arr.next[V1] != s[V1])):
                        m.d.sync += lines_added.eq(1)
                with m.Elif(all_out):
                    finish(1)
                with m.Else():
                    m.d.comb += fl.start.eq(1)
                    m.d.sync += self.floods.eq(self.floods + 1)
                    m.next = "FLOOD"
            with m.State("FLOOD"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(fl.busy):
                    m.d.sync += self.flood_iterations.eq(self.flood_iterations + 1)
                with m.Elif(fl.done):
                    with m.If(fl.conflict):
                        finish(1)
                    with m.Elif((fl.out_c0 | fl.out_c1).any()):
                        m.d.comb += [apply.eq(1), deduced.eq(s)]
                        m.d.comb += [deduced[C0].eq(s[C0] | fl.out_c0),
                                     deduced[C1].eq(s[C1] | fl.out_c1)]
                        m.next = "SWEEP"
                    with m.Elif(lines_added if lb is not None else Const(0, 1)):
                        if lb is not None:
                            m.d.comb += lb.start.eq(1)
                        m.d.sync += [self.label_runs.eq(self.label_runs + 1),
                                     lines_added.eq(0)]
                        m.next = "LABELS"
                    with m.Else():
                        finish(0)
            with m.State("LABELS"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += self.clocks.eq(self.clocks + 1)
                if lb is not None:
                    with m.If(lb.busy):
                        m.d.sync += self.label_iterations.eq(self.label_iterations + 1)
                    with m.Elif(lb.done):
                        with m.If(lb.conflict):
                            finish(1)
                        with m.Elif((lb.out_h0 | lb.out_v0).any()):
                            m.d.comb += [apply.eq(1), deduced.eq(s)]
                            m.d.comb += [deduced[H0].eq(s[H0] | lb.out_h0),
                                         deduced[V0].eq(s[V0] | lb.out_v0)]
                            m.next = "SWEEP"
                        with m.Else():
                            finish(0)
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        return m

    def array_valid(self, var):
        """The run-time positions of ``var`` (as the sweep array computes them)."""
        from .sweep import runtime_valid
        geo = self.geometry
        return runtime_valid(self.grid, geo.width, geo.cells)[var] & Const(geo.valid[var],
                                                                          geo.cells)
