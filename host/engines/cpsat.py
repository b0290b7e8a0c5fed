"""Engine ``cpsat``: OR-Tools CP-SAT with ``AddCircuit``, the strongest modern peer.

Model (ours; no seed gives it, it is the standard CP-SAT loop model):

* the nodes are the (R+1) x (C+1) lattice points; every edge of
  :class:`._edges.Lattice` gives two arcs (one per direction), each a Boolean;
  a Boolean ``skip`` per point is its self-loop, so the circuit may leave the
  point out: ``AddCircuit`` then demands that the chosen arcs form exactly
  one circuit through the points not skipped, which is rule 3 directly;
* an edge is drawn when one of its arcs is: a Boolean ``line == fwd + back``,
  so at most one direction is used (no 2-node circuit on one edge);
* clue cells: the sum of their four ``line`` values equals the clue;
* redundant point degrees (``degree=True``, the default): at every point the
  lines sum to ``2 - 2 * skip``.  The circuit implies it, but CP-SAT's
  circuit propagator alone is weak on this: one worker needed 19.6 s on
  loopy_20x20_hard_01 without it and 0.3 s with it (this machine);
* at least one edge is drawn (``AddCircuit`` accepts the empty circuit, all
  points skipped).

Uniqueness and enumeration add a clause forbidding the found edge set and
solve again (any loop containing all of its edges *is* it).  One search
worker by default (``workers=1``), for fair and repeatable comparisons with the
single-threaded peers; a fixed random seed.
"""

from ortools.sat.python import cp_model

from . import Stopwatch
from ._edges import Deadline, Lattice, finish, wanted_solutions

__all__ = ["solve"]


def solve(puzzle, *, unique=False, time_limit=None, max_solutions=None, workers=1, seed=0,
          degree=True):
    """Solve with CP-SAT; ``workers`` search threads (1 by default), ``seed`` its seed;
    ``degree`` adds the redundant point-degree constraints."""
    if type(workers) is not int or workers < 1:
        raise ValueError(f"workers must be a positive integer, not {workers!r}")
    wanted, note = wanted_solutions(unique, max_solutions)
    deadline = Deadline(time_limit)
    lattice = Lattice(puzzle.rows, puzzle.cols)
    counters = {"cpsat_solves": 0, "blocked": 0, "conflicts": 0, "branches": 0}
    found = []
    exhausted = timed_out = False
    with Stopwatch() as clock:
        model = cp_model.CpModel()
        lines, arcs = [], []
        for e, (p, q) in enumerate(lattice.ends):
            fwd, back = model.new_bool_var(f"a{p}_{q}"), model.new_bool_var(f"a{q}_{p}")
            arcs += [(p, q, fwd), (q, p, back)]
            line = model.new_bool_var(f"e{e}")
            model.add(fwd + back == line)
            lines.append(line)
        skips = [model.new_bool_var(f"skip{p}") for p in range(lattice.num_points)]
        arcs += [(p, p, skip) for p, skip in enumerate(skips)]
        model.add_circuit(arcs)
        if degree:      # redundant with the circuit, but it propagates much better
            for p, skip in enumerate(skips):
                model.add(sum(lines[e] for e in lattice.point_edges[p]) == 2 - 2 * skip)
        for r, c in puzzle.clue_cells():
            model.add(sum(lines[e] for e in lattice.cell_edges(r, c)) == puzzle.clues[r][c])
        model.add(sum(lines) >= 1)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers
        solver.parameters.random_seed = seed
        while len(found) < wanted:
            if deadline.expired():
                timed_out = True
                break
            solver.parameters.max_time_in_seconds = max(0.001, deadline.remaining())
            status = solver.solve(model)
            counters["cpsat_solves"] += 1
            counters["conflicts"] += solver.num_conflicts
            counters["branches"] += solver.num_branches
            if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                edges = frozenset(e for e in range(lattice.num_edges)
                                  if solver.value(lines[e]) > 0)
                found.append(edges)
                model.add_bool_or([~lines[e] for e in edges])
                counters["blocked"] += 1
            elif status == cp_model.INFEASIBLE:
                exhausted = True
                break
            elif status == cp_model.UNKNOWN:
                timed_out = True
                break
            else:
                raise RuntimeError(f"CP-SAT returned {solver.status_name(status)}")
    messages = [note] if note else []
    if timed_out:
        messages.append(f"time limit of {deadline.seconds:g} s reached after "
                        f"{counters['cpsat_solves']} CP-SAT solves")
    return finish("cpsat", puzzle, lattice, found, unique=unique, wanted=wanted,
                  exhausted=exhausted, seconds=clock.seconds, counters=counters,
                  message="; ".join(messages))
