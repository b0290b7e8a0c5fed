"""Renderers (host/render.py): ASCII, Unicode box drawing, SVG, JSON.

The drawings are read back (lines, box characters, SVG elements) and compared
with the colouring they were drawn from, on corpus solutions and random colourings.
"""

import json
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slitherlink.host.check import check
from slitherlink.host.puzzle import Puzzle, format_colouring, parse_plain
from slitherlink.host.render import (loop_edges, render_json, render_svg, render_text, render_unicode,
                         result_record)
from slitherlink.host.result import Result, Status
from tests.conftest import load

SVG = "{http://www.w3.org/2000/svg}"

# a 2x3 puzzle and its solution: the loop around the top row and down the right column
PUZZLE = parse_plain("3.2\n.13\n")
SOLUTION = ((True, True, True), (False, False, True))


def test_text_drawing_exact():
    assert render_text(PUZZLE, SOLUTION) == (
        "+-+-+-+\n"
        "|3   2|   ###\n"
        "+-+-+ +\n"
        "   1|3|   ..#\n"
        "+ + +-+\n"
    )


def test_unicode_drawing_exact():
    assert render_unicode(PUZZLE, SOLUTION) == (
        "┌───────────┐\n"
        "│ 3       2 │\n"
        "└───────┐   │\n"
        "      1 │ 3 │\n"
        "·   ·   └───┘\n"
    )


def test_drawings_of_a_puzzle_without_solution():
    assert render_text(PUZZLE) == "+ + + +\n 3   2\n+ + + +\n   1 3\n+ + + +\n"
    assert render_unicode(PUZZLE) == ("·   ·   ·   ·\n  3       2\n·   ·   ·   ·\n"
                                      "      1   3\n·   ·   ·   ·\n")


def test_unicode_shading_marks_the_inside_cells():
    shaded = render_unicode(PUZZLE, SOLUTION, shade=True).splitlines()
    assert shaded[1] == "│░3░ ░░░ ░2░│"
    assert shaded[3] == "      1 │░3░│"


def _edges_from_text(drawing, rows, cols):
    lines = drawing.splitlines()
    assert len(lines) == 2 * rows + 1
    pad = [line.ljust(2 * cols + 1) for line in lines]
    horizontal = [[pad[2 * i][2 * c + 1] == "-" for c in range(cols)] for i in range(rows + 1)]
    vertical = [[pad[2 * r + 1][2 * j] == "|" for j in range(cols + 1)] for r in range(rows)]
    for i in range(rows + 1):
        assert all(pad[2 * i][2 * j] == "+" for j in range(cols + 1))
    return horizontal, vertical


_DIRS = {"─": "lr", "│": "ud", "┌": "dr", "┐": "dl", "└": "ur", "┘": "ul", "├": "udr",
         "┤": "udl", "┬": "dlr", "┴": "ulr", "┼": "udlr", "╵": "u", "╷": "d", "╴": "l",
         "╶": "r", "·": ""}


def _edges_from_unicode(drawing, rows, cols):
    lines = [line.ljust(4 * cols + 1) for line in drawing.splitlines()]
    assert len(lines) == 2 * rows + 1
    horizontal = [[lines[2 * i][4 * c + 1:4 * c + 4] == "───" for c in range(cols)]
                  for i in range(rows + 1)]
    vertical = [[lines[2 * r + 1][4 * j] == "│" for j in range(cols + 1)] for r in range(rows)]
    # every lattice point's character agrees with the lines that meet there
    for i in range(rows + 1):
        for j in range(cols + 1):
            dirs = _DIRS[lines[2 * i][4 * j]]
            assert ("u" in dirs) == (i > 0 and vertical[i - 1][j])
            assert ("d" in dirs) == (i < rows and vertical[i][j])
            assert ("l" in dirs) == (j > 0 and horizontal[i][j - 1])
            assert ("r" in dirs) == (j < cols and horizontal[i][j])
    return horizontal, vertical


def _clues_from_unicode(drawing, rows, cols):
    lines = drawing.splitlines()
    return [[(lambda ch: None if ch in " ░" else int(ch))(lines[2 * r + 1].ljust(4 * cols + 1)
                                                         [4 * c + 2])
             for c in range(cols)] for r in range(rows)]


colourings = st.integers(1, 6).flatmap(lambda rows: st.integers(1, 6).flatmap(
    lambda cols: st.lists(st.lists(st.booleans(), min_size=cols, max_size=cols),
                          min_size=rows, max_size=rows)))


@settings(max_examples=150, deadline=None)
@given(colourings, st.randoms(use_true_random=False))
def test_drawings_read_back_to_the_colourings_lines(rows, rng):
    colouring = tuple(tuple(row) for row in rows)
    r, c = len(colouring), len(colouring[0])
    puzzle = Puzzle([[rng.choice([None, 0, 1, 2, 3]) for _ in range(c)] for _ in range(r)])
    edges = loop_edges(puzzle, colouring)
    # a line exactly between cells of different colour, the frame being outside
    for i in range(r + 1):
        for j in range(c):
            above = i > 0 and colouring[i - 1][j]
            below = i < r and colouring[i][j]
            assert edges[0][i][j] == (above != below)
    text = render_text(puzzle, colouring)
    assert _edges_from_text(text, r, c) == edges
    side = [line[2 * c + 1:].strip() for line in text.splitlines()[1::2]]
    assert "\n".join(side) + "\n" == format_colouring(colouring)
    drawing = render_unicode(puzzle, colouring)
    assert _edges_from_unicode(drawing, r, c) == edges
    assert _clues_from_unicode(drawing, r, c) == [list(row) for row in puzzle.clues]


