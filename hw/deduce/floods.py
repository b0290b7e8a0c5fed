"""The band flood processor: both floods as band passes over a state held in memory.

DESIGN.md section 6 (the band-of-rows design: "a flood then converges in a
few alternating top-down/bottom-up passes, with a row-wide prefix for the
horizontal spread"); docs/deduce.md section 3; golden model
:func:`model.band.band_floods` (whose findings are :func:`model.deduce.floods`').
Geometry as in :mod:`hw.deduce.sweep`: bitboards of the build size
(``max_rows`` x ``max_cols``, ``W = max_cols + 2``, framed rows ``0 ..
max_rows + 1``), one memory word per *group* of ``band`` framed rows (``groups
= ceil((max_rows + 2) / band)``, rows past ``max_rows + 1`` in the last group
are padding); a puzzle of run-time size occupies the top-left corner and every
cell outside its grid is frame (OUT, as the state holds it).

Memories:

* the **state** is not this block's (in the engine it is the sweep's,
  :class:`~hw.deduce.sweep.Sweep`): the block drives ``state_addr`` (a
  group) and takes ``state_data``, the group's word in ``Sweep``'s
  :data:`state word <hw.deduce.sweep.Sweep.state_layout>` layout, in the
  next clock, as from a synchronous read port; only the boards C0, C1, H1 and
  V1 are used (the others may be left unconnected).  The run-time ``grid``
  rows come the same way from the clue memory (``clue_addr`` /
  ``clue_data``, ``Sweep``'s clue word; only ``grid`` is used);
  ``clue_addr`` always equals ``state_addr`` (two ports, so the engine may
  route them to two memories).  Both must hold still while ``busy``.
* the **reach** memory is this block's: one word per group, ``unreached_in``
  and ``unreached_out`` (``band * W`` bits each, the state's bit order): the
  grid cells *not* reached by the IN / OUT flood (``grid & ~reach``).  A
  frame cell is reached by the OUT flood exactly when it is not IN (every
  frame cell seeds it), so ``reach_out = grid & ~unreached_out | ~grid & ~C1``
  and ``reach_in = grid & ~unreached_in`` are rebuilt as each word is read,
  and the stored words are the deductions themselves (the ``fix`` port).

A pass (:func:`model.band.band_floods`): pass 1 top-down, then alternating;
the rows are updated in place, Gauss-Seidel by rows::

    seeds = reach[i]                       (old: the previous pass's; pass 1: the seeds)
          | reach[i-1] & ~V1[i-1]          (top-down: new, the row written last)
          | reach[i+1] & ~V1[i]            (top-down: old, the row read ahead)
    reach[i] = run_closure(seeds & region[i])

(bottom-up passes swap ``i-1`` and ``i+1``), for both floods at once: IN
through grid cells not OUT, OUT through cells not IN; ``run_closure`` is the
row-wide segmented prefix-OR both ways (Kogge-Stone, ``ceil(log2 W)`` steps)
along runs of region cells joined by non-LINE H edges.  Pass 1 ignores the
stored words (stale from the last run): the old reach is the seeds - OUT:
the frame cells not IN, IN: none - and the first row of the pass holding an
IN cell (``C1 & grid``) injects its lowest IN cell before its closure.  With
``band`` > 1 the rows of a group are chained combinationally in the pass
direction (one closure chain, its inputs and outputs reversed by a
multiplexer in bottom-up passes): a pass computes the same rows for every
band height, ``band`` closures deep.  A pass leaves something *pending* when
a row's new reach would seed the row processed just before it (the held row
for a group's first row, the row before it in the chain for the others: a cell
of that row's region, across a non-LINE edge between them, outside its new
reach).  The passes end with the first pass that changes no reach bit or leaves
nothing pending (counted); in that pass the reach is final as it is computed
(a pass the other way would change nothing: :func:`model.band.band_floods`),
so the conflicts (an IN cell out of the IN reach; an OUT grid cell out of the
OUT reach) and "a deduction exists" (an unknown grid cell out of a reach, the
IN one counting only when there is an IN cell) are accumulated in every pass
and kept from the last.

Pipeline of a pass (``t = 0 .. groups + 1``; ``order(t)`` = group ``t``
top-down, ``groups - 1 - t`` bottom-up):

* clock ``t < groups``: ``state_addr``, ``clue_addr`` and the reach memory
  read group ``order(t)``;
* clock ``t + 1``: that group's words (state, grid, stored reach) are the
  *ahead* group: the row of it next to the group being processed gives the
  old reach of the row ahead (and, bottom-up, its ``V1``); at the end of the
  clock they are registered as the *current* group;
* clock ``t + 2``: group ``order(t)`` is processed from the registered words,
  the ahead row (group ``order(t + 1)``, zero past the last) and the *held*
  row: the new reach of the row processed last (group ``order(t - 1)``'s last
  row in the pass direction, zero for the first group) and, top-down, its
  ``V1``; its new stored words are written to the reach memory in the same
  clock.

Each group is read (clock ``t``) before it is written (clock ``t + 2``), and
the next pass, in the other direction, starts in the clock after the last
write with the group written last (a synchronous read of the clock after a
write sees it), so passes run back to back: **``groups + 2`` clocks a pass**,
no turnaround - the model's ``ceil((R+2)/band) + L`` with ``L = 2``.

Timing: ``start`` (in the clock it is seen, while not ``busy``) clears the
flags; then ``busy`` is high for ``clocks = passes x (groups + 2)`` clocks;
in the clock after the last one ``done`` is high for one clock; ``conflict``,
``deduced``, ``passes`` (= :func:`model.band.band_floods`' passes) and
``clocks`` stay valid until the next ``start``.  E.g. ``band`` = 1 at 10x10:
12 groups, 14 clocks a pass; at 20x36: 22 groups, 24 clocks a pass.

Deductions (``fix`` port, while not ``busy``, valid after ``done`` until the
next ``start``): ``fix_addr`` (a group) gives in the next clock ``fix_c0`` =
``grid & ~reach_in`` when some IN cell exists (else 0) and ``fix_c1`` =
``grid & ~reach_out``, the group's rows in the state's bit order: the cells
to set OUT and IN.  They differ from the model's deductions (``unknown &
~reach``) only on cells already OUT (``fix_c0``) or IN (``fix_c1``): a grid
cell OUT is in no IN reach, an IN cell in no OUT reach.  So when the floods
found no conflict (every IN cell in the IN reach, every OUT grid cell in the
OUT reach), ``C0 | fix_c0`` and ``C1 | fix_c1`` are exactly the model's new
boards, and ``fix & unknown`` its deductions; the sweep pass that follows
ORs them into each word as it reads it.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from slitherlink.spec.deduce import C0, C1, H1, V1

from .rules import BOARDS
from .sweep import band_groups

__all__ = ["Floods", "closure"]


def closure(seeds, link, w):
    """Every bit of a run (bits joined by ``link``: bit ``c`` joins ``c`` and
    ``c + 1``) that holds a seed: a segmented prefix-OR in both directions
    (Kogge-Stone, as :func:`model.band._closure`); ``w``-bit values."""
    def shl(x, k):
        return Cat(Const(0, k), x[:w - k])

    def shr(x, k):
        return Cat(x[k:], Const(0, k))
    right = left = seeds
    span = link
    k = 1
    while k < w:
        right = right | shl(right & span, k)
        left = left | (shr(left, k) & span)
        span = span & shr(span, k)
        k <<= 1
    return right | left


class Floods(wiring.Component):
    """Both floods as band passes over a state held outside (module docstring)."""

    def __init__(self, max_rows, max_cols, *, band=1, ram_style=None):
        self.geometry, self.groups = geo, groups = band_groups(max_rows, max_cols, band)
        self.max_rows, self.max_cols, self.band = max_rows, max_cols, band
        self.ram_style = ram_style
        bits = band * geo.width
        #: clocks of one pass (``busy`` high); passes run back to back
        self.pass_clocks = groups + 2
        #: every pass but the last adds a reach bit: at most 2 x grid cells + 1 passes
        self.max_passes = 2 * max_rows * max_cols + 1
        #: Sweep's state and clue words
        self.state_layout = data.ArrayLayout(bits, BOARDS)
        self.clue_layout = data.StructLayout({"grid": bits, "clue": data.ArrayLayout(bits, 4)})
        self.reach_layout = data.StructLayout({"unreached_in": bits, "unreached_out": bits})
        super().__init__({
            "state_addr": Out(range(groups)),
            "state_data": In(self.state_layout),
            "clue_addr": Out(range(groups)),
            "clue_data": In(self.clue_layout),
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),
            "conflict": Out(1),
            "deduced": Out(1),
            "passes": Out(range(self.max_passes + 1)),
            "clocks": Out(range(self.max_passes * self.pass_clocks + 1)),
            "fix_addr": In(range(groups)),
            "fix_c0": Out(bits),
            "fix_c1": Out(bits),
        })

    def elaborate(self, platform):
        m = Module()
        geo, band, groups = self.geometry, self.band, self.groups
        w = geo.width
        bits = band * w
        nrows = geo.rows + 2
        row_mask = Const((1 << w) - 1, w)
        no_last = Const((1 << (w - 1)) - 1, w)   # no H link from the last column onwards

        attrs = {"ram_style": self.ram_style} if self.ram_style else None
        m.submodules.reach_mem = reach_mem = Memory(
            shape=self.reach_layout, depth=groups, init=[], attrs=attrs)
        r_rd, r_wr = reach_mem.read_port(), reach_mem.write_port()

        t = Signal(range(self.pass_clocks + 1))
        running = Signal()
        down = Signal()       # this pass runs top-down
        first = Signal()      # pass 1: the stored words are stale, start from the seeds
        seeded = Signal()     # the IN seed has been injected (some IN cell exists)

        # -- reads: group order(t) in clock t
        rd_ok = Signal()
        rd_group = Signal(range(groups))
        m.d.comb += [rd_ok.eq(running & (t < groups)),
                     rd_group.eq(Mux(down, t, groups - 1 - t)),
                     self.state_addr.eq(Mux(rd_ok, rd_group, 0)),
                     self.clue_addr.eq(Mux(rd_ok, rd_group, 0))]
        with m.If(running):
            m.d.comb += r_rd.addr.eq(rd_group)
        with m.Else():
            m.d.comb += r_rd.addr.eq(self.fix_addr)
        ahead_ok = Signal()
        ahead_group = Signal(range(groups))
        m.d.sync += [ahead_ok.eq(rd_ok), ahead_group.eq(rd_group)]

        # the ahead group: the words at the ports' outputs (zero past the last group)
        def boards(word):
            return {"c0": word[C0], "c1": word[C1], "h1": word[H1], "v1": word[V1]}
        fields = ("c0", "c1", "h1", "v1", "grid", "un_in", "un_out")
        ahead = {name: Signal(bits, name=f"ahead_{name}") for name in fields}
        words = dict(boards(self.state_data), grid=self.clue_data.grid,
                     un_in=r_rd.data.unreached_in, un_out=r_rd.data.unreached_out)
        m.d.comb += [ahead[name].eq(Mux(ahead_ok, words[name], 0)) for name in fields]
        # the current group: the ahead group of the previous clock
        cur = {name: Signal(bits, name=f"cur_{name}") for name in fields}
        cur_ok = Signal()
        cur_group = Signal(range(groups))
        m.d.sync += [cur[name].eq(ahead[name]) for name in fields]
        m.d.sync += [cur_ok.eq(ahead_ok & running), cur_group.eq(ahead_group)]

        def rows(value):
            return [value[j * w:(j + 1) * w] for j in range(band)]

        # rows of the current group that are rows of the build (only the last group pads)
        pad = groups * band - nrows
        exists = [Const(1) if j < band - pad else (cur_group != groups - 1)
                  for j in range(band)]

        def old_reach(grid, c1, un_in, un_out, present):
            """The old (IN, OUT) reach of a row from its stored words; pass 1: the seeds."""
            seed_out = ~grid & ~c1 & present.replicate(w)
            return (grid & ~un_in & ~first.replicate(w),
                    seed_out | (grid & ~un_out & ~first.replicate(w)))

        # -- the current group's rows (row space: row j = framed row group*band + j)
        cr = {name: rows(cur[name]) for name in fields}
        region_in, region_out, link_in, link_out, ins, old_in, old_out = ([] for _ in range(7))
        for j in range(band):
            grid, c0, c1, h1 = cr["grid"][j], cr["c0"][j], cr["c1"][j], cr["h1"][j]
            rin = grid & ~c0
            rout = ~c1 & exists[j].replicate(w)
            region_in.append(rin)
            region_out.append(rout)
            link_in.append(~h1 & rin & rin[1:] & no_last)
            link_out.append(~h1 & rout & rout[1:] & no_last)
            ins.append(c1 & grid)
            oi, oo = old_reach(grid, c1, cr["un_in"][j], cr["un_out"][j], exists[j])
            old_in.append(oi)
            old_out.append(oo)

        # the ahead row (top-down: the ahead group's first row; bottom-up: its last)
        ar = {name: Mux(down, rows(ahead[name])[0], rows(ahead[name])[-1]) for name in fields}
        ahead_in, ahead_out = old_reach(ar["grid"], ar["c1"], ar["un_in"], ar["un_out"],
                                        ahead_ok)
        # the V1 of the row before the group (framed row group*band - 1): top-down the
        # held row's, bottom-up the ahead row's
        held_in, held_out, held_v1 = (Signal(w, name=n) for n in ("held_in", "held_out",
                                                                     "held_v1"))
        # and its regions (for the pending test: what a row's new reach offers it)
        held_rin, held_rout = Signal(w, name="held_region_in"), Signal(w, name="held_region_out")
        v_before = Mux(down, held_v1, ar["v1"])
        v1 = cr["v1"]
        # the edge masks (not LINE) towards the row processed before / after row j
        v_above = [v_before] + [v1[j - 1] for j in range(1, band)]
        m_prev = [~Mux(down, v_above[j], v1[j]) for j in range(band)]
        m_next = [~Mux(down, v1[j], v_above[j]) for j in range(band)]

        # -- the chain in pass order: position p holds row p (top-down) or band-1-p
        def chain(values):
            if band == 1:
                return list(values)
            return [Mux(down, values[p], values[band - 1 - p]) for p in range(band)]
        ch = {name: chain(v) for name, v in (
            ("region_in", region_in), ("region_out", region_out), ("link_in", link_in),
            ("link_out", link_out), ("ins", ins), ("old_in", old_in), ("old_out", old_out),
            ("m_prev", m_prev), ("m_next", m_next))}
        prev_in, prev_out = held_in, held_out
        prev_rin, prev_rout = held_rin, held_rout
        new_in_ch, new_out_ch = [], []
        pending_ch = []       # a row's new reach would seed the row processed before it
        injected = Const(0)   # an earlier position of this group injected the seed
        for p in range(band):
            if p + 1 < band:
                next_in, next_out = ch["old_in"][p + 1], ch["old_out"][p + 1]
            else:
                next_in, next_out = ahead_in, ahead_out
            row_ins = ch["ins"][p]
            inject = ~seeded & ~injected & row_ins.any()
            lowest = (row_ins & (~row_ins + 1))[:w]
            seeds_in = (ch["old_in"][p] | (prev_in & ch["m_prev"][p])
                        | (next_in & ch["m_next"][p]) | Mux(inject, lowest, 0))
            seeds_out = (ch["old_out"][p] | (prev_out & ch["m_prev"][p])
                         | (next_out & ch["m_next"][p]))
            n_in = Signal(w, name=f"new_in_{p}")
            n_out = Signal(w, name=f"new_out_{p}")
            m.d.comb += [n_in.eq(closure(seeds_in & ch["region_in"][p], ch["link_in"][p], w)),
                         n_out.eq(closure(seeds_out & ch["region_out"][p], ch["link_out"][p], w))]
            new_in_ch.append(n_in)
            new_out_ch.append(n_out)
            pending_ch.append(((n_in & ch["m_prev"][p] & prev_rin & ~prev_in)
                               | (n_out & ch["m_prev"][p] & prev_rout & ~prev_out)).any())
            prev_in, prev_out = n_in, n_out
            prev_rin, prev_rout = ch["region_in"][p], ch["region_out"][p]
            injected = injected | row_ins.any()
        # back to row space
        new_in, new_out = chain(new_in_ch), chain(new_out_ch)

        # -- the group's findings and its new stored words
        changed = Cat(*((new_in[j] ^ old_in[j]) | (new_out[j] ^ old_out[j])
                        for j in range(band))).any()
        conflict = Cat(*((ins[j] & ~new_in[j]) | (cr["c0"][j] & cr["grid"][j] & ~new_out[j])
                         for j in range(band))).any()
        unknown = [cr["grid"][j] & ~(cr["c0"][j] | cr["c1"][j]) for j in range(band)]
        ded_in = Cat(*(unknown[j] & ~new_in[j] for j in range(band))).any()
        ded_out = Cat(*(unknown[j] & ~new_out[j] for j in range(band))).any()
        has_ins = Cat(*ins).any()
        processing = Signal()
        m.d.comb += processing.eq(running & cur_ok)
        with m.If(processing):
            m.d.comb += [
                r_wr.addr.eq(cur_group), r_wr.en.eq(1),
                r_wr.data.unreached_in.eq(Cat(*(cr["grid"][j] & ~new_in[j] for j in range(band)))),
                r_wr.data.unreached_out.eq(Cat(*(cr["grid"][j] & ~new_out[j]
                                                 for j in range(band)))),
            ]
            m.d.sync += [held_in.eq(new_in_ch[-1]), held_out.eq(new_out_ch[-1]),
                         held_rin.eq(ch["region_in"][-1]), held_rout.eq(ch["region_out"][-1]),
                         held_v1.eq(Mux(down, v1[band - 1], 0)),
                         seeded.eq(seeded | has_ins)]
        with m.Else():
            m.d.sync += [held_in.eq(0), held_out.eq(0), held_v1.eq(0), held_rin.eq(0),
                         held_rout.eq(0)]

        # -- fix port: the stored words at fix_addr (the read port's output when idle)
        m.d.comb += [self.fix_c0.eq(r_rd.data.unreached_in & seeded.replicate(bits)),
                     self.fix_c1.eq(r_rd.data.unreached_out)]

        # -- the pass accumulators (of this pass; the last pass's are the results)
        acc_changed, acc_conflict, acc_in, acc_out, acc_pending = (Signal(name=n) for n in (
            "acc_changed", "acc_conflict", "acc_ded_in", "acc_ded_out", "acc_pending"))
        tot_changed = acc_changed | (processing & changed)
        tot_pending = acc_pending | (processing & Cat(*pending_ch).any())
        tot_conflict = acc_conflict | (processing & conflict)
        tot_in = acc_in | (processing & ded_in)
        tot_out = acc_out | (processing & ded_out)
        in_active = seeded | (processing & has_ins)

        def clear_run():
            return [t.eq(0), down.eq(1), first.eq(1), seeded.eq(0), self.passes.eq(1),
                    self.clocks.eq(0), self.conflict.eq(0), self.deduced.eq(0),
                    acc_changed.eq(0), acc_conflict.eq(0), acc_in.eq(0), acc_out.eq(0),
                    acc_pending.eq(0)]

        with m.FSM(name="band_floods"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += clear_run()
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [running.eq(1), self.busy.eq(1)]
                m.d.sync += [t.eq(t + 1), self.clocks.eq(self.clocks + 1),
                             acc_changed.eq(tot_changed), acc_conflict.eq(tot_conflict),
                             acc_in.eq(tot_in), acc_out.eq(tot_out),
                             acc_pending.eq(tot_pending)]
                with m.If(t == self.pass_clocks - 1):
                    with m.If(tot_changed & tot_pending):
                        # the next pass, the other way, from the group written last
                        m.d.sync += [t.eq(0), down.eq(~down), first.eq(0),
                                     self.passes.eq(self.passes + 1),
                                     acc_changed.eq(0), acc_conflict.eq(0),
                                     acc_in.eq(0), acc_out.eq(0), acc_pending.eq(0)]
                    with m.Else():
                        m.d.sync += [self.conflict.eq(tot_conflict),
                                     self.deduced.eq(tot_out | (tot_in & in_active))]
                        m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                with m.If(self.start):
                    m.d.sync += clear_run()
                    m.next = "RUN"
                with m.Else():
                    m.next = "IDLE"
        return m
