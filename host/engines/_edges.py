"""Edge/vertex geometry shared by the loop formulations (engines sat, ip, cpsat).

The puzzle is drawn on the lattice of its cell corners: an R x C puzzle has
(R+1) x (C+1) *points* (vertices) and R(C+1) + (R+1)C unit *edges* (lines).
Edge numbering is fixed here, once, for every engine:

* horizontal edge ``h(r, c)`` joins points (r, c)-(r, c+1), r = 0..R, c = 0..C-1,
  numbered ``r*C + c``;
* vertical edge ``v(r, c)`` joins points (r, c)-(r+1, c), r = 0..R-1, c = 0..C,
  numbered ``(R+1)*C + r*(C+1) + c``.

Point (r, c) is numbered ``r*(C+1) + c``.  Cell (r, c) is bounded by
``h(r, c)`` (top), ``h(r+1, c)`` (bottom), ``v(r, c)`` (left), ``v(r, c+1)`` (right).

The same helpers turn a set of drawn edges into its separate loops (seed 000
section 4.2.3, seed 001) and into a colouring (a cell is inside iff an odd
number of drawn vertical edges lie to its left: a ray to the frame crosses the
loop an odd number of times).
"""

import time

__all__ = ["Lattice", "loop_solutions", "keep_solutions", "Deadline", "DEFAULT_TIME_LIMIT",
           "MAX_SOLUTIONS_CAP"]

#: Time limit (seconds) an engine uses when the caller gives none: engines never hang.
DEFAULT_TIME_LIMIT = 600.0

#: Largest number of solutions an engine enumerates, whatever ``max_solutions``
#: asks (001: "I limit ... the number of slitherlinks solutions"; a puzzle
#: without clues has astronomically many).
MAX_SOLUTIONS_CAP = 10_000


class Lattice:
    """Points, edges and cell sides of an ``rows`` x ``cols`` puzzle."""

    def __init__(self, rows, cols):
        if rows < 1 or cols < 1:
            raise ValueError(f"a grid is at least 1x1, not {rows}x{cols}")
        self.rows, self.cols = rows, cols
        self.num_points = (rows + 1) * (cols + 1)
        self._v0 = (rows + 1) * cols
        self.num_edges = self._v0 + rows * (cols + 1)
        ends = []
        for r in range(rows + 1):
            for c in range(cols):
                ends.append((self.point(r, c), self.point(r, c + 1)))
        for r in range(rows):
            for c in range(cols + 1):
                ends.append((self.point(r, c), self.point(r + 1, c)))
        #: edge -> (point, point), the lower-numbered point first
        self.ends = tuple(ends)
        incident = [[] for _ in range(self.num_points)]
        for e, (p, q) in enumerate(ends):
            incident[p].append(e)
            incident[q].append(e)
        #: point -> the 2, 3 or 4 edges that meet there
        self.point_edges = tuple(tuple(es) for es in incident)

    def point(self, r, c):
        return r * (self.cols + 1) + c

    def h(self, r, c):
        """The horizontal edge from point (r, c) to (r, c+1)."""
        return r * self.cols + c

    def v(self, r, c):
        """The vertical edge from point (r, c) to (r+1, c)."""
        return self._v0 + r * (self.cols + 1) + c

    def cell_edges(self, r, c):
        """The four sides of cell (r, c): top, bottom, left, right."""
        return (self.h(r, c), self.h(r + 1, c), self.v(r, c), self.v(r, c + 1))

    def other_end(self, e, p):
        a, b = self.ends[e]
        return b if a == p else a

    # -- loops and colourings ----------------------------------------------------------

    def loops(self, edges):
        """Split a set of drawn edges, every point of degree 0 or 2, into its loops.

        Returns a list of loops, each a list of edge numbers in walking order,
        ordered by their smallest edge.  Raises ``ValueError`` if a point has
        another degree (the caller's encoding is then broken).
        """
        drawn = set(edges)
        degree = {}
        for e in drawn:
            for p in self.ends[e]:
                degree[p] = degree.get(p, 0) + 1
        bad = [p for p, d in degree.items() if d != 2]
        if bad:
            p = bad[0]
            raise ValueError(f"point ({p // (self.cols + 1)}, {p % (self.cols + 1)}) "
                             f"has {degree[p]} lines; expected 0 or 2")
        loops, seen = [], set()
        for start in sorted(drawn):
            if start in seen:
                continue
            loop, e, p = [], start, self.ends[start][0]
            while e not in seen:
                seen.add(e)
                loop.append(e)
                p = self.other_end(e, p)
                e = next(f for f in self.point_edges[p] if f in drawn and f != e)
            loops.append(loop)
        return loops

    def colouring(self, edges):
        """The colouring (rows of booleans, True = inside) bounded by ``edges``."""
        drawn = set(edges)
        rows = []
        for r in range(self.rows):
            inside, row = False, []
            for c in range(self.cols):
                if self.v(r, c) in drawn:
                    inside = not inside
                row.append(inside)
            rows.append(tuple(row))
        return tuple(rows)

    def edges_of(self, colouring):
        """The drawn edges of a colouring: sides between cells of different colour."""
        def inside(r, c):
            return 0 <= r < self.rows and 0 <= c < self.cols and bool(colouring[r][c])
        drawn = set()
        for r in range(self.rows + 1):
            for c in range(self.cols):
                if inside(r - 1, c) != inside(r, c):
                    drawn.add(self.h(r, c))
        for r in range(self.rows):
            for c in range(self.cols + 1):
                if inside(r, c - 1) != inside(r, c):
                    drawn.add(self.v(r, c))
        return frozenset(drawn)

    def clued_edges(self, puzzle):
        """The edges that are a side of a cell with a clue 1, 2 or 3."""
        out = set()
        for r, c in puzzle.clue_cells():
            if puzzle.clues[r][c] > 0:
                out.update(self.cell_edges(r, c))
        return frozenset(out)


