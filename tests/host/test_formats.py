"""Puzzle formats (host/formats.py): plain grids, Loopy game ids, puzz.link URLs.

Oracles: the pzpr_*.txt puzzles of the corpus carry their URL in the ``# source:``
line and the decoded grid in the body; the bundled examples carry a Loopy game id
and its grid; Loopy game ids printed by ``sgt-loopy --generate`` for a 36x20 corpus
puzzle (non-square: W is columns) are compared with the corpus's grid.
"""

import io
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slitherlink.host.formats import (detect_format, format_loopy, format_puzzlink, iter_puzzles,
                          load_puzzle, load_puzzles, parse_loopy, parse_puzzle,
                          parse_puzzles, parse_puzzlink, read_puzzles, write_puzzle)
from slitherlink.host.puzzle import Puzzle, PuzzleError, format_plain, parse_plain
from tests.conftest import HANG_SECONDS, PUZZLES, REPO

EXAMPLES = [REPO / "examples" / "loopy_7x7.txt", REPO / "examples" / "loopy_10x10.txt"]
PZPR = sorted(PUZZLES.glob("pzpr_*.txt"))
# URLs of the corpus written by pzprjs itself (the others come from other encoders)
PZPRJS_ENCODED = {"pzpr_ctc_seshadri", "pzpr_ctc_teatime", "pzpr_penpa_1", "pzpr_penpa_2"}


def _comment(text, key):
    match = re.search(rf"^# {key}: *(\S+)", text, re.MULTILINE)
    assert match, f"no '# {key}:' line"
    return match.group(1)


# --- oracles --------------------------------------------------------------------------

def test_the_corpus_has_the_pzpr_oracles():
    assert len(PZPR) == 6


@pytest.mark.parametrize("path", PZPR, ids=lambda p: p.stem)
def test_puzzlink_url_decodes_to_the_corpus_grid(path):
    text = path.read_text()
    url = _comment(text, "source")
    expected = parse_plain(text)
    assert parse_puzzlink(url).clues == expected.clues
    assert detect_format(url) == "puzzlink"
    again = format_puzzlink(expected)
    assert parse_puzzlink(again).clues == expected.clues
    if path.stem in PZPRJS_ENCODED:  # byte for byte what pzprjs writes
        assert again.split("slither", 1)[1].split("/", 3)[3] == url.rsplit("/", 1)[1]


def test_puzzlink_size_is_columns_then_rows():
    # pzpr_penpa_1 is the non-square one: 12 columns, 10 rows
    text = (PUZZLES / "pzpr_penpa_1.txt").read_text()
    puzzle = parse_puzzlink(_comment(text, "source"))
    assert (puzzle.rows, puzzle.cols) == (10, 12)
    assert "?slither/12/10/" in format_puzzlink(puzzle)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_loopy_game_id_of_the_examples(path):
    text = path.read_text()
    game_id = _comment(text, "game id")
    grid = parse_plain(text)
    assert parse_loopy(game_id).clues == grid.clues
    assert format_loopy(grid) == game_id  # byte for byte what Loopy printed


# sgt-loopy --generate 6 '36x20t0dh#slcorpus-36x20-h', puzzle #1: corpus loopy_20x36_hard_01
LOOPY_36X20 = (
    "36x20t0:2a2a1b2a2d12c3b32232d3a3a32a2a22a230f3212a1e13a21a2b3a23c0a2a2e22b221e2a"
    "220e2a1a23e1a3a1a2a3a1f2a00b23a11a1c1a322b1e122a1a12c3a121c2a1a23c111b02a2a223d1"
    "g1a2a2112021c13b2a2201a3b12a223b22a13b2c2g2d1a1b3c1a1a1a3c111123c33a1a33332d2a11"
    "a3b1e2a2b2c2b1e122c2e13a1223c2a1a222d3a23c3a2e31a2213b2b3a2a2a30a1d322a12a21g22a"
    "2a2b1b1d2b1b321a02a3b3a2a3a012b32c21303a31321a121b231a2d1c1a31h2d22d2a2c2f2f3b31"
    "b3b21b21b31b131231212a3h3a3a32d3a1b2d3b3a32a121b232a2c1a2b211b113a2d22d12a2a21b1"
    "2a33e333b1b11a322a3b233b3a3a3")


def test_loopy_non_square_id_is_columns_then_rows():
    name = "loopy_20x36_hard_01"
    path = PUZZLES / f"{name}.txt"
    grid = parse_plain(path.read_text())
    assert "36x20t0dh#slcorpus-36x20-h' (#1)" in path.read_text()
    assert (grid.rows, grid.cols) == (20, 36)
    assert parse_loopy(LOOPY_36X20).clues == grid.clues
    assert format_loopy(grid) == LOOPY_36X20


