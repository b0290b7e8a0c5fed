"""The rules checker: is a colouring a solution of a puzzle, and if not, why.

docs/design.md section 1.  This module is deliberately independent of every solver
(it shares no code with the golden model, the gateware or the engines): it
checks the four rules directly, so that it can judge them.

1. Clues: a clue d has exactly d orthogonal neighbours (the frame is outside)
   of the other colour.
2. No crossing: no 2x2 block of cells (frame included) is a checkerboard.
3. Connected: the inside cells form one non-empty 4-connected region.
4. No hole: every outside cell is 4-connected to the frame.

:func:`check` works on the grid framed by one outside cell on every side, one byte a
cell in one integer (:class:`_Framed`), so that rules 1 and 2 are a few whole-grid
integer operations.  Given rule 2, the lines between the colours meet two at every
lattice point they touch: they are closed loops, and rules 3 and 4 together say there
is exactly one (k loops cut the plane into k + 1 regions, each one 4-connected colour;
one loop is one inside region and one outside region reaching the frame).  So
:func:`check` walks one loop and compares its length with the number of lines.  When they differ,
:func:`check_by_search` (the four rules by breadth-first searches, cell by cell: the
reference the tests hold :func:`check` to) names the rule and the cell.
"""

from collections import deque
from dataclasses import dataclass

from .puzzle import BLANK, colouring_cells

__all__ = ["Verdict", "check", "check_by_search", "is_solution"]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    rule: str = ""          # "size", "clue", "crossing", "connected", "hole"
    cell: tuple = None      # (row, col), 0-based, of the first failure
    message: str = "the colouring is a solution"

    def __bool__(self):
        return self.ok


def _size(puzzle, colouring):
    """The size verdict, or None when ``colouring`` has the puzzle's rows and columns."""
    rows, cols = puzzle.rows, puzzle.cols
    if len(colouring) != rows or set(map(len, colouring)) != {cols}:
        return Verdict(False, "size", None, f"the colouring is not {rows}x{cols}")
    return None


def _clue_failure(r, c, clue, lines):
    return Verdict(False, "clue", (r, c),
                   f"clue {clue} at row {r + 1}, column {c + 1} has {lines} lines")


def _crossing_failure(r, c):
    """Rule 2 broken at the lattice point above-left of cell (r, c) (0-based; -1..)."""
    return Verdict(False, "crossing", (r, c),
                   f"four lines meet at the lattice point above-left of "
                   f"row {r + 1}, column {c + 1}")


NO_LOOP = Verdict(False, "connected", None, "no cell is inside: there is no loop")


# -- the fast check -------------------------------------------------------------------------

# The clue bytes are the puzzle's cells (:attr:`host.puzzle.Puzzle.cells`): a clue cell's
# byte is the clue, a blank cell's BLANK, a value no count of lines (0..4) has.
assert BLANK > 4
#: per byte of the clue bytes: 0xFF where a clue is, 0 elsewhere
_CLUE_MASK = bytes(0xFF if v <= 3 else 0 for v in range(256))

# Walking a loop with the inside on the right: at a lattice point whose four cells are
# a (up-left), b (up-right), c (down-left), d (down-right), the line to follow leaves
# right (d inside, b not), down (c inside, d not), left (a inside, c not) or up (b inside,
# a not); exactly one of these holds where two lines meet.
_RIGHT, _DOWN, _LEFT, _UP, _NONE = range(5)


def _leaving(quad):
    a, b, c, d = (quad >> k & 1 for k in range(4))
    ways = [way for way, holds in ((_RIGHT, d and not b), (_DOWN, c and not d),
                                   (_LEFT, a and not c), (_UP, b and not a)) if holds]
    return ways[0] if len(ways) == 1 else _NONE


#: per byte ``a | b << 1 | c << 2 | d << 3`` of a lattice point: the way its line leaves
_LEAVE = bytes(_leaving(q) if q < 16 else _NONE for q in range(256))


def _framed(values, cols, frame):
    """``values`` (R rows of C bytes, row after row) framed by a byte ``frame`` on every
    side: R + 2 rows of C + 2 bytes."""
    inner = (frame * 2).join([values[i:i + cols] for i in range(0, len(values), cols)])
    return frame * (cols + 3) + inner + frame * (cols + 3)


class _Framed:
    """The colouring framed by one outside cell on every side, one byte a cell (1 =
    inside), row-major, ``width`` = columns + 2 bytes a row: as ``bytes`` and as one
    integer (byte i is bits 8i..8i+7), so that a shift by 8 is a step right or left and
    a shift by ``8 * width`` a step down or up."""

    def __init__(self, colouring, cols):
        self.width = cols + 2
        self.cells = _framed(colouring_cells(colouring), cols, b"\0")
        self.value = int.from_bytes(self.cells, "little")

    def place(self, index):
        """The (row, column) of a byte, 0-based in the puzzle (the frame is -1 or rows,
        cols)."""
        r, c = divmod(index, self.width)
        return r - 1, c - 1


def _first_byte(value):
    """The index of the lowest non-zero byte of ``value`` (> 0)."""
    return ((value & -value).bit_length() - 1) >> 3


