"""The rules checker (docs/design.md section 1) on the corpus's solutions and on broken ones."""

import random

import pytest

from slitherlink.host.check import check, check_by_search
from slitherlink.host.puzzle import Puzzle, parse_plain
from tests.conftest import load, manifest

SOLVED = [row["name"] for row in manifest() if row["unique"] in ("yes", "no")]


def test_every_corpus_solution_passes(corpus):
    assert len(SOLVED) > 900
    for name in SOLVED:
        puzzle, solution = load(name)
        verdict = check(puzzle, solution)
        assert verdict.ok, (name, verdict.message)


def _flip(colouring, r, c):
    rows = [list(row) for row in colouring]
    rows[r][c] = not rows[r][c]
    return tuple(tuple(row) for row in rows)


def test_a_flipped_cell_is_never_a_solution_of_a_unique_puzzle(corpus):
    rng = random.Random(2020)
    names = [row["name"] for row in corpus if row["unique"] == "yes"]
    for name in rng.sample(names, 60):
        puzzle, solution = load(name)
        r, c = rng.randrange(puzzle.rows), rng.randrange(puzzle.cols)
        assert not check(puzzle, _flip(solution, r, c)).ok, name


def grid(text):
    return tuple(tuple(ch == "#" for ch in line) for line in text.split())


BLANK3 = Puzzle([[None] * 3] * 3)


@pytest.mark.parametrize("colouring,rule", [
    ("... ... ...", "connected"),          # no loop at all
    ("#.. ... ..#", "connected"),          # two loops
    ("### #.# ###", "hole"),               # a loop inside the loop
    ("#.. .#. ...", "crossing"),           # four lines at one lattice point
    ("##. .## ...", "ok"),
    ("### ### ###", "ok"),
])
def test_each_rule(colouring, rule):
    verdict = check(BLANK3, grid(colouring))
    assert verdict.ok == (rule == "ok")
    if rule != "ok":
        assert verdict.rule == rule


def test_clue_rule_names_the_cell():
    puzzle = parse_plain("...\n...\n..1\n")
    verdict = check(puzzle, grid("#.. ... ..."))  # the 1 at (3,3) has no line
    assert verdict.rule == "clue" and verdict.cell == (2, 2)
    assert "row 3, column 3" in verdict.message


def test_frame_counts_as_outside_for_clues():
    assert check(parse_plain("3\n"), grid("#")).rule == "clue"   # 4 lines, not 3
    assert check(parse_plain(".\n"), grid("#")).ok


def test_size_mismatch():
    assert check(BLANK3, grid("## ##")).rule == "size"


# -- the fast check against the reference (the rules by searches) ------------------------

def _rectangles(rng, rows, cols, count):
    """A colouring: the cells of ``count`` random rectangles (overlapping, touching,
    nested: one loop or several, holes, crossings)."""
    inside = [[False] * cols for _ in range(rows)]
    for _ in range(count):
        r0, c0 = rng.randrange(rows), rng.randrange(cols)
        r1, c1 = rng.randrange(r0, rows), rng.randrange(c0, cols)
        fill = rng.random() < 0.8  # some rectangles cut out of others: holes
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                inside[r][c] = fill
    return tuple(tuple(row) for row in inside)


@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 7), (5, 1), (3, 3), (10, 10), (15, 9),
                                       (30, 30), (60, 45)])
def test_check_agrees_with_the_search_on_random_colourings(rows, cols):
    rng = random.Random(rows * 1000 + cols)
    blank = Puzzle([[None] * cols for _ in range(rows)])
    rules = set()
    for _ in range(150):
        colouring = _rectangles(rng, rows, cols, rng.randrange(0, 5))
        clued = Puzzle([[rng.choice((None, None, None, 0, 1, 2, 3)) if rng.random() < 0.1
                         else None for _ in range(cols)] for _ in range(rows)])
        for puzzle in (blank, clued):
            verdict = check(puzzle, colouring)
            assert verdict == check_by_search(puzzle, colouring)
            rules.add(verdict.rule if not verdict.ok else "ok")
    if rows * cols >= 9:
        assert "ok" in rules and len(rules) >= 3, rules


