"""Golden model of the deduction engine: its reference semantics (docs/design.md section 6;
docs/deduce.md).

The engine keeps, for every cell, edge and lattice point of the framed grid,
what is known (:mod:`spec.deduce` lists the variables), and deduces in
synchronous steps over the whole grid at once:

* a **sweep** applies every rule of :func:`spec.deduce.rule_table` at
  every anchor at once: the new state is the old state plus every conclusion
  whose premises held in the old state;
* the two **floods** (one iteration spreads each by one cell, both at once) - IN: from the
  first IN cell in scan order through cells not OUT, across edges not LINE;
  an unreached IN cell is a conflict, an unreached unknown cell is OUT.  OUT:
  from the frame through cells not IN, across edges not LINE; an unreached OUT
  cell is a conflict (a hole), an unreached unknown cell is IN;
* **labels** (no early loop): the lattice points on lines take the minimum
  label of their line neighbours, one step an iteration, until nothing
  changes; the label registers keep their contents between runs and are
  saved and restored with the state (``Engine.registers``).  A closed loop
  is a conflict when other lines exist and settles the puzzle (every unknown
  edge NOLINE) when it is the only line; an unknown edge joining the two ends
  of one segment is NOLINE when other lines exist.

:meth:`Engine.propagate` runs sweeps until nothing changes, then the floods,
then the labels, and starts over whenever one of them deduced something.  The
probing sequencer (:meth:`Engine.deduce`) and the depth-first search
(:func:`solve`) drive it;
their orders are the specification the gateware and firmware follow.  The
hardware streams the same steps over a state in memory, a band of rows a clock:
:mod:`model.band` counts its passes and clocks.

Bitboards as :class:`spec.deduce.Geometry` lays them out: bit ``r * W + c`` of a Python int is cell
``(r, c)`` of the framed (R+2) x (C+2) array, ``W = C + 2``.
"""

import time
from dataclasses import dataclass, make_dataclass
from functools import cache

from slitherlink.spec.counters import DEDUCE_COUNTERS
from slitherlink.spec.deduce import (BOARDS, C0, C1, H0, H1, IN, OUT, V0, V1,
                                     VARS, Geometry, anchors, rule_table)

__all__ = ["Geometry", "Counters", "Outcome", "Engine", "sweep", "floods", "labels",
           "segments", "segment_base", "solve"]

# -- the sweep, generated from the rule table --------------------------------

def _shift(expr, k):
    """``expr`` moved so that bit ``p + k`` lands on bit ``p`` (k may be negative)."""
    if k == 0:
        return expr
    return f"({expr} >> {k})" if k > 0 else f"({expr} << {-k})"


@cache
def _sweep_function(width):
    """Python source of one sweep for grids of ``width`` (= C + 2), compiled."""
    table = rule_table()
    lines = ["def sweep(s, anc):", "    " + ", ".join(BOARDS) + " = s", "    n = list(s)"]
    aligned = {}

    def lit(var, off, value):
        k = off[0] * width + off[1]
        name = f"{var}{value}_{'m' if k < 0 else ''}{abs(k)}"
        if name not in aligned:
            aligned[name] = _shift(f"{var}{value}", k)
            lines.append(f"    {name} = {aligned[name]}")
        return name

    for wname, rules in table.items():
        groups = {}
        for rule in rules:
            var, off, value = rule.conclusion
            k = off[0] * width + off[1]
            groups.setdefault((VARS.index(var) * 2 + value, k), []).append(rule.premises)
        if not groups:
            continue
        lines.append(f"    a = anc[{wname!r}]")
        lines.append("    if a:")
        for (board, k), premise_sets in sorted(groups.items()):
            if any(not p for p in premise_sets):
                term = "a"
            else:
                terms = [" & ".join(lit(*p) for p in ps) for ps in premise_sets]
                term = f"(({' | '.join(terms)}) & a)"
            shifted = f"({term} << {k})" if k > 0 else (f"({term} >> {-k})" if k < 0 else term)
            lines.append(f"        n[{board}] |= {shifted}")
    lines.append("    return n")
    # aligned literals are computed lazily above the first use; hoist them to the top
    body = [l for l in lines[3:] if not any(l.startswith(f"    {n} =") for n in aligned)]
    source = "\n".join(lines[:3] + [f"    {n} = {e}" for n, e in aligned.items()] + body)
    namespace = {}
    exec(compile(source, f"<deduce sweep W={width}>", "exec"), namespace)
    return namespace["sweep"], source


