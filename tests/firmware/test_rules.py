"""The firmware's rules are spec's: firmware/src/rules.c, the file the firmware image is built
from, compiled for the host and run beside spec/ on the same inputs.

* the island rule (``island_free``, the DEDUCE_SIZE.island bit the firmware writes) against
  :func:`spec.deduce.island_free`, which the golden model and the hardware tests use, on
  every corpus puzzle, every small grid and many random ones;
* the status rule (``solve_status``, RESULT's status byte) against
  :func:`spec.protocol.status_of` on every input it tells apart.
"""

import ctypes
import itertools
import random
import shutil
import subprocess
import sys

import pytest

from slitherlink.firmware import build as fw
from slitherlink.host.puzzle import Puzzle
from slitherlink.spec import generate
from slitherlink.spec.deduce import island_free
from slitherlink.spec.protocol import CLUE_BLANK, Solve, Status, status_of
from tests.conftest import load

RULES = fw.FIRMWARE_DIR / "src" / "rules.c"


def host_compiler():
    """The machine's C compiler, else zig's (the firmware's compiler, from PyPI)."""
    for name in ("gcc", "cc", "clang"):
        if shutil.which(name):
            return [shutil.which(name)]
    return [sys.executable, "-m", "ziglang", "cc"]


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    """rules.c as a shared library for this machine, with the generated headers."""
    tmp = tmp_path_factory.mktemp("rules")
    for name, make in generate.HEADERS.items():
        (tmp / name).write_text(make())
    lib = tmp / "librules.so"
    run = subprocess.run(host_compiler() + ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror",
                                            "-shared", "-fPIC", f"-I{tmp}",
                                            f"-I{RULES.parent}", str(RULES), "-o", str(lib)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    rules = ctypes.CDLL(str(lib))
    rules.island_free.argtypes = [ctypes.c_uint32, ctypes.c_uint32,
                                  ctypes.POINTER(ctypes.c_uint32)]
    rules.island_free.restype = ctypes.c_int
    rules.solve_status.argtypes = [ctypes.c_uint32] * 3
    rules.solve_status.restype = ctypes.c_uint32
    return rules


#: what fills the last clue word past the grid in these tests: clues 3 (the firmware's
#: payload buffer holds whatever came before there), which island_free must ignore
PAST_THE_GRID = 0x33


def firmware_island_free(rules, puzzle):
    """The firmware's island_free of ``puzzle``, given its clues as a SOLVE carries them, in
    whole clue words (the bytes past the clues: PAST_THE_GRID)."""
    codes = [CLUE_BLANK if v is None else v for row in puzzle.clues for v in row]
    packed = Solve.TAIL.pack(codes)
    if len(codes) % 2:   # the last byte's high nibble is past the grid too
        packed = packed[:-1] + bytes([packed[-1] | (PAST_THE_GRID & 0xF0)])
    packed += bytes([PAST_THE_GRID]) * (-len(packed) % 4)
    words = (ctypes.c_uint32 * (len(packed) // 4)).from_buffer_copy(packed)
    return bool(rules.island_free(puzzle.cols, puzzle.rows * puzzle.cols, words))


def test_the_firmware_image_has_these_rules(tmp_path):
    """The image links rules.c's functions (the build takes every firmware/src/*.c): the
    island rule, a function of its own in this build (solve_status is inlined, the units
    being optimised as one program)."""
    fw.build_firmware(3, 3, out_dir=tmp_path)
    assert fw.symbol(tmp_path / "firmware.elf", "island_free") is not None


def test_island_rule_on_the_corpus(rules, corpus):
    for row in corpus:
        puzzle, _ = load(row["name"])
        assert firmware_island_free(rules, puzzle) == island_free(puzzle), row["name"]


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 2), (1, 5), (2, 2), (2, 3), (3, 2)])
def test_island_rule_on_every_small_grid(rules, rows, cols):
    """Every clue (blank, 0..3) in every cell: grids with no clue, only zeros, a single
    nonzero clue, and clues spread further than a 3x4 box."""
    for values in itertools.product((None, 0, 1, 2, 3), repeat=rows * cols):
        puzzle = Puzzle([list(values[r * cols:(r + 1) * cols]) for r in range(rows)])
        assert firmware_island_free(rules, puzzle) == island_free(puzzle), puzzle.clues


def test_island_rule_on_random_grids(rules):
    """Random grids up to 20x20 of every clue density, few nonzero clues the most often."""
    rng = random.Random(29)
    seen = set()
    for _ in range(3000):
        rows, cols = rng.randint(1, 20), rng.randint(1, 20)
        nonzero = rng.choice((0.0, 0.005, 0.02, 0.05, 0.3))
        zero = rng.choice((0.0, 0.3))
        clues = [[rng.randint(1, 3) if rng.random() < nonzero
                  else 0 if rng.random() < zero else None for _ in range(cols)]
                 for _ in range(rows)]
        puzzle = Puzzle(clues)
        want = island_free(puzzle)
        seen.add(want)
        assert firmware_island_free(rules, puzzle) == want, clues
    assert seen == {False, True}


def test_no_nonzero_clue_is_not_island_free(rules):
    """The case the two once told apart: no nonzero clue (a 1x2 loop may be the solution)."""
    for clues in ([[None] * 5] * 5, [[0] * 4] * 3, [[0, None], [None, 0]]):
        assert firmware_island_free(rules, Puzzle(clues)) is island_free(Puzzle(clues)) is False


def test_status_rule_on_every_input(rules):
    for found, exhausted, unique in itertools.product(
            (0, 1, 2, 3, 7, 2**31, 2**32 - 1), (False, True), (False, True)):
        want = status_of(found, exhausted=exhausted, unique=unique)
        got = rules.solve_status(found, int(exhausted), int(unique))
        assert Status(got) is want, (found, exhausted, unique)
        # any nonzero value is true, as the firmware passes flags and bits
        assert rules.solve_status(found, 2 * int(exhausted), 2 * int(unique)) == got
