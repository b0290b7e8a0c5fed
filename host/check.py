"""The rules checker: is a colouring a solution of a puzzle, and if not, why.

docs/design.md section 1.  This module is deliberately independent of every solver
(it shares no code with the golden model, the gateware or the engines): it
checks the four rules directly, with breadth-first searches, so that it can
judge them.

1. Clues: a clue d has exactly d orthogonal neighbours (the frame is outside)
   of the other colour.
2. No crossing: no 2x2 block of cells (frame included) is a checkerboard.
3. Connected: the inside cells form one non-empty 4-connected region.
4. No hole: every outside cell is 4-connected to the frame.
"""

from collections import deque
from dataclasses import dataclass

__all__ = ["Verdict", "check", "is_solution"]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    rule: str = ""          # "size", "clue", "crossing", "connected", "hole"
    cell: tuple = None      # (row, col), 0-based, of the first failure
    message: str = "the colouring is a solution"

    def __bool__(self):
        return self.ok


def _inside(colouring, r, c):
    rows, cols = len(colouring), len(colouring[0])
    return 0 <= r < rows and 0 <= c < cols and bool(colouring[r][c])


def check(puzzle, colouring):
    """Check ``colouring`` (rows of booleans, True = inside) against ``puzzle``."""
    rows, cols = puzzle.rows, puzzle.cols
    if len(colouring) != rows or any(len(row) != cols for row in colouring):
        return Verdict(False, "size", None,
                       f"the colouring is not {rows}x{cols}")
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
                return Verdict(False, "clue", (r, c),
                               f"clue {clue} at row {r + 1}, column {c + 1} has {lines} lines")
    # rule 2: no 2x2 checkerboard, frame included (lattice points -1..rows-1)
    for r in range(-1, rows):
        for c in range(-1, cols):
            a, b = _inside(colouring, r, c), _inside(colouring, r, c + 1)
            d, e = _inside(colouring, r + 1, c), _inside(colouring, r + 1, c + 1)
            if a == e and b == d and a != b:
                return Verdict(False, "crossing", (r + 1, c + 1),
                               f"four lines meet at the lattice point above-left of "
                               f"row {r + 2}, column {c + 2}")
    # rule 3: inside is one non-empty 4-connected region
    inside = [(r, c) for r in range(rows) for c in range(cols) if colouring[r][c]]
    if not inside:
        return Verdict(False, "connected", None, "no cell is inside: there is no loop")
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
