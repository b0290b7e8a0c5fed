"""Golden model of the paper's hardware blocks and of the search that drives them.

Paper sections 3.1-3.3; DESIGN.md sections 1-3.  Everything the gateware and the
firmware do is specified here, in Python, and they are tested against it:

* :func:`partial_condition` - the partial-condition checker (section 3.3): the
  ``s0``/``s1`` requirement of every cell and the conflict flag;
* :func:`flood` - the connectivity flood register array (section 3.3.1);
* :func:`pick` - the Pick's-theorem hole detector (section 3.3.2);
* :func:`search` - the attribute/pattern backtracking (sections 3.1.1-3.1.4),
  with counters that the firmware reproduces exactly.

Cells are kept as bitboards: bit ``r * W + c`` of a Python integer stands for
cell ``(r, c)`` of the framed (R+2) x (C+2) array (Fig. 11), ``W = C + 2``;
row 0, row R+1, column 0 and column C+1 are the frame, which is always outside.

The search, step by step (this order *is* the specification):

1. The *levels* are the clue cells in row-major order, then (once every clue
   cell is assigned) the *undetermined* cells, those that are neither required
   inside nor outside at that moment, in row-major order.
2. A clue level's options are its combinations in
   :func:`spec.combinations.combinations` order; an undetermined cell's options
   are OUTSIDE, then INSIDE.
3. Assigning an option and running the partial-condition check counts one
   *check*.  The check fails on a conflict (a cell required both inside and
   outside, frame included) or on a fully determined 2x2 checkerboard.  After
   an undetermined cell's assignment the check also runs two floods (the
   *prune*): REACH (the inside cells can still be joined through cells not
   required outside) and, only if REACH passes, ESCAPE (every cell required
   outside can still reach the frame through cells not required inside).
4. A failed check moves on to the level's next option; when a level has no
   option left, that counts one *backtrack* and the previous level moves on to
   its next option (the search ends when level 0 runs out).
5. When every level is assigned (a *candidate*), the colouring is fully
   determined.  It is accepted when it has an inside cell, the REACH flood
   (which on a determined colouring is the paper's flood over the inside
   cells) connects all inside cells, and Pick's theorem holds.  After a
   candidate, accepted or not, the last level moves on to its next option.

Deviations from the paper, and why (also in docs/search.md):

* The paper seeds its flood with the right-most inside cell of row 1 and
  assumes there is one.  We seed with the first inside cell in scan order.
* The paper accepts a connected, hole-free candidate at once with its
  undetermined cells left outside, and rejects it on a hole.  An undetermined
  cell enclosed by inside cells must become inside instead, and with
  undetermined cells left outside a 2x2 checkerboard can slip through, which
  fools Pick's theorem.  We therefore always run the "disconnected procedure"
  (section 3.1.4): the undetermined cells are levels like the clue cells, tried
  OUTSIDE first, so the first candidate reached is exactly the paper's.
* The paper's "checking the connectivity and the hole-less condition" at each
  step of that procedure is made precise as the REACH and ESCAPE floods, which
  prune only states that cannot be completed.
* A puzzle with no clue cell at all has only undetermined levels.
* The cell's own attribute is part of its ``s0``/``s1`` (the paper's formula
  lists only the eight neighbours; a clue cell with no clue neighbour would
  otherwise never see its own attribute).
"""

import time
from dataclasses import dataclass, field, make_dataclass

from slitherlink.spec.combinations import Attribute, combinations, requirements
from slitherlink.spec.counters import PAPER_COUNTERS
from slitherlink.spec.geometry import Geometry
from slitherlink.spec.registers import FloodMode

__all__ = ["Geometry", "CellState", "FloodMode", "FloodResult", "PickResult", "Counters",
           "SearchResult", "partial_condition", "flood", "pick", "search"]


def _checkerboard(geo, s0, s1):
    """Top-left corners of fully determined 2x2 checkerboards (paper Fig. 15)."""
    w = geo.width
    d = s0 | s1
    determined = d & (d >> 1) & (d >> w) & (d >> (w + 1))
    return (determined & (s1 ^ (s1 >> 1)) & ~(s1 ^ (s1 >> (w + 1)))
            & ~((s1 >> 1) ^ (s1 >> w)) & geo.blocks)