@pytest.mark.parametrize("name", ["pzpr_penpa_1", "janko_0002", "edge_1x5_ends",
                                  "edge_2x2_33"])
def test_corpus_solution_drawings(name):
    puzzle, solution = load(name)
    assert check(puzzle, solution).ok
    h, v = _edges_from_unicode(render_unicode(puzzle, solution), puzzle.rows, puzzle.cols)
    assert (h, v) == loop_edges(puzzle, solution)
    # a solution's loop: every lattice point has 0 or 2 lines
    for i in range(puzzle.rows + 1):
        for j in range(puzzle.cols + 1):
            degree = sum([i > 0 and v[i - 1][j], i < puzzle.rows and v[i][j],
                          j > 0 and h[i][j - 1], j < puzzle.cols and h[i][j]])
            assert degree in (0, 2)
    assert _edges_from_text(render_text(puzzle, solution), puzzle.rows, puzzle.cols) == (h, v)


def _svg_loop_segments(root, cell, margin):
    segments = set()
    for path in root.iter(f"{SVG}path"):
        tokens = path.get("d").replace("M", " ").replace("L", " ").split()
        closed = tokens[-1] == "Z"
        numbers = [float(t) for t in tokens if t != "Z"]
        points = [(round((y - margin) / cell), round((x - margin) / cell))
                  for x, y in zip(numbers[::2], numbers[1::2])]
        if closed:
            points.append(points[0])
        for a, b in zip(points, points[1:]):
            assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
            segments.add(frozenset((a, b)))
    return segments


@pytest.mark.parametrize("name", ["pzpr_penpa_1", "janko_0002", "edge_1x2_3"])
def test_svg_shows_dots_clues_inside_cells_and_one_closed_loop(name):
    puzzle, solution = load(name)
    svg = render_svg(puzzle, solution, cell=30, title=f"{name} & co")
    root = ET.fromstring(svg.split("\n", 1)[1])
    assert root.tag == f"{SVG}svg"
    assert root.find(f"{SVG}title").text == f"{name} & co"
    assert len(list(root.iter(f"{SVG}circle"))) == (puzzle.rows + 1) * (puzzle.cols + 1)
    texts = sorted(t.text for t in root.iter(f"{SVG}text"))
    assert texts == sorted(str(v) for row in puzzle.clues for v in row if v is not None)
    inside = root.find(f"{SVG}g[@class='inside']")
    assert len(inside.findall(f"{SVG}rect")) == sum(map(sum, solution))
    paths = list(root.iter(f"{SVG}path"))
    assert len(paths) == 1 and paths[0].get("d").endswith("Z")  # one closed loop
    h, v = loop_edges(puzzle, solution)
    expected = {frozenset(((i, c), (i, c + 1))) for i, row in enumerate(h)
                for c, line in enumerate(row) if line}
    expected |= {frozenset(((r, j), (r + 1, j))) for r, row in enumerate(v)
                 for j, line in enumerate(row) if line}
    assert _svg_loop_segments(root, 30, 15) == expected


def test_svg_of_an_unsolved_puzzle_has_no_loop():
    root = ET.fromstring(render_svg(PUZZLE).split("\n", 1)[1])
    assert not list(root.iter(f"{SVG}path"))
    assert root.find(f"{SVG}g[@class='inside']") is None
    assert len(list(root.iter(f"{SVG}text"))) == 4


def test_json_record():
    result = Result("model", Status.SOLVED_UNIQUE, SOLUTION, [SOLUTION], 0.5,
                    {"checks": 12, "backtracks": 3})
    record = json.loads(render_json(PUZZLE, result, exit_code=0, wall_seconds=0.6))
    assert record == {
        "puzzle": "", "size": "2x3", "rows": 2, "cols": 3, "clues": ["3.2", ".13"],
        "engine": "model", "status": "solved_unique", "status_text": "solved, unique",
        "solution": ["###", "..#"], "solutions": [["###", "..#"]],
        "counters": {"checks": 12, "backtracks": 3}, "engine_seconds": 0.5, "message": "",
        "exit_code": 0, "wall_seconds": 0.6,
    }
    none = result_record(PUZZLE, Result("model", Status.NO_SOLUTION))
    assert none["solution"] is None and none["status"] == "no_solution"
    assert render_json(PUZZLE).count("\n") == 1


def test_json_record_of_several_solutions():
    other = (SOLUTION[1], SOLUTION[0])
    result = Result("model", Status.MULTIPLE, SOLUTION, [SOLUTION, other], 0.5)
    record = json.loads(render_json(PUZZLE, result))
    assert record["solution"] == ["###", "..#"]
    assert record["solutions"] == [["###", "..#"], ["..#", "###"]]