SGT_LOOPY = shutil.which("sgt-loopy") or shutil.which("/usr/games/sgt-loopy")


@pytest.mark.skipif(SGT_LOOPY is None, reason="sgt-loopy (Debian sgt-puzzles) not installed")
@pytest.mark.parametrize("seed", ["5x5t0de#slcorpus-5x5-e", "7x7t0dn#slcorpus-7x7-n",
                                  "10x10t0dt#slcorpus-10x10-t"])
def test_sgt_loopy_generated_ids_match_the_corpus(seed):
    """The corpus's loopy_* puzzles name the sgt-loopy seed they came from."""
    sources = {}
    for path in PUZZLES.glob("loopy_*.txt"):
        text = path.read_text()
        match = re.search(r"--generate (\d+) '([^']+)' \(#(\d+)\)", text)
        if match and match.group(2) == seed:
            sources[int(match.group(3))] = (int(match.group(1)), parse_plain(text))
    assert sources
    count = next(iter(sources.values()))[0]
    out = subprocess.run([SGT_LOOPY, "--generate", str(count), seed], capture_output=True,
                         text=True, timeout=HANG_SECONDS, check=True).stdout.split()
    assert len(out) == count
    for number, (_, grid) in sources.items():
        assert parse_loopy(out[number - 1]).clues == grid.clues
        assert format_loopy(grid) == out[number - 1]


# --- round trips ----------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["plain", "loopy", "puzzlink"])
def test_round_trip_every_corpus_puzzle(corpus, fmt):
    for row in corpus:
        puzzle = parse_plain((PUZZLES / f"{row['name']}.txt").read_text())
        text = write_puzzle(puzzle, fmt)
        assert detect_format(text) == fmt, row["name"]
        assert parse_puzzle(text) == puzzle, row["name"]


clue = st.one_of(st.none(), st.integers(0, 3))


@st.composite
def puzzles(draw, max_side=12):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    blank_bias = draw(st.floats(0, 1))
    cells = draw(st.lists(st.one_of(clue, st.just(None)) if blank_bias < 0.5 else clue,
                          min_size=rows * cols, max_size=rows * cols))
    return Puzzle([cells[r * cols:(r + 1) * cols] for r in range(rows)])


@settings(max_examples=150, deadline=None)
@given(puzzles())
def test_round_trip_random_puzzles(puzzle):
    assert parse_plain(format_plain(puzzle)) == puzzle
    assert parse_loopy(format_loopy(puzzle)) == puzzle
    assert parse_puzzlink(format_puzzlink(puzzle)) == puzzle
    for fmt in ("plain", "loopy", "puzzlink"):
        assert parse_puzzle(write_puzzle(puzzle, fmt)) == puzzle


@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 60), (60, 1), (7, 9), (30, 30)])
def test_long_blank_runs(rows, cols):
    blank = Puzzle([[None] * cols for _ in range(rows)])
    assert parse_loopy(format_loopy(blank)) == blank
    assert parse_puzzlink(format_puzzlink(blank)) == blank
    last = Puzzle([[None] * (cols - 1) + [2]] + [[None] * cols for _ in range(rows - 1)])
    assert parse_loopy(format_loopy(last)) == last
    assert parse_puzzlink(format_puzzlink(last)) == last


def test_known_encodings():
    puzzle = parse_plain("3..\n...\n..2\n")
    assert format_loopy(puzzle) == "3x3t0:3g2"
    # '8' = clue 3 then one blank ... pzprjs packs the last clue as if two blanks followed
    assert format_puzzlink(puzzle) == "https://puzz.link/p?slither/3/3/dkc"
    assert parse_puzzlink("https://puzz.link/p?slither/3/3/dkc") == puzzle
    assert parse_puzzlink("https://puzz.link/p?slither/3/3/dk2") == puzzle  # no overrun
    assert format_loopy(Puzzle([[None] * 27])) == "27x1t0:za"
    assert format_puzzlink(Puzzle([[None] * 21])) == "https://puzz.link/p?slither/21/1/zg"


# --- the variants that are accepted -------------------------------------------------