def _contribution(geo, r, c, clue, assignment):
    """(s0, s1) bits that the assignment of grid cell (r, c) requires (Tables 1-6)."""
    if assignment is None:
        return 0, 0
    if clue is None:
        attribute = Attribute(assignment)
        forced = {(0, 0): attribute} if attribute else {}
    else:
        pattern, attribute = assignment
        forced = requirements(clue, pattern, attribute)
    s0 = s1 = 0
    for (dr, dc), colour in forced.items():
        bit = 1 << ((r + 1 + dr) * geo.width + c + 1 + dc)
        if colour is Attribute.OUTSIDE:
            s0 |= bit
        else:
            s1 |= bit
    return s0, s1


@dataclass(frozen=True)
class CellState:
    """Output of the partial-condition checker."""
    geometry: Geometry
    s0: int             # required outside (frame included)
    s1: int             # required inside
    conflict: bool      # some cell required both
    checkerboard: bool  # some fully determined 2x2 block is a checkerboard

    @property
    def ok(self):
        return not (self.conflict or self.checkerboard)

    @property
    def undetermined(self):
        return self.geometry.grid & ~(self.s0 | self.s1)


def partial_condition(puzzle, assignment):
    """The paper's partial-condition check (section 3.3), computed from scratch.

    ``assignment`` maps a grid cell ``(r, c)`` to ``(pattern, Attribute)`` for a
    clue cell or to an :class:`Attribute` for a blank cell; missing cells are
    unassigned.
    """
    geo = Geometry(puzzle.rows, puzzle.cols)
    s0, s1 = geo.frame, 0
    for (r, c), value in assignment.items():
        a0, a1 = _contribution(geo, r, c, puzzle.clues[r][c], value)
        s0 |= a0
        s1 |= a1
    return CellState(geo, s0, s1, bool(s0 & s1), bool(_checkerboard(geo, s0, s1)))


@dataclass(frozen=True)
class FloodResult:
    complete: bool   # every target cell was reached
    iterations: int  # clock cycles of the flood array: steps until nothing grows
    reached: int     # the final bitboard p


def flood(geo, mode, s0, s1):
    """The connectivity flood (section 3.3.1): ``p |= shift(p) & region`` to a fixpoint.

    Each iteration is one clock cycle of the flood register array; the last
    iteration is the one in which ``p`` stops growing, so a flood takes at
    least one iteration.
    """
    if mode == FloodMode.REACH:
        region = geo.grid & ~s0
        inside = s1 & geo.grid
        seed = inside & -inside  # lowest bit = first inside cell in scan order
        target = inside
    elif mode == FloodMode.ESCAPE:
        region = geo.all & ~s1
        seed = geo.frame & region
        target = s0 & geo.grid
    else:
        raise ValueError(f"unknown flood mode {mode!r}")
    p, iterations = seed & region, 0
    while True:
        iterations += 1
        q = p | (geo.neighbours(p) & region)
        if q == p:
            break
        p = q
    return FloodResult(not (target & ~p), iterations, p)


@dataclass(frozen=True)
class PickResult:
    S: int  # inside cells
    I: int  # lattice points whose four cells are all inside
    B: int  # drawn lines (inside cell next to a cell that is not inside)

    @property
    def ok(self):
        """Pick's theorem for lattice polygons: ``2S == 2I + B - 2``."""
        return 2 * self.S == 2 * self.I + self.B - 2


def pick(geo, s1):
    """The hole detector (section 3.3.2); cells not required inside count as outside."""
    w = geo.width
    s1 &= geo.grid
    interior = s1 & (s1 >> 1) & (s1 >> w) & (s1 >> (w + 1))
    lines = (s1 ^ (s1 >> 1)) & geo.all, (s1 ^ (s1 >> w)) & geo.all
    # the frame carries no inside bit, so no pair that wraps round a row edge counts
    return PickResult(s1.bit_count(), interior.bit_count(),
                      lines[0].bit_count() + lines[1].bit_count())


