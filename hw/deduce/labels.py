"""The band label processor: the label stage (no early loop) as band passes over the rows.

docs/design.md section 6 (the band-of-rows design); docs/deduce.md section 3;
golden model :func:`model.band.band_labels` (which equals
:func:`model.deduce.labels`).  The outputs are those of
:class:`hw.deduce.labels.LabelArray` (roots, ends, closed, multi, the NOLINE
deductions), computed by streaming passes over a state held outside.

Geometry and words as :class:`hw.deduce.sweep.Sweep`: framed rows ``0 ..
max_rows + 1`` of ``W = max_cols + 2`` columns, one word per *group* of
``band`` rows (``groups = ceil((max_rows + 2) / band)``; padding rows past the
last framed row are ignored).  Lattice point ``(r, c)`` (rows ``0 ..
max_rows``, columns ``0 .. max_cols``: ``P = max_cols + 1`` points a row) has
the index ``r * W + c``; ``H@(r, c)`` joins points ``(r-1, c)`` and ``(r, c)``,
``V@(r, c)`` joins ``(r, c-1)`` and ``(r, c)``.  Lines that do not join two
lattice points of the build are ignored (there are none at a sweep fixpoint).

**State** (not held here; in the engine it is the sweep's memory): the block
drives ``state_addr`` (a group) and expects the :data:`state word
<Labels.state_layout>` of that group on ``state_data`` one clock later,
as from a synchronous read port (the word layout is ``Sweep.state_layout``;
only H0, H1, V0 and V1 are used).  An "unknown edge of the puzzle" is an edge of
the build that is neither LINE nor NOLINE: the edges a puzzle smaller than the
build lacks are held NOLINE in the state (S, as :class:`Sweep` has them), so
no run-time mask is needed.

**Label memory** (held here; it persists between runs): one :data:`label word
<Labels.label_layout>` per group, ``band * P`` labels of ``label_bits``
bits (as :class:`LabelArray`: bits for the build's largest point index), label
``j * P + c`` = point ``(g * band + j, c)``; rows without points (``max_rows +
1`` and padding) hold a value that is never used.  Power-up contents and
``clear``: every label its own index.  ``clear`` (while idle) is a pass
writing every word: ``groups`` clocks with ``busy`` high, no ``done``.
Snapshots (while idle): ``label_addr`` with ``label_we`` and ``label_in``
writes a word; ``label_out`` is the word at ``label_addr`` of the previous clock.

**Dirty flag** (the stage runs only when the lines differ from those the labels
settled on, :meth:`model.deduce.Engine.propagate`): ``dirty`` is a register
set by ``lines_changed`` (a pulse from whoever adds a LINE to the state: in the
engine, the sweep pass that changed an H1 or V1 bit), cleared when a run ends
and by ``clear`` (the lines the cleared labels settled on are none: the engine
pulses ``lines_changed`` if it loads a state that has lines), and saved and
restored with the labels (``dirty`` out, ``dirty_we`` with ``dirty_in``).  As
the state only gains lines between runs, one bit per engine is exact.

**A pass** streams the groups, top-down in pass 1 and then alternately, with a
window of three groups: in clock ``t`` (``t = 0 .. groups + 1``) the state and
the label memory read group ``a(t)`` (``t`` top-down, ``groups - 1 - t``
bottom-up; ``t < groups``); group ``a(t - 2)`` is updated, with group ``a(t -
1)`` (the memories' outputs: old labels) after it and group ``a(t - 3)`` (held
in registers: the labels as updated in the previous clock) before it, and
written back in the next clock, from that register (so that the row update
ends at a register, not at the memory's write port: the next pass's first
read, of the group just updated, takes the register's word instead of the
memory's).  Within the group its rows are updated in the pass direction,
each seeing the new labels of the row before it (combinationally; the first row
the registered row) and the old labels of the row after it, exactly the
model's order.  Row update: every point takes the minimum of its label, the
label of the row before across a LINE H edge and the label of the row after
across a LINE H edge (the three compared side by side and one select,
:func:`_min3`: one compare-and-select deep), then every run of points joined
by LINE V edges takes its minimum: a segmented prefix-min left to right,
then the value at the run's right end is copied back along the run (2:1
multiplexers): the prefix-min over Sklansky's network (``ceil(log2 P)``
levels, ``P/2`` operators a level), the copy back over the network of
:func:`prefix_levels` with one Brent-Kung level at each end of a Sklansky
network (``ceil(log2 P) + 1`` levels, about a fifth fewer operators).  The
combinational path of a clock is ``band x (1 + ceil(log2 P))``
compare-and-selects and ``band x (1 + ceil(log2 P))`` multiplexer levels: at
20x36 (``P = 37``), 7 compare-and-selects and 7 multiplexer levels a row.  That
is ``network="small"``; ``network="fast"`` (docs/deduce.md section 8.3)
takes each run's minimum as the smaller of the prefix-min left to right and
its mirror image right to left: ``band x (2 + ceil(log2 P))``
compare-and-selects and no copy back, the same labels in the same clocks, for
about twice the operators.  ``network="pairs"`` (:func:`_run_min_pairs`)
compares every pair of a row's points at once (``P (P - 1) / 2``
comparators, one compare level) and gives every point the value of its run's
first smallest point (an AND of the comparisons within the run, then an
AND-OR select): ``band x 2`` compare levels and a few LUT levels a row, the
same labels in the same clocks; its comparators grow as ``P**2``, so it is
meant for the narrow rows (10x10: 55 a row).
The new labels are registered (they are the next group's "row before"; the row update
reads them from a copy loaded in every clock, which nothing else reads), and
the findings below (equalities, popcounts, accumulators) are computed from that
register in the next clock, with the window registered beside it: a pipeline
register between a row's update and its findings, so that the clock's path is
the update alone (the findings were the tail of the critical path of the ECP5
builds, docs/deduce.md section 8.3).  The recurrence of a pass (a row needs
the new labels of the row before it, not its findings) is unchanged.

From its group's new labels the findings stage gives: ``changed`` (a new label
differs from the old), the roots (a point on a line whose label is its own index), the ends
(a point with exactly one line), the end pairs (an unknown edge between two
ends with the same label) and the unknown edges; counted and OR-ed over the
pass, reset at the start of each pass; ``word_changed`` / ``word_group`` give
``changed`` per group, in the findings clock (for the probing sequencer's
snapshot, :class:`~hw.deduce.prober.Prober`).  Every pass writes the group's NOLINE
candidates (end pairs, unknown edges) to the *fix memory*.  A row leaves
something *pending* when one of its new labels is lower than the new label
across a LINE H edge in the row processed just before it (that row would take
it in a pass the other way).  The passes end with the first pass that changes
no label, or the first *top-down* pass that leaves nothing pending (counted in
``passes``); in it every label is final as it is computed
(:func:`model.band.band_labels`), so its counts and the fix words it wrote are
the final ones (a row's end pairs across its upper H edges compare it with the
row above, which only a top-down pass has updated by then).  Passes follow each
other without a gap: the next pass's first clock (a read) is the clock in which
the findings of the last group of the pass before decide whether it runs; when
the run ends instead, that clock is the run's :data:`DRAIN`.

``abort`` stops a run (no ``done``; the engine drops the run beside a flood run
that deduced something, in the clock in which the findings of a pass's last
group are taken, before the next pass writes anything): the labels stay as
the passes so far wrote them, and ``dirty`` is not cleared.

**Partial passes** (docs/deduce.md section 7.3; :func:`model.band.band_labels`
with ``partial_after``): ``hurry`` (from the engine: the flood run beside has
ended) is sampled in the clock that decides whether a pass runs.  When it is
high and the pass before left something pending, the pass is *partial*: it
starts with the group the pass before ended with, as a whole pass does, and
stops early: in the findings clock of the first group that changed nothing and
lies at or past the *bound* (the group before the first group whose findings
left something pending in the pass before, in that pass's order), the group
after it is the pass's last update, and the next clock is the next pass's
first.  A partial pass computes the labels a whole pass would (the rows it
leaves out would not change), but not every group's findings: when a partial
pass leaves nothing pending, every label is final, and one whole top-down pass
follows for the findings, from the clock after (the read of the deciding clock
is dropped); it changes nothing and ends the run.  The first group of a
partial pass sees no row before it (its links to that row are taken only when
the group before was updated in the clock before, in the same pass), as the
first group of a whole pass.

Timing: ``start`` (while idle, or in the ``done`` clock) starts a run; ``busy``
is high for ``clocks = passes x 2 + (the groups the passes streamed) + 1``
clocks, each whole pass ``groups + 2`` (the model's ``ceil((R+2)/band) + L`` a
pass with ``L = 2``: one clock of read latency, one of read-ahead; and the
drain), a whole pass after a partial one a clock more; in the next clock
``done`` is high for one clock.  After ``done`` and until the next ``start``: ``passes``, ``clocks``, ``closed`` (``2 x
roots > ends``: a cycle), ``multi`` (two roots or more), ``conflict``
(closed and multi), ``deduced`` (some NOLINE deduction exists: with closed
alone an unknown edge, with multi and no cycle an end pair), and the
deductions port: ``fix_addr`` (a group) gives one clock later ``fix_h0`` /
``fix_v0`` (state-word rows, ``j * W + c``): the edges of that group the
stage sets NOLINE (every unknown edge when closed alone; the end pairs when
multi and not closed; none otherwise), for the sweep pass that follows (the
engine puts them in the H0 and V0 boards of :class:`Sweep`'s ``fix_in``).

``ram_style`` (optional) is put on the label and fix memories as the
``ram_style`` attribute (``"block"`` forces block RAM).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from slitherlink.spec.target import LABEL_NETWORKS

from ..popcount import popcount
from .rules import BOARDS
from .sweep import band_groups

__all__ = ["Labels", "DRAIN", "LATENCY", "NETWORKS", "check_network", "prefix_levels",
           "run_min"]

#: clocks a pass takes beyond one a group (read latency, read-ahead)
LATENCY = 2
#: clocks a run takes beyond its passes: the findings are one clock behind the row
#: updates (a pipeline register between them), so the last pass's last group is
#: counted in the clock after its update
DRAIN = 1
COUNT_WIDTH = 16
PASS_WIDTH = 8
#: Brent-Kung levels of the row's prefix networks (:func:`prefix_levels`): 0 for the
#: prefix-min (Sklansky, the shallowest), 1 for the copy back (its multiplexers are
#: cheaper than compare-and-selects, so the extra level costs less than it saves)
PREFIX_K = (0, 1)
#: the row networks of :class:`Labels` (``network``): ``"small"``, the fewest
#: compare-and-selects, ``"fast"``, a shorter path of compare-and-selects, and
#: ``"pairs"``, every pair compared at once (:data:`spec.target.LABEL_NETWORKS`)
NETWORKS = LABEL_NETWORKS


def check_network(network):
    """``network`` if it names one of :data:`NETWORKS`, else a ValueError that says which."""
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {', '.join(NETWORKS)}, not {network!r}")
    return network

# state boards (spec.deduce order C0, C1, H0, H1, V0, V1, ...)
_H0, _H1, _V0, _V1 = 2, 3, 4, 5


def _cs(m, name, take, cand, best):
    """``cand`` if ``take`` and ``cand < best``, else ``best`` (a compare-and-select)."""
    out = Signal(len(best), name=name)
    m.d.comb += out.eq(Mux(take & (cand < best), cand, best))
    return out


def _min3(m, name, best, take_b, b, take_a, a):
    """The smallest of ``best``, ``b`` (if ``take_b``) and ``a`` (if ``take_a``): the
    three comparisons side by side and one select (the value of two chained
    :func:`_cs`, one compare-and-select shallower)."""
    b_lt, a_lt = Signal(name=f"{name}_b"), Signal(name=f"{name}_a")
    b_le_a = Signal(name=f"{name}_ba")
    m.d.comb += [b_lt.eq(take_b & (b < best)), a_lt.eq(take_a & (a < best)), b_le_a.eq(b <= a)]
    out = Signal(len(best), name=name)
    with m.If(b_lt & (~a_lt | b_le_a)):
        m.d.comb += out.eq(b)
    with m.Elif(a_lt):
        m.d.comb += out.eq(a)
    with m.Else():
        m.d.comb += out.eq(best)
    return out


def prefix_levels(n, k=1):
    """A prefix network over ``n`` elements: levels of ``(src, dst)`` pairs, element ``dst``
    (holding the span ``src + 1 .. dst``) combined with element ``src`` (the span just
    before it).  ``k`` Brent-Kung levels pair the elements up (every ``2**i``-th element
    takes the span before it), a Sklansky network joins the ends of the blocks of
    ``2**k``, and ``k`` levels fill in the elements within the blocks: ``ceil(log2 n) + k``
    levels; ``k = 0`` is Sklansky's network (``n/2`` operators a level)."""
    levels = []
    d = 1
    for _ in range(k):
        level = [(i - d, i) for i in range(2 * d - 1, n, 2 * d)]
        if level:
            levels.append(level)
        d *= 2
    ends = list(range(d - 1, n, d))
    size = 1
    while size < len(ends):
        level = []
        for start in range(0, len(ends), 2 * size):
            mid = start + size - 1
            if mid + 1 < len(ends):
                level += [(ends[mid], ends[j]) for j in range(mid + 1, min(start + 2 * size,
                                                                           len(ends)))]
        levels.append(level)
        size *= 2
    for _ in range(k):
        d //= 2
        level = [(i - d, i) for i in range(3 * d - 1, n, 2 * d)]
        if level:
            levels.append(level)
    return levels