def test_check_agrees_with_the_search_on_broken_corpus_solutions(corpus):
    """Each of 40 solutions with one cell flipped, a second loop added in a corner far
    from the first, and a loop carved inside (a hole): the same verdict, rule and cell."""
    rng = random.Random(7)
    names = [row["name"] for row in corpus if row["unique"] == "yes" and row["cells"] >= 100]
    rules = set()
    for name in rng.sample(names, 40):
        puzzle, solution = load(name)
        blank = Puzzle([[None] * puzzle.cols for _ in range(puzzle.rows)])
        r, c = rng.randrange(puzzle.rows), rng.randrange(puzzle.cols)
        broken = [_flip(solution, r, c)]
        # an isolated inside cell or an isolated outside cell: a second loop or a hole
        for r in range(1, puzzle.rows - 1):
            for c in range(1, puzzle.cols - 1):
                block = {solution[r + dr][c + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
                if len(block) == 1:
                    broken.append(_flip(solution, r, c))
                    break
            else:
                continue
            break
        for colouring in broken:
            for p in (puzzle, blank):
                verdict = check(p, colouring)
                assert verdict == check_by_search(p, colouring), name
                assert not verdict.ok or p is blank, name
                rules.add(verdict.rule)
    assert {"clue", "connected", "hole"} <= rules, rules


@pytest.mark.parametrize("size", [4, 30, 60])
def test_check_rejects_each_kind_of_wrong_answer_on_a_large_grid(size):
    """On a blank ``size`` x ``size`` grid: all inside is one loop; an outside cell in the
    middle of it a hole; two bands two loops; blocks touching at a corner cross; a clue
    in the far corner miscounted."""
    n = size
    blank = Puzzle([[None] * n for _ in range(n)])

    def cells(predicate):
        return tuple(tuple(bool(predicate(r, c)) for c in range(n)) for r in range(n))

    assert check(blank, cells(lambda r, c: True)).ok
    hole = check(blank, cells(lambda r, c: (r, c) != (n // 2, n // 2)))
    assert (hole.rule, hole.cell) == ("hole", (n // 2, n // 2))
    two_bands = cells(lambda r, c: (r < n // 2 - 1) or (r > n // 2))
    assert check(blank, two_bands).rule == "connected"
    assert check(blank, cells(lambda r, c: (r < n // 2) == (c < n // 2))).rule == "crossing"
    clued = Puzzle([[None] * n for _ in range(n - 1)] + [[None] * (n - 1) + [1]])
    verdict = check(clued, cells(lambda r, c: True))
    assert (verdict.rule, verdict.cell) == ("clue", (n - 1, n - 1))   # 2 lines, not 1
    assert check(Puzzle([[None] * (n - 1) + [2]] + [[None] * n for _ in range(n - 1)]),
                 cells(lambda r, c: True)).ok


def test_a_colouring_is_judged_by_its_truth_values_whatever_their_type():
    """The verdict on a colouring of 0 and 1, of other true and false values or of lists is
    the verdict on its booleans, for solutions and for each kind of broken one."""
    rng = random.Random(11)
    for name in ("janko_0011", "loopy_10x10_hard_10", "loopy_60x60_hard_02"):
        puzzle, solution = load(name)
        r, c = rng.randrange(puzzle.rows), rng.randrange(puzzle.cols)
        for colouring in (solution, _flip(solution, r, c),
                          _rectangles(rng, puzzle.rows, puzzle.cols, 3)):
            verdict = check(puzzle, colouring)
            assert verdict == check_by_search(puzzle, colouring)
            for other in ([[int(v) for v in row] for row in colouring],
                          [[rng.choice((1, 2, "#")) if v else rng.choice((0, None, ""))
                            for v in row] for row in colouring]):
                assert check(puzzle, other) == verdict, name
