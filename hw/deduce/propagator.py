"""The band engine's propagation sequencer: sweeps, floods and labels to a fixpoint.

docs/design.md section 6 (the band-of-rows design); docs/deduce.md sections 3 and
12.  Golden model :meth:`model.deduce.Engine.propagate`, with the passes
counted as :class:`model.band.BandEngine` counts them.  The band equivalent
of :class:`hw.deduce.propagator.Propagator`: it joins a
:class:`~hw.deduce.sweep.Sweep` (which holds the state and clue memories),
a :class:`~hw.deduce.floods.Floods` and a
:class:`~hw.deduce.labels.Labels`.

**The join.**

* One state memory, the sweep's.  While the sweep is idle its read port
  (``addr`` -> ``state_out``, and ``clue_out``, a read port of the clue memory
  at the same address added for this) serves the floods while they run: their
  ``state_addr`` (their ``clue_addr`` always equals it) drives
  ``Sweep.addr``, and ``state_out`` / ``clue_out`` go to their
  ``state_data`` / ``clue_data``; otherwise the port is the outside's
  (``addr``, ``state_out``, ``clue_out``).  The labels read the state through
  the sweep's second read port (``line_addr`` -> ``line_out``), their own
  (docs/deduce.md section 7.3).  The state does not change while the floods
  or labels run, as they require.
* Deductions go back through the sweep's ``fix`` port: the sweep pass after a
  flood run that deduced something gets ``fix_in`` = ``C0: fix_c0, C1:
  fix_c1`` from the flood block (``fix_addr`` is its read address, the word
  comes one clock later from its reach memory), the pass after a label run
  that deduced something ``H0: fix_h0, V0: fix_v0`` from the label block; every
  other pass gets zero.  The blocks hold their results until their next
  ``start``, so the words are still there during that pass.
* "Every cell OUT: no loop" (``Engine.propagate`` checks it after the sweep
  loop): ``Sweep.live`` (some cell of the state memory IN or unknown, kept
  per group on every write) after the pass that ends the sweep loop.
* **Sweep spans** (:class:`model.band.BandEngine`): the first pass writes the
  groups ``first .. last`` (inputs, sampled with ``start``: every group of the
  grid, or the group of the cell an assumption set and one either side); a pass
  after a pass that changed rows writes the groups from one before the first
  changed group to one after the last (``Sweep.changed_first`` /
  ``changed_last``), a pass that applies a flood or label stage's deductions
  every group of the grid, ``0 .. limit`` (``limit``: the group of the grid's
  last framed row, an input held for the propagation).  Counted:
  ``sweep_words`` (the groups the passes wrote) and ``sweep_inner`` (passes
  whose span does not begin with group 0), equal to the band model's
  ``sweep_spans``.
* **The labels beside the floods** (:class:`model.band.BandEngine`): the
  flood and label blocks stream the same groups in the same order, a pass
  each ``groups + 2`` clocks, so when the labels are dirty the label run
  starts with the flood run and both read the sweep's port (the floods'
  address while they run, then the labels'). Its findings are used only
  where the model runs the label stage, after a flood run that deduced
  nothing: if it ended first they are taken as the floods end, else the
  propagator waits for it. When the flood run deduces something or finds a
  conflict, the label run is dropped (``abort``, in the flood block's
  ``done`` clock, which is the clock in which the label block takes the
  findings of the pass it has just finished, before the next pass writes
  anything): its labels stay as its passes wrote them and the labels stay
  dirty (``lines_changed`` with it, for a run that ended first).
* The labels' ``dirty`` flag is the model's ``(H1, V1) != registers[1]``: it
  is set (``lines_changed``) in the clock a sweep pass ends with
  ``Sweep.lines_added`` (a pass wrote a new H1 or V1 bit; floods add only
  cell colours and labels only NOLINE, so sweeps are the only source of lines
  during a propagation), cleared by the label block when a run ends, and
  loaded from outside with ``dirty_we`` / ``dirty_in`` (the engine to come:
  after loading a state, with "its lines differ from those the label memory
  settled on"; after ``clear_labels``, "it has a line").

**The FSM** (states IDLE, SWEEP, FLOOD, LABELS, DONE)::

    IDLE   start: counters cleared, sweep pass first .. last (no fix)   -> SWEEP
    SWEEP  in the sweep's done clock: sweeps += 1; lines_added: labels dirty;
           conflict -> DONE (conflict); changed -> next sweep pass over the
           changed groups and one either side (no fix);
           ~live -> DONE (conflict: no loop); else floods started, and the
           labels beside them if dirty (or this pass added a line)    -> FLOOD
    FLOOD  in the floods' done clock: flood_passes += passes;
           conflict or deduced: a label run beside them dropped (its passes
           counted in label_passes), then conflict -> DONE (conflict), deduced
           -> sweep pass 0 .. limit with the flood fix -> SWEEP;
           a label run beside them: label_runs += 1, still running -> LABELS
           (``hurry`` to the label block, in this clock and in LABELS: its
           passes from now on may be partial), ended -> its findings (as LABELS);
           else DONE
    LABELS in the labels' done clock: label_passes += passes,
           late_label_passes += passes beyond the flood run's, late_label_runs
           += 1; conflict -> DONE (conflict); deduced -> sweep pass 0 .. limit
           with the label fix -> SWEEP; else DONE
    DONE   ``done`` for one clock                                       -> IDLE

**Clocks.**  ``busy`` is high from the clock after ``start`` to the clock
before ``done``, and ``clocks`` counts exactly those clocks.  A sweep pass is
its span's groups plus ``hc_down + 1`` clocks (``Sweep``; ``hc_up`` more for
a span after group 0) plus its ``done`` clock, in which the next stage is
started; a flood run is ``passes x (groups + 2)`` clocks plus its ``done``
clock; a label run beside it costs nothing more if it ends no later (its
findings are there in the floods' ``done`` clock), else its passes beyond the
flood run's and its drain (``band_labels.DRAIN``, the clock of the findings
of its last group; its ``done`` clock starts what follows).  Those late passes
may be partial (``Labels``, docs/deduce.md section 7.3): they stream
``late_skipped`` groups fewer than whole passes would (less a clock for the
whole findings pass after a partial one).  So::

    clocks = sweep_words + sweeps x (hc_down + 2) + sweep_inner x hc_up
           + (flood_passes + late_label_passes) x (groups + 2) - late_skipped
           + floods + late_label_runs x DRAIN

against :class:`model.band.BandCycleModel`'s ``sweep_words + sweep_inner +
sweeps x 2 + (flood_passes + late_label_passes) x (groups + 2) -
late_label_skipped + late_label_runs`` (``L = 2``; its words are the puzzle's,
as here when ``limit`` is the grid's; so are the groups a partial pass streams
when the puzzle fills the build): at band 1 (``hc_down = 2``, ``hc_up = 1``), 2 more
clocks a sweep pass (one for the sweep's deeper clue window, one for the
hand-off from pass to pass), none more a flood or label pass, and one more
per flood run (the hand-off).  E.g. 10x10: 16 clocks a whole sweep pass
against 14.

Ports: ``island`` (Sweep's); when not ``busy``: ``addr``, ``waddr``, ``state_we`` +
``state_in``, ``clue_we`` + ``clue_in``, ``state_out`` and ``clue_out`` (the
sweep's memories), ``label_addr``, ``label_we`` + ``label_in``, ``label_out``,
``dirty_we`` + ``dirty_in``, ``dirty`` (the label memory and flag, for
snapshots), ``clear_labels`` (a pass of ``groups`` clocks over the label
memory, ``busy`` high); ``start`` runs a propagation; ``busy`` until ``done``
(one clock); ``conflict`` valid from ``done`` to the next ``start``;
``changed_words``: a bit per group, high in a clock in which a sweep pass writes
the group's state word changed or a label pass its label word (for the findings
clock of the pass that wrote it), for the prober's snapshot.
``first``, ``last`` and ``limit`` (the spans, above).  Counters, cleared by
``start``: ``sweeps``, ``flood_passes``, ``label_passes``, ``sweep_words``,
``sweep_inner``, ``late_label_passes``, ``late_label_runs`` (equal to the
model's), ``floods``, ``label_runs`` and ``clocks``.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from slitherlink.spec.deduce import C0, C1, H0, V0

from .floods import Floods
from .labels import Labels
from .sweep import Sweep

__all__ = ["Propagator", "memory_ports", "span_around", "LATE_COUNTERS", "SPAN_COUNTERS"]

COUNT_WIDTH = 24
#: the sweep spans' counts (:class:`model.band.BandCounters` ``sweep_spans`` at the build's
#: band height): groups written, and passes whose span does not begin with group 0
SPAN_COUNTERS = ("sweep_words", "sweep_inner")
#: the label passes that cost clocks (:class:`model.band.BandCounters`): those of label runs
#: used beyond the flood run beside them, and the used runs that outlast their flood run
LATE_COUNTERS = ("late_label_passes", "late_label_runs")


def span_around(first, last, limit):
    """``(first', last')``: the sweep span from one group before ``first`` to one after
    ``last``, within ``0 .. limit`` (values; the gateware's :func:`model.band.sweep_span`)."""
    return Mux(first == 0, 0, first - 1), Mux(last >= limit, limit, last + 1)


def memory_ports(sweep, labels, groups):
    """The ports through which a band engine's memories are loaded and read while it is
    idle: the state and clue words (the sweep's), the label words and the labels' dirty
    bit, ``clear_labels`` and the puzzle's ``island`` flag."""
    return {
        "island": In(1),
        "addr": In(range(groups)),
        "waddr": In(range(groups)),
        "state_we": In(1),
        "state_in": In(sweep.state_layout),
        "clue_we": In(1),
        "clue_in": In(sweep.clue_layout),
        "state_out": Out(sweep.state_layout),
        "clue_out": Out(sweep.clue_layout),
        "label_addr": In(range(groups)),
        "label_we": In(1),
        "label_in": In(labels.label_layout),
        "label_out": Out(labels.label_layout),
        "dirty_we": In(1),
        "dirty_in": In(1),
        "dirty": Out(1),
        "clear_labels": In(1),
    }


class Propagator(wiring.Component):
    """Sweeps, floods and labels as band passes to a fixpoint (module docstring)."""

    def __init__(self, max_rows, max_cols, *, band=1, ram_style=None, label_network="small"):
        self.sweep = Sweep(max_rows, max_cols, band=band, ram_style=ram_style)
        self.floods_block = Floods(max_rows, max_cols, band=band, ram_style=ram_style)
        self.labels_block = Labels(max_rows, max_cols, band=band, ram_style=ram_style,
                                       network=label_network)
        self.geometry = self.sweep.geometry
        self.max_rows, self.max_cols, self.band = max_rows, max_cols, band
        self.groups = groups = self.sweep.groups
        #: clocks a whole sweep pass takes in a propagation (with its hand-off clock)
        self.sweep_clocks = self.sweep.pass_clocks + 1
        #: clocks a sweep pass takes beyond its span's groups (with its hand-off clock),
        #: and the clocks more when the span does not begin with group 0
        hc_up, hc_down = self.sweep.clue_halo
        self.sweep_overhead, self.sweep_inner_clocks = hc_down + 2, hc_up
        #: clocks a flood or label pass takes
        self.stage_pass_clocks = self.floods_block.pass_clocks
        assert self.stage_pass_clocks == self.labels_block.pass_clocks == groups + 2
        sw, lb = self.sweep, self.labels_block
        counters = ("sweeps", "flood_passes", "label_passes", "floods", "label_runs",
                    "clocks") + SPAN_COUNTERS + LATE_COUNTERS
        super().__init__({
            **memory_ports(sw, lb, groups),
            "first": In(range(groups)),
            "last": In(range(groups)),
            "limit": In(range(groups)),
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),
            "conflict": Out(1),
            "changed_words": Out(groups),
            **{name: Out(COUNT_WIDTH) for name in counters},
        })

    def elaborate(self, platform):
        m = Module()
        sw, fl, lb = self.sweep, self.floods_block, self.labels_block
        m.submodules.sweep = sw
        m.submodules.floods = fl
        m.submodules.labels = lb

        running = Signal()   # a propagation is under way (SWEEP, FLOOD, LABELS)
        in_flood = Signal()

        # -- the sweep's read port: the floods' while they run, else the outside's; the
        # labels read the state through the sweep's second port, their own
        with m.If(in_flood & fl.busy):
            m.d.comb += sw.addr.eq(fl.state_addr)
        with m.Else():
            m.d.comb += sw.addr.eq(self.addr)
        m.d.comb += [
            sw.island.eq(self.island),
            sw.waddr.eq(self.waddr),
            sw.state_we.eq(self.state_we & ~running), sw.state_in.eq(self.state_in),
            sw.clue_we.eq(self.clue_we & ~running), sw.clue_in.eq(self.clue_in),
            self.state_out.eq(sw.state_out), self.clue_out.eq(sw.clue_out),
            fl.state_data.eq(sw.state_out), fl.clue_data.eq(sw.clue_out),
            sw.line_addr.eq(lb.state_addr), lb.state_data.eq(sw.line_out),
            # the label memory and flag (snapshots) and its clear pass
            lb.label_addr.eq(self.label_addr), lb.label_we.eq(self.label_we & ~running),
            lb.label_in.eq(self.label_in), self.label_out.eq(lb.label_out),
            lb.dirty_we.eq(self.dirty_we & ~running), lb.dirty_in.eq(self.dirty_in),
            self.dirty.eq(lb.dirty),
            lb.clear.eq(self.clear_labels & ~running),
            # the groups whose state or label word changes in this clock (the snapshot)
            self.changed_words.eq((sw.word_changed << sw.word_group)
                                  | (lb.word_changed << lb.word_group)),
        ]

        # -- the fix port: the deductions of the stage before, for one sweep pass
        fix_sel = Signal(2)   # 0: none, 1: floods, 2: labels
        m.d.comb += [fl.fix_addr.eq(sw.fix_addr), lb.fix_addr.eq(sw.fix_addr)]
        with m.Switch(fix_sel):
            with m.Case(1):
                m.d.comb += [sw.fix_in[C0].eq(fl.fix_c0), sw.fix_in[C1].eq(fl.fix_c1)]
            with m.Case(2):
                m.d.comb += [sw.fix_in[H0].eq(lb.fix_h0), sw.fix_in[V0].eq(lb.fix_v0)]

        bad = Signal()
        m.d.comb += self.conflict.eq(bad)

        def finish(conflict):
            m.d.sync += bad.eq(conflict)
            m.next = "DONE"

        def sweep_pass(sel, first, last, fresh=False):
            """Start a sweep pass over the span ``first .. last``, with fix ``sel`` (``fresh``:
            the first of a propagation, the span counts start from it)."""
            f, l = Signal(range(self.groups), name="span_first"), \
                Signal(range(self.groups), name="span_last")
            m.d.comb += [f.eq(first), l.eq(last), sw.start.eq(1), sw.first.eq(f), sw.last.eq(l)]
            words, inner = (0, 0) if fresh else (self.sweep_words, self.sweep_inner)
            m.d.sync += [fix_sel.eq(sel), self.sweep_words.eq(words + (l - f + 1)),
                         self.sweep_inner.eq(inner + (f != 0))]
            m.next = "SWEEP"

        # the span after a pass that changed rows: their groups and one either side
        next_first, next_last = Signal(range(self.groups)), Signal(range(self.groups))
        m.d.comb += [a.eq(b) for a, b in zip(
            (next_first, next_last), span_around(sw.changed_first, sw.changed_last, self.limit))]

        labels_on = Signal()   # a label run started beside the flood run
        flood_run = Signal(range(fl.max_passes + 1))   # the passes of the last flood run

        def labels_found():
            """The findings of a label run that ended (the label stage's, as after the floods)."""
            m.d.sync += self.label_passes.eq(self.label_passes + lb.passes)
            with m.If(lb.conflict):
                finish(1)
            with m.Elif(lb.deduced):
                sweep_pass(2, 0, self.limit)
            with m.Else():
                finish(0)

        m.d.comb += self.busy.eq(running | lb.busy)
        with m.FSM(name="band_propagate"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [self.sweeps.eq(0), self.flood_passes.eq(0),
                                 self.label_passes.eq(0), self.floods.eq(0),
                                 self.label_runs.eq(0), self.clocks.eq(0), bad.eq(0),
                                 self.late_label_passes.eq(0), self.late_label_runs.eq(0)]
                    sweep_pass(0, self.first, self.last, fresh=True)
            with m.State("SWEEP"):
                m.d.comb += running.eq(1)
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(sw.done):
                    m.d.sync += self.sweeps.eq(self.sweeps + 1)
                    m.d.comb += lb.lines_changed.eq(sw.lines_added)
                    with m.If(sw.conflict):
                        finish(1)
                    with m.Elif(sw.changed):
                        sweep_pass(0, next_first, next_last)
                    with m.Elif(~sw.live):
                        finish(1)   # every grid cell OUT: no loop
                    with m.Else():
                        # the floods, and beside them the labels if the lines differ from
                        # those the labels settled on (or this pass added one)
                        dirty = lb.dirty | sw.lines_added
                        m.d.comb += [fl.start.eq(1), lb.start.eq(dirty)]
                        m.d.sync += [self.floods.eq(self.floods + 1), labels_on.eq(dirty)]
                        m.next = "FLOOD"
            with m.State("FLOOD"):
                m.d.comb += [running.eq(1), in_flood.eq(1)]
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(fl.done):
                    # the clock the label run beside takes a pass's findings in: the
                    # passes after this one may be partial (docs/deduce.md section 7.3)
                    m.d.comb += lb.hurry.eq(1)
                    m.d.sync += [self.flood_passes.eq(self.flood_passes + fl.passes),
                                 flood_run.eq(fl.passes)]
                    with m.If(fl.conflict | fl.deduced):
                        with m.If(labels_on):
                            # the label run beside it is dropped (this is the clock its
                            # last pass's findings are taken in): its labels stay, dirty
                            m.d.comb += [lb.abort.eq(1), lb.lines_changed.eq(1)]
                            m.d.sync += self.label_passes.eq(self.label_passes + lb.passes)
                        with m.If(fl.conflict):
                            finish(1)
                        with m.Else():
                            sweep_pass(1, 0, self.limit)
                    with m.Elif(labels_on):
                        # the label stage: the run beside the floods
                        m.d.sync += self.label_runs.eq(self.label_runs + 1)
                        with m.If(lb.busy):
                            m.next = "LABELS"   # it outlasts the flood run
                        with m.Else():
                            labels_found()      # it ended first
                    with m.Else():
                        finish(0)
            with m.State("LABELS"):
                m.d.comb += [running.eq(1), lb.hurry.eq(1)]
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(lb.done):
                    m.d.sync += [self.late_label_passes.eq(self.late_label_passes + lb.passes
                                                           - flood_run),
                                 self.late_label_runs.eq(self.late_label_runs + 1)]
                    labels_found()
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        return m