def _prefix_min(m, name, values, link, k):
    """Segmented prefix-min left to right over :func:`prefix_levels` (``k`` Brent-Kung
    levels): element ``i`` the minimum of its run's elements up to ``i``."""
    n = len(values)
    y = list(values)
    a = [Const(1, 1)] * n          # joined to the start of its span
    for level, pairs in enumerate(prefix_levels(n, k)):
        y_next, a_next = list(y), list(a)
        for src, j in pairs:
            c = Signal(name=f"{name}_fa{level}_{j}")
            m.d.comb += c.eq(a[j] & link[src + 1])
            y_next[j] = _cs(m, f"{name}_f{level}_{j}", c, y[src], y[j])
            a_next[j] = c & a[src]
        y, a = y_next, a_next
    return y


def run_min(m, name, values, link, k=PREFIX_K, network="small"):
    """Every element the minimum of its run (elements ``i-1`` and ``i`` joined by
    ``link[i]``; ``link[0]`` unused).

    ``network="small"``: a segmented prefix-min left to right, then the value at each
    run's right end copied back along the run (a segmented suffix copy), over the
    networks :func:`prefix_levels` (``k``: the Brent-Kung levels of each; the copy over
    its mirror image).  ``network="fast"``: the prefix-min left to right and the
    mirror-image prefix-min right to left side by side, and each element the smaller
    of its two (both hold the element itself): one compare-and-select after the
    prefix-min instead of the copy's ``ceil(log2 n) + 1`` multiplexer levels, for
    twice the compare-and-selects.  ``network="pairs"``: :func:`_run_min_pairs`
    (``k`` unused)."""
    check_network(network)
    if network == "pairs":
        return _run_min_pairs(m, name, values, link)
    k_min, k_copy = k
    n = len(values)
    y = _prefix_min(m, f"{name}_l", values, link, k_min)
    if network == "fast":
        # right to left: element n-1-i of the mirror image is element i; the link
        # joining mirror elements i-1 and i is the one joining n-i and n-1-i
        mirror_link = [Const(0, 1)] + [link[n - i] for i in range(1, n)]
        s = _prefix_min(m, f"{name}_r", values[::-1], mirror_link, k_min)[::-1]
        out = []
        for i in range(n):
            o = Signal(len(values[i]), name=f"{name}_o{i}")
            m.d.comb += o.eq(Mux(s[i] < y[i], s[i], y[i]))
            out.append(o)
        return out
    z = list(y)
    b = [Const(1, 1)] * n          # joined to the end of its span
    for level, pairs in enumerate(prefix_levels(n, k_copy)):
        z_next, b_next = list(z), list(b)
        for src, j in pairs:       # mirrored: element n-1-j takes from element n-1-src
            dj, ds = n - 1 - j, n - 1 - src
            c = Signal(name=f"{name}_ba{level}_{dj}")
            m.d.comb += c.eq(b[dj] & link[ds])
            out = Signal(len(z[dj]), name=f"{name}_b{level}_{dj}")
            m.d.comb += out.eq(Mux(c, z[ds], z[dj]))
            z_next[dj] = out
            b_next[dj] = c & b[ds]
        z, b = z_next, b_next
    return z