#: Step counts of the search: one int field per :data:`spec.counters.PAPER_COUNTERS` entry, in
#: its order (what each counts is said there); the firmware must produce the same numbers.
Counters = make_dataclass(
    "Counters", [(c.name, int, 0) for c in PAPER_COUNTERS],
    namespace={"__module__": __name__, "as_dict": lambda self: dict(vars(self))})


@dataclass
class SearchResult:
    solutions: list            # colourings (rows of booleans), in the order found
    counters: Counters
    exhausted: bool            # the whole search space was covered
    limit_reached: bool = False
    states: list = field(default_factory=list)  # (s0, s1) of every check, when traced


def search(puzzle, *, max_solutions=1, max_checks=None, deadline=None, trace=False):
    """The paper-faithful search (section 3.1); see the module docstring for the order.

    Stops after ``max_solutions`` solutions (``None``: enumerate all) or after
    ``max_checks`` checks, or at ``deadline`` (a ``time.monotonic()`` value,
    looked at every 65,536 checks), with ``limit_reached``.  With ``trace`` the ``(s0, s1)``
    bitboards of every check are recorded, for testing the gateware on the
    states a real search visits.
    """
    geo = Geometry(puzzle.rows, puzzle.cols)
    counters = Counters()
    result = SearchResult([], counters, exhausted=False)

    # Per clue level: the (s0, s1) bits of each option, precomputed.
    level_cells = puzzle.clue_cells()
    clue_levels = len(level_cells)
    options = [[_contribution(geo, r, c, puzzle.clues[r][c], combo)
                for combo in combinations(puzzle.clues[r][c])]
               for r, c in level_cells]

    def enter_completion(s0, s1):
        """Levels for the undetermined cells (paper section 3.1.4), OUTSIDE first."""
        del level_cells[clue_levels:]
        del options[clue_levels:]
        for r, c in geo.grid_cells(geo.grid & ~(s0 | s1)):
            level_cells.append((r, c))
            bit = geo.bit(r, c)
            options.append([(bit, 0), (0, bit)])

    def run_flood(mode, s0, s1):
        counters.floods += 1
        outcome = flood(geo, mode, s0, s1)
        counters.flood_iterations += outcome.iterations
        return outcome.complete

    s0_at = [geo.frame]  # s0_at[k], s1_at[k]: state before level k is assigned
    s1_at = [0]
    choice = [0]
    k = 0
    if clue_levels == 0:
        enter_completion(s0_at[0], s1_at[0])

    while True:
        if k == len(level_cells):
            # a candidate: everything is determined (paper section 3.1.3)
            counters.candidates += 1
            s0, s1 = s0_at[k], s1_at[k]
            if (s1 and run_flood(FloodMode.REACH, s0, s1) and pick(geo, s1).ok):
                result.solutions.append(geo.to_rows(s1))
                if max_solutions is not None and len(result.solutions) >= max_solutions:
                    return result
            k -= 1
            choice[k] += 1
            continue
        if choice[k] == len(options[k]):
            counters.backtracks += 1
            if k == 0:
                result.exhausted = True
                return result
            k -= 1
            choice[k] += 1
            continue
        if max_checks is not None and counters.checks >= max_checks:
            result.limit_reached = True
            return result
        if deadline is not None and not counters.checks & 0xFFFF and time.monotonic() > deadline:
            result.limit_reached = True
            return result
        m0, m1 = options[k][choice[k]]
        s0, s1 = s0_at[k] | m0, s1_at[k] | m1
        counters.checks += 1
        if trace:
            result.states.append((s0, s1))
        ok = not (s0 & s1) and not _checkerboard(geo, s0, s1)
        if ok and k >= clue_levels:
            ok = run_flood(FloodMode.REACH, s0, s1) and run_flood(FloodMode.ESCAPE, s0, s1)
        if not ok:
            choice[k] += 1
            continue
        k += 1
        del s0_at[k:], s1_at[k:], choice[k:]
        s0_at.append(s0)
        s1_at.append(s1)
        choice.append(0)
        if k == clue_levels:
            enter_completion(s0, s1)
