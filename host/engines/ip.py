"""Engine ``ip``: the integer program of seed 002 with iterative subtour cuts, on HiGHS.

The model of seed 002 ("Final Model"), on the (R+1) x (C+1) lattice points
(its nodes) and both directions of every unit edge (its arcs ``x[i, j]``,
binary):

* objective ``Arcs``: minimise the number of arcs used;
* ``Demand``: for a clue cell, the arcs of its four sides (both directions)
  sum to the clue;
* ``NetFlow``: at every node, arcs in minus arcs out is 0 (``b = 0``);
* ``OneWay``: ``x[i, j] + x[j, i] <= 1``;
* ``OneIn`` / ``OneOut``: at most one arc into / out of every node;
* ``Cuts`` (the optional starting rules, ``starting_rules=True``):
  ``x[i, j] + x[j, i] = 1`` for every known line (seed 002's set K) and, as
  the seed's "areas for improvement" suggests, ``= 0`` for every known empty
  side (set K_2);
* ``Subtours``: for every subtour S found so far,
  ``sum over (i, j) in S of x[i, j] + x[j, i] <= |S| - 1``.

The MIP is solved, the solution split into its subtours (seed 002's R
procedure), a ``Subtours`` row added for each, and the MIP solved again, until
the solution is one loop.  Deviations from the seed, all needed for a correct
answer on every puzzle:

1. **Zero loops.**  With no positive clue the empty solution is optimal for
   ``Arcs``; we add ``sum of all x >= 1``.
2. **Embedded solutions.**  A cut removes exactly the solutions equal to its
   subtour; a subtour that alone satisfies every clue (every other subtour
   touches no positive clue; seed 001's rule) *is* a solution, so it is
   recorded before it is cut.  The seed assumes the last run's single tour.
3. **Starting rules, only where they are sound.**  The seed's four rules
   (Fig. 2): two adjacent 3s -> the line between them and the two outer
   parallel sides; a 0 or 1 in a corner -> no line at the corner, a 3 -> both
   corner sides, a 2 -> the two border sides leading up to the cell; two
   diagonal 3s -> the two outer corners; a 3 diagonal to a 0 -> the 3's two
   sides at their shared point.  The adjacent-3s rule is false when the whole
   loop is the domino around the two 3s (seed 000 section 5.3, "trivial
   cases"); it is applied to a pair only if that domino loop is not a
   solution.  The corner-2 rule needs at least 2 rows and 2 columns.
4. **Uniqueness / enumeration**: a found solution is blocked by the
   ``Subtours`` row of its own loop (it removes exactly that solution), and
   the MIP is solved again.

``objective="none"`` drops the ``Arcs`` objective (pure feasibility, not the
seed's model) for comparison.

HiGHS is called through ``scipy.optimize.milp`` (one fresh MIP per run, as the
seed's AMPL runs), not through ``highspy``: highspy 1.15 and OR-Tools 9.15
ship different ``libhighs.so.1`` builds and cannot be loaded into one process
(whichever is imported second fails with an undefined symbol), while scipy's
HiGHS is private to scipy.  One thread, presolve on.
"""

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

from . import Stopwatch
from ._edges import Deadline, Lattice, finish, keep_solutions, wanted_solutions

__all__ = ["solve", "starting_rule_cuts"]

def starting_rule_cuts(puzzle, lattice=None):
    """``(lines, empty)``: edges every solution draws / leaves empty, by seed 002's rules."""
    lattice = lattice or Lattice(puzzle.rows, puzzle.cols)
    R, C = puzzle.rows, puzzle.cols
    clue = puzzle.clues
    lines, empty = set(), set()

    def at(r, c):
        return clue[r][c] if 0 <= r < R and 0 <= c < C else None

    # two adjacent 3s (seed 002 Fig. 2, top left), unless their domino is the whole loop
    for r in range(R):
        for c in range(C):
            if at(r, c) != 3:
                continue
            if at(r, c + 1) == 3:
                domino = {lattice.h(r, c), lattice.h(r, c + 1), lattice.h(r + 1, c),
                          lattice.h(r + 1, c + 1), lattice.v(r, c), lattice.v(r, c + 2)}
                if not _satisfies_clues(puzzle, lattice, domino):
                    lines |= {lattice.v(r, c), lattice.v(r, c + 1), lattice.v(r, c + 2)}
            if at(r + 1, c) == 3:
                domino = {lattice.v(r, c), lattice.v(r + 1, c), lattice.v(r, c + 1),
                          lattice.v(r + 1, c + 1), lattice.h(r, c), lattice.h(r + 2, c)}
                if not _satisfies_clues(puzzle, lattice, domino):
                    lines |= {lattice.h(r, c), lattice.h(r + 1, c), lattice.h(r + 2, c)}
    # a clue in a corner (top right of Fig. 2)
    for r, c, dr, dc in ((0, 0, 1, 1), (0, C - 1, 1, -1), (R - 1, 0, -1, 1),
                         (R - 1, C - 1, -1, -1)):
        d = clue[r][c]
        if d is None:
            continue
        horizontal = lattice.h(r if dr > 0 else r + 1, c)   # the frame side at the corner
        vertical = lattice.v(r, c if dc > 0 else c + 1)
        if d in (0, 1):
            empty |= {horizontal, vertical}
        elif d == 3:
            lines |= {horizontal, vertical}
        elif R >= 2 and C >= 2:   # d == 2: the border sides of the next cells
            lines.add(lattice.h(r if dr > 0 else r + 1, c + dc))
            lines.add(lattice.v(r + dr, c if dc > 0 else c + 1))
    # diagonal 3s (bottom left) and a 3 diagonal to a 0 (bottom right)
    for r in range(R):
        for c in range(C):
            if at(r, c) != 3:
                continue
            for dr in (-1, 1):
                for dc in (-1, 1):
                    other = at(r + dr, c + dc)
                    if other == 3:      # A's two sides away from B
                        lines.add(lattice.h(r + 1 if dr < 0 else r, c))
                        lines.add(lattice.v(r, c + 1 if dc < 0 else c))
                    elif other == 0:    # A's two sides at the point shared with B
                        lines.add(lattice.h(r + 1 if dr > 0 else r, c))
                        lines.add(lattice.v(r, c + 1 if dc > 0 else c))
    return lines, empty