def sweep(geo, anchors, state):
    """One sweep (one clock): every rule at every anchor, on the old state."""
    return _sweep_function(geo.width)[0](state, anchors)


def conflict_of(state):
    return any(state[i] & state[i + 1] for i in range(0, 10, 2))


# -- floods -----------------------------------------------------------------

def _grow(geo, p, region, h1, v1):
    w = geo.width
    return p | ((((p & ~h1) << 1) | ((p >> 1) & ~h1)
                 | ((p & ~v1) << w) | ((p >> w) & ~v1)) & region)


def _flood(geo, seed, region, h1, v1):
    p, iterations = seed & region, 0
    while True:
        iterations += 1
        q = _grow(geo, p, region, h1, v1)
        if q == p:
            return p, iterations
        p = q


def floods(geo, state):
    """Both floods at once.  Returns ``(new_state, conflict, cycles)``."""
    s = state
    grid = geo.grid
    ins = s[C1] & grid
    unknown = grid & ~(s[C0] | s[C1])
    new = list(s)
    conflict = False
    it_in = 0
    if ins:
        reach, it_in = _flood(geo, ins & -ins, grid & ~s[C0], s[H1], s[V1])
        if ins & ~reach:
            conflict = True
        new[C0] |= unknown & ~reach
    escape, it_out = _flood(geo, geo.frame, geo.all & ~s[C1], s[H1], s[V1])
    if s[C0] & grid & ~escape:
        conflict = True
    new[C1] |= unknown & ~escape
    return new, conflict, max(it_in, it_out)


# -- labels (no early loop) ----------------------------------------------------

def _bits(x):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


_BYTE_BITS = [tuple(i for i in range(8) if b >> i & 1) for b in range(256)]


