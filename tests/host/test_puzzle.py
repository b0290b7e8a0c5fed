"""Puzzles and the plain format (host/puzzle.py): what is read, and what is refused where."""

import random

import pytest

from slitherlink.host.puzzle import (BLANK, Puzzle, PuzzleError, colouring_cells,
                                    colouring_rows, format_colouring, format_plain,
                                    parse_colouring, parse_plain, plain_rows)


@pytest.mark.parametrize("bad", [True, False, 4, -1, 1.0, "1", [1], None.__class__])
def test_a_puzzle_refuses_a_clue_that_is_not_0_to_3_or_blank(bad):
    rows = [[None, 0, 1], [2, 3, None], [1, 1, 1]]
    rows[1][2] = bad
    with pytest.raises(PuzzleError, match=r"line 2, column 3: clue .* is not 0, 1, 2, 3"):
        Puzzle(rows)


def test_plain_lines_read_as_written():
    rng = random.Random(3)
    for _ in range(50):
        rows, cols = rng.randrange(1, 12), rng.randrange(1, 12)
        clues = [[rng.choice((None, 0, 1, 2, 3)) for _ in range(cols)] for _ in range(rows)]
        chars = {None: ".-_", 0: "0", 1: "1", 2: "2", 3: "3"}
        text = "# a comment\n" + "".join(
            "  " + "".join(rng.choice(chars[v]) for v in row) + "\n" for row in clues)
        puzzle = parse_plain(text)
        assert [list(row) for row in puzzle.clues] == clues
        assert parse_plain(format_plain(puzzle)) == puzzle
        made = Puzzle(clues)   # the same puzzle, its clues checked one by one
        assert puzzle == made and puzzle.cells == made.cells
        assert all(type(row) is tuple for row in puzzle.clues)
        assert puzzle.cells == bytes(BLANK if v is None else v for row in clues for v in row)
        assert plain_rows(puzzle) == ["".join("." if v is None else str(v) for v in row)
                                      for row in clues]


@pytest.mark.parametrize("char,message", [("5", "clue 5 is out of range"),
                                          ("x", "unexpected character 'x'"),
                                          ("#", "unexpected character '#'")])
def test_a_bad_character_is_named_at_its_column(char, message):
    for column in (2, 4, 7):  # (a line that starts with # is a comment)
        line = list("..1.2.3")
        line[column - 1] = char
        text = "...1..2\n   " + "".join(line) + "\n"   # indented by 3
        with pytest.raises(PuzzleError, match=f"line 2, column {column + 3}: {message}"):
            parse_plain(text)


def test_a_colouring_is_written_cell_by_cell():
    rng = random.Random(4)
    for rows, cols in [(1, 1), (1, 9), (7, 1), (10, 10), (13, 31)]:
        colouring = tuple(tuple(rng.random() < 0.5 for _ in range(cols)) for _ in range(rows))
        text = format_colouring(colouring)
        assert text.splitlines() == ["".join("#" if v else "." for v in row)
                                     for row in colouring]
        assert parse_colouring(text) == colouring
    assert format_colouring([[1, 0, 0], [0, 2]]) == "#..\n.#\n"  # ragged: row by row
    assert format_colouring([]) == "" and format_colouring([[], []]) == "\n\n"


def test_a_colouring_s_cells_and_rows_whatever_its_values():
    """Booleans, 0 and 1, other true and false values, numbers past a byte, strings, rows of
    any sequence: 1 inside, 0 outside, as ``bool`` says."""
    from array import array
    rng = random.Random(5)
    for rows, cols in [(1, 1), (2, 9), (10, 10), (31, 13)]:
        truth = [[rng.random() < 0.5 for _ in range(cols)] for _ in range(rows)]
        expected = bytes(v for row in truth for v in row)
        lines = ["".join("#" if v else "." for v in row) for row in truth]
        for colouring in (
                tuple(map(tuple, truth)),
                [[int(v) for v in row] for row in truth],
                [[rng.choice((2, 300, -1, 0.5, "x")) if v else rng.choice((0, 0.0, "", None))
                  for v in row] for row in truth],
                [array("H", [257 if v else 0 for v in row]) for row in truth],
                [bytes(v * 7 for v in row) for row in truth]):
            assert colouring_cells(colouring) == expected
            assert colouring_rows(colouring) == lines


def test_a_puzzle_of_a_reader_s_cells_is_the_puzzle_of_its_clues():
    """The plain reader's puzzles (made from their cells, Puzzle._of_cells) are those of
    their clues, down to one cell and one column; cells that are no whole rows of clues
    and blanks are refused."""
    for clues in ([[3]], [[None]], [[None, 2]], [[1], [None], [0]], [[None] * 4] * 3):
        made = Puzzle(clues, name="p")
        cells = bytes(BLANK if v is None else v for row in clues for v in row)
        read = Puzzle._of_cells(cells, len(clues[0]), "p")
        assert read == made and read.cells == made.cells == cells
        assert read.clues == tuple(map(tuple, clues))
    for cells, cols in ((b"", 1), (b"\x04", 1), (b"\x00\xfe", 2), (b"\x00\x01\x02", 2)):
        with pytest.raises(ValueError, match="whole rows of clues and blanks"):
            Puzzle._of_cells(cells, cols)
