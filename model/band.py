"""Band-of-rows model of the deduction engine (docs/design.md section 6; docs/deduce.md).

The fully parallel engine (:mod:`model.deduce`) does not fit the XC7A35T beyond
6x6.  The band engine keeps the state in block RAM, one word per ``band``
framed rows (word ``k`` holds framed rows ``k*band .. k*band+band-1``; the
last word is padded), and every stage *streams* over the words: one word read
and one word written per clock, ``ceil((R+2)/band)`` clocks per pass plus a
pipeline latency ``L``.  This module pins the passes down exactly and checks
them against the model: every stage computes the same deductions, conflict
and label registers as :mod:`model.deduce`; only the clock counts differ.

Rows are the framed rows ``0..R+1`` of :class:`model.deduce.Geometry`; cell
row ``i`` holds the cells ``i*W .. i*W+W-1``, its H edges (``H@q``: between
``q`` and ``q+1``), its V edges (``V@q``: between ``q`` and ``q+W``) and its
lattice points (``q`` = the point at the bottom-right of cell ``q``; point row
``i`` is stored with cell row ``i``, rows ``0..R``).

**Sweep pass** (:func:`band_sweep`).  The words are read in order into a
window that holds the *old* rows ``r0-1 .. r0+band`` (every rule of
``rule_table()`` concludes at most one row away from its premises: a halo of
one row each side, :func:`sweep_halo`); the new rows ``r0 .. r0+band-1`` are
written back.  One pass is exactly one Jacobi sweep (:func:`model.deduce.sweep`).
A pass need not write every word: only the words that can change (its *span*,
:func:`sweep_span` and :class:`BandEngine`), which it reads with one word above
and the halo below; the rows it does not write could not have changed.

**Flood pass** (:func:`band_floods`).  Both floods of :func:`model.deduce.floods`
run in the same passes.  Each flood keeps one *reach* bit per cell beside the
state.  Pass 1 runs top-down, pass 2 bottom-up, and so on alternately.  In a
top-down pass the rows are updated one after the other in place (Gauss-Seidel
by rows); row ``i`` becomes::

    seeds = reach[i]                                   (old: from the previous pass)
          | reach[i-1] & ~V1[i-1]                      (new: row i-1 came earlier in this pass)
          | reach[i+1] & ~V1[i]                        (old: row i+1 comes later)
    reach[i] = run_closure(seeds & region[i])

``run_closure`` is the row-wide spread: every cell of a run of cells of the
region joined by non-LINE H edges (``H@q``, q and q+1 both in the region)
that contains a seed (a segmented prefix-OR in both directions).  Bottom-up
passes swap the roles of rows ``i-1`` (old) and ``i+1`` (new).  *In place at
the band boundaries*: within a word the rows are chained in that order (the
second row of the word sees the first row's new reach, combinationally), and
across words the same holds (the first row of word ``k`` sees the last row of
word ``k-1`` as written, held in a register; the row ahead of the word, the
first row of word ``k+1``, is read ahead, old).  So a pass computes the same
reach for every band height: the band only sets how many rows a clock does
(the combinational path is ``band`` row closures deep).  Pass 1 starts from
the seeds instead of the stored reach bits (which are stale from the last
run): OUT: ``frame & region`` in every row (ahead too); IN: nothing, and the
first row of the pass with an IN cell injects its lowest IN cell (the first
IN cell in scan order, :func:`model.deduce.floods`' seed) before its closure.
A pass *changes* when some row's reach differs from what it was before the
pass (pass 1: from the seeds).  A pass leaves something *pending* when a row's
new reach would seed the row processed just before it in the pass (the one
with the new reach it already used: a cell of that row's region, across a
non-LINE V edge, outside that row's new reach).  The passes end with the first
pass that changes nothing or leaves nothing pending (it is counted): after a
pass that leaves nothing pending, a pass the other way would change nothing
(every row would see the same rows as its last computation did, or rows that
offer it nothing new), so in that pass every row's reach is final as it is
computed, and the conflicts (an IN cell out of the IN reach, an OUT grid cell
out of the OUT reach) and "a deduction exists" are accumulated in it.
The deductions themselves (unreached unknown cell: OUT, resp. IN) are not
written by the flood: the sweep pass that always follows a flood that deduced
something applies them as it reads each row (state | deductions from the reach
bits of the word), so they cost no extra pass.

**Label pass** (:func:`band_labels`).  The label registers (one label per
lattice point, kept between runs, saved and restored with the state) are
updated in place in the same streaming order, pass 1 top-down, then
alternating.  Point row ``i``: every horizontal run of points joined by LINE
``V`` edges takes the minimum of its points' labels, of the labels of the
points above joined by a LINE ``H@p`` (row ``i-1``: new in a top-down pass)
and of the points below joined by a LINE ``H@(p+W)`` (row ``i+1``: old) - a
row-wide segmented prefix-min in both directions.  Points with no line keep
their label.  The warm start is the register contents: the labels settled at
the last run (:func:`model.deduce.labels`' ``warm``), which are, component by
component of the lines they settled on, the component's minimum point index
(:func:`register_labels`); a point on no line holds its own index.  The
passes end with the first pass that changes no label, or the first top-down
pass that leaves nothing *pending* (no row's new labels are lower, across a
LINE H edge, than those of the row processed just before it: as for the floods,
a pass the other way would change nothing; a bottom-up pass does not end a run
that way, as the end pairs across a row's upper H edges are taken with the row
above, which that pass has not reached yet; counted); in it the labels are
final, so the roots (points on a line whose label is their own
index: one per component) and the ends (points with exactly one line) are
counted in it, and the end pairs (an end whose neighbour across a non-LINE
edge is an end with the same label).  A cycle exists when ``2 x roots >
ends``; with other lines (``roots > 1``) that is a conflict, alone it settles
the puzzle (every unknown edge NOLINE); with no cycle and ``roots > 1`` each
end pair's edge is NOLINE.  As with the floods, the deductions are applied by
the following sweep pass (the window holds the labels of both ends), gated by
the two flags.  With no line at all the stage is one pass.

**The label stage beside the floods** (:class:`BandEngine`).  The label
block streams the same words in the same order as the flood block (a pass of
each is ``ceil((R+2)/band) + L`` clocks, pass 1 top-down, then alternating), so
whenever the labels are dirty (the lines differ from those they last settled
on) the engine starts both together, on the one read port of the state
memory.  The labels' findings are used only where :meth:`model.deduce.Engine.propagate`
runs the label stage: after a flood run that deduced nothing.  When the flood
run deduces something (or finds a conflict) instead, the label run is dropped
as the flood run ends: after at most as many passes as the floods took (it
stops at the end of that pass; a run that ended earlier is dropped whole),
its findings unused and the labels dirty still; the label registers keep what
those passes wrote, which is a valid warm start for the next run (every label
is still the index of a point of its component, and no lower than the
component's minimum).  So the search, every deduction and every counter of
:mod:`model.deduce` are unchanged; what changes is the label registers'
contents (the warm starts, so the label passes of later runs) and the clocks:
a flood run costs its passes, and a label run that is used costs only the
passes it takes beyond the flood run beside it (``late_label_passes``) and
its drain, if it ends after the flood run (``late_label_runs``).  The label
registers are carried as an array (``registers[2]``), saved and restored with
the state like the model's registers.  Those late passes may be *partial*
(``partial_labels``, the default; :func:`band_labels`' ``partial_after``,
docs/deduce.md section 7.3): they stream only the words in which labels can
still change, and a run whose partial passes have settled ends with one whole
top-down pass for the findings; ``late_label_skipped`` counts the words they
did not stream against whole passes.

**Snapshots and trail**: one word per clock.  A probe's save and restore
copy only the words in which the live state or label array differs from the
snapshot (``BandCounters.snapshot_words``): after a probe that failed nothing
that is the words its propagation changed, and the next save copies nothing;
the first save of a ``deduce`` copies every word.  The trail moves ``rows``
clocks per save or restore.

Cycle model (:class:`BandCycleModel`)::

    cycles = (span words + inner spans + sweeps x L)
             + (flood_passes + late_label_passes) x (ceil((R+2)/band) + L)
             - late_label_skipped + late_label_runs + snapshot words
             + R x (decisions + backtracks) + 40 x (decisions + backtracks)

:class:`BandEngine` runs the same search as :func:`model.deduce.solve` (it is
an :class:`model.deduce.Engine` whose propagation also counts the passes) and
:func:`band_solve` returns the model's outcome with those counters.
"""

