"""Engine ``z3``: the paper's own SMT formulation (Miyauchi & Tanaka, section 4).

As the paper states it:

* 4.1: an integer ``ans[i][j]`` per cell of the framed (N+2) x (M+2) array;
  a cell is inside iff ``ans > 0``;
* 4.2: for a clue cell, the disjunction over its attribute/pattern
  combinations of the conjunction of the colours the combination forces:
  centre and four neighbours, and the diagonal at every corner where two
  lines meet (``ans == 0`` for outside, ``ans > 0`` for inside).  The
  combinations are taken from :mod:`spec.combinations`, the project's single
  source of the paper's Fig. 6 / Tables 3-6, so they are the paper's listings
  (2, 8, 12 and 8 cases for the digits 0-3) without typing them again;
* 4.3: checker patterns rejected on every 2x2 block of grid cells (the paper's
  ranges; a block that includes the frame can never be a checkerboard, since
  two of its cells in a row or a column are frame cells, both 0);
* 4.4: connectivity by values: one *root* cell has ``ans == 1``, no other cell
  has 1, the frame is 0, and every cell with ``ans > 1`` has a neighbour whose
  value is greater or equal to 1 (paper's constraint No. 4 ``connectchk``).
  Following strictly greater neighbours from any inside cell must stop (the
  grid is finite) at a cell next to the root, so every inside cell is
  4-connected to the root through inside cells;
* 4.5: Pick's theorem ``2 S == 2 I + B - 2`` over the inside cells (S), the
  lattice points with four inside cells (I), and the lines (B, counted as
  horizontal plus vertical inside/outside neighbour pairs, frame included).
  The paper counts with auxiliary 0/1 integers set by ``If``; we sum the
  ``If`` terms directly, which is the same constraint.

Fixes to the paper's gaps (also in docs/peers.md):

1. **The root.**  Section 4.4 (after 3.3.1) assumes an inside cell in row 1
   and puts the root there ("only one cell in the 1st row has the value 1;
   no cell of rows 2..N has 1").  A loop need not reach row 1 (a puzzle whose
   first rows are blank or 0 has none there), and then the paper's constraints
   are unsatisfiable although the puzzle is solvable.  We require instead that
   exactly one cell *anywhere in the grid* has ``ans == 1`` (a
   pseudo-Boolean "exactly one"); this also keeps the inside non-empty.
2. **Negative values.**  The paper writes "outside" as ``ans == 0`` in 4.2/4.3
   but as ``ans <= 0`` in 4.5 and never bounds ``ans`` below, so a cell away
   from the clues could take a negative value and escape the checker-pattern
   rejection of 4.3 (its ``== 0`` test is false for it).  We add
   ``ans >= 0`` for every cell, which makes the three readings agree.
3. **Clue constraints** are written only for clue cells (the paper's
   ``Or(Not(problem[i][j] == d), ...)`` over all cells is the same thing).

Uniqueness (and enumeration) blocks the found colouring, ``Or`` over the
cells of "this cell has the other colour", and solves again; the solver keeps
its state between the calls.
"""

import z3

from slitherlink.spec.combinations import Attribute, combinations, requirements

from . import Result, Stopwatch
from ._edges import Deadline, wanted_solutions

__all__ = ["solve", "formulate"]