def _run_min_pairs(m, name, values, link):
    """Every element the minimum of its run, every pair of elements compared at once
    (``network="pairs"``, docs/deduce.md section 8.3): the run's *first smallest*
    element (no larger than the elements after it, smaller than those before it) is
    its one winner, and every element takes the value of the winner of its run (an
    AND-OR select).  One compare level and a few LUT levels, for ``n (n - 1) / 2``
    comparators; no chain of compare-and-selects."""
    n = len(values)

    def same(i, j):
        """Elements ``i`` and ``j`` in one run (every link between them)."""
        lo, hi = min(i, j), max(i, j)
        return Cat(*(link[x] for x in range(lo + 1, hi + 1))).all() if lo < hi else Const(1, 1)

    # le[i, j] (i < j): element i no larger than element j
    le = {}
    for i in range(n):
        for j in range(i + 1, n):
            le[i, j] = Signal(name=f"{name}_le{i}_{j}")
            m.d.comb += le[i, j].eq(values[i] <= values[j])
    win = []
    for j in range(n):
        w = Signal(name=f"{name}_win{j}")
        m.d.comb += w.eq(Cat(*(~same(j, k) | (le[j, k] if j < k else ~le[k, j])
                               for k in range(n) if k != j)).all())
        win.append(w)
    out = []
    for c in range(n):
        o = Signal(len(values[c]), name=f"{name}_o{c}")
        terms = [Mux(win[j] & same(c, j), values[j], 0) for j in range(n)]
        while len(terms) > 1:      # a balanced OR
            terms = [terms[i] | terms[i + 1] if i + 1 < len(terms) else terms[i]
                     for i in range(0, len(terms), 2)]
        m.d.comb += o.eq(terms[0])
        out.append(o)
    return out