@pytest.mark.parametrize("text", [
    "https://puzz.link/p?slither/3/3/dkc",
    "http://puzz.link/p?slither/3/3/dkc",
    "https://puzz.link/p?slither/3/3/dkc/",
    "http://pzv.jp/p.html?slither/3/3/dkc",
    "https://pzv.jp/p.html?slitherlink/3/3/dkc",
    "puzz.link/p?slither/3/3/dkc",
    "p?slither/3/3/dkc",
    "  https://puzz.link/p?slither/3/3/dkc  ",
])
def test_puzzlink_variants(text):
    assert parse_puzzle(text) == parse_plain("3..\n...\n..2\n")


@pytest.mark.parametrize("text", ["3x3t0:3g2", "3x3:3g2", "3t0:3g2", "3x3t0dh:3g2",
                                  "3x3t0dn:3g2\n", "# a comment\n3x3t0:3g2\n"])
def test_loopy_variants(text):
    assert parse_puzzle(text) == parse_plain("3..\n...\n..2\n")


def test_plain_with_comments_and_game_id_comment():
    text = "# source: made by hand\n# game id: 2x1t0:3a\n3.\n"
    assert detect_format(text) == "plain"
    assert parse_puzzle(text).clues == ((3, None),)


# --- malformed input: one clear message naming the place ------------------------------

PLAIN_ERRORS = [
    ("3.x\n...\n", "unexpected character 'x'", 1, 3),
    ("3..\n..\n", "row has 2 cells, the first row has 3", 2, 3),
    ("3..\n.4.\n", "clue 4 is out of range", 2, 2),
    ("  3..\n  .9.\n", "clue 9 is out of range", 2, 4),  # columns count as written
    ("", "empty", None, None),
    ("# only a comment\n\n", "empty", None, None),
]


@pytest.mark.parametrize("text,message,line,column", PLAIN_ERRORS)
def test_plain_errors(text, message, line, column):
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text, source="p.txt")
    error = info.value
    assert message in str(error)
    assert (error.line, error.column) == (line, column)
    assert str(error).startswith("p.txt")
    assert "\n" not in str(error)


LOOPY_ERRORS = [
    ("3x3t0:3g2x", "more than the 9 faces", 10),
    ("3x3t0:3g", "describe 8 faces, a 3x3 grid has 9", 9),
    ("3x3t0:3g4", "clue 4 is out of range", 9),
    ("3x3t0:3gA", "clue A (= 10) is out of range", 9),
    ("3x3t0:3g!", "unexpected character '!'", 9),
    ("3x3t1:3g2", "grid type t1 is not the square grid", 4),
    ("3x3t0q:3g2", "unexpected 'q' in the parameters", 6),
    ("3x3t0dn#12345", "random seed, not a game id", 8),
    ("3x3t03g2", "missing ':'", 9),
    ("0x3t0:", "has no cells", 1),
]


@pytest.mark.parametrize("text,message,position", LOOPY_ERRORS)
def test_loopy_errors(text, message, position):
    assert detect_format(text) == "loopy"
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text)
    assert message in str(info.value)
    assert info.value.position == position
    assert f"character {position}" in str(info.value)


def test_loopy_error_in_a_file_names_line_and_column():
    with pytest.raises(PuzzleError) as info:
        parse_puzzles("# ids\n3x3t0:3g2\n  3x3t0:3g4\n", source="ids.txt")
    assert (info.value.line, info.value.column) == (3, 11)
    assert str(info.value).startswith("ids.txt, line 3, column 11: clue 4")


URL = "https://puzz.link/p?slither/3/3/"
URL_ERRORS = [
    (URL + "dk", "describe 8 cells, a 3x3 grid has 9", len(URL) + 3),
    (URL + "dkc2", "extra characters after the last cell", len(URL) + 4),
    (URL + "4kc", "clue 4 (character '4') is out of range", len(URL) + 1),
    (URL + "9kc", "clue 4 (character '9') is out of range", len(URL) + 1),
    (URL + "ekc", "clue 4 (character 'e') is out of range", len(URL) + 1),
    (URL + ".kc", "unknown clue", len(URL) + 1),
    (URL + "dKc", "unexpected character 'K'", len(URL) + 2),
    (URL + "dfc", "unexpected character 'f'", len(URL) + 2),
    (URL, "missing the clues", len(URL) + 1),
    ("https://puzz.link/p?nurikabe/3/3/dkc", "the puzzle type is 'nurikabe'", 21),
    ("https://puzz.link/p?slither/3", "missing the number of rows", 30),
    ("https://puzz.link/p?slither/3/x3/dkc", "the number of rows 'x3'", 31),
    ("https://puzz.link/p?slither/0/3/dkc", "has no cells", 29),
    ("ftp://puzz.link/p?slither/3/3/dkc", "starts with http:// or https://", 1),
    ("https://puzz.link/slither/3/3/dkc", "no '?' in the URL", 34),
]