import math
from dataclasses import dataclass, field

from slitherlink.model import deduce as D
from slitherlink.model.deduce import (C0, C1, H0, H1, V0, V1, EMPTY_BASE, conflict_of,
                                      sweep)
from slitherlink.spec.deduce import rule_table

__all__ = ["band_sweep", "sweep_halo", "band_floods", "band_labels", "register_labels",
           "BandCounters", "BandCycleModel", "BandEngine", "BandOutcome", "band_solve", "band_engine",
           "sweep_span", "DEFAULT_LATENCY", "FIRMWARE_CYCLES_PER_BRANCH", "PASS_COUNTERS"]

#: pipeline latency of one pass (read, compute, write; the window's read-ahead)
DEFAULT_LATENCY = 2
#: docs/design.md section 6's cost of one branch (decision or backtrack) in firmware
FIRMWARE_CYCLES_PER_BRANCH = 40


def _words(nrows, band):
    return math.ceil(nrows / band)


def _order(nrows, band, down):
    """The rows of one pass in processing order: word by word, and within a word
    the rows in the pass direction (the chained combinational order)."""
    words = [list(range(k * band, min(nrows, (k + 1) * band))) for k in range(_words(nrows, band))]
    if not down:
        words = [list(reversed(w)) for w in reversed(words)]
    return [r for w in words for r in w]


