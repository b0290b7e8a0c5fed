"""The rules checker (docs/design.md section 1) on the corpus's solutions and on broken ones."""

import random

import pytest

from slitherlink.host.check import check
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
