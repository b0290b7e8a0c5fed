"""Engine ``sat``: SAT on edge variables with iterative sub-loop negation.

The encoding of Westreicher's thesis (seed 000, sections 3.4 and 4.2.3) and of
the Minisat notes (seed 001), on an incremental python-sat solver:

* one variable per edge (seed 000 Definition 3.6; numbering in :mod:`._edges`);
* Rule 1, clue cardinality, in the *direct* (binomial) encoding over the four
  sides of a clue cell, which is what seed 000's None / ExactlyOne /
  ExactlyTwo / ExactlyOneNot amount to in CNF: "at most d" is one clause
  ``-a | -b | ...`` per (d+1)-subset of the sides, "at least d" one clause
  ``a | b | ...`` per (5-d)-subset.  (0: 4 units; 1: 1 + 6 clauses; 2: 4 + 4;
  3: 6 + 1.)  With only four edges per clue a counter encoding would add
  variables for nothing;
* Rule 2, *TwoLine* (equation 3.17): every point has 0 or 2 lines, as "no
  point has exactly one line" (``e -> OR(others)``) and "no point has three"
  (``-a | -b | -c`` per triple);
* one clause "some edge is drawn" (seed 001: rules out zero loops).

Rule 3 (one loop) is lazy (seed 000 section 4.2.3 "Iterative SAT solving",
seed 001): each model is split into its loops; the loops that are, alone, a
solution are recorded (seed 001's rule: with several loops, a loop is a
solution exactly when no *other* loop touches a positive clue), then a clause
``-(e1 & e2 & ...)`` is added for every loop of the model, without resetting
the solver.  Negating a loop only removes the solutions equal to that loop
(any single loop containing all of its edges *is* it), so negating every loop
is sound once embedded solutions are recorded; seed 000 negates "all loops but
the first", which leaves the first loop free to come back, and seed 001
negates each loop, which is what we do.  Negating a loop that is a solution is
also how a found solution is blocked when enumerating (``max_solutions``) or
proving uniqueness.

The time limit never hangs the solver: CaDiCaL 1.9.5 (the default, as the
corpus' reference solver) runs in conflict-budget slices between which the
clock is read (its ``interrupt()`` is not honoured in python-sat 1.9.dev17);
the other python-sat solvers are interrupted by a timer.
"""

import threading
from itertools import combinations as subsets

from pysat.solvers import Solver

from . import Stopwatch
from ._edges import Deadline, Lattice, finish, keep_solutions, wanted_solutions

__all__ = ["solve", "encode", "exactly"]

#: python-sat solver names accepted by ``solver=``.
SOLVERS = ("cadical195", "glucose4", "glucose42", "minisat22", "maplechrono", "lingeling")

#: Conflicts per CaDiCaL slice between two looks at the clock.
CONFLICT_SLICE = 20_000


def exactly(literals, d):
    """Direct (binomial) CNF of "exactly ``d`` of ``literals`` are true"."""
    n = len(literals)
    clauses = [[-x for x in group] for group in subsets(literals, d + 1)]   # at most d
    if d > 0:
        clauses += [list(group) for group in subsets(literals, n - d + 1)]   # at least d
    return clauses


def encode(puzzle, lattice=None):
    """The CNF (list of clauses) of rules 1 and 2 plus "some edge is drawn".

    Variable ``e + 1`` is edge ``e`` of :class:`Lattice`.
    """
    lattice = lattice or Lattice(puzzle.rows, puzzle.cols)
    clauses = []
    for r, c in puzzle.clue_cells():
        d = puzzle.clues[r][c]
        clauses += exactly([e + 1 for e in lattice.cell_edges(r, c)], d)
    for edges in lattice.point_edges:
        xs = [e + 1 for e in edges]
        for x in xs:                                   # not exactly one line
            clauses.append([-x] + [y for y in xs if y != x])
        clauses.extend([-x for x in group] for group in subsets(xs, 3))  # not three or four
    clauses.append([e + 1 for e in range(lattice.num_edges)])
    return clauses


def solve(puzzle, *, unique=False, time_limit=None, max_solutions=None,
          solver="cadical195"):
    """Solve ``puzzle`` by SAT with lazy sub-loop negation.

    ``max_solutions`` enumerates up to that many solutions (capped, see
    :data:`._edges.MAX_SOLUTIONS_CAP`); ``unique`` looks for a second one.
    ``solver`` names the python-sat backend (:data:`SOLVERS`).
    """
    if solver not in SOLVERS:
        raise ValueError(f"unknown SAT solver {solver!r}; choose one of: {', '.join(SOLVERS)}")
    wanted, note = wanted_solutions(unique, max_solutions)
    deadline = Deadline(time_limit)
    lattice = Lattice(puzzle.rows, puzzle.cols)
    counters = {"sat_calls": 0, "models": 0, "subloop_rounds": 0, "subloops_cut": 0,
                "solutions_blocked": 0}
    found = {}  # the solutions' edge sets, in the order found
    exhausted = timed_out = False
    with Stopwatch() as clock:
        clauses = encode(puzzle, lattice)
        counters["variables"], counters["clauses"] = lattice.num_edges, len(clauses)
        clued = lattice.clued_edges(puzzle)
        with Solver(name=solver, bootstrap_with=clauses) as sat:
            while len(found) < wanted:
                answer = _run(sat, solver, deadline)
                counters["sat_calls"] += 1
                if answer is None:
                    timed_out = True
                    break
                if not answer:
                    exhausted = True
                    break
                counters["models"] += 1
                model = sat.get_model()
                edges = [e for e in range(lattice.num_edges) if model[e] > 0]
                loops = lattice.loops(edges)
                good = keep_solutions(found, loops, clued)
                if len(loops) > 1:
                    counters["subloop_rounds"] += 1
                for loop in loops:
                    sat.add_clause([-(e + 1) for e in loop])
                counters["solutions_blocked"] += len(good)
                counters["subloops_cut"] += len(loops) - len(good)
            stats = sat.accum_stats() or {}
        for key in ("conflicts", "decisions", "propagations", "restarts"):
            if key in stats:
                counters[key] = stats[key]
    messages = [note] if note else []
    if timed_out:
        messages.append(f"time limit of {deadline.seconds:g} s reached after "
                        f"{counters['sat_calls']} SAT calls")
    return finish("sat", puzzle, lattice, list(found)[:wanted], unique=unique, wanted=wanted,
                  exhausted=exhausted, seconds=clock.seconds, counters=counters,
                  message="; ".join(messages))


def _run(sat, name, deadline):
    """One SAT call under the deadline: True, False, or None (time is up)."""
    if deadline.expired():
        return None
    if name == "cadical195":
        while True:
            sat.conf_budget(CONFLICT_SLICE)
            answer = sat.solve_limited()
            if answer is not None:
                return answer
            if deadline.expired():
                return None
    timer = threading.Timer(deadline.remaining(), sat.interrupt)
    timer.start()
    try:
        answer = sat.solve_limited(expect_interrupt=True)
    finally:
        timer.cancel()
        sat.clear_interrupt()
    return answer