# -- sweep pass --------------------------------------------------------------------------

def sweep_halo():
    """Rows between a rule's conclusion and its farthest premise (up, down)."""
    up = down = 0
    for rules in rule_table().values():
        for rule in rules:
            row = rule.conclusion[1][0]
            for _, off, _ in rule.premises:
                up, down = max(up, row - off[0]), max(down, off[0] - row)
    return up, down


def band_sweep(geo, anchors, state, band):
    """One sweep pass: ``(new_state, conflict)``.  Each word's new rows are
    computed from the window of old rows (the word and ``sweep_halo()`` rows
    either side) only; equals :func:`model.deduce.sweep`."""
    w, nrows = geo.width, geo.rows + 2
    up, down = sweep_halo()
    row_bits = (1 << w) - 1
    new = [0] * 10
    for k in range(_words(nrows, band)):
        r0, r1 = k * band, min(nrows, (k + 1) * band)
        lo, hi = max(0, r0 - up), min(nrows, r1 + down)
        window = (((1 << ((hi - lo) * w)) - 1) << (lo * w))
        out = sweep(geo, anchors, [b & window for b in state])
        keep = ((1 << ((r1 - r0) * w)) - 1) << (r0 * w)
        for i in range(10):
            new[i] |= out[i] & keep
    return new, conflict_of(new)


# -- flood pass --------------------------------------------------------------------------

def _closure(seeds, link, steps):
    """Every cell of a run (cells joined by ``link``: bit c joins c and c+1)
    that holds a seed: a segmented prefix-OR both ways (Kogge-Stone)."""
    right = left = seeds
    span = link
    for k in steps:
        right |= (right & span) << k
        left |= (left >> k) & span
        span &= span >> k
    return right | left


def _rows(board, nrows, w):
    m = (1 << w) - 1
    return [(board >> (i * w)) & m for i in range(nrows)]


def band_floods(geo, state, band):
    """Both floods as band passes.  Returns ``(new_state, conflict, passes)``,
    the first two equal to :func:`model.deduce.floods`'."""
    s = state
    w, nrows = geo.width, geo.rows + 2
    m = (1 << w) - 1
    steps = [1 << j for j in range((w - 1).bit_length())]
    grid = geo.grid
    ins = s[C1] & grid
    in_active = bool(ins)
    not_h = _rows(~s[H1] & geo.all, nrows, w)
    not_v = _rows(~s[V1] & geo.all, nrows, w)
    region_in = _rows(grid & ~s[C0], nrows, w)
    region_out = _rows(geo.all & ~s[C1], nrows, w)
    ins_rows = _rows(ins, nrows, w)
    frame = _rows(geo.frame, nrows, w)
    last = m >> 1  # no link from the last column to the next row's first
    link_in = [not_h[i] & region_in[i] & (region_in[i] >> 1) & last for i in range(nrows)]
    link_out = [not_h[i] & region_out[i] & (region_out[i] >> 1) & last for i in range(nrows)]
    reach_in = [0] * nrows
    reach_out = [frame[i] & region_out[i] for i in range(nrows)]
    passes = 0
    seeded = False
    while True:
        passes += 1
        down = passes % 2 == 1
        changed = pending = False
        for i in _order(nrows, band, down):
            above = reach_out[i - 1] & not_v[i - 1] if i > 0 else 0
            below = reach_out[i + 1] & not_v[i] if i + 1 < nrows else 0
            new = _closure((reach_out[i] | above | below) & region_out[i], link_out[i], steps)
            if new != reach_out[i]:
                reach_out[i], changed = new, True
            if in_active:
                seeds = reach_in[i]
                if not seeded and ins_rows[i]:
                    seeds |= ins_rows[i] & -ins_rows[i]
                    seeded = True
                if i > 0:
                    seeds |= reach_in[i - 1] & not_v[i - 1]
                if i + 1 < nrows:
                    seeds |= reach_in[i + 1] & not_v[i]
                new = _closure(seeds & region_in[i], link_in[i], steps)
                if new != reach_in[i]:
                    reach_in[i], changed = new, True
            j = i - 1 if down else i + 1  # the row processed just before (in the grid)
            if 0 <= j < nrows:
                edge = not_v[min(i, j)]
                pending |= bool(reach_out[i] & edge & region_out[j] & ~reach_out[j]
                                | reach_in[i] & edge & region_in[j] & ~reach_in[j])
        if not changed or not pending:
            break
    # the last pass: conflicts and deductions from the final reach
    reach = sum(r << (i * w) for i, r in enumerate(reach_in))
    escape = sum(r << (i * w) for i, r in enumerate(reach_out))
    unknown = grid & ~(s[C0] | s[C1])
    new = list(s)
    conflict = False
    if in_active:
        conflict |= bool(ins & ~reach)
        new[C0] |= unknown & ~reach
    conflict |= bool(s[C0] & grid & ~escape)
    new[C1] |= unknown & ~escape
    return new, conflict, passes


