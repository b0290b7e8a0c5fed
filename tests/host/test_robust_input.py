"""Malformed, hostile and oversized inputs: one line, the right exit code, no traceback.

Table-driven: every case runs :func:`host.cli.main` with captured streams (fast);
a few run ``host/solve.py`` in a subprocess, as a user (or an attacker) would.
The limits are those of :mod:`host.formats` and :mod:`host.puzzle`.
"""

import io
import os
import pathlib
import subprocess
import sys

import pytest

from slitherlink.host import formats
from slitherlink.host.cli import main
from slitherlink.host.errors import ExitCode
from slitherlink.host.puzzle import MAX_SIDE
from tests.conftest import HANG_SECONDS, PUZZLES, REPO

SOLVE = REPO / "host" / "solve.py"
PYTHON = str(REPO / ".venv" / "bin" / "python") if (REPO / ".venv").exists() else sys.executable
TOO_MANY = MAX_SIDE + 1


def run_main(args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    stream = io.StringIO(stdin) if isinstance(stdin, str) else stdin
    code = main([str(a) for a in args], stdin=stream, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def one_line(err):
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    return err


@pytest.fixture
def files(tmp_path):
    """Builds the input files of the cases in tmp_path."""
    def make(kind):
        path = tmp_path / f"{kind}.txt"
        if kind == "wide":
            path.write_text("." * TOO_MANY + "\n")
        elif kind == "tall":
            path.write_text(".\n" * TOO_MANY)
        elif kind == "sparse_50mb":
            with open(path, "wb") as f:
                f.truncate(50 * 1024 * 1024)   # 50 MB, no disk used: refused by its size
        elif kind == "loopy_1_9mb":
            path.write_text("100000x100000t0:" + "z" * 1_900_000)
        elif kind == "empty":
            path.write_text("")
        elif kind == "binary":
            path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
        elif kind == "fifo":
            path = tmp_path / "fifo"
            os.mkfifo(path)
        elif kind == "solution":
            path = tmp_path / "x.sol"
            path.write_text("#.\n")
        elif kind == "huge_for_model":
            path.write_text(("." * 65 + "\n") * 65)
        return path
    return make


# (id, argv with {file} placeholders, stdin, exit code, a piece of the message)
CASES = [
    ("loopy_5000_digit_size", ["1" * 5000 + "x3t0:aaa"], "", 6, "5000 digits"),
    ("loopy_5000_digit_height", ["3x" + "1" * 5000 + ":aaa"], "", 6, "5000 digits"),
    ("url_5000_digit_size", ["https://puzz.link/p?slither/" + "9" * 5000 + "/2/g"], "", 6,
     "5000 digits"),
    ("url_unicode_superscript", ["https://puzz.link/p?slither/\u00b2/2/g"], "", 6,
     "not a whole number"),
    ("url_arabic_indic_digit", ["https://puzz.link/p?slither/\u0663/2/g"], "", 6,
     "not a whole number"),
    ("loopy_arabic_indic_digits", ["\u0663x\u0663t0:i"], "", 6, "starts with the size"),
    ("loopy_beyond_limit", [f"{TOO_MANY}x{TOO_MANY}t0:z"], "", 6, "beyond the limit"),
    ("url_beyond_limit", [f"https://puzz.link/p?slither/{TOO_MANY}/1/g"], "", 6,
     "beyond the limit"),
    ("url_zero_columns", ["https://puzz.link/p?slither/0/3/g"], "", 6, "no cells"),
    ("plain_too_wide", ["{wide}"], "", 6, f"more than {MAX_SIDE} columns"),
    ("plain_too_tall", ["{tall}"], "", 6, f"more than {MAX_SIDE} rows"),
    ("file_of_50_mb", ["{sparse_50mb}"], "", 6, "too large (52,428,800 bytes"),
    ("loopy_id_of_1_9_mb_in_a_file", ["{loopy_1_9mb}"], "", 6, "beyond the limit"),
    ("dev_zero", ["/dev/zero"], "", 6, "too large"),
    ("fifo_without_writer", ["{fifo}"], "", 6, "nothing to read"),
    ("empty_file", ["{empty}"], "", 6, "empty"),
    ("binary_file", ["{binary}"], "", 6, "not a text file"),
    ("solution_file", ["{solution}"], "", 6, "solution file"),
    ("missing_file", ["/no/such/puzzle.txt"], "", 6, "no such file"),
    ("argument_beyond_input_limit", ["5x5t0:" + "y" * (formats.MAX_INPUT_BYTES + 1)], "", 6,
     "too large"),
    ("argument_with_nul", ["3x3t0\x00:i"], "", 6, ""),
    ("stdin_beyond_input_limit", ["-"], "." * (formats.MAX_INPUT_BYTES + 10), 6, "too large"),
    ("stdin_empty", ["-"], "", 6, "empty"),
    ("stdin_closed", ["-"], None, 6, "standard input is closed"),
    ("model_beyond_its_grid", ["-e", "model", "--mode", "paper", "{huge_for_model}"], "", 11,
     "up to 64x64"),
    ("board_max_checks_beyond_u32", ["-e", "board", "--mode", "paper", "--max-checks",
                                     "5000000000", "{tall}"], "", 2, "--max-checks 5000000000"),
    ("board_max_decisions_beyond_u32", ["-e", "board", "--max-decisions", "5000000000",
                                        "{tall}"], "", 2, "--max-decisions 5000000000"),
    ("unknown_mode", ["--mode", "fast", "{tall}"], "", 2, "invalid choice: 'fast'"),
    ("mode_without_value", ["--mode"], "", 2, "expected one argument"),
    ("mode_for_sat", ["-e", "sat", "--mode", "deduce", "{tall}"], "", 2,
     "--mode applies to the model and board engines"),
    ("max_checks_in_deduce_mode", ["-e", "model", "--max-checks", "3", "{tall}"], "", 2,
     "--max-decisions"),
    ("negative_retries", ["-e", "board", "--retries", "-1", "{tall}"], "", 2, "--retries"),
    ("zero_timeout", ["-e", "board", "--timeout", "0", "{tall}"], "", 2, "--timeout"),
    ("port_for_the_model", ["-e", "model", "--port", "/dev/ttyUSB1", "{tall}"], "", 2,
     "--port"),
]


@pytest.mark.parametrize("argv, stdin, code, message",
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_malformed_input(monkeypatch, files, argv, stdin, code, message):
    monkeypatch.setattr(formats, "INPUT_WAIT", 0.3)  # the FIFO case: do not wait 10 s
    args = []
    for arg in argv:
        if arg.startswith("{") and arg.endswith("}"):
            arg = str(files(arg[1:-1]))
        args.append(arg)
    if "-e" not in args:
        args = ["-e", "model"] + args
    if stdin is None:  # a closed standard input: Python sets sys.stdin to None
        monkeypatch.setattr(sys, "stdin", None)
        out, err = io.StringIO(), io.StringIO()
        got = main(args, stdout=out, stderr=err)
        err = err.getvalue()
    else:
        got, _, err = run_main(args, stdin)
    one_line(err)
    assert got == code, err
    assert message in err


def test_unreadable_directory(monkeypatch, tmp_path):
    """A directory that cannot be listed (as root, chmod cannot make one: simulated)."""
    (tmp_path / "a.txt").write_text("3.\n..\n")
    real = os.scandir

    def scandir(path):
        if pathlib.Path(path) == tmp_path:
            raise PermissionError(13, "Permission denied")
        return real(path)
    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run_main(["-e", "model", tmp_path])
    assert code == ExitCode.INPUT
    assert "cannot read the directory: Permission denied" in one_line(err)


def test_a_directory_with_bad_files_goes_on_with_the_good_ones(tmp_path):
    good = (PUZZLES / "janko_0002.txt").read_text()
    (tmp_path / "1_good.txt").write_text(good)
    (tmp_path / "2_bad.txt").write_text("3.5\n")
    (tmp_path / "3_huge.txt").write_text("." * TOO_MANY + "\n")
    (tmp_path / "4_binary.txt").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "5_good.txt").write_text(good)
    os.mkfifo(tmp_path / "6_fifo.txt")  # not a regular file: not listed
    code, out, err = run_main(["-e", "model", "-u", tmp_path])
    assert code == ExitCode.INPUT
    assert "Traceback" not in err
    bad = err.splitlines()
    assert len(bad) == 3
    assert "2_bad.txt" in bad[0] and "3_huge.txt" in bad[1] and "4_binary.txt" in bad[2]
    assert out.count("engine model: solved, unique") == 2
    assert "summary: 5 puzzles: 2 solved, unique, 3 unreadable" in out


@pytest.mark.parametrize("args, shell_redirect, code, message", [
    (["1" * 5000 + "x3t0:aaa"], "", 6, "5000 digits"),
    (["https://puzz.link/p?slither/\u00b2/2/g"], "", 6, "not a whole number"),
    (["-"], "0<&-", 6, "standard input is closed"),
    (["/dev/zero"], "", 6, "too large"),
    (["-e", "board", "--mode", "paper", "--max-checks", "5000000000", "-"], "", 2,
     "--max-checks"),
    (["-e", "board", "--mode", "fast", "-"], "", 2, "invalid choice: 'fast'"),
    (["-e", "cpsat", "--mode", "paper", "-"], "", 2, "--mode applies"),
])
def test_script_gives_one_line(args, shell_redirect, code, message):
    """host/solve.py in a subprocess (standard input closed with the shell's 0<&-)."""
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in args)
    command = f"exec '{PYTHON}' '{SOLVE}' -e model {quoted} {shell_redirect}"
    if "-e" in args:
        command = f"exec '{PYTHON}' '{SOLVE}' {quoted} {shell_redirect}"
    run = subprocess.run(["sh", "-c", command], capture_output=True, text=True,
                         timeout=HANG_SECONDS, stdin=subprocess.DEVNULL)
    assert run.returncode == code, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and message in run.stderr