def _positions(x):
    """The set bits of ``x`` as a list, lowest first."""
    out = []
    for i, byte in enumerate(x.to_bytes((x.bit_length() + 7) // 8, "little")):
        if byte:
            base = i * 8
            out.extend(base + j for j in _BYTE_BITS[byte])
    return out


def segments(geo, h1, v1):
    """Walk the lines: ``(paths, cycles)``.

    A path is ``(a, b, length, low, i0, i1)``: its two end points, its number
    of lines, its minimum point, and the stretch ``i0..i1`` (distances from
    ``a``) of the points that start the label stage with the label ``low``
    (here, with every label its own index, just the minimum point); a cycle
    is ``(length, arc)``, ``arc`` the number of lines of that stretch.  At a
    sweep fixpoint every point has at most two lines, so components are paths
    and cycles.
    """
    w = geo.width
    adj = {}
    for p in _positions(h1):
        adj.setdefault(p, []).append(p - w)
        adj.setdefault(p - w, []).append(p)
    for p in _positions(v1):
        adj.setdefault(p, []).append(p - 1)
        adj.setdefault(p - 1, []).append(p)
    paths, cycles = [], []
    on_paths = 0
    done = set()
    for start in sorted(adj):
        nb = adj[start]
        if len(nb) > 2:
            raise AssertionError("labels run only at a sweep fixpoint (at most 2 lines a point)")
        if len(nb) != 1 or start in done:
            continue
        prev, cur, k, low, at = start, nb[0], 0, start, 0
        while True:
            k += 1
            if cur < low:
                low, at = cur, k
            nxt = adj[cur]
            if len(nxt) == 1:
                break
            prev, cur = cur, (nxt[1] if nxt[0] == prev else nxt[0])
        done.add(cur)
        on_paths += k + 1
        paths.append((start, cur, k, low, at, at))
    if on_paths < len(adj):  # the other points lie on cycles
        seen = set()
        for a, b, *_ in paths:
            prev, cur = None, a
            seen.add(a)
            while cur != b:
                nxt = adj[cur]
                prev, cur = cur, (nxt[0] if nxt[0] != prev else nxt[1])
                seen.add(cur)
        for start in sorted(adj):
            if start in seen:
                continue
            prev, cur, k = None, start, 0
            while True:
                seen.add(cur)
                nxt = adj[cur]
                prev, cur = cur, (nxt[0] if nxt[0] != prev else nxt[1])
                k += 1
                if cur == start:
                    break
            cycles.append((k, 0))
    return paths, cycles


def _merged_segments(geo, h1, v1, base):
    """:func:`segments` of lines that contain the lines of ``base`` (a
    :func:`segment_base`) when the label registers hold ``base``'s settled
    labels: a point on a line of ``base`` starts with the minimum of its old
    segment, a new point with its own index.  Only the new lines are walked;
    the old paths are taken whole."""
    base_h, base_v, (base_paths, _), by_end = base
    w = geo.width
    cadj = {}
    eid = 0

    def join(u, v, length, low, old):
        """An edge of the condensed graph: an old path (``old``) or a new line."""
        nonlocal eid
        cadj.setdefault(u, []).append((v, length, low, old, eid))
        cadj.setdefault(v, []).append((u, length, low, old, eid))
        eid += 1
    for p in _positions(h1 & ~base_h):
        join(p - w, p, 1, None, False)
    for p in _positions(v1 & ~base_v):
        join(p - 1, p, 1, None, False)
    touched = set()
    for node in list(cadj):
        index = by_end.get(node)
        if index is not None and index not in touched:
            touched.add(index)
            a, b, length, low, *_ = base_paths[index]
            join(a, b, length, low, True)
    never = geo.cells  # larger than every label

    def best_of(node, offset, best):
        """``best`` updated with ``node`` itself when it is new (not on an old line)."""
        if node not in by_end and node < best[0]:
            return (node, offset, offset)
        return best

    def step(edge, offset, best):
        v, length, low, old, _ = edge
        if old and low < best[0]:
            best = (low, offset, offset + length)
        return best_of(v, offset + length, best)

    paths, cycles = [], []
    seen = set()
    for start in sorted(cadj):
        edges = cadj[start]
        if len(edges) > 2:
            raise AssertionError("labels run only at a sweep fixpoint (at most 2 lines a point)")
        if len(edges) != 1 or start in seen:
            continue
        seen.add(start)
        node, last, offset = start, None, 0
        best = best_of(start, 0, (never, 0, 0))
        while True:
            nxt = [e for e in cadj[node] if e[4] != last]
            if not nxt:
                break
            best = step(nxt[0], offset, best)
            offset += nxt[0][1]
            node, last = nxt[0][0], nxt[0][4]
            seen.add(node)
        paths.append((start, node, offset, best[0], best[1], best[2]))
    for start in sorted(cadj):
        if start in seen:
            continue
        node, last, total = start, None, 0
        best = best_of(start, 0, (never, 0, 0))
        while True:
            seen.add(node)
            edge = [e for e in cadj[node] if e[4] != last][0]
            best = step(edge, total, best)
            total += edge[1]
            node, last = edge[0], edge[4]
            if node == start:
                break
        cycles.append((total, best[2] - best[1]))
    paths += [(a, b, length, low, 0, length)
              for i, (a, b, length, low, *_) in enumerate(base_paths) if i not in touched]
    return paths, cycles


EMPTY_BASE = (0, 0, ([], []), {})


def segment_base(geo, state):
    """The label registers' contents after a label stage on ``state``'s lines
    (as :func:`_merged_segments` needs them), or None if they form a cycle."""
    return _as_base(state[H1], state[V1], segments(geo, state[H1], state[V1]))


def _as_base(h1, v1, found):
    paths, cycles = found
    if cycles:
        return None
    by_end = {}
    for i, (a, b, *_) in enumerate(paths):
        by_end[a] = by_end[b] = i
    return h1, v1, (paths, cycles), by_end


def labels(geo, state, warm=EMPTY_BASE):
    """The label stage.  Returns ``(new_state, conflict, iterations, registers)``.

    Lattice point ``q`` (the top-left cell of its 2x2 block) is joined to
    ``q - W`` by a LINE on ``H@q`` and to ``q - 1`` by a LINE on ``V@q``.  The
    label registers keep their contents between runs (``warm``: the
    :func:`segment_base` of the lines they last settled on, a subset of the
    current lines; :data:`EMPTY_BASE` = every label its own index).  Each clock
    every point on a line takes the minimum of its label and its line
    neighbours' labels, until a clock changes nothing.  That takes, per
    component, the largest distance from a point to the stretch of points that
    start with the component's minimum label, plus the final clock; we compute
    it by walking the segments.  Then a *root* is a point whose label is its
    own index (one per component) and a component is a cycle when the roots
    outnumber half the segment ends.  ``registers`` is the new ``warm`` (None
    after a cycle: the state is then complete or in conflict).
    """
    w = geo.width
    h1, v1 = state[H1], state[V1]
    if not h1 and not v1:
        return state, False, 1, EMPTY_BASE
    if warm is None or warm[0] & ~h1 or warm[1] & ~v1:
        raise AssertionError("the label registers hold lines the state does not have")
    found = _merged_segments(geo, h1, v1, warm)
    paths, cycles = found
    longest = max([max(i0, k - i1) for _, _, k, _, i0, i1 in paths]
                  + [(k - arc) // 2 for k, arc in cycles])
    iterations = longest + 1
    registers = _as_base(h1, v1, found)
    multi = len(paths) + len(cycles) > 1
    if cycles and multi:
        return state, True, iterations, registers
    new = list(state)
    if cycles:  # the loop is complete: no other line anywhere
        new[H0] |= geo.valid["H"] & ~h1
        new[V0] |= geo.valid["V"] & ~v1
    elif multi:
        for a, b, *_ in paths:
            a, b = min(a, b), max(a, b)
            if b - a == 1:
                new[V0] |= (1 << b) & ~v1
            elif b - a == w:
                new[H0] |= (1 << b) & ~h1
    return new, False, iterations, registers


# -- counters and the cycle model -----------------------------------------------

#: The search's counters: one int field per :data:`spec.counters.DEDUCE_COUNTERS` entry, in
#: its order (what each counts is said there); the hardware must count the same.
Counters = make_dataclass(
    "Counters", [(c.name, int, 0) for c in DEDUCE_COUNTERS],
    namespace={"__module__": __name__, "as_dict": lambda self: dict(vars(self))})


# -- propagation, probing, search --------------------------------------------------

class Engine:
    """One puzzle's engine: geometry, anchors, counters."""

    def __init__(self, puzzle, *, probing=True, early_loop=True, deadline=None, implied=True):
        self.puzzle = puzzle
        self.geo = Geometry(puzzle.rows, puzzle.cols)
        self.anchors = anchors(self.geo, puzzle)
        self.counters = Counters()
        self.probing = probing
        self.early_loop = early_loop
        self.deadline = deadline
        #: skip the probes of implied colours (:meth:`deduce`); False: probe every colour
        #: (the sequencer before docs/deduce.md section 4, to compare)
        self.implied = implied
        #: probes skipped as implied (a statistic, not a hardware counter): cells with both
        #: colours implied, IN probes and OUT probes; and the deduce calls whose best cell
        #: is the first candidate because no cell scored
        self.skipped = {"cell": 0, "in": 0, "out": 0, "unscored": 0}
        self._sweep = _sweep_function(self.geo.width)[0]
        #: the label registers: what they last settled on (a segment_base, None
        #: after a cycle) and those lines; saved and restored with the state
        self.clear_labels()

    def clear_labels(self):
        """Every label register back to its own index (on loading a new state)."""
        self.registers = (EMPTY_BASE, (0, 0))

    def initial_state(self):
        s = [0] * 10
        s[C0] = self.geo.frame
        return s

    def propagate(self, state):
        """Sweeps, floods and labels to a fixpoint.  Returns ``(state, conflict)``.

        The stages are methods (:meth:`_sweep_stage`, :meth:`_flood_stage`,
        :meth:`_label_stage`, and :meth:`_deduced` for what a flood or label stage
        added) so that a model of another build (:mod:`model.band`) can count
        its own clocks beside the same propagation."""
        grid = self.geo.grid
        while True:
            while True:
                new = self._sweep_stage(state)
                if conflict_of(new):
                    return new, True
                if new == state:
                    break
                state = new
            if not (state[C1] & grid) and not (grid & ~state[C0]):
                return state, True  # every cell OUT: no loop
            new, bad = self._flood_stage(state)
            if bad:
                return new, True
            if new != state:
                self._deduced(state, new)
                state = new
                continue
            if self._labels_dirty(state):
                new, bad = self._label_stage(state)
                if bad:
                    return new, True
                if new != state:
                    self._deduced(state, new)
                    state = new
                    continue
            return state, False

    def _saved(self, state):
        """A probe saved ``state`` and the label registers (a hook for a model of
        another build to count what its snapshot copies; :mod:`model.band`)."""

    def _restored(self, result):
        """A probe ended in ``result`` (the registers still the probe's) and the
        snapshot is restored (a hook, as :meth:`_saved`)."""

    def _labels_dirty(self, state):
        """The label stage runs only when a LINE was added since the label registers last
        settled (its findings depend on the lines alone)."""
        return self.early_loop and (state[H1], state[V1]) != self.registers[1]

    def _sweep_stage(self, state):
        """One sweep (counted)."""
        self.counters.sweeps += 1
        return self._sweep(state, self.anchors)

    def _flood_stage(self, state):
        """Both floods (counted): ``(new_state, conflict)``."""
        c = self.counters
        c.floods += 1
        new, bad, cycles = floods(self.geo, state)
        c.flood_iterations += cycles
        return new, bad

    def _label_stage(self, state):
        """The label stage (counted; the label registers settle): ``(new_state, conflict)``."""
        c = self.counters
        c.label_runs += 1
        new, bad, iterations, settled = labels(self.geo, state, self.registers[0])
        self.registers = (settled, (state[H1], state[V1]))
        c.label_iterations += iterations
        return new, bad

    def _deduced(self, old, new):
        """A flood or label stage turned ``old`` into ``new`` (a hook; nothing here)."""

    def _assume(self, state, bit, colour):
        s = list(state)
        s[C1 if colour else C0] |= 1 << bit
        return s

    def candidates(self, state):
        """Probe/branch candidates: unknown grid cells with a known orthogonal
        neighbour (frame included), in row-major scan order."""
        geo = self.geo
        known = state[C0] | state[C1]
        w = geo.width
        near = (known << 1) | (known >> 1) | (known << w) | (known >> w)
        return [b for b in _bits(geo.grid & ~known & near)]

    def deduce(self, state):
        """Propagation plus failed-literal probing, to a fixpoint; and the branch
        picker's choice (:attr:`best`).

        The sequencer walks the grid cells in row-major order.  A *near* pass
        probes every cell that is unknown and has a known orthogonal neighbour
        *in the current state*: IN, then (if IN did not fail) OUT - snapshot,
        assume, propagate, restore.  A failed probe fixes the other colour in the
        live state and propagates it there.  When a near pass fixed nothing and
        unknown cells remain, one *far* pass probes the unknown cells with no
        known neighbour the same way.  A pass that fixed something starts a new
        near pass; probing ends when the near pass and the far pass after it
        fixed nothing (or no cell is unknown).

        **Implied colours** (docs/deduce.md section 4): every colour that
        the propagated state of a probe that succeeded holds is *implied* (two
        boards, IN and OUT), until the live state changes (a failed probe's fix;
        and at the start).  An implied colour is not tried: its propagation is
        contained in that of the probe that implied it, which did not fail, so
        it cannot fail (propagation is monotone; where it might not be, skipping
        only gives up a deduction, never a wrong one).  A cell whose two colours
        are implied is not a candidate at all.

        **Scores** (the branch picker): a cell whose two probes both succeeded
        scores the smaller of the two propagations' numbers of known grid
        cells (a cell with an implied colour is not scored); :attr:`best` is
        the first cell, in probing order, with the highest score since the last
        near pass began (registers cleared at the start of every near pass).  At
        the end every score was taken on the same state, so this is the cell
        whose weaker colour still deduces the most.  When no cell scored (their
        colours were implied) and cells are unknown, :attr:`best` is the first
        candidate of the final state (:meth:`candidates`; the last near pass
        met it first).
        """
        self.best = None
        state, bad = self.propagate(state)
        if bad or not self.probing:
            return state, bad
        c, geo = self.counters, self.geo
        w, grid = geo.width, geo.grid
        live = self.registers  # the snapshot holds the label registers too
        far, best = False, 0
        implied = [0] * 10  # C0 (OUT) and C1 (IN): colours implied since the state changed
        while True:
            fixed = False
            for bit in geo.grid_bits:
                known = state[C0] | state[C1]
                m = 1 << bit
                if known & m:
                    continue
                if bool(known & ((m << 1) | (m >> 1) | (m << w) | (m >> w))) == far:
                    continue  # a near pass takes the near cells, a far pass the others
                if implied[C0] & implied[C1] & m:
                    self.skipped["cell"] += 1
                    continue  # both colours implied: neither can fail
                if self.deadline is not None and time.monotonic() > self.deadline:
                    raise _Timeout
                counts = []
                for colour in (IN, OUT):
                    if implied[C1 if colour else C0] & m:
                        self.skipped["in" if colour else "out"] += 1
                        continue  # implied: it cannot fail
                    c.probes += 1
                    c.saves += 1
                    self._saved(state)
                    result, failed = self.propagate(self._assume(state, bit, colour))
                    c.restores += 1
                    self._restored(result)
                    self.registers = live
                    if failed:
                        c.probe_hits += 1
                        fixed = True
                        state, bad = self.propagate(self._assume(state, bit, 1 - colour))
                        live = self.registers
                        implied = [0] * 10
                        if bad:
                            return state, True
                        break
                    if self.implied:
                        implied[C0] |= result[C0]
                        implied[C1] |= result[C1]
                    counts.append(((result[C0] | result[C1]) & grid).bit_count())
                else:
                    if len(counts) == 2 and min(counts) > best:
                        best, self.best = min(counts), bit
            if fixed:
                far, best, self.best = False, 0, None
            elif not far and grid & ~(state[C0] | state[C1]):
                far = True
            else:
                if self.best is None and grid & ~(state[C0] | state[C1]):
                    self.best = self.candidates(state)[0]   # no cell scored: the first
                    self.skipped["unscored"] += 1
                return state, False


class _Timeout(Exception):
    pass


@dataclass
class Outcome:
    solutions: list
    counters: Counters
    exhausted: bool
    limit_reached: bool = False
    limit: str = ""            # "decisions" or "time" when a limit ended the search
    branch_free: bool = False  # solved (and, if asked, proved unique) with no decision


def solve(puzzle, *, max_solutions=1, max_decisions=None, probing=True, early_loop=True,
          deadline=None, engine=None):
    """Depth-first search over :meth:`Engine.deduce` (the firmware's part).

    Branch picker: the cell :meth:`Engine.deduce` scored best (the unknown cell
    whose weaker probe deduced the most), IN first; without probing, the first
    unknown cell with a known neighbour in scan order.  Each decision saves the state (the
    trail); when a branch fails, the state is restored and the other colour is
    asserted (a backtrack).  A fully known, conflict-free state after
    propagation is a solution; with ``max_solutions`` > 1 the search goes on
    (unique mode).  ``max_decisions`` and ``deadline`` (``time.monotonic()``)
    stop it with ``limit_reached``.  ``engine``: an :class:`Engine` (or subclass)
    made for ``puzzle`` with the same options, to search on (default: a new one).
    """
    if engine is None:
        engine = Engine(puzzle, probing=probing, early_loop=early_loop, deadline=deadline)
    c, geo = engine.counters, engine.geo
    out = Outcome([], c, exhausted=False)
    trail = []  # (saved state, its label registers, cell bit, colour still to try)
    try:
        state, bad = engine.deduce(engine.initial_state())
        while True:
            if not bad and not (geo.grid & ~(state[C0] | state[C1])):
                out.solutions.append(geo.to_rows(state[C1]))
                c.solutions += 1
                if max_solutions is not None and len(out.solutions) >= max_solutions:
                    break
                bad = True  # look for another
            if bad:
                if not trail:
                    out.exhausted = True
                    break
                saved, registers, bit, colour = trail.pop()
                c.backtracks += 1
                c.restores += 1
                engine.registers = registers
                state, bad = engine.deduce(engine._assume(saved, bit, colour))
                continue
            if deadline is not None and time.monotonic() > deadline:
                raise _Timeout
            if max_decisions is not None and c.decisions >= max_decisions:
                out.limit_reached, out.limit = True, "decisions"
                break
            bit = engine.best if engine.best is not None else engine.candidates(state)[0]
            c.decisions += 1
            c.saves += 1
            trail.append((state, engine.registers, bit, OUT))
            state, bad = engine.deduce(engine._assume(state, bit, IN))
    except _Timeout:
        out.limit_reached, out.limit = True, "time"
    out.branch_free = c.decisions == 0 and not out.limit_reached
    return out