def loop_solutions(loops, clued_edges):
    """Which loops of a clue-satisfying model are, each on its own, a solution (seed 001).

    ``loops`` come from a model that satisfies every clue and the degree rule.
    A loop alone is a solution exactly when every *other* loop touches no cell
    with a positive clue (removing it changes no clue count).  So: one loop ->
    it; several, exactly one touching a clue -> that one; none touching a clue
    -> each of them; two or more touching clues -> none.
    """
    if len(loops) == 1:
        return list(loops)
    touching = [loop for loop in loops if any(e in clued_edges for e in loop)]
    if len(touching) == 1:
        return touching
    if not touching:
        return list(loops)
    return []


def keep_solutions(found, loops, clued_edges):
    """Adds the loops of a model that are solutions (:func:`loop_solutions`) to ``found``, a
    dict of edge sets kept in the order found; returns those loops."""
    good = loop_solutions(loops, clued_edges)
    for loop in good:
        found.setdefault(frozenset(loop))
    return good


class Deadline:
    """A wall-clock deadline: ``Deadline(seconds)``; ``None`` means the default limit."""

    def __init__(self, seconds):
        if seconds is None:
            seconds = DEFAULT_TIME_LIMIT
        if seconds <= 0:
            raise ValueError(f"the time limit must be positive, not {seconds!r}")
        self.seconds = float(seconds)
        self.end = time.perf_counter() + self.seconds

    def remaining(self):
        return max(0.0, self.end - time.perf_counter())

    def expired(self):
        return time.perf_counter() >= self.end


def wanted_solutions(unique, max_solutions):
    """How many solutions to look for, and a note if the request was capped."""
    if max_solutions is None:
        return (2 if unique else 1), ""
    if type(max_solutions) is not int or max_solutions < 1:
        raise ValueError(f"max_solutions must be a positive integer, not {max_solutions!r}")
    if max_solutions > MAX_SOLUTIONS_CAP:
        return MAX_SOLUTIONS_CAP, f"enumeration capped at {MAX_SOLUTIONS_CAP} solutions"
    return max(max_solutions, 2 if unique else 1), ""


def finish(engine, puzzle, lattice, found, *, unique, wanted, exhausted, seconds,
           counters, message=""):
    """The :class:`Result` of a loop search that found the edge sets ``found``."""
    from . import Result  # late: this module is imported by the engines
    colourings = [lattice.colouring(edges) for edges in found]
    status = Result.status_for(min(len(colourings), 2), wanted_unique=unique or wanted > 1,
                               exhausted=exhausted)
    result = Result(engine, status, colourings[0] if colourings else None, colourings,
                    seconds, counters, message)
    return result  # checked by host.engines.checked