class Labels(wiring.Component):
    """The label stage as band passes over a state held outside (module docstring)."""

    def __init__(self, max_rows, max_cols, *, band=1, ram_style=None, network="small"):
        self.network = check_network(network)
        self.geometry, self.groups = geo, groups = band_groups(max_rows, max_cols, band)
        self.max_rows, self.max_cols, self.band = max_rows, max_cols, band
        self.ram_style = ram_style
        self.points_per_row = max_cols + 1
        self.label_bits = max(1, (geo.cells - 1).bit_length())
        #: clocks of one pass
        self.pass_clocks = groups + LATENCY
        bits = band * geo.width
        self.state_layout = data.ArrayLayout(bits, BOARDS)
        self.label_layout = data.ArrayLayout(self.label_bits, band * self.points_per_row)
        self.fix_layout = data.StructLayout({"pair_h": bits, "pair_v": bits,
                                             "free_h": bits, "free_v": bits})
        super().__init__({
            "state_addr": Out(range(groups)),
            "state_data": In(self.state_layout),
            "label_addr": In(range(groups)),
            "label_we": In(1),
            "label_in": In(self.label_layout),
            "label_out": Out(self.label_layout),
            "lines_changed": In(1),
            "dirty_we": In(1),
            "dirty_in": In(1),
            "dirty": Out(1),
            "word_changed": Out(1),
            "word_group": Out(range(groups)),
            "fix_addr": In(range(groups)),
            "fix_h0": Out(bits),
            "fix_v0": Out(bits),
            "start": In(1),
            "abort": In(1),
            "hurry": In(1),
            "clear": In(1),
            "busy": Out(1),
            "done": Out(1),
            "conflict": Out(1),
            "closed": Out(1),
            "multi": Out(1),
            "deduced": Out(1),
            "passes": Out(PASS_WIDTH),
            "clocks": Out(COUNT_WIDTH),
        })

    def own_labels(self, group):
        """The labels of ``group``'s word with every label its own index (a list)."""
        w, p, nb = self.geometry.width, self.points_per_row, self.label_bits
        return [((group * self.band + j) * w + c) & ((1 << nb) - 1)
                for j in range(self.band) for c in range(p)]

    def own_word(self, group):
        """The same as an int (label ``i`` at bits ``i * label_bits``)."""
        return sum(v << (i * self.label_bits) for i, v in enumerate(self.own_labels(group)))

    def _row_masks(self, r):
        """Constant masks (W bits) of framed row ``r``: H links, V links (both ends
        lattice points), H edges and V edges of the build."""
        geo, w = self.geometry, self.geometry.width
        rows, cols = self.max_rows, self.max_cols
        full = lambda lo, hi: sum(1 << c for c in range(lo, hi + 1))  # noqa: E731
        hlink = full(0, cols) if 1 <= r <= rows else 0
        vlink = full(1, cols) if 0 <= r <= rows else 0
        hvalid = geo.valid["H"] >> (r * w) & ((1 << w) - 1) if r <= rows + 1 else 0
        vvalid = geo.valid["V"] >> (r * w) & ((1 << w) - 1) if r <= rows + 1 else 0
        return hlink, vlink, hvalid, vvalid

    def elaborate(self, platform):
        m = Module()
        geo, band, groups = self.geometry, self.band, self.groups
        w, p, nb = geo.width, self.points_per_row, self.label_bits
        bits = band * w

        attrs = {"ram_style": self.ram_style} if self.ram_style else None
        m.submodules.label_mem = label_mem = Memory(
            shape=self.label_layout, depth=groups,
            init=[self.own_labels(g) for g in range(groups)], attrs=attrs)
        m.submodules.fix_mem = fix_mem = Memory(
            shape=self.fix_layout, depth=groups, init=[], attrs=attrs)
        l_rd, l_wr = label_mem.read_port(), label_mem.write_port()
        f_rd, f_wr = fix_mem.read_port(), fix_mem.write_port()

        t = Signal(range(self.pass_clocks + 1))
        down = Signal()
        running = Signal()
        clearing = Signal()
        clear_g = Signal(range(groups + 1))

        # -- the pass: it streams the groups from ``y`` to the edge in its direction (a
        # partial pass may stop earlier); t_end is the clock that updates the last of them
        y = Signal(range(groups))
        count = Signal(range(groups + 1))
        t_end = Signal(range(groups + 2))
        m.d.comb += [count.eq(Mux(down, groups - y, y + 1)), t_end.eq(count + 1)]

        # -- reads: group a(t) while t < count; its word arrives in the next clock
        rd_ok = Signal()
        rd_group = Signal(range(groups))
        m.d.comb += [rd_ok.eq(running & (t < count)),
                     rd_group.eq(Mux(down, y + t, y - t))]
        with m.If(running):
            m.d.comb += [self.state_addr.eq(rd_group), l_rd.addr.eq(rd_group)]
        with m.Else():
            m.d.comb += l_rd.addr.eq(self.label_addr)
        m.d.comb += self.label_out.eq(l_rd.data)

        # pipeline of group numbers and valid flags: 1 = the word on the ports ("next"),
        # 2 = the group updated this clock ("cur"); the word before it ("prev") is valid
        # exactly when its links are not zero (words outside the pass enter as zeros)
        g1, g2, g3 = Signal(range(groups)), Signal(range(groups)), Signal(range(groups))
        ok1, ok2, ok3 = Signal(), Signal(), Signal()
        flush = Signal()   # a pass ends early: the reads under way are dropped
        m.d.sync += [g1.eq(rd_group), ok1.eq(rd_ok & ~flush), g2.eq(g1),
                     ok2.eq(ok1 & running & ~flush)]

        # -- the masked state of the word on the port: links and unknown edges per row; the
        # masks are the constants of its group, registered beside the read (as g1), so
        # that no group decoder lies between the port and the row update
        hlink_m, vlink_m = Signal(bits), Signal(bits)
        hvalid_m, vvalid_m = Signal(bits), Signal(bits)
        with m.Switch(rd_group):
            for g in range(groups):
                with m.Case(g):
                    masks = [0, 0, 0, 0]
                    for j in range(band):
                        for i, mask in enumerate(self._row_masks(g * band + j)):
                            masks[i] |= mask << (j * w)
                    m.d.sync += [hlink_m.eq(masks[0]), vlink_m.eq(masks[1]),
                                 hvalid_m.eq(masks[2]), vvalid_m.eq(masks[3])]
        sd = self.state_data
        okr = ok1.replicate(bits)

        def window_layout():
            return data.StructLayout({"h": bits, "v": bits, "fh": bits, "fv": bits})

        s_next = Signal(window_layout())
        m.d.comb += [
            s_next.h.eq(sd[_H1] & hlink_m & okr),
            s_next.v.eq(sd[_V1] & vlink_m & okr),
            s_next.fh.eq(hvalid_m & ~sd[_H0] & ~sd[_H1] & okr),
            s_next.fv.eq(vvalid_m & ~sd[_V0] & ~sd[_V1] & okr),
        ]
        s_cur, s_prev = Signal(window_layout()), Signal(window_layout())
        l_next = Signal(self.label_layout)
        l_cur, l_prev = Signal(self.label_layout), Signal(self.label_layout)
        m.d.comb += l_next.eq(l_rd.data)
        new = Signal(self.label_layout)   # the updated group (absolute row order)
        # l_prev: the group updated in the previous clock, held until the next update; it
        # is written to the label memory one clock after its update (in its findings
        # clock, ok3), so that the row update ends at a register, not at the memory's
        # write port.  The one read that this delay makes stale is that of the group
        # just updated, the next pass's first read (in the clock of its delayed write):
        # ``bypass`` marks it, and l_cur then takes l_prev instead of the memory's word
        bypass = Signal()
        proc = Signal()
        m.d.sync += [s_cur.eq(s_next), s_prev.eq(s_cur),
                     l_cur.eq(Mux(bypass, l_prev, l_next))]
        with m.If(proc):
            m.d.sync += l_prev.eq(new)
        # the row update's own copy of l_prev, loaded in every clock: the row update reads
        # it only when the group before was updated in the clock before (ok3), when it
        # equals l_prev; nothing else reads it, so the placer may put it beside the row
        # update, and l_prev drives only the findings, the write and the bypass
        l_before = Signal(self.label_layout)
        m.d.sync += l_before.eq(new)

        def row(value, j):
            return value[j * w:(j + 1) * w]

        def lab(word, j, c):
            return word[j * p + c]

        # -- the row chain, in the pass direction
        above_s = Signal(window_layout())
        below_s = Signal(window_layout())
        m.d.comb += [above_s.eq(Mux(down, s_prev, s_next)), below_s.eq(Mux(down, s_next, s_prev))]
        up_link = [row(s_cur.h, j) for j in range(band)]                  # H@(r, c)
        dn_link = [row(s_cur.h, j + 1) if j + 1 < band else row(below_s.h, 0)
                   for j in range(band)]                                   # H@(r+1, c)
        outs = []
        links_before = []   # per chain slot: the LINE H edges to the row before it
        for k in range(band):
            jd, ju = k, band - 1 - k   # the row of slot k top-down / bottom-up
            old = [Signal(nb, name=f"old_{k}_{c}") for c in range(p)]
            lb, la, vl = (Signal(w, name=f"{n}_{k}") for n in ("lb", "la", "vl"))
            for c in range(p):
                m.d.comb += old[c].eq(Mux(down, lab(l_cur, jd, c), lab(l_cur, ju, c)))
            # the links to the row before: for slot 0 only if the group before it was
            # updated in the clock before, in this pass (ok3; a partial pass's first
            # group sees no row before it)
            links = Mux(down, up_link[jd], dn_link[ju])
            m.d.comb += [lb.eq(links & ok3.replicate(w) if k == 0 else links),
                         la.eq(Mux(down, dn_link[jd], up_link[ju])),
                         vl.eq(Mux(down, row(s_cur.v, jd), row(s_cur.v, ju)))]
            links_before.append(lb)
            if k == 0:
                first_before = [Mux(down, lab(l_prev, band - 1, c), lab(l_prev, 0, c))
                                for c in range(p)]
                before = [Mux(down, lab(l_before, band - 1, c), lab(l_before, 0, c))
                          for c in range(p)]
            else:
                before = outs[k - 1]
            if k == band - 1:
                after = [Mux(down, lab(l_next, 0, c), lab(l_next, band - 1, c)) for c in range(p)]
            else:
                after = [Mux(down, lab(l_cur, jd + 1, c), lab(l_cur, max(ju - 1, 0), c))
                         for c in range(p)]
            x = []
            for c in range(p):
                x.append(_min3(m, f"x_{k}_{c}", old[c], lb[c], before[c], la[c], after[c]))
            outs.append(run_min(m, f"run{k}", x, vl, network=self.network))
        for j in range(band):
            for c in range(p):
                m.d.comb += lab(new, j, c).eq(Mux(down, outs[j][c], outs[band - 1 - j][c]))

        # -- the findings stage, one clock behind: the group updated in the previous
        # clock (its new labels are l_prev) with the window it was updated in, registered
        down2 = Signal()
        old2 = Signal(self.label_layout)
        s2 = Signal(window_layout())
        above_h2, above_v2, below_h2 = Signal(w), Signal(w), Signal(w)
        lb2 = [Signal(w, name=f"lb2_{k}") for k in range(band)]
        above_lab2 = [Signal(nb, name=f"above_lab2_{c}") for c in range(p)]
        before2 = [Signal(nb, name=f"before2_{c}") for c in range(p)]
        m.d.comb += proc.eq(running & ok2)
        m.d.sync += bypass.eq(ok3 & rd_ok & (g3 == rd_group))
        m.d.sync += [down2.eq(down), g3.eq(g2), ok3.eq(proc), old2.eq(l_cur), s2.eq(s_cur),
                     above_h2.eq(row(above_s.h, band - 1)), above_v2.eq(row(above_s.v, band - 1)),
                     below_h2.eq(row(below_s.h, 0))]
        m.d.sync += [a.eq(b) for a, b in zip(lb2, links_before)]
        m.d.sync += [a.eq(b) for a, b in zip(before2, first_before)]
        for c in range(p):
            # the labels of the row above the group (absolute order): new in a top-down
            # pass (the group before it), old in a bottom-up one (the group after it)
            m.d.sync += above_lab2[c].eq(Mux(down, lab(l_prev, band - 1, c),
                                             lab(l_next, band - 1, c)))
        new2 = l_prev

        # pending: in some chain slot a new label lower than the new label across a LINE
        # H edge in the row before it (the row before slot 0 is the group before)
        pending_rows = []
        slot_prev = before2
        for k in range(band):
            slot = [Mux(down2, lab(new2, k, c), lab(new2, band - 1 - k, c)) for c in range(p)]
            pend = Signal(name=f"pending_{k}")
            m.d.comb += pend.eq(Cat(*(lb2[k][c] & (slot[c] < slot_prev[c])
                                      for c in range(p))).any())
            pending_rows.append(pend)
            slot_prev = slot

        # -- the group's findings (absolute row order; final in the last pass)
        changed = Signal()
        m.d.comb += changed.eq(new2.as_value() != old2.as_value())
        # rows -1 .. band - 1 of labels and links; H links of row band too
        lab_rows = [above_lab2] + [[lab(new2, j, c) for c in range(p)] for j in range(band)]
        h_rows = [above_h2] + [row(s2.h, j) for j in range(band)] + [below_h2]
        v_rows = [above_v2] + [row(s2.v, j) for j in range(band)]
        end_rows, on_rows = [], []
        for i in range(band + 1):
            ends, online = Signal(p, name=f"end_{i}"), Signal(p, name=f"online_{i}")
            for c in range(p):
                links = [v_rows[i][c], v_rows[i][c + 1], h_rows[i][c], h_rows[i + 1][c]]
                m.d.comb += [ends[c].eq(sum(links) == 1), online[c].eq(Cat(*links).any())]
            end_rows.append(ends)
            on_rows.append(online)
        # own indexes of the group's points: the words a clear writes (of clear_g), and
        # those the roots compare with (of g3), registered beside g3 so that no product
        # of the group number lies on the findings' path
        def own_of(group, name):
            base = Signal(nb + 8, name=f"{name}_base")
            word = Signal(self.label_layout, name=name)
            m.d.comb += base.eq(group * (band * w))
            for j in range(band):
                for c in range(p):
                    m.d.comb += lab(word, j, c).eq(base + (j * w + c))
            return word

        own_clear = own_of(clear_g, "own_clear")
        own = Signal(self.label_layout)
        m.d.sync += own.eq(own_of(g2, "own_next"))
        roots = Cat(*(on_rows[j + 1][c] & (lab(new2, j, c) == lab(own, j, c))
                      for j in range(band) for c in range(p)))
        ends_now = Cat(*end_rows[1:])
        pair_h, pair_v = Signal(bits), Signal(bits)
        for j in range(band):
            i = j + 1
            for c in range(p):
                m.d.comb += row(pair_h, j)[c].eq(
                    end_rows[i - 1][c] & end_rows[i][c] & row(s2.fh, j)[c]
                    & (lab_rows[i - 1][c] == lab_rows[i][c]))
                if c >= 1:
                    m.d.comb += row(pair_v, j)[c].eq(
                        end_rows[i][c - 1] & end_rows[i][c] & row(s2.fv, j)[c]
                        & (lab_rows[i][c - 1] == lab_rows[i][c]))
        count_w = max(1, (band * groups * p).bit_length() + 1)
        roots_now = popcount(m, roots, name="roots")
        ends_count = popcount(m, ends_now, name="ends")
        roots_acc, ends_acc = Signal(count_w), Signal(count_w)
        any_pair, any_free, changed_acc, pending_acc = Signal(), Signal(), Signal(), Signal()
        pending = Signal()
        m.d.comb += pending.eq(Cat(*pending_rows).any())

        with m.If(ok3):
            m.d.comb += [l_wr.addr.eq(g3), l_wr.data.eq(l_prev), l_wr.en.eq(1)]
        with m.Elif(clearing):
            m.d.comb += [l_wr.addr.eq(clear_g), l_wr.data.eq(own_clear), l_wr.en.eq(1)]
        with m.Elif(~running):
            m.d.comb += [l_wr.addr.eq(self.label_addr), l_wr.data.eq(self.label_in),
                         l_wr.en.eq(self.label_we)]
        m.d.comb += [self.word_changed.eq(ok3 & changed), self.word_group.eq(g3)]
        with m.If(ok3):
            m.d.comb += [f_wr.addr.eq(g3), f_wr.en.eq(1),
                         f_wr.data.pair_h.eq(pair_h), f_wr.data.pair_v.eq(pair_v),
                         f_wr.data.free_h.eq(s2.fh), f_wr.data.free_v.eq(s2.fv)]
            m.d.sync += [roots_acc.eq(roots_acc + roots_now), ends_acc.eq(ends_acc + ends_count),
                         any_pair.eq(any_pair | pair_h.any() | pair_v.any()),
                         any_free.eq(any_free | s2.fh.any() | s2.fv.any()),
                         changed_acc.eq(changed_acc | changed),
                         pending_acc.eq(pending_acc | pending)]

        # -- results
        settle, pairs_on = Signal(), Signal()
        m.d.comb += [
            self.closed.eq((roots_acc << 1) > ends_acc),
            self.multi.eq(roots_acc > 1),
            self.conflict.eq(self.closed & self.multi),
            settle.eq(self.closed & ~self.multi),
            pairs_on.eq(self.multi & ~self.closed),
            self.deduced.eq((settle & any_free) | (pairs_on & any_pair)),
            f_rd.addr.eq(self.fix_addr),
            self.fix_h0.eq(Mux(settle, f_rd.data.free_h, 0) | Mux(pairs_on, f_rd.data.pair_h, 0)),
            self.fix_v0.eq(Mux(settle, f_rd.data.free_v, 0) | Mux(pairs_on, f_rd.data.pair_v, 0)),
        ]

        # ``tail``: the clock after a pass's last update, the first clock of the next
        # pass (its first read, in the other direction), in which the findings of the
        # pass's last group decide whether that pass runs or the run ends
        tail = Signal()

        # -- partial passes (docs/deduce.md section 7.3): ``raised``, the first group of
        # the pass whose findings left something pending; the next pass, if partial, must
        # pass the group before it (``bound``), and stops one group after the first group
        # past the bound that changed nothing (``stop``: that group's findings clock, in
        # which the group after it is updated, the pass's last update)
        partial = Signal()
        raised, raised_seen = Signal(range(groups)), Signal()
        bound = Signal(range(-1, groups + 1))
        first_raised = Signal(range(groups))
        m.d.comb += first_raised.eq(Mux(raised_seen, raised, g3))
        with m.If(ok3 & pending & ~raised_seen):
            m.d.sync += [raised.eq(g3), raised_seen.eq(1)]
        stop = Signal()
        beyond = Signal()
        m.d.comb += [
            beyond.eq(Mux(down, g3 >= bound, g3 <= bound)),
            stop.eq(running & ~tail & ok3 & partial & ~changed & beyond),
        ]

        def clear_counts():
            return [roots_acc.eq(0), ends_acc.eq(0), any_pair.eq(0), any_free.eq(0),
                    changed_acc.eq(0), pending_acc.eq(0), raised_seen.eq(0)]

        def begin():
            return clear_counts() + [t.eq(0), tail.eq(0), down.eq(1), self.passes.eq(1),
                                     self.clocks.eq(0), y.eq(0), partial.eq(0)]

        # the dirty flag (later statements win)
        with m.If(self.lines_changed):
            m.d.sync += self.dirty.eq(1)
        with m.Elif(self.dirty_we):
            m.d.sync += self.dirty.eq(self.dirty_in)

        with m.FSM(name="band_labels"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += begin()
                    m.next = "RUN"
                with m.Elif(self.clear):
                    m.d.sync += [clear_g.eq(0), self.dirty.eq(0)]
                    m.next = "CLEAR"
            with m.State("CLEAR"):
                m.d.comb += [clearing.eq(1), self.busy.eq(1)]
                m.d.sync += clear_g.eq(clear_g + 1)
                with m.If(clear_g == groups - 1):
                    m.next = "IDLE"
            with m.State("RUN"):
                m.d.comb += [running.eq(1), self.busy.eq(1)]
                m.d.sync += [t.eq(t + 1), self.clocks.eq(self.clocks + 1)]
                with m.If((t == t_end) | stop):
                    # the pass's last update (of group g2): the next pass starts there
                    m.d.sync += [t.eq(0), down.eq(~down), tail.eq(1), y.eq(g2)]
                    m.d.comb += flush.eq(1)
                any_changed, any_pending = changed_acc | changed, pending_acc | pending
                with m.If(self.abort):
                    m.d.sync += tail.eq(0)
                    m.next = "IDLE"
                with m.Elif(tail):
                    m.d.sync += tail.eq(0)
                    more = clear_counts() + [
                        self.passes.eq(self.passes + 1),
                        bound.eq(Mux(down2, first_raised - 1, first_raised + 1))]
                    with m.If(partial):
                        with m.If(any_pending):
                            m.d.sync += more
                        with m.Else():
                            # every label is final: one whole top-down pass for the
                            # findings, from the next clock (this clock's read is dropped)
                            m.d.sync += more + [partial.eq(0), y.eq(0), down.eq(1), t.eq(0)]
                            m.d.comb += flush.eq(1)
                    # only a top-down pass ends early: the end pairs across a row's
                    # upper H edges use the row above, new only in a top-down pass
                    with m.Elif(any_changed & (any_pending | ~down2)):
                        m.d.sync += more + [partial.eq(self.hurry & any_pending)]
                    with m.Else():
                        m.d.sync += self.dirty.eq(0)
                        m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                with m.If(self.start):
                    m.d.sync += begin()
                    m.next = "RUN"
                with m.Else():
                    m.next = "IDLE"
        return m
