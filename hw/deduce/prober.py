"""The band engine's probing sequencer: failed-literal probing over a Propagator.

docs/design.md section 6 (the band-of-rows design); docs/deduce.md sections 4 and
12.  Golden model :meth:`model.deduce.Engine.deduce` (near passes, the far
pass, the probe-scored branch picker), with the propagations counted as
:class:`model.band.BandEngine` counts them.  The band equivalent of
:class:`hw.deduce.prober.Prober`: the state is in the propagator's state
memory (one word per group of ``band`` framed rows), so the snapshot, the
candidate walk and the scores all stream over words, one word a clock.

**The snapshot** is a second state memory and a second label memory (one word
per group each, synchronous read: block RAM, ``ram_style``) and a dirty bit,
and it copies only the words that differ.  A register ``differ`` holds a bit
per group: set when the propagator writes a state or label word that changes
(``Propagator.changed_words``) and when the sequencer writes the probed
cell's word, cleared as a save or a restore copies the word, and every group
of the grid (``0 .. limit``) at ``start`` (the live words were loaded or set
from the trail).  Each clock of a copy takes the lowest group in ``differ``.

* A *save* reads the group's live words (``addr`` and ``label_addr`` of the
  propagator, synchronous reads) and writes them to the snapshot in the next
  clock; the clock after the last read reads the snapshot word of the probed
  cell's group (the read port is transparent for the word written in that
  clock), and the clock that starts the propagation writes it to the live
  memory with the cell IN (the assumption): ``n + 1`` clocks for ``n``
  words.  After a probe that failed nothing the live words are the
  snapshot's, so the next cell's save copies nothing; after a failed probe it
  copies the words the fix changed; the first save of a ``deduce`` copies
  every word of the grid.
* A *restore* reads the group's snapshot words and, in the same clock, its
  live state word (the *propagated* word, for the score), and writes the
  snapshot words to the live memories in the next clock (the live memories'
  write addresses are their own, ``waddr`` and ``label_addr``): ``n + 1``
  clocks for ``n`` words.
* **The score** needs the known grid cells (``(C0 | C1) & grid``, the grid
  from the clue memory's port at the same address) of the whole propagated
  state, while a restore reads only the words that differ: ``known_base``
  holds the count of the snapshot (summed over the first save's words, then
  changed by each save by the count of the word it copies less the count of
  the word it overwrites), and a restore adds, for each word it copies, the
  count of the propagated word less the snapshot word's (two popcounts a
  clock).  For the clock rate this is a pipeline: the two popcounts of the
  words arriving are registered, added to ``known_base`` (a save) or to the
  restore's sums in the next clock, the restore's total is registered the
  clock after its last addition and used (kept as the IN probe's count, or
  the cell scored and the best cell updated) in the clock after that: three
  clocks after the restore's last clock, while the next propagation (at
  least three clocks) or the next scan (four clocks before it can pick a
  cell or end a pass) runs, so the engine's clocks are as without it.
* The dirty flag is copied in the first clock of a save and of a restore.
  When the next step is a propagation from the restored state with the probed
  cell OUT (the OUT probe after a successful IN probe, or the fix after a
  failed IN probe) or IN (the fix after a failed OUT probe), the restore writes
  that colour into the cell's word as it goes (the word differs from the
  snapshot's again) and starts the propagation in its last clock: the OUT
  probe needs no copy of its own (the snapshot is still the state before the
  IN probe), so its save costs no clock (``saves`` counts it all the same, as
  the model does).

The words copied are counted in ``snap_words``, which equals the band model's
``BandCounters.snapshot_words`` (:class:`model.band.BandEngine`: the words in
which the live state or label array differs from the snapshot's).

**The candidate walk** (a *scan*) starts at a group ``g0`` (0 at the start of
a pass, else the group of the cell just probed, with only the cells after it);
it reads groups ``g0 - 1, g0, g0 + 1, ...`` one a clock (groups outside the
memory read as zero) into a window of three words (previous, current, next)
and, from its fourth clock on, evaluates one group a clock: the candidates of
the current group are its grid cells that are unknown and have (near pass) or
have not (far pass) a known orthogonal neighbour in the window; the lowest
one is probed.  So a scan that evaluates ``k`` groups takes ``3 + k`` clocks;
the scan that reaches the last group without a candidate ends the pass in its
last clock (a new near pass, the far pass, or the end).  "Cells are unknown"
(for the far pass) is gathered over the groups the pass evaluated: a pass
that fixed nothing evaluated every group on an unchanged state.

**Implied colours** (docs/deduce.md section 4; the model's ``implied``): a
third memory of one word per group (LUT RAM) holds the colours (C0 and C1
bits) that the propagated states of successful probes held since the live
state last changed, and a register ``implied_valid`` a bit per group: a
restore after a successful probe ORs each propagated word it reads into the
group's word (the words it does not copy equal the live state's), and a failed
probe clears every bit in one clock (as at ``start``).  The scan reads the
evaluated group's word: a cell with both colours implied is not a candidate;
a cell whose IN is implied is probed OUT first (the save writes it OUT), and
one whose OUT is implied gets no OUT probe; such a cell is not scored.

**Scores**: the IN probe's count is kept; after the OUT probe the cell scores
the smaller count; ``best_valid``, ``best_group``, ``best_pos`` (bit of the
word: row ``best_group * band + best_pos // W``, column ``best_pos % W``) and
``best_index`` (``best_group * band * W + best_pos``, the build's cell index)
are the first cell with the highest score since the last near pass began
(cleared at ``start`` and at every new near pass); when no cell scored (their
colours were implied), they give the first candidate the last near pass met,
implied or not (``fb_*``: the model's ``candidates(state)[0]``).

**Clocks** (``clocks`` counts the clocks from the one after ``start`` to the one
before ``done``, as the propagator does)::

    clocks = prop_clocks + (1 + probes + probe_hits)            (propagations)
           + cells x 2 + restores + snap_words                  (saves, restores)
           + scan_clocks

``prop_clocks``: the propagator's own ``clocks`` summed over its runs (each run
ends with its ``done`` clock, the ``+ 1`` a run); ``cells``: cells probed (IN
probes; a save is ``n + 1`` clocks and one to start the propagation);
``snap_words``: the words the saves and restores copied; ``scan_clocks``: the
scans, ``3 + k`` each.  Against the model's snapshot words
(:class:`model.band.BandCycleModel`): 2 clocks more per cell and 1 per
restore, plus the scans the model does not charge.  (Before the snapshot
copied only the words that differ, every save and restore copied every
group: ``cells x (groups + 2) + restores x (groups + 1)``.)

**Sweep spans** (:class:`~hw.deduce.propagator.Propagator`): the first
propagation's first sweep pass writes the groups ``first .. last`` (inputs: every
group of the grid, ``0 .. limit``, for a loaded state; the group of a cell the
engine set and one either side after a decision or a backtrack); every other
propagation starts from the live state, a fixpoint, with the probed cell set, so
its first pass writes the cell's group and one either side (within ``0 ..
limit``).

Ports: as :class:`~hw.deduce.propagator.Propagator`'s (``addr``,
``state_*``, ``clue_*``, ``label_*``, ``dirty*``, ``clear_labels``, ``island``;
the outside's only when not ``busy``; ``first``, ``last``, ``limit``: the spans,
sampled with ``start``, ``limit`` held); ``start`` runs ``deduce``; ``busy`` until
``done`` (one clock); ``conflict`` and the best cell valid from ``done`` to the
next ``start``; ``complete`` (every grid cell known: the run ended with a near pass
that saw no unknown cell) from ``done`` to the next ``start``, 0 after a conflict.
Counters, cleared by ``start``: ``probes``, ``probe_hits``,
``saves``, ``restores`` and the propagator's totals ``sweeps``,
``flood_passes``, ``label_passes``, ``floods``, ``label_runs``, ``sweep_words``,
``sweep_inner`` (equal to the model's), ``snap_words`` (equal to the model's
``snapshot_words``), ``prop_clocks``, ``cells``, ``scan_clocks`` and ``clocks``.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from slitherlink.spec.deduce import C0, C1

from ..popcount import popcount
from .propagator import (COUNT_WIDTH, SPAN_COUNTERS, Propagator, memory_ports,
                         span_around)

__all__ = ["Prober", "PROPAGATOR_COUNTERS"]

PROPAGATOR_COUNTERS = ("sweeps", "flood_passes", "label_passes", "floods", "label_runs")


class Prober(wiring.Component):
    """Propagation plus failed-literal probing over band memories (module docstring)."""

    def __init__(self, max_rows, max_cols, *, band=1, ram_style=None, label_network="small"):
        self.propagator = prop = Propagator(max_rows, max_cols, band=band,
                                                ram_style=ram_style,
                                                label_network=label_network)
        self.geometry = prop.geometry
        self.max_rows, self.max_cols, self.band = max_rows, max_cols, band
        self.groups = groups = prop.groups
        self.word_bits = bits = band * self.geometry.width
        self.score_bits = max(1, self.geometry.cells.bit_length())
        sw, lb = prop.sweep, prop.labels_block
        self.state_layout, self.clue_layout = sw.state_layout, sw.clue_layout
        self.label_layout = lb.label_layout
        counters = ("probes", "probe_hits", "saves", "restores", "cells", "snap_words",
                    "prop_clocks", "scan_clocks", "clocks") + PROPAGATOR_COUNTERS + SPAN_COUNTERS
        super().__init__({
            **memory_ports(sw, lb, groups),
            "first": In(range(groups)),
            "last": In(range(groups)),
            "limit": In(range(groups)),
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),
            "conflict": Out(1),
            "complete": Out(1),
            "best_valid": Out(1),
            "best_group": Out(range(groups)),
            "best_pos": Out(range(bits)),
            "best_index": Out(range(groups * bits)),
            **{name: Out(COUNT_WIDTH) for name in counters},
        })

    def elaborate(self, platform):
        m = Module()
        prop = self.propagator
        m.submodules.propagator = prop
        groups, bits, w = self.groups, self.word_bits, self.geometry.width

        # the snapshot is read a clock ahead of its write to the live memories (their write
        # addresses are their own: ``waddr``, ``label_addr``), so it can be block RAM
        block = {"ram_style": "block"}
        m.submodules.snap_state = snap_mem = Memory(
            shape=self.state_layout, depth=groups, init=[], attrs=block)
        m.submodules.snap_labels = snapl_mem = Memory(
            shape=self.label_layout, depth=groups, init=[], attrs=block)
        s_wr = snap_mem.write_port()
        s_rd = snap_mem.read_port(transparent_for=(s_wr,))   # the word a save just wrote
        l_rd, l_wr = snapl_mem.read_port(transparent_for=()), snapl_mem.write_port()
        # -- implied colours: per group the C0 bits (OUT) and the C1 bits (IN)
        m.submodules.implied = imp_mem = Memory(shape=2 * bits, depth=groups, init=[])
        # one read port: the restore (which ORs into a word) and the scan (which reads the
        # evaluated group's word) never run in the same clock
        i_rd, i_wr = imp_mem.read_port(domain="comb"), imp_mem.write_port()
        implied_valid = Signal(groups)         # the group's word holds implied colours
        snap_dirty = Signal()

        active = Signal()   # the sequencer drives the propagator's ports
        # -- the propagator's ports: the outside's unless the sequencer runs
        m.d.comb += [
            prop.island.eq(self.island),
            self.state_out.eq(prop.state_out), self.clue_out.eq(prop.clue_out),
            self.label_out.eq(prop.label_out), self.dirty.eq(prop.dirty),
            prop.clue_in.eq(self.clue_in), prop.clue_we.eq(self.clue_we & ~active),
        ]
        with m.If(~active):
            m.d.comb += [
                prop.addr.eq(self.addr), prop.waddr.eq(self.waddr),
                prop.state_we.eq(self.state_we),
                prop.state_in.eq(self.state_in),
                prop.label_addr.eq(self.label_addr), prop.label_we.eq(self.label_we),
                prop.label_in.eq(self.label_in),
                prop.dirty_we.eq(self.dirty_we), prop.dirty_in.eq(self.dirty_in),
                prop.clear_labels.eq(self.clear_labels),
            ]

        bad = Signal()
        m.d.comb += self.conflict.eq(bad)
        t = Signal(range(groups + 2))          # clock within a save / restore
        cell_group = Signal(range(groups))     # the cell being probed ...
        cell_bit = Signal(bits)                # ... one-hot in its word
        cell_pos = Signal(range(bits))
        colour = Signal()                      # 1: the IN probe is running
        in_skip = Signal()                     # the cell's IN is implied (OUT probed first)
        out_skip = Signal()                    # the cell's OUT is implied (no OUT probe)
        hit = Signal()                         # the probe failed
        fixed = Signal()                       # this pass fixed a cell
        far = Signal()
        unknown_any = Signal()                 # unknown cells seen in this pass
        best = Signal(self.score_bits)
        best_valid = Signal()
        best_group = Signal(range(groups))
        best_pos = Signal(range(bits))
        # no cell scored (their colours were implied): the first candidate of the last
        # near pass (every unknown cell with a known neighbour, implied or not)
        fb_valid = Signal()
        fb_group = Signal(range(groups))
        fb_pos = Signal(range(bits))
        pick_group = Signal(range(groups))
        pick_pos = Signal(range(bits))
        m.d.comb += [pick_group.eq(Mux(best_valid, best_group, fb_group)),
                     pick_pos.eq(Mux(best_valid, best_pos, fb_pos)),
                     self.best_valid.eq(best_valid | (fb_valid & ~bad)),
                     self.best_group.eq(pick_group), self.best_pos.eq(pick_pos),
                     self.best_index.eq(pick_group * bits + pick_pos)]
        count_in = Signal(self.score_bits + 1)   # the IN probe's count
        # -- the words that may differ between the live memories and the snapshot: set by
        # every changed write (the propagator's, and the cell's word written here), cleared
        # as a save or a restore copies the word; every word of the grid at ``start``
        differ = Signal(groups)
        differ_set, differ_clr = Signal(groups), Signal(groups)
        differ_cell = Signal()                 # the cell's word is written here
        m.d.comb += differ_set.eq(prop.changed_words | (differ_cell << cell_group))
        m.d.sync += differ.eq((differ & ~differ_clr) | differ_set)
        pick = Signal(range(groups))           # the lowest group in ``differ``
        for g in reversed(range(groups)):
            with m.If(differ[g]):
                m.d.comb += pick.eq(g)
        pend = Signal()                        # a word was read for a copy last clock ...
        pend_g = Signal(range(groups))         # ... of this group
        snap_known = Signal(bits)              # its snapshot word's known cells
        known_base = Signal(self.score_bits + 1)   # known grid cells of the snapshot
        fresh = Signal()                       # the snapshot has not been saved yet
        count = Signal(self.score_bits + 1)       # a restore's known cells: live words ...
        count_snap = Signal(self.score_bits + 1)  # ... and the snapshot's, so far

        def bump(*names):
            m.d.sync += [getattr(self, n).eq(getattr(self, n) + 1) for n in names]

        def accumulate():
            m.d.sync += [getattr(self, n).eq(getattr(self, n) + getattr(prop, n))
                         for n in PROPAGATOR_COUNTERS + SPAN_COUNTERS]
            m.d.sync += self.prop_clocks.eq(self.prop_clocks + prop.clocks)

        # -- the word arriving from the state / clue read ports, as known cells and grid
        word_known = Signal(bits)
        word_grid = Signal(bits)
        m.d.comb += [word_known.eq(prop.state_out[C0] | prop.state_out[C1]),
                     word_grid.eq(prop.clue_out.grid)]
        pc = Signal(self.score_bits + 1)
        m.d.comb += pc.eq(popcount(m, word_known & word_grid, name="known"))
        m.d.comb += snap_known.eq(s_rd.data[C0] | s_rd.data[C1])
        pc_snap = Signal(self.score_bits + 1)
        m.d.comb += pc_snap.eq(popcount(m, snap_known & word_grid, name="snap_known"))
        # -- the score pipeline (module docstring, "The score"): the popcounts registered,
        # added in the next clock (``add_save``: to ``known_base``; ``add_restore``: to
        # ``count`` and ``count_snap``); a restore's ``total`` the clock after its last
        # addition, and its use (``score_op``) the clock after that
        pc_r, pc_snap_r = Signal.like(pc), Signal.like(pc_snap)
        m.d.sync += [pc_r.eq(pc), pc_snap_r.eq(pc_snap)]
        add_save, add_fresh, add_restore = Signal(), Signal(), Signal()
        m.d.sync += [add_save.eq(0), add_restore.eq(0)]
        with m.If(add_save):
            m.d.sync += known_base.eq(known_base + pc_r - Mux(add_fresh, 0, pc_snap_r))
        with m.If(add_restore):
            m.d.sync += [count.eq(count + pc_r), count_snap.eq(count_snap + pc_snap_r)]
        # what the restore that ended wants of its total: nothing, keep it as the IN
        # probe's count, or score the cell
        KEEP_IN, SCORE = 1, 2
        op_1, op_2, score_op = Signal(2), Signal(2), Signal(2)
        m.d.sync += [op_1.eq(0), op_2.eq(op_1), score_op.eq(op_2)]
        total = Signal(self.score_bits + 1)
        m.d.sync += total.eq(known_base + count - count_snap)
        with m.If(score_op == KEEP_IN):
            m.d.sync += count_in.eq(total)
        with m.If(score_op == SCORE):
            # min(total, count_in) > best, the two compares side by side
            with m.If(~in_skip & (total > best) & (count_in > best)):
                m.d.sync += [best.eq(Mux(total < count_in, total, count_in)), best_valid.eq(1),
                             best_group.eq(cell_group), best_pos.eq(cell_pos)]

        # -- the scan window
        rd = Signal(range(-1, groups + 2))     # the group read in this clock
        zero = Signal()                        # the word arriving is outside the memory
        prev_k, cur_k, cur_g = Signal(bits), Signal(bits), Signal(bits)
        eg = Signal(range(groups + 1))         # the group evaluated
        first_mask = Signal(bits)              # cells of eg that may be taken
        nxt_k = Signal(bits)
        m.d.comb += nxt_k.eq(Mux(zero, 0, word_known))
        nxt_g = Signal(bits)
        m.d.comb += nxt_g.eq(Mux(zero, 0, word_grid))
        win = Signal(3 * bits)
        m.d.comb += win.eq(Cat(prev_k, cur_k, nxt_k))
        near_w = Signal(3 * bits)
        m.d.comb += near_w.eq((win << 1) | (win >> 1) | (win << w) | (win >> w))
        near = Signal(bits)
        m.d.comb += near.eq(near_w[bits:2 * bits])
        unknown = Signal(bits)
        m.d.comb += unknown.eq(cur_g & ~cur_k)
        imp_out, imp_in = Signal(bits), Signal(bits)   # the evaluated group's implied colours
        scan_g = Signal(range(groups))
        m.d.comb += [scan_g.eq(Mux(eg < groups, eg, 0)), i_rd.addr.eq(scan_g)]
        with m.If(implied_valid.bit_select(scan_g, 1) & (eg < groups)):
            m.d.comb += Cat(imp_out, imp_in).eq(i_rd.data)
        cands = Signal(bits)
        m.d.comb += cands.eq(unknown & Mux(far, ~near, near) & first_mask & ~(imp_in & imp_out))
        first = Signal(bits)
        m.d.comb += first.eq(cands & (~cands + 1))
        first_pos = Signal(range(bits))
        for i in reversed(range(bits)):
            with m.If(first[i]):
                m.d.comb += first_pos.eq(i)
        near_cands = Signal(bits)              # a near pass's candidates, implied or not
        m.d.comb += near_cands.eq(unknown & near & first_mask)
        near_pos = Signal(range(bits))
        for i in reversed(range(bits)):
            with m.If(near_cands[i]):
                m.d.comb += near_pos.eq(i)
        scan_t = Signal(2)

        def scan_from(group, mask):
            m.d.sync += [rd.eq(group - 1), eg.eq(group), first_mask.eq(mask), scan_t.eq(0)]
            m.next = "SCAN"

        def new_pass(is_far):
            m.d.sync += [fixed.eq(0), far.eq(is_far), unknown_any.eq(0)]
            if not is_far:
                m.d.sync += fb_valid.eq(0)
            scan_from(0, (1 << bits) - 1)

        def after_cell():
            scan_from(cell_group, ~((cell_bit << 1) - 1))

        def copy_pick():
            """A save's or a restore's copy of group ``pick`` (the lowest that differs):
            its bit cleared, the snapshot word read (it arrives in the next clock, with the
            live word read with it), counted."""
            m.d.comb += [s_rd.addr.eq(pick), differ_clr.eq(1 << pick)]
            m.d.sync += [pend.eq(1), pend_g.eq(pick)]
            bump("snap_words")

        # snapshot words with the probed cell's colour set
        def with_cell(word, group, value):
            word_v = Signal(self.state_layout, name="cell_word")
            m.d.comb += word_v.eq(word)
            word = word_v
            out = Signal(self.state_layout, name="with_cell")
            m.d.comb += out.eq(word)
            with m.If(group == cell_group):
                with m.If(value):
                    m.d.comb += out[C1].eq(word[C1] | cell_bit)
                with m.Else():
                    m.d.comb += out[C0].eq(word[C0] | cell_bit)
            return out

        def propagated(then):
            """When a propagation that must not fail ends: its counts; a conflict ends the
            run (``deduce`` fails), else ``then()``."""
            with m.If(prop.done):
                accumulate()
                with m.If(prop.conflict):
                    m.d.sync += bad.eq(1)
                    m.next = "DONE"
                with m.Else():
                    then()

        # -- the spans of the propagations' first sweep passes: the outside's for the first
        # propagation, the probed cell's group and one either side for the others (the
        # state before the cell was set is a fixpoint)
        m.d.comb += [prop.limit.eq(self.limit),
                     *(a.eq(b) for a, b in zip((prop.first, prop.last),
                                               span_around(cell_group, cell_group, self.limit)))]

        busy = Signal()
        m.d.comb += self.busy.eq(busy | prop.busy)
        with m.If(busy):
            m.d.sync += self.clocks.eq(self.clocks + 1)

        with m.FSM(name="band_probe"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [getattr(self, n).eq(0) for n in
                                 ("probes", "probe_hits", "saves", "restores", "cells",
                                  "snap_words", "prop_clocks", "scan_clocks", "clocks")
                                 + PROPAGATOR_COUNTERS + SPAN_COUNTERS]
                    m.d.sync += [bad.eq(0), best.eq(0), best_valid.eq(0), best_group.eq(0),
                                 best_pos.eq(0), self.complete.eq(0), fb_valid.eq(0)]
                    # the live words were loaded or set from outside: the grid's all differ
                    m.d.sync += [differ.eq((1 << (self.limit + 1)) - 1), fresh.eq(1),
                                 known_base.eq(0), pend.eq(0), implied_valid.eq(0)]
                    m.d.comb += [prop.start.eq(1), prop.first.eq(self.first),
                                 prop.last.eq(self.last)]
                    m.next = "FIRST"
            with m.State("FIRST"):             # the initial propagation
                m.d.comb += [busy.eq(1), active.eq(1)]
                propagated(lambda: new_pass(0))
            with m.State("SCAN"):
                m.d.comb += [busy.eq(1), active.eq(1)]
                bump("scan_clocks")
                m.d.comb += prop.addr.eq(Mux((rd >= 0) & (rd < groups), rd, 0))
                m.d.sync += [rd.eq(rd + 1), zero.eq((rd < 0) | (rd >= groups))]
                with m.If(scan_t != 3):
                    m.d.sync += scan_t.eq(scan_t + 1)
                    m.d.sync += [prev_k.eq(cur_k), cur_k.eq(nxt_k), cur_g.eq(nxt_g)]
                with m.Else():
                    m.d.sync += unknown_any.eq(unknown_any | unknown.any())
                    with m.If(~far & ~fb_valid & near_cands.any()):
                        m.d.sync += [fb_valid.eq(1), fb_group.eq(eg), fb_pos.eq(near_pos)]
                    with m.If(cands.any()):   # probe it: save, IN (OUT if IN is implied)
                        m.d.sync += [cell_group.eq(eg), cell_bit.eq(first),
                                     cell_pos.eq(first_pos), t.eq(0),
                                     colour.eq(~(first & imp_in).any()),
                                     in_skip.eq((first & imp_in).any()),
                                     out_skip.eq((first & imp_out).any())]
                        bump("probes", "saves", "cells")
                        m.next = "SAVE"
                    with m.Elif(eg == groups - 1):   # the pass ends
                        with m.If(fixed):
                            m.d.sync += [best.eq(0), best_valid.eq(0)]
                            new_pass(0)
                        with m.Elif(~far & (unknown_any | unknown.any())):
                            new_pass(1)
                        with m.Else():   # far, or a near pass that saw no unknown cell
                            m.d.sync += self.complete.eq(~far)
                            m.next = "DONE"
                    with m.Else():
                        m.d.sync += [eg.eq(eg + 1), first_mask.eq(~0),
                                     prev_k.eq(cur_k), cur_k.eq(nxt_k), cur_g.eq(nxt_g)]
            with m.State("SAVE"):     # live -> snapshot (the words that differ); the cell
                m.d.comb += [busy.eq(1), active.eq(1)]
                m.d.sync += t.eq(t + 1)
                with m.If(t == 0):
                    m.d.sync += snap_dirty.eq(prop.dirty)
                with m.If(pend):               # the word read last clock into the snapshot
                    m.d.comb += [s_wr.addr.eq(pend_g), s_wr.data.eq(prop.state_out),
                                 s_wr.en.eq(1),
                                 l_wr.addr.eq(pend_g), l_wr.data.eq(prop.label_out),
                                 l_wr.en.eq(1)]
                    m.d.sync += [add_save.eq(1), add_fresh.eq(fresh)]
                with m.If(differ.any()):       # read the next one
                    copy_pick()
                    m.d.comb += [prop.addr.eq(pick), prop.label_addr.eq(pick)]
                with m.Else():                 # the snapshot is the live state: the cell's
                    # word read (the word written in this clock, if it is that group)
                    m.d.comb += s_rd.addr.eq(cell_group)
                    m.d.sync += [pend.eq(0), fresh.eq(0)]
                    m.next = "START"
            with m.State("START"):             # the cell set, and the propagation started
                m.d.comb += [busy.eq(1), active.eq(1), prop.start.eq(1),
                             prop.waddr.eq(cell_group), prop.state_we.eq(1),
                             prop.state_in.eq(with_cell(s_rd.data, cell_group, colour)),
                             differ_cell.eq(1)]
                m.next = "PROBE"
            with m.State("PROBE"):
                m.d.comb += [busy.eq(1), active.eq(1)]
                with m.If(prop.done):
                    accumulate()
                    bump("restores")
                    m.d.sync += [hit.eq(prop.conflict), t.eq(0), count.eq(0), count_snap.eq(0)]
                    with m.If(prop.conflict):   # the live state changes: nothing implied
                        bump("probe_hits")
                        m.d.sync += [fixed.eq(1), implied_valid.eq(0)]
                    m.next = "RESTORE"
            with m.State("RESTORE"):          # snapshot -> live (the words that differ)
                m.d.comb += [busy.eq(1), active.eq(1)]
                m.d.sync += t.eq(t + 1)
                # the colour to write with it: OUT after IN (probe or fix; no OUT probe when
                # OUT is implied), IN after OUT (fix)
                put = Signal()
                m.d.comb += put.eq(hit | (colour & ~out_skip))
                with m.If(t == 0):
                    m.d.comb += [prop.dirty_we.eq(1), prop.dirty_in.eq(snap_dirty)]
                with m.If(pend):               # the propagated word read last clock: counted;
                    # the snapshot's words read last clock: written back (the colour to
                    # write with it, in the cell's word)
                    m.d.comb += [prop.waddr.eq(pend_g), prop.state_we.eq(1),
                                 prop.label_addr.eq(pend_g), prop.label_we.eq(1),
                                 prop.label_in.eq(l_rd.data)]
                    with m.If(put):
                        m.d.comb += prop.state_in.eq(with_cell(s_rd.data, pend_g, ~colour))
                    with m.Else():
                        m.d.comb += prop.state_in.eq(s_rd.data)
                    m.d.sync += add_restore.eq(1)
                    with m.If(~hit):           # and its colours implied
                        old = Mux(implied_valid.bit_select(pend_g, 1), i_rd.data, 0)
                        m.d.comb += [i_rd.addr.eq(pend_g), i_wr.addr.eq(pend_g),
                                     i_wr.data.eq(old | Cat(prop.state_out[C0],
                                                            prop.state_out[C1])),
                                     i_wr.en.eq(1)]
                        m.d.sync += implied_valid.eq(implied_valid | (1 << pend_g))
                with m.If(differ.any()):
                    copy_pick()
                    m.d.comb += [l_rd.addr.eq(pick), prop.addr.eq(pick)]
                with m.If(~differ.any()):      # the last word's count has come
                    m.d.sync += pend.eq(0)
                    m.d.comb += differ_cell.eq(put)   # the cell's word differs again
                    with m.If(hit):            # the other colour, propagated in the live state
                        m.d.comb += prop.start.eq(1)
                        m.next = "FIX"
                    with m.Elif(colour & out_skip):   # OUT implied: no OUT probe, no score
                        after_cell()
                    with m.Elif(colour):       # the OUT probe (the snapshot is still valid)
                        m.d.sync += [op_1.eq(KEEP_IN), colour.eq(0)]
                        bump("probes", "saves")
                        m.d.comb += prop.start.eq(1)
                        m.next = "PROBE"
                    with m.Else():             # both succeeded: the score
                        m.d.sync += op_1.eq(SCORE)
                        after_cell()
            with m.State("FIX"):
                m.d.comb += [busy.eq(1), active.eq(1)]
                propagated(after_cell)
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        return m