def formulate(puzzle):
    """``(constraints, ans)``: the paper's section 4 constraints (with our fixes)."""
    rows, cols = puzzle.rows, puzzle.cols
    size_row, size_col = rows + 2, cols + 2
    ans = [[z3.Int(f"ans_{i}_{j}") for j in range(size_col)] for i in range(size_row)]
    grid = [(i, j) for i in range(1, rows + 1) for j in range(1, cols + 1)]

    positive = [[a > 0 for a in row] for row in ans]      # each term built once
    zero = [[a == 0 for a in row] for row in ans]

    def inside(i, j):
        return positive[i][j]

    def outside(i, j):
        return zero[i][j]

    out = []
    # 4.4 constraint No. 3 (brim1..4): the frame is 0
    out += [zero[i][j] for i in range(size_row) for j in range(size_col)
            if not (1 <= i <= rows and 1 <= j <= cols)]
    # fix 2: no negative values
    out += [ans[i][j] >= 0 for i, j in grid]
    # 4.2: the partial condition of every clue cell
    for r, c in puzzle.clue_cells():
        d, i, j = puzzle.clues[r][c], r + 1, c + 1
        cases = []
        for pattern, attribute in combinations(d):
            forced = requirements(d, pattern, attribute)
            cases.append(z3.And([inside(i + di, j + dj) if a is Attribute.INSIDE
                                 else outside(i + di, j + dj)
                                 for (di, dj), a in sorted(forced.items())]))
        out.append(z3.Or(cases))
    # 4.3: reject checker patterns
    for i in range(1, size_row - 2):
        for j in range(1, size_col - 2):
            out.append(z3.Not(z3.And(outside(i, j), inside(i, j + 1),
                                     inside(i + 1, j), outside(i + 1, j + 1))))
            out.append(z3.Not(z3.And(inside(i, j), outside(i, j + 1),
                                     outside(i + 1, j), inside(i + 1, j + 1))))
    # 4.4: exactly one root with value 1 (fix 1: anywhere in the grid) ...
    out.append(z3.PbEq([(ans[i][j] == 1, 1) for i, j in grid], 1))
    # ... and connectchk: a cell above 1 has a greater neighbour or the root beside it
    for i, j in grid:
        near = ((i - 1, j), (i, j - 1), (i, j + 1), (i + 1, j))
        out.append(z3.Implies(ans[i][j] > 1, z3.Or(
            [ans[a][b] > ans[i][j] for a, b in near] + [ans[a][b] == 1 for a, b in near])))
    # 4.5: Pick's theorem
    one, zero = z3.IntVal(1), z3.IntVal(0)
    n_inside = z3.Sum([z3.If(inside(i, j), one, zero) for i, j in grid])
    edges = [z3.If(inside(i, j) != inside(i, j + 1), one, zero)
             for i in range(1, rows + 1) for j in range(0, size_col - 1)]
    edges += [z3.If(inside(i, j) != inside(i + 1, j), one, zero)
              for j in range(1, cols + 1) for i in range(0, size_row - 1)]
    n_edge = z3.Sum(edges)
    internal = [z3.If(z3.And(inside(i, j), inside(i, j + 1), inside(i + 1, j),
                             inside(i + 1, j + 1)), one, zero)
                for i in range(1, size_row - 2) for j in range(1, size_col - 2)]
    n_internal = z3.Sum(internal) if internal else zero
    out.append(n_inside + n_inside == n_internal + n_internal + n_edge - 2)
    return out, ans


def solve(puzzle, *, unique=False, time_limit=None, max_solutions=None, seed=0):
    """Solve with Z3 on the section 4 formulation; ``seed`` is Z3's random seed."""
    wanted, note = wanted_solutions(unique, max_solutions)
    deadline = Deadline(time_limit)
    counters = {"z3_checks": 0, "blocked": 0}
    found = []
    exhausted = timed_out = False
    with Stopwatch() as clock:
        constraints, ans = formulate(puzzle)
        counters["constraints"] = len(constraints)
        solver = z3.Solver()
        solver.set("random_seed", seed)
        solver.add(constraints)
        cells = [(r, c) for r in range(puzzle.rows) for c in range(puzzle.cols)]
        while len(found) < wanted:
            if deadline.expired():
                timed_out = True
                break
            solver.set("timeout", max(1, int(deadline.remaining() * 1000)))
            verdict = solver.check()
            counters["z3_checks"] += 1
            if verdict == z3.unknown:
                timed_out = True
                reason = solver.reason_unknown()
                if reason not in ("timeout", "canceled"):
                    note = f"{note}; " if note else ""
                    note += f"Z3 gave up: {reason}"
                break
            if verdict == z3.unsat:
                exhausted = True
                break
            model = solver.model()
            colouring = tuple(
                tuple(z3.is_true(model.eval(ans[r + 1][c + 1] > 0, model_completion=True))
                      for c in range(puzzle.cols))
                for r in range(puzzle.rows))
            found.append(colouring)
            solver.add(z3.Or([(ans[r + 1][c + 1] > 0) != z3.BoolVal(colouring[r][c])
                              for r, c in cells]))
            counters["blocked"] += 1
        stats = solver.statistics()
        for key in ("conflicts", "decisions", "propagations"):
            if key in stats.keys():
                counters[key] = stats.get_key_value(key)
    messages = [note] if note else []
    if timed_out:
        messages.append(f"time limit of {deadline.seconds:g} s reached after "
                        f"{counters['z3_checks']} Z3 checks")
    status = Result.status_for(min(len(found), 2), wanted_unique=unique or wanted > 1,
                               exhausted=exhausted)
    result = Result("z3", status, found[0] if found else None, found, clock.seconds,
                    counters, "; ".join(messages))
    return result  # checked by host.engines.checked