def check(puzzle, colouring):
    """Check ``colouring`` (rows of booleans, True = inside) against ``puzzle``: the first
    rule broken (in the order of the module's docstring) and its first cell in row-major
    order, as :func:`check_by_search` finds them."""
    failed = _size(puzzle, colouring)
    if failed is not None:
        return failed
    grid = _Framed(colouring, puzzle.cols)
    g, step = grid.value, 8 * grid.width
    across = g ^ (g >> 8)       # byte i: a line between cell i and cell i + 1
    down = g ^ (g >> step)      # byte i: a line between cell i and the cell below
    # rule 1: the lines around every cell (at most 4 a byte: no carry), against the clues
    lines = across + (across << 8) + down + (down << step)
    clues = _framed(puzzle.cells, puzzle.cols, bytes([BLANK]))
    wrong = (lines ^ int.from_bytes(clues, "little")) & \
        int.from_bytes(clues.translate(_CLUE_MASK), "little")
    if wrong:
        i = _first_byte(wrong)
        r, c = grid.place(i)
        return _clue_failure(r, c, puzzle.clues[r][c], lines >> 8 * i & 0xFF)
    # rule 2: a lattice point with a line on its four sides (byte i: its up-left cell)
    crossing = across & down & (across >> step)
    if crossing:
        r, c = grid.place(_first_byte(crossing))
        return _crossing_failure(r + 1, c + 1)
    # rules 3 and 4: the lines are one loop
    count = across.bit_count() + down.bit_count()
    if not count:
        return NO_LOOP
    if _loop_length(grid, count) != count:
        found = check_by_search(puzzle, colouring)  # which of rules 3 and 4, and where
        return found if not found.ok else \
            Verdict(False, "connected", None, "the lines are more than one loop")
    return Verdict(True)


def _loop_length(grid, most):
    """The length of the loop through the top of the first inside cell, walked with the
    inside on the right (point i: the lattice point above-left of cell i); more than
    ``most`` when it has more lines than that."""
    w = grid.width
    g = grid.value
    # byte i: a | b << 1 | c << 2 | d << 3 of point i, its four cells i-w-1, i-w, i-1, i
    quads = (g << 8 * (w + 1)) | (g << 8 * w + 1) | (g << 10) | (g << 3)
    leave = quads.to_bytes(len(grid.cells) + w + 1, "little").translate(_LEAVE)
    moves = (1, w, -1, -w, 0)
    start = point = _first_byte(g)
    for length in range(1, most + 1):
        point += moves[leave[point]]
        if point == start:
            return length
    return most + 1


# -- the reference: the rules one by one, by searches ---------------------------------------

def _inside(colouring, r, c):
    rows, cols = len(colouring), len(colouring[0])
    return 0 <= r < rows and 0 <= c < cols and bool(colouring[r][c])


def check_by_search(puzzle, colouring):
    """:func:`check` by the rules as they are written: cell by cell, and breadth-first
    searches for rules 3 and 4 (slower; :func:`check` uses it to say which of rules 3
    and 4 fails, and the tests hold :func:`check` to it)."""
    failed = _size(puzzle, colouring)
    if failed is not None:
        return failed
    rows, cols = puzzle.rows, puzzle.cols
    # rule 1: clues
    for r in range(rows):
        for c in range(cols):
            clue = puzzle.clues[r][c]
            if clue is None:
                continue
            me = _inside(colouring, r, c)
            lines = sum(_inside(colouring, r + dr, c + dc) != me
                        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
            if lines != clue:
                return _clue_failure(r, c, clue, lines)
    # rule 2: no 2x2 checkerboard, frame included (lattice points -1..rows-1)
    for r in range(-1, rows):
        for c in range(-1, cols):
            a, b = _inside(colouring, r, c), _inside(colouring, r, c + 1)
            d, e = _inside(colouring, r + 1, c), _inside(colouring, r + 1, c + 1)
            if a == e and b == d and a != b:
                return _crossing_failure(r + 1, c + 1)
    # rule 3: inside is one non-empty 4-connected region
    inside = [(r, c) for r in range(rows) for c in range(cols) if colouring[r][c]]
    if not inside:
        return NO_LOOP
    seen = {inside[0]}
    queue = deque([inside[0]])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if (nr, nc) not in seen and _inside(colouring, nr, nc):
                seen.add((nr, nc))
                queue.append((nr, nc))
    if len(seen) != len(inside):
        other = next(cell for cell in inside if cell not in seen)
        return Verdict(False, "connected", other,
                       f"the inside is split: row {other[0] + 1}, column {other[1] + 1} "
                       f"is not connected to row {inside[0][0] + 1}, column {inside[0][1] + 1} "
                       f"(more than one loop)")
    # rule 4: every outside cell reaches the frame
    outside = {(r, c) for r in range(rows) for c in range(cols) if not colouring[r][c]}
    queue = deque(cell for cell in outside
                  if cell[0] in (0, rows - 1) or cell[1] in (0, cols - 1))
    reached = set(queue)
    while queue:
        r, c = queue.popleft()
        for cell in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if cell in outside and cell not in reached:
                reached.add(cell)
                queue.append(cell)
    if len(reached) != len(outside):
        hole = min(outside - reached)
        return Verdict(False, "hole", hole,
                       f"row {hole[0] + 1}, column {hole[1] + 1} is an enclosed hole "
                       f"(a loop inside the loop)")
    return Verdict(True)


def is_solution(puzzle, colouring):
    return check(puzzle, colouring).ok