def _satisfies_clues(puzzle, lattice, edges):
    return all(sum(e in edges for e in lattice.cell_edges(r, c)) == puzzle.clues[r][c]
               for r, c in puzzle.clue_cells())


def solve(puzzle, *, unique=False, time_limit=None, max_solutions=None,
          starting_rules=True, objective="arcs"):
    """Solve with seed 002's integer program on HiGHS, cutting subtours iteratively.

    ``starting_rules`` adds the seed's optional starting-rule cuts;
    ``objective`` is ``"arcs"`` (the seed's) or ``"none"``.
    """
    if objective not in ("arcs", "none"):
        raise ValueError(f"objective must be 'arcs' or 'none', not {objective!r}")
    wanted, note = wanted_solutions(unique, max_solutions)
    deadline = Deadline(time_limit)
    lattice = Lattice(puzzle.rows, puzzle.cols)
    counters = {"mip_runs": 0, "subtours_cut": 0, "solutions_blocked": 0,
                "bb_nodes": 0, "known_lines": 0, "known_empty": 0}
    found = {}  # the solutions' edge sets, in the order found
    exhausted = timed_out = False
    with Stopwatch() as clock:
        n_arcs = 2 * lattice.num_edges          # column 2e: p -> q, 2e + 1: q -> p
        rows = _Rows()

        def both(edges):
            return [2 * e + k for e in edges for k in (0, 1)]

        for r, c in puzzle.clue_cells():                                 # Demand
            d = puzzle.clues[r][c]
            rows.add(d, d, both(lattice.cell_edges(r, c)))
        for p, edges in enumerate(lattice.point_edges):
            into = [2 * e + (0 if lattice.ends[e][1] == p else 1) for e in edges]
            out = [2 * e + (1 if lattice.ends[e][1] == p else 0) for e in edges]
            rows.add(0, 0, into + out, [1] * len(into) + [-1] * len(out))  # NetFlow
            rows.add(-np.inf, 1, into)                                     # OneIn
            rows.add(-np.inf, 1, out)                                      # OneOut
        for e in range(lattice.num_edges):
            rows.add(-np.inf, 1, both([e]))                                # OneWay
        rows.add(1, np.inf, range(n_arcs))                                 # fix 1: a loop
        if starting_rules:                                                 # Cuts (K, K_2)
            lines, empty = starting_rule_cuts(puzzle, lattice)
            for e in sorted(lines):
                rows.add(1, 1, both([e]))
            for e in sorted(empty):
                rows.add(0, 0, both([e]))
            counters["known_lines"], counters["known_empty"] = len(lines), len(empty)
        cost = np.full(n_arcs, 1.0 if objective == "arcs" else 0.0)
        clued = lattice.clued_edges(puzzle)
        while len(found) < wanted:
            if deadline.expired():
                timed_out = True
                break
            res = milp(cost, integrality=np.ones(n_arcs), bounds=Bounds(0, 1),
                       constraints=rows.constraint(n_arcs),
                       options={"time_limit": max(0.001, deadline.remaining()),
                                "presolve": True, "disp": False})
            counters["mip_runs"] += 1
            counters["bb_nodes"] += int(getattr(res, "mip_node_count", 0) or 0)
            if res.status == 2:
                exhausted = True
                break
            if res.x is None:
                if res.status == 1:
                    timed_out = True
                    break
                raise RuntimeError(f"HiGHS ended with status {res.status}: {res.message}")
            x = res.x
            edges = [e for e in range(lattice.num_edges) if x[2 * e] + x[2 * e + 1] > 0.5]
            loops = lattice.loops(edges)
            good = keep_solutions(found, loops, clued)
            for loop in loops:                                             # Subtours
                rows.add(-np.inf, len(loop) - 1, both(loop))
            counters["solutions_blocked"] += len(good)
            counters["subtours_cut"] += len(loops) - len(good)
            if res.status != 0 and len(found) < wanted:
                timed_out = True   # the time ran out after a feasible point
                break
        counters["rows"] = len(rows.lower)
    messages = [note] if note else []
    if timed_out:
        messages.append(f"time limit of {deadline.seconds:g} s reached after "
                        f"{counters['mip_runs']} MIP runs")
    return finish("ip", puzzle, lattice, list(found)[:wanted], unique=unique, wanted=wanted,
                  exhausted=exhausted, seconds=clock.seconds, counters=counters,
                  message="; ".join(messages))


class _Rows:
    """The constraint rows, kept as sparse triplets and grown by the subtour cuts."""

    def __init__(self):
        self.lower, self.upper, self.r, self.c, self.v = [], [], [], [], []

    def add(self, lower, upper, columns, values=None):
        columns = list(columns)
        i = len(self.lower)
        self.lower.append(lower)
        self.upper.append(upper)
        self.r += [i] * len(columns)
        self.c += columns
        self.v += [1.0] * len(columns) if values is None else [float(x) for x in values]

    def constraint(self, n_cols):
        matrix = csr_array((self.v, (self.r, self.c)), shape=(len(self.lower), n_cols))
        return LinearConstraint(matrix, np.array(self.lower, float), np.array(self.upper, float))