# -- label pass ---------------------------------------------------------------------------

def _line_adjacency(geo, h1, v1):
    w = geo.width
    adj = {}
    for p in D._positions(h1):
        adj.setdefault(p, []).append(p - w)
        adj.setdefault(p - w, []).append(p)
    for p in D._positions(v1):
        adj.setdefault(p, []).append(p - 1)
        adj.setdefault(p - 1, []).append(p)
    return adj


def register_labels(geo, registers):
    """The label registers' contents as an array (index = point bit) for the
    model's ``registers`` (a :func:`model.deduce.segment_base`, as
    ``labels`` returns it): every point on a line of the component holds the
    component's minimum point index (the warm start's labels; by induction
    the minimum of a merged segment is its minimum point), every other point
    its own index."""
    out = list(range(geo.cells))
    if registers is None:
        raise ValueError("no label registers after a closed loop")
    adj = _line_adjacency(geo, registers[0], registers[1])
    seen = set()
    for start in sorted(adj):
        if start in seen:
            continue
        comp, todo = [], [start]
        seen.add(start)
        while todo:
            p = todo.pop()
            comp.append(p)
            for q in adj[p]:
                if q not in seen:
                    seen.add(q)
                    todo.append(q)
        low = min(comp)
        for p in comp:
            out[p] = low
    return out


