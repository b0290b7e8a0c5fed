"""Drawings of puzzles and solutions: ASCII, Unicode box drawing, SVG, JSON.

A solution is a colouring (rows of booleans, ``True`` = inside).  The loop is
drawn between two orthogonally adjacent cells of different colour, the frame
around the grid counting as outside (docs/design.md section 1).  Every renderer also
draws a puzzle without a solution (``colouring=None``): dots and clues only.
"""

import json
from html import escape
from operator import add, ne

from .puzzle import colouring_rows, plain_rows

__all__ = ["loop_edges", "render_text", "render_unicode", "render_svg",
           "result_record", "render_json", "RENDERERS"]


def _inside(colouring, r, c):
    return (colouring is not None and 0 <= r < len(colouring)
            and 0 <= c < len(colouring[0]) and bool(colouring[r][c]))


def loop_edges(puzzle, colouring):
    """``(horizontal, vertical)`` line maps of a colouring.

    ``horizontal[i][c]`` (``i`` in 0..R, ``c`` in 0..C-1) is the line on lattice
    row ``i`` above cell ``(i, c)``; ``vertical[r][j]`` (``r`` in 0..R-1, ``j``
    in 0..C) is the line on lattice column ``j`` left of cell ``(r, j)``.
    Without a colouring there are no lines.
    """
    rows, cols = puzzle.rows, puzzle.cols
    outside = (False,) * cols
    cells = [tuple(map(bool, row)) for row in colouring] if colouring is not None \
        else [outside] * rows
    horizontal = [list(map(ne, above, below))
                  for above, below in zip([outside] + cells, cells + [outside])]
    vertical = [list(map(ne, (False,) + row, row + (False,))) for row in cells]
    return horizontal, vertical


def _point_lines(horizontal, vertical, i, j):
    """(up, down, left, right): the lines at lattice point ``(i, j)``."""
    rows, cols = len(vertical), len(horizontal[0])
    return (i > 0 and vertical[i - 1][j], i < rows and vertical[i][j],
            j > 0 and horizontal[i][j - 1], j < cols and horizontal[i][j])


#: a clue's text in a drawing (a blank cell: a space)
_CLUE_TEXT = {None: " ", **{clue: str(clue) for clue in range(4)}}


def _clue(puzzle, r, c, blank=" "):
    clue = puzzle.clues[r][c]
    return blank if clue is None else _CLUE_TEXT[clue]


def render_text(puzzle, colouring=None, *, show_colouring=True):
    """ASCII drawing: ``+`` lattice points, ``-`` and ``|`` lines, the clues in the
    cells; right of it (``show_colouring``) the colouring, ``#`` inside, ``.`` outside.
    """
    horizontal, vertical = loop_edges(puzzle, colouring)
    rows, cols = puzzle.rows, puzzle.cols
    side = (colouring_rows(colouring)
            if colouring is not None and show_colouring else None)
    lines = []
    for i in range(rows + 1):
        lines.append("+" + "+".join(map(" -".__getitem__, horizontal[i])) + "+")
        if i < rows:
            text = "".join(map(add, map(" |".__getitem__, vertical[i]),
                               [*map(_CLUE_TEXT.__getitem__, puzzle.clues[i]), ""]))
            lines.append(text + ("   " + side[i] if side else ""))
    return "\n".join(line.rstrip() for line in lines) + "\n"


# (up, down, left, right) -> box-drawing character
_BOX = {
    (False, False, False, False): "·",
    (False, False, True, True): "─", (True, True, False, False): "│",
    (False, True, False, True): "┌", (False, True, True, False): "┐",
    (True, False, False, True): "└", (True, False, True, False): "┘",
    (True, True, False, True): "├", (True, True, True, False): "┤",
    (False, True, True, True): "┬", (True, False, True, True): "┴",
    (True, True, True, True): "┼",
    (True, False, False, False): "╵", (False, True, False, False): "╷",
    (False, False, True, False): "╴", (False, False, False, True): "╶",
}