@pytest.mark.parametrize("text,message,position", URL_ERRORS)
def test_puzzlink_errors(text, message, position):
    assert detect_format(text) == "puzzlink"
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text)
    assert message in str(info.value)
    assert info.value.position == position


def test_puzzle_error_positions_point_at_the_character():
    for text, _, position in URL_ERRORS[:8] + [(t, m, p) for t, m, p in LOOPY_ERRORS[2:5]]:
        with pytest.raises(PuzzleError) as info:
            parse_puzzle(text)
        assert info.value.position == position
        assert 1 <= position <= len(text) + 1


# --- the command-line entry points ----------------------------------------------------

def test_load_puzzle_from_file_literal_and_stdin(tmp_path):
    example = REPO / "examples" / "loopy_7x7.txt"
    grid = load_puzzle(example)
    assert grid.name == "loopy_7x7" and grid.size == "7x7"
    game_id = _comment(example.read_text(), "game id")
    assert load_puzzle(game_id).clues == grid.clues
    assert load_puzzle("-", stdin=io.StringIO(game_id + "\n")).clues == grid.clues
    url = format_puzzlink(grid)
    assert load_puzzle(url).clues == grid.clues
    (tmp_path / "url.txt").write_text(f"# a URL\n{url}\n")
    assert load_puzzle(str(tmp_path / "url.txt")).clues == grid.clues


def test_a_file_of_ids_holds_several_puzzles(tmp_path):
    path = tmp_path / "many.txt"
    path.write_text("# two puzzles\n3x3t0:3g2\nhttps://puzz.link/p?slither/2/1/7\n")
    first, second = load_puzzles(str(path))
    assert (first.name, second.name) == ("many#1", "many#2")
    assert second.clues == ((2, None),)
    with pytest.raises(PuzzleError, match="expected one puzzle, found 2"):
        load_puzzle(str(path))


def test_directories_are_read_sorted_and_errors_do_not_stop_the_rest(tmp_path):
    (tmp_path / "b.txt").write_text("3.\n")
    (tmp_path / "a.txt").write_text("2.\n")
    (tmp_path / "c.txt").write_text("2x\n")
    (tmp_path / "a.sol").write_text("#.\n")
    items = list(iter_puzzles([str(tmp_path), "nothing-here.txt"]))
    assert [type(x).__name__ for _, x in items] == ["Puzzle", "Puzzle", "PuzzleError",
                                                    "PuzzleError"]
    assert [x.name for _, x in items[:2]] == ["a", "b"]
    assert "line 1, column 2" in str(items[2][1])
    assert "no such file or directory" in str(items[3][1])
    with pytest.raises(PuzzleError, match="unexpected character 'x'"):
        read_puzzles([str(tmp_path)])


def test_unreadable_inputs(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(PuzzleError, match=r"no \*\.txt puzzle files"):
        load_puzzle(str(tmp_path / "empty"))
    (tmp_path / "x.sol").write_text("#.\n")
    with pytest.raises(PuzzleError, match="solution file"):
        load_puzzle(str(tmp_path / "x.sol"))
    (tmp_path / "bin.txt").write_bytes(b"3.\xff\n")
    with pytest.raises(PuzzleError, match="not a text file"):
        load_puzzle(str(tmp_path / "bin.txt"))
    (tmp_path / "blank.txt").write_text("\n\n")
    with pytest.raises(PuzzleError, match="empty"):
        load_puzzle(str(tmp_path / "blank.txt"))
    with pytest.raises(PuzzleError, match="empty"):
        load_puzzle("-", stdin=io.StringIO(""))


def test_detect_format():
    assert detect_format("3..\n.2.\n") == "plain"
    assert detect_format("# 10x10t0:abc\n3.\n") == "plain"
    assert detect_format("10x10t0:abc") == "loopy"
    assert detect_format("https://puzz.link/p?slither/1/1/0") == "puzzlink"
    assert detect_format("") == "plain"


def test_the_bundled_file_of_loopy_ids():
    path = REPO / "examples" / "loopy_ids_4x6.txt"
    ids = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    puzzles = load_puzzles(str(path))
    assert len(puzzles) == len(ids) == 3
    for number, (puzzle, game_id) in enumerate(zip(puzzles, ids), start=1):
        assert (puzzle.rows, puzzle.cols, puzzle.name) == (4, 6, f"loopy_ids_4x6#{number}")
        assert format_loopy(puzzle) == game_id