def band_labels(geo, state, band, warm=EMPTY_BASE, start=None, max_passes=None,
                partial_after=None, pass_words=None):
    """The label stage as band passes.

    ``start`` is the label register array (as :func:`register_labels` gives
    it; default: that of ``warm``, the model's registers).  ``max_passes``:
    the run stops after that many passes if it has not ended (a dropped run,
    :class:`BandEngine`; its findings are then not final).  Returns
    ``(new_state, conflict, passes, registers, closed)``: the state and
    conflict equal :func:`model.deduce.labels`'; ``registers`` is the final
    label array (for the model's registers ``r`` returned by ``labels``,
    ``registers == register_labels(geo, r)`` on every point on a line unless
    a cycle was found, when the model's registers are None: ``closed``).

    ``partial_after`` (None: never): the passes after that many may be
    *partial* (docs/deduce.md section 7.3): a pass
    that follows a pass that left something pending starts where that pass
    ended and stops one word after the first word that is past the farthest
    pending row and changed nothing; a partial pass that leaves nothing pending
    is followed by one whole top-down pass, whose findings are the run's.
    ``pass_words``: a list to which the words each pass streams are appended
    (one more for a whole pass that follows a partial one: its first read
    waits a clock)."""
    w, nrows = geo.width, geo.rows + 2
    h1, v1 = state[H1], state[V1]
    lab = list(register_labels(geo, warm) if start is None else start)
    nwords = _words(nrows, band)
    if not h1 and not v1:
        if pass_words is not None:
            pass_words.append(nwords)
        return state, False, 1, lab, False
    # per point row: the runs of points joined by LINE V edges, each with its
    # vertical links (up: H@p, down: H@(p+W))
    adj = _line_adjacency(geo, h1, v1)
    runs = [[] for _ in range(nrows)]
    for p in sorted(adj):
        if p - 1 in adj and v1 >> p & 1:
            continue  # not the first point of its run
        run, q = [], p
        while True:
            run.append(q)
            if q + 1 in adj and v1 >> (q + 1) & 1:
                q += 1
            else:
                break
        ups = [q - w for q in run if h1 >> q & 1]
        downs = [q + w for q in run if h1 >> (q + w) & 1]
        runs[p // w].append((run, ups, downs))
    passes = 0
    first, down, partial = 0, True, False   # the next pass: its first word, direction, kind
    extra = 0                               # a clock before the next pass's first read
    bound = None                            # a partial pass: the word it must pass
    while True:
        passes += 1
        step = 1 if down else -1
        order = range(first, nwords) if down else range(first, -1, -1)
        changed = pending = stopping = False
        seen = set()       # the rows processed in this pass so far
        raised = None      # the first word in which a row left something pending
        streamed = 0
        for k in order:
            streamed += 1
            word_changed = word_pending = False
            rows = range(k * band, min(nrows, (k + 1) * band))
            for i in (rows if down else reversed(rows)):
                j = i - step  # the row processed just before (in the grid)
                for run, ups, downs in runs[i]:
                    # the row before counts only if this pass processed it (a partial
                    # pass's first row sees none: the window enters it as empty)
                    before = (ups if down else downs) if j in seen else []
                    after = downs if down else ups
                    low = min(lab[q] for q in run + before + after)
                    for q in run:
                        if lab[q] != low:
                            lab[q], word_changed = low, True
                seen.add(i)
                if j in seen:
                    word_pending |= any(
                        min(lab[q] for q in run + ups + downs) < lab[run[0]]
                        for run, ups, downs in runs[j])
            changed |= word_changed
            pending |= word_pending
            if word_pending and raised is None:
                raised = k
            if stopping:
                break      # the word after the one that stopped the pass
            if partial and not word_changed and (k - bound) * step >= 0:
                stopping = True
        if pass_words is not None:
            pass_words.append(streamed + extra)
        last, extra = k, 0
        if passes == max_passes:
            break
        if partial:
            if not pending:
                # every label is final: one whole top-down pass for the findings
                first, down, partial, extra = 0, True, False, 1
                continue
        elif not changed or (not pending and down):
            # only a top-down pass may end the run early: a row's end pairs across the H
            # edges above it are taken with the labels of the row above, which a
            # bottom-up pass reaches later (they could still change in it)
            break
        # the next pass, the other way, from the word this one ended with
        partial = (partial_after is not None and passes >= partial_after and pending)
        bound = raised - step if raised is not None else None
        first, down = last, not down
    # the last pass: roots, ends, end pairs
    roots = sum(lab[p] == p for p in adj)
    ends = [p for p, nb in adj.items() if len(nb) == 1]
    if any(len(nb) > 2 for nb in adj.values()):
        raise AssertionError("labels run only at a sweep fixpoint (at most 2 lines a point)")
    closed = 2 * roots > len(ends)
    multi = roots > 1
    if closed and multi:
        return state, True, passes, lab, closed
    new = list(state)
    if closed:
        new[H0] |= geo.valid["H"] & ~h1
        new[V0] |= geo.valid["V"] & ~v1
    elif multi:
        end_set = set(ends)
        for p in ends:
            if p - 1 in end_set and lab[p - 1] == lab[p]:
                new[V0] |= (1 << p) & ~v1
            if p - w in end_set and lab[p - w] == lab[p]:
                new[H0] |= (1 << p) & ~h1
    return new, False, passes, lab, closed


# -- the band engine and its cycle model ---------------------------------------------------

@dataclass
class BandCounters:
    sweep_passes: int = 0  # = Counters.sweeps: one pass per sweep
    flood_passes: int = 0
    #: every pass of the label block: of the runs used and of the runs dropped
    label_passes: int = 0
    #: the passes of used label runs beyond the flood run beside them, and the used
    #: runs that ended after that flood run (:class:`BandEngine`: what the labels cost)
    late_label_passes: int = 0
    late_label_runs: int = 0
    #: the words the late passes did not stream, against whole passes (partial label
    #: passes, docs/deduce.md section 7.3; less a clock for each whole pass after one)
    late_label_skipped: int = 0
    #: band height -> ``[words, inner]``: the words the sweep passes wrote, in all
    #: (each pass its *span*, see :class:`BandEngine`), and the passes whose span
    #: does not begin with word 0 (they read the word above it first)
    sweep_spans: dict = field(default_factory=dict)
    #: band height -> the words the probes' snapshots copied, saves and restores
    #: (:class:`BandEngine`: only the words in which the live state or labels differ
    #: from the snapshot's)
    snapshot_words: dict = field(default_factory=dict)

    def as_dict(self):
        return {k: v for k, v in vars(self).items()
                if k not in ("sweep_spans", "snapshot_words")}


@dataclass(frozen=True)
class BandCycleModel:
    """Cycles of the band engine::

        (sweep words + sweep passes x latency + inner sweep passes)
        + (flood passes + late label passes) x (ceil((R+2)/band) + latency)
        + drain x late label runs
        + snapshot words + R x (decisions + backtracks)
        + branch x (decisions + backtracks)

    A flood or label pass streams the ``ceil((R+2)/band)`` words of the framed
    rows and drains a ``latency``-clock pipeline before the next pass (the next
    pass, in the other direction, starts with the word the last one wrote last).
    A sweep pass streams only its span of words (:class:`BandEngine`), one clock
    more when the span does not begin with word 0 (the word above it is read
    first); without spans in the counters (``BandCounters.sweep_spans`` has no
    entry for ``band``) every sweep pass is a whole pass.
    Flood and label deductions are applied by the next sweep pass and the
    end flags are counted in the last pass, so there is no extra pass.  The
    label runs go beside the flood runs (:class:`BandEngine`), so only the
    passes a used label run takes beyond the flood run beside it cost clocks;
    the label stage's findings are one clock behind its row updates (a
    pipeline register, for the clock rate), so a label run that ends after
    the flood run ends ``drain`` clocks after its last pass.
    A probe's snapshot copies only the words that differ
    (``BandCounters.snapshot_words``; without them in the counters, ``R`` a
    save or restore); the trail moves one
    row per clock; ``branch`` firmware clocks per decision and per backtrack."""
    band: int = 1
    latency: int = DEFAULT_LATENCY
    branch: int = FIRMWARE_CYCLES_PER_BRANCH
    drain: int = 1

    def pass_clocks(self, rows):
        return _words(rows + 2, self.band) + self.latency

    def snapshot_cycles(self, counters, band_counters, rows):
        """The probes' snapshot words and the trail's rows (the state moving)."""
        c, b = counters, band_counters
        trail = c.decisions + c.backtracks
        snapshots = b.snapshot_words.get(self.band)
        if snapshots is None:
            snapshots = rows * (c.saves + c.restores - trail)
        return snapshots + rows * trail

    def cycles(self, counters, band_counters, rows):
        c, b = counters, band_counters
        spans = b.sweep_spans.get(self.band)
        if spans is None:
            sweeps = b.sweep_passes * self.pass_clocks(rows)
        else:
            words, inner = spans
            sweeps = words + inner + self.latency * b.sweep_passes
        return ((b.flood_passes + b.late_label_passes) * self.pass_clocks(rows) + sweeps
                - b.late_label_skipped
                + self.drain * b.late_label_runs + self.snapshot_cycles(c, b, rows)
                + self.branch * (c.decisions + c.backtracks))


def sweep_span(seed, band, words):
    """The span ``(first, last)`` of words a sweep pass writes: every word (``seed``
    None), else the words of the rows in ``seed`` and one word either side, within
    ``0 .. words - 1`` (:class:`BandEngine`)."""
    if seed is None:
        return 0, words - 1
    groups = [r // band for r in seed]
    return max(min(groups) - 1, 0), min(max(groups) + 1, words - 1)


class BandEngine(D.Engine):
    """:class:`model.deduce.Engine` that also runs every flood and label stage
    as band passes (``band`` rows a word; the passes do not depend on it) and
    counts them; it checks that the band stages agree with the model's (the
    state and conflict always, the label registers too with ``check``; an
    AssertionError if not) and propagates with the model's results, so the
    search is the model's.  The label passes start from the label array of
    the model's registers (what the hardware's registers hold).

    **Sweep spans.**  A sweep pass writes only the words that can change: a
    Jacobi sweep cannot change a row whose rows -1 .. +1 did not change since
    it last computed it (every rule concludes at most one row from its
    premises, :func:`sweep_halo`).  So the pass after a sweep pass that changed
    rows writes the words of those rows and one word either side
    (:func:`sweep_span`); the first pass of a propagation from a state that an
    assumption (:meth:`_assume`: a probe, a probe's fix, a decision, a
    backtrack) changed in one cell writes the cell's word and one word either
    side, since the state before the assumption was a fixpoint; the first pass
    of any other propagation (``deduce`` from a loaded state) and the pass after
    a flood or label stage deduced something write every word.  The words
    counted are the puzzle's (``ceil((R+2)/band)``), for every band height in
    ``span_bands`` (``BandCounters.sweep_spans``).  With ``check``, every row a
    sweep changes is checked to be in its span (and within one row of the rows
    that changed before it).

    **Labels beside the floods** (``beside``, the module docstring): when the
    labels are dirty at a flood stage, a label run starts with the flood run;
    if the floods deduce something or find a conflict, it is dropped after at
    most the flood run's passes (its passes counted in ``label_passes``, its
    labels kept in ``registers[2]``, the label array, which the model's
    ``registers`` carry as a third element); else it is the label stage's run,
    and only its passes beyond the flood run's (and its drain, if it outlasts
    the flood run) cost clocks.  ``beside=False``: the label stage runs after
    the flood stage, as :mod:`model.deduce` has it (the cycles of that sequence,
    for comparison)."""

    def __init__(self, puzzle, *, band=1, check=True, span_bands=(1, 2, 4), beside=True,
                 partial_labels=True, **kwargs):
        super().__init__(puzzle, **kwargs)
        self.band = band
        self.check = check
        self.beside = beside
        #: the label passes after the flood run may be partial (:func:`band_labels`)
        self.partial_labels = partial_labels
        bands = set(span_bands) | {band}
        self.band_counters = BandCounters(sweep_spans={k: [0, 0] for k in sorted(bands)},
                                          snapshot_words={k: 0 for k in sorted(bands)})
        self._assumed = None  # the row of the cell the last assumption set
        self._flood_run = 0   # the passes of the last flood run (beside the labels)
        self._snap = None     # the probes' snapshot (state, label array); None: stale
        self._written = None  # the state as the last sweep pass wrote it

    def clear_labels(self):
        """The model's cleared registers and the label array: every label its own index."""
        super().clear_labels()
        self.registers += (tuple(range(self.geo.cells)),)

    def _assume(self, state, bit, colour):
        self._assumed = bit // self.geo.width
        return super()._assume(state, bit, colour)

    def deduce(self, state):
        self._snap = None   # the state was loaded or set from the trail: every word differs
        return super().deduce(state)

    def _saved(self, state):
        self._count_snapshot(state)
        self._snap = (state, self.registers[2])

    def _restored(self, result):
        # what the state memory holds: the last sweep pass's words (a flood or label stage
        # that finds a conflict has its deductions in ``result``, but they are never written)
        self._count_snapshot(self._written)

    def _count_snapshot(self, state):
        """A save or a restore copies the words in which the live state or label array
        (``state``, ``registers[2]``) differs from the snapshot: every word of the grid
        the first time in a ``deduce``."""
        nrows = self.geo.rows + 2
        if self._snap is None:
            rows = set(range(nrows))
        else:
            snap, snap_labels = self._snap
            rows = self._changed_rows(snap, state)
            w = self.geo.width
            rows |= {i // w for i, (a, z) in enumerate(zip(snap_labels, self.registers[2]))
                     if a != z}
        for band in self.band_counters.snapshot_words:
            self.band_counters.snapshot_words[band] += len({r // band for r in rows})

    def propagate(self, state):
        row, self._assumed = self._assumed, None
        #: rows whose words (and one either side) the next sweep pass writes (None: all)
        self._seed = None if row is None else {row}
        #: rows the next sweep pass may change (None: all; the check)
        self._dirty = None if row is None else self._near({row})
        return super().propagate(state)

    def _sweep_stage(self, state):
        self.band_counters.sweep_passes += 1
        new = super()._sweep_stage(state)
        nrows = self.geo.rows + 2
        changed = self._changed_rows(state, new)
        for band, counts in self.band_counters.sweep_spans.items():
            first, last = sweep_span(self._seed, band, _words(nrows, band))
            counts[0] += last - first + 1
            counts[1] += first > 0
            if self.check and any(not first <= r // band <= last for r in changed):
                raise AssertionError("a sweep changed a row outside its span")
        if self.check and self._dirty is not None and not changed <= self._dirty:
            raise AssertionError("a sweep changed a row that was not dirty")
        self._seed = changed
        self._dirty = self._near(changed)
        self._written = new
        return new

    def _flood_stage(self, state):
        new, bad = super()._flood_stage(state)
        bnew, bbad, passes = band_floods(self.geo, state, self.band)
        self.band_counters.flood_passes += passes
        if bbad != bad or (not bad and bnew != new):
            raise AssertionError("band floods disagree with model.deduce.floods")
        self._flood_run = passes if self.beside else 0
        if self.beside and self._labels_dirty(state) and (bad or new != state):
            # the label run beside this flood run is dropped when the floods end: its
            # labels stay, its findings are not used, the labels stay dirty
            *_, spent, lab, _ = band_labels(self.geo, state, self.band,
                                            start=self.registers[2], max_passes=passes)
            self.band_counters.label_passes += spent
            self.registers = self.registers[:2] + (tuple(lab),)
        return new, bad

    def _label_stage(self, state):
        geo, start = self.geo, self.registers[2]
        new, bad = super()._label_stage(state)
        settled = self.registers[0]
        words = []
        bnew, bbad, passes, lab, closed = band_labels(
            geo, state, self.band, start=start, pass_words=words,
            partial_after=self._flood_run if self.partial_labels else None)
        b = self.band_counters
        b.label_passes += passes
        if passes >= self._flood_run:   # it ends after the flood run beside it
            late = words[self._flood_run:]
            b.late_label_passes += len(late)
            b.late_label_runs += 1
            b.late_label_skipped += len(late) * _words(geo.rows + 2, self.band) - sum(late)
        if bbad != bad or (not bad and bnew != new) or closed != (settled is None):
            raise AssertionError("band labels disagree with model.deduce.labels")
        if self.check and settled is not None and (_on_lines(geo, state, lab) != _on_lines(
                geo, state, register_labels(geo, settled))):
            raise AssertionError("band label registers disagree with the model's")
        self.registers += (tuple(lab),)
        return new, bad

    def _deduced(self, old, new):
        self._seed = None   # the pass that applies a stage's deductions writes every word
        self._dirty = self._near(self._changed_rows(old, new))

    def _changed_rows(self, old, new):
        w = self.geo.width
        diff = 0
        for a, z in zip(old, new):
            diff |= a ^ z
        m = (1 << w) - 1
        return {i for i in range(self.geo.rows + 2) if diff >> (i * w) & m}

    def _near(self, rows):
        last = self.geo.rows + 1
        return {j for i in rows for j in (i - 1, i, i + 1) if 0 <= j <= last}


def _on_lines(geo, state, lab):
    adj = _line_adjacency(geo, state[H1], state[V1])
    return {p: lab[p] for p in adj}


#: the counters the engine counts as passes (its DEDUCE_FLOOD_ITERATIONS and
#: DEDUCE_LABEL_ITERATIONS), and the :class:`BandCounters` that hold them
PASS_COUNTERS = {"flood_iterations": "flood_passes", "label_iterations": "label_passes"}


@dataclass
class BandOutcome:
    outcome: D.Outcome        # model.deduce.solve's outcome: the search and its counters
    band: BandCounters
    rows: int

    def cycles(self, band, latency=DEFAULT_LATENCY):
        """Band engine cycles (:class:`BandCycleModel`)."""
        return BandCycleModel(band, latency).cycles(self.outcome.counters, self.band, self.rows)

    def counters(self):
        """``{name: value}`` of :class:`model.deduce.Counters` as the engine counts them:
        the flood and label iterations as the passes over its memories
        (:data:`PASS_COUNTERS`), every other counter as the reference's."""
        out = self.outcome.counters.as_dict()
        for name, passes in PASS_COUNTERS.items():
            out[name] = getattr(self.band, passes)
        return out


def band_engine(puzzle, *, band=1, check=True, span_bands=(1, 2, 4), beside=True,
                partial_labels=True, **kwargs):
    """A :class:`BandEngine` for ``puzzle``, to pass to :func:`model.deduce.solve`
    (``engine=``); ``kwargs`` are :class:`model.deduce.Engine`'s options."""
    return BandEngine(puzzle, band=band, check=check, span_bands=span_bands, beside=beside,
                      partial_labels=partial_labels, **kwargs)


def band_solve(puzzle, *, band=1, check=True, probing=True, early_loop=True, deadline=None,
               beside=True, **kwargs):
    """:func:`model.deduce.solve` with a :class:`BandEngine` (the same search:
    same solutions, decisions, probes, sweeps); returns a :class:`BandOutcome`."""
    engine = band_engine(puzzle, band=band, check=check, probing=probing,
                         early_loop=early_loop, deadline=deadline, beside=beside)
    outcome = D.solve(puzzle, probing=probing, early_loop=early_loop, deadline=deadline,
                      engine=engine, **kwargs)
    return BandOutcome(outcome, engine.band_counters, engine.geo.rows)