def render_unicode(puzzle, colouring=None, *, shade=False):
    """Unicode drawing: the loop in box-drawing characters ``─│┌┐└┘`` around the
    clues, ``·`` at the lattice points it does not visit.  With ``shade``, blank
    inside cells are filled with ``░``."""
    horizontal, vertical = loop_edges(puzzle, colouring)
    rows, cols = puzzle.rows, puzzle.cols
    lines = []
    for i in range(rows + 1):
        text = []
        for j in range(cols + 1):
            text.append(_BOX[tuple(bool(x) for x in _point_lines(horizontal, vertical, i, j))])
            if j < cols:
                text.append("───" if horizontal[i][j] else "   ")
        lines.append("".join(text))
        if i < rows:
            text = []
            for j in range(cols + 1):
                text.append("│" if vertical[i][j] else " ")
                if j < cols:
                    fill = "░" if shade and _inside(colouring, i, j) else " "
                    clue = _clue(puzzle, i, j, blank=fill)
                    text.append(f"{fill}{clue}{fill}" if clue != fill else fill * 3)
            lines.append("".join(text))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _loop_paths(horizontal, vertical):
    """The lines chained into paths of lattice points ``[(i, j), ...]``; a closed
    path repeats its first point at the end."""
    neighbours = {}

    def link(a, b):
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)

    for i, row in enumerate(horizontal):
        for c, line in enumerate(row):
            if line:
                link((i, c), (i, c + 1))
    for r, row in enumerate(vertical):
        for j, line in enumerate(row):
            if line:
                link((r, j), (r + 1, j))
    paths = []
    while neighbours:
        # start at an end of an open path if there is one, else anywhere (sorted: stable)
        ends = sorted(p for p, n in neighbours.items() if len(n) % 2)
        point = ends[0] if ends else min(neighbours)
        path = [point]
        while neighbours.get(point):
            nxt = neighbours[point].pop(0)
            neighbours[nxt].remove(point)
            for p in (point, nxt):
                if not neighbours[p]:
                    del neighbours[p]
            path.append(nxt)
            point = nxt
        paths.append(path)
    return paths


def render_svg(puzzle, colouring=None, *, cell=36, title=None):
    """An SVG picture: lattice dots, clues, the loop, inside cells lightly shaded."""
    rows, cols = puzzle.rows, puzzle.cols
    margin = cell // 2
    width, height = cols * cell + 2 * margin, rows * cell + 2 * margin
    title = title if title is not None else (puzzle.name or f"Slitherlink {puzzle.size}")

    def x(j):
        return margin + j * cell

    def y(i):
        return margin + i * cell

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    if colouring is not None:
        out.append('<g class="inside" fill="#d6e6f5" stroke="none">')
        for r in range(rows):
            for c in range(cols):
                if colouring[r][c]:
                    out.append(f'<rect x="{x(c)}" y="{y(r)}" width="{cell}" height="{cell}"/>')
        out.append("</g>")
        horizontal, vertical = loop_edges(puzzle, colouring)
        stroke = max(2, round(cell * 0.11))
        out.append(f'<g class="loop" fill="none" stroke="#1f3b63" stroke-width="{stroke}" '
                   f'stroke-linecap="round" stroke-linejoin="round">')
        for path in _loop_paths(horizontal, vertical):
            closed = len(path) > 2 and path[0] == path[-1]
            points = path[:-1] if closed else path
            d = "M" + " L".join(f"{x(j)} {y(i)}" for i, j in points) + (" Z" if closed else "")
            out.append(f'<path d="{d}"/>')
        out.append("</g>")
    dot = max(1.5, cell * 0.06)
    out.append(f'<g class="dots" fill="#222222">')
    for i in range(rows + 1):
        for j in range(cols + 1):
            out.append(f'<circle cx="{x(j)}" cy="{y(i)}" r="{dot:g}"/>')
    out.append("</g>")
    out.append(f'<g class="clues" fill="#111111" font-family="DejaVu Sans, Arial, sans-serif" '
               f'font-size="{round(cell * 0.58)}" text-anchor="middle" '
               f'dominant-baseline="central">')
    for r in range(rows):
        for c in range(cols):
            clue = puzzle.clues[r][c]
            if clue is not None:
                out.append(f'<text x="{x(c) + cell / 2:g}" y="{y(r) + cell / 2:g}">{clue}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def result_record(puzzle, result=None, **extra):
    """A JSON-ready dict: puzzle, size, status, solution rows (``#``/``.``), counters
    (and ``mode``, for an engine that has modes).

    ``extra`` keys (for example ``exit_code`` and ``wall_seconds``) are added as given.
    """
    record = {
        "puzzle": puzzle.name,
        "size": puzzle.size,
        "rows": puzzle.rows,
        "cols": puzzle.cols,
        "clues": plain_rows(puzzle),
    }
    if result is not None:
        solutions = result.solutions or ([result.solution] if result.solution else [])
        solution = colouring_rows(result.solution) if result.solution is not None else None
        record["engine"] = result.engine
        if getattr(result, "mode", ""):
            record["mode"] = result.mode
        record.update({
            "status": result.status.name.lower(),
            "status_text": result.status.text,
            "solution": solution,  # usually solutions[0] too: written once
            "solutions": [solution if c is result.solution else
                          colouring_rows(c) for c in solutions],
            "counters": dict(result.counters),
            "engine_seconds": result.seconds,
            "message": result.message,
        })
    record.update(extra)
    return record


def render_json(puzzle, result=None, *, indent=None, **extra):
    """:func:`result_record` as one line of JSON (or indented with ``indent``)."""
    return json.dumps(result_record(puzzle, result, **extra), indent=indent) + "\n"


#: --format name -> renderer(puzzle, colouring)
RENDERERS = {
    "text": render_text,
    "unicode": render_unicode,
    "svg": render_svg,
}
