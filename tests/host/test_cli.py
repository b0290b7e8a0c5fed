"""The command line host/solve.py (host/cli.py).

A few runs go through a real subprocess, as a user would type them (the script
from the repository root, with the venv's Python and with another Python); the
rest call :func:`host.cli.main` in-process, which is fast.  Every test names the
engine (``--engine model``): the default engine is the board once it exists.  A test
that looks at the paper's counters (checks) or bounds (``--max-checks``) names the mode
too (``--mode paper``): the default mode is deduce.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from slitherlink.host import cli
from slitherlink.host.check import check
from slitherlink.host.cli import EXIT_CODES, ExitCode, exit_code_for, main
from slitherlink.host.formats import format_loopy, format_puzzlink, load_puzzle
from slitherlink.host.puzzle import parse_colouring, parse_plain
from slitherlink.host.result import Result, Status
from tests.conftest import HANG_SECONDS, PUZZLES, REPO

SOLVE = REPO / "host" / "solve.py"
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
PYTHON = str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable
EXAMPLE = REPO / "examples" / "loopy_7x7.txt"


def run_script(*args, python=PYTHON, stdin=None):
    """host/solve.py in a subprocess, from the repository root."""
    command = [python, str(SOLVE)] if python else [str(SOLVE)]
    return subprocess.run(command + [str(a) for a in args], cwd=REPO, capture_output=True,
                          text=True, input=stdin, timeout=HANG_SECONDS)


def run_main(*args, stdin=None):
    """main() in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], stdin=io.StringIO(stdin or ""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def colouring_from_text(output):
    """The '#'/'.' colouring printed right of an ASCII drawing."""
    rows = re.findall(r"^[ |0-3]*[ |]\s{3}([#.]+)$", output, re.MULTILINE)
    return parse_colouring("\n".join(rows))


# --- as a user runs it ------------------------------------------------------------------

def test_script_on_the_bundled_example():
    proc = run_script("--engine", "model", "--mode", "paper", "--unique", EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    assert "loopy_7x7: 7x7, engine model: solved, unique" in proc.stdout
    assert "counters: checks " in proc.stdout and "time: " in proc.stdout
    assert "\nmode: paper (the paper's search)\n" in proc.stdout
    puzzle = load_puzzle(EXAMPLE)
    assert check(puzzle, colouring_from_text(proc.stdout)).ok
    assert proc.stderr == ""


@pytest.mark.skipif(not os.access(SOLVE, os.X_OK), reason="host/solve.py is not executable")
def test_script_runs_directly_and_with_another_python():
    """./host/solve.py (shebang) and a Python outside the venv: both re-exec into the venv."""
    game_id = "3x3t0:3g2"
    direct = run_script("-e", "model", "--format", "json", game_id, python=None)
    assert direct.returncode == 0, direct.stderr
    other = shutil.which("python3") or sys.executable
    again = run_script("-e", "model", "--format", "json", game_id, python=other)
    assert again.returncode == 0, again.stderr
    assert json.loads(direct.stdout)["solution"] == json.loads(again.stdout)["solution"]


def test_script_on_a_loopy_id():
    game_id = re.search(r"# game id: (\S+)", EXAMPLE.read_text()).group(1)
    proc = run_script("-e", "model", "-u", "--format", "unicode", game_id)
    assert proc.returncode == 0, proc.stderr
    assert "7x7, engine model: solved, unique" in proc.stdout
    assert "┌" in proc.stdout and "┘" in proc.stdout


def test_script_on_a_puzzlink_url_prints_the_corpus_solution():
    text = (PUZZLES / "pzpr_ctc_seshadri.txt").read_text()
    url = re.search(r"# source: (\S+)", text).group(1)
    assert url.startswith("http://pzv.jp/p.html?slither/10/10/")
    expected = parse_colouring((PUZZLES / "pzpr_ctc_seshadri.sol").read_text())
    proc = run_script("-e", "model", "--unique", url)
    assert proc.returncode == 0, proc.stderr
    assert "10x10, engine model: solved, unique" in proc.stdout
    assert colouring_from_text(proc.stdout) == expected


def test_script_on_a_malformed_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# a puzzle\n3..\n.5.\n")
    proc = run_script("-e", "model", bad)
    assert proc.returncode == ExitCode.INPUT == 6
    assert proc.stderr.strip() == (f"host/solve.py: {bad}, line 3, column 2: "
                                   f"clue 5 is out of range (clues are 0 to 3)")
    assert "Traceback" not in proc.stderr + proc.stdout


def test_script_on_unsat_and_ambiguous_puzzles():
    unsat = run_script("-e", "model", PUZZLES / "edge_2x4_global_unsat.txt")
    assert unsat.returncode == ExitCode.NO_SOLUTION == 4
    assert "engine model: no solution" in unsat.stdout
    two = run_script("-e", "model", "--unique", PUZZLES / "edge_1x3_two_solutions.txt")
    assert two.returncode == ExitCode.MULTIPLE == 3
    assert "several solutions" in two.stdout
    assert "solution 2 of at least 2:" in two.stdout
    # without --unique a solution is a success
    one = run_script("-e", "model", PUZZLES / "edge_1x3_two_solutions.txt")
    assert one.returncode == 0 and "solved (uniqueness not checked)" in one.stdout


def test_script_usage_errors_are_one_line():
    proc = run_script("-e", "model", "--format", "pdf", EXAMPLE)
    assert proc.returncode == ExitCode.USAGE == 2
    assert proc.stderr.count("\n") == 1 and "invalid choice: 'pdf'" in proc.stderr
    proc = run_script("-e", "model", "no/such/file.txt")
    assert proc.returncode == ExitCode.INPUT
    assert proc.stderr.strip() == ("host/solve.py: no/such/file.txt: no such file or "
                                   "directory, and not a Loopy game id or puzz.link URL")


# --- in-process ---------------------------------------------------------------------------

def test_exit_code_table_is_complete_and_documented():
    assert [int(c) for c in ExitCode] == list(range(12)) + [130]
    assert set(EXIT_CODES) == set(ExitCode)
    help_text = cli.build_parser().format_help()
    for code, text in EXIT_CODES.items():
        assert f"{int(code):2}  {text}" in help_text


def test_status_to_exit_code():
    assert exit_code_for(Status.SOLVED_UNIQUE, unique=True) == ExitCode.OK
    assert exit_code_for(Status.SOLVED, unique=False) == ExitCode.OK
    assert exit_code_for(Status.SOLVED, unique=True) == ExitCode.LIMIT
    assert exit_code_for(Status.MULTIPLE, unique=True) == ExitCode.MULTIPLE
    assert exit_code_for(Status.MULTIPLE, unique=False) == ExitCode.OK
    assert exit_code_for(Status.NO_SOLUTION, unique=False) == ExitCode.NO_SOLUTION
    assert exit_code_for(Status.LIMIT, unique=False) == ExitCode.LIMIT
    assert exit_code_for(Status.ERROR, unique=False) == ExitCode.ENGINE


def test_several_puzzles_worst_code_and_summary(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("3x\n")
    code, out, err = run_main("-e", "model", "--unique", EXAMPLE,
                              PUZZLES / "edge_1x3_two_solutions.txt", bad,
                              PUZZLES / "edge_2x4_global_unsat.txt")
    assert code == ExitCode.INPUT  # the largest of 0, 3, 6, 4
    assert "line 1, column 2: unexpected character 'x'" in err
    assert out.strip().splitlines()[-1].startswith(
        "summary: 4 puzzles: 1 solved, unique, 1 several solutions, 1 unreadable, "
        "1 no solution;")
    assert out.strip().endswith("exit 6 (input)")


def test_stdin_and_directories(tmp_path):
    (tmp_path / "a.txt").write_text("0\n")  # no solution: no cell can be inside
    (tmp_path / "b.txt").write_text(".\n")
    code, out, _ = run_main("-e", "model", tmp_path, "-", stdin=format_loopy(parse_plain("3.\n.3\n")))
    assert code == ExitCode.NO_SOLUTION
    names = re.findall(r"^(\S+): \dx\d, engine model: (.*)$", out, re.MULTILINE)
    assert names == [("a", "no solution"), ("b", "solved (uniqueness not checked)"),
                     ("stdin#1", "solved (uniqueness not checked)")]
    assert run_main("-e", "model", "-", "-")[0] == ExitCode.USAGE


def test_json_output(tmp_path):
    url = format_puzzlink(load_puzzle(EXAMPLE))
    code, out, _ = run_main("-e", "model", "--mode", "paper", "-u", "-f", "json", EXAMPLE, url,
                            tmp_path / "x.txt")
    assert code == ExitCode.INPUT
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["status"] for r in records] == ["solved_unique", "solved_unique", "input_error"]
    first = records[0]
    assert first["puzzle"] == "loopy_7x7" and first["size"] == "7x7"
    assert first["engine"] == "model" and first["exit_code"] == 0
    assert first["counters"]["checks"] > 0 and first["wall_seconds"] >= first["engine_seconds"]
    assert check(load_puzzle(EXAMPLE), parse_colouring("\n".join(first["solution"]))).ok
    assert records[1]["solution"] == first["solution"]
    assert records[2]["exit_code"] == ExitCode.INPUT


def test_svg_output_to_file_and_directory(tmp_path):
    code, out, _ = run_main("-e", "model", "-f", "svg", "-o", tmp_path / "one.svg", EXAMPLE)
    assert code == 0
    assert (tmp_path / "one.svg").read_text().startswith("<?xml")
    assert out.startswith("loopy_7x7: 7x7: solved")
    code, _, err = run_main("-e", "model", "-f", "svg", EXAMPLE, EXAMPLE)
    assert code == ExitCode.USAGE and "needs --output DIRECTORY" in err
    code, out, _ = run_main("-e", "model", "-f", "svg", "-o", tmp_path / "pics", EXAMPLE,
                            PUZZLES / "edge_2x4_global_unsat.txt")
    assert code == ExitCode.NO_SOLUTION
    assert sorted(p.name for p in (tmp_path / "pics").iterdir()) == [
        "edge_2x4_global_unsat.svg", "loopy_7x7.svg"]
    code, out, _ = run_main("-e", "model", "-f", "svg", EXAMPLE)
    assert code == 0 and out.startswith("<?xml") and out.rstrip().endswith("</svg>")


def test_limits_and_quiet():
    code, out, _ = run_main("-e", "model", "--mode", "paper", "--max-checks", "10", EXAMPLE)
    assert code == ExitCode.LIMIT and "limit reached" in out
    code, out, err = run_main("-e", "model", "-q", EXAMPLE)
    assert (code, out, err) == (0, "", "")
    code, _, err = run_main("-e", "model", "--mode", "paper", "--max-checks", "0", EXAMPLE)
    assert code == ExitCode.USAGE and "must be at least 1" in err


def test_board_options_are_refused_by_the_model():
    code, _, err = run_main("-e", "model", "--port", "/dev/ttyUSB1", EXAMPLE)
    assert code == ExitCode.USAGE
    assert err.strip() == "host/solve.py: --port is not an option of this engine ('model')"


def test_convert():
    code, out, _ = run_main("--convert", "loopy", EXAMPLE)
    assert code == 0
    assert out.strip() == re.search(r"# game id: (\S+)", EXAMPLE.read_text()).group(1)
    code, out, _ = run_main("--convert", "plain", out.strip())
    assert code == 0 and parse_plain(out) == parse_plain(EXAMPLE.read_text())
    code, out, _ = run_main("--convert", "puzzlink", EXAMPLE)
    assert load_puzzle(out.strip()).clues == load_puzzle(EXAMPLE).clues


def test_progress_lines_on_stderr():
    code, _, err = run_main("-e", "model", "--progress", EXAMPLE,
                            PUZZLES / "edge_2x4_global_unsat.txt")
    assert code == ExitCode.NO_SOLUTION
    lines = err.splitlines()
    assert lines[0].startswith("[1/2] loopy_7x7: 7x7: solved")
    assert lines[1].startswith("[2/2] edge_2x4_global_unsat: 2x4: no solution")


# --- engines behind the hook --------------------------------------------------------------

def _fake_engine(monkeypatch, solve, name="model"):
    """Register ``solve`` as engine ``name`` in host.engines.ENGINES (a module of its own),
    so the CLI reaches it the way it reaches every engine, rules check included."""
    import types

    from slitherlink.host import engines
    module = types.ModuleType("tests_fake_engine")
    module.solve = solve
    monkeypatch.setitem(sys.modules, "tests_fake_engine", module)
    monkeypatch.setitem(engines.ENGINES, name, ("tests_fake_engine", "a test double"))


def test_a_wrong_solution_is_never_printed(monkeypatch):
    def liar(puzzle, *, unique=False, time_limit=None):
        everything = tuple((True,) * puzzle.cols for _ in range(puzzle.rows))
        return Result("liar", Status.SOLVED, everything, [everything])
    _fake_engine(monkeypatch, liar)
    code, out, err = run_main("-e", "model", EXAMPLE)
    assert code == ExitCode.ENGINE
    assert "liar returned a wrong solution: clue" in err
    assert "#######\n" not in out and "+-+-+-+-+-+-+-+\n|" not in out


def test_a_solved_status_without_solution_is_an_engine_error(monkeypatch):
    _fake_engine(monkeypatch, lambda puzzle, *, unique=False: Result("empty", Status.SOLVED))
    code, _, err = run_main("-e", "model", EXAMPLE)
    assert code == ExitCode.ENGINE and "returned no solution" in err


@pytest.mark.parametrize("code", [ExitCode.PORT, ExitCode.TIMEOUT, ExitCode.GARBLED,
                                  ExitCode.TOO_LARGE])
def test_device_errors_carry_their_exit_code(monkeypatch, code):
    class DeviceTrouble(Exception):
        exit_code = code

    def board(puzzle, *, unique=False, port=None, baud=None, timeout=None):
        assert (port, baud, timeout) == ("/dev/ttyFAKE", 9600, 1.5)
        raise DeviceTrouble(f"trouble {int(code)}")
    _fake_engine(monkeypatch, board)
    got, out, err = run_main("-e", "model", "--port", "/dev/ttyFAKE", "--baud", "9600",
                             "--timeout", "1.5", EXAMPLE)
    assert got == code
    assert err.strip() == f"host/solve.py: loopy_7x7: trouble {int(code)}"
    assert "Traceback" not in err


def test_a_board_that_cannot_be_reached_is_said_once_and_the_rest_is_not_sent(tmp_path):
    """The board engine on a port that does not exist: the first puzzle's error, the next
    one's NotSent, then one line for all the others (the same), at once; every puzzle is
    in the records; the port's exit code."""
    for k in range(6):
        shutil.copy(EXAMPLE, tmp_path / f"p{k}.txt")
    port = str(tmp_path / "ttyNONE")
    got, out, err = run_main("-e", "board", "--port", port, "--format", "jsonl",
                             str(tmp_path))
    assert got == ExitCode.PORT
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"host/solve.py: p0: serial port {port} does not exist")
    assert lines[1] == ("host/solve.py: p1: not sent: no connection to the board (the first "
                        "puzzle that failed says why)")
    assert lines[2] == "host/solve.py: 4 puzzles, p2 to p5: the same"
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["puzzle"] for r in records] == [f"p{k}" for k in range(6)]
    assert {r["exit_code"] for r in records} == {int(ExitCode.PORT)}
    assert all(r["status"] == "error" for r in records)


def test_the_repeated_errors_stay_in_the_order_of_the_inputs(tmp_path):
    """An input that cannot be read among puzzles that are not sent: its line comes in its
    place, after the line that stands for the puzzles before it."""
    for k in range(5):
        shutil.copy(EXAMPLE, tmp_path / f"p{k}.txt")
    (tmp_path / "p2x.txt").write_text("not a puzzle\n")
    got, _, err = run_main("-e", "board", "--port", str(tmp_path / "ttyNONE"), str(tmp_path))
    assert got == ExitCode.PORT
    lines = [line.removeprefix("host/solve.py: ") for line in err.strip().splitlines()]
    assert lines[0].startswith("p0: serial port")
    assert lines[1].startswith("p1: not sent:")
    assert lines[2] == "p2: the same"
    assert lines[3].startswith(f"{tmp_path / 'p2x.txt'}, line 1")
    assert lines[4].startswith("p3: not sent:")
    assert lines[5:] == ["p4: the same"]


def test_a_bug_in_an_engine_is_not_hidden(monkeypatch):
    def broken(puzzle, *, unique=False):
        raise ZeroDivisionError("a bug")
    _fake_engine(monkeypatch, broken)
    with pytest.raises(ZeroDivisionError):
        run_main("-e", "model", EXAMPLE)


def test_board_is_the_default_engine_when_it_exists(monkeypatch):
    from slitherlink.host import engines
    assert engines.ENGINES["board"][0] == "slitherlink.host.engines.board"  # like any other
    monkeypatch.setattr(cli, "engine_available", lambda name: True)
    assert cli.default_engine() == "board"
    monkeypatch.setattr(cli, "engine_available", lambda name: name != "board")
    assert cli.default_engine() == "model"
    assert "board" in cli.engine_names()


def test_a_missing_engine_package_is_one_clear_error(monkeypatch):
    from slitherlink.host import engines
    monkeypatch.setitem(engines.ENGINES, "board", ("slitherlink.host.no_such_board_module", "gone"))
    code, _, err = run_main("-e", "board", EXAMPLE)
    assert code == ExitCode.ENGINE
    assert err.count("\n") == 1 and "needs the Python package" in err


def test_every_answer_is_checked_once(monkeypatch):
    """The rules checker runs once per answer, in host.engines.checked, whatever the engine."""
    from slitherlink.host import engines
    calls = []
    real = engines.check
    monkeypatch.setattr(engines, "check", lambda *a: calls.append(a) or real(*a))
    assert run_main("-e", "model", EXAMPLE)[0] == 0
    assert len(calls) == 1


def test_through_the_board_engine_on_a_fake_device():
    """--engine board --port: the board engine (host/engines/board.py) talking to the pure-Python
    fake device (host/fakedevice.py) on a pseudo-terminal; its exit codes come through."""
    from slitherlink.host.fakedevice import FakeDevice
    device = FakeDevice(max_rows=10, max_cols=10, timeout=1.0)
    path, stop = device.serve_pty()
    try:
        code, out, err = run_main("-e", "board", "--port", path, "-u", "-f", "json", EXAMPLE)
        assert code == 0, err
        record = json.loads(out)
        assert record["engine"] == "board" and record["status"] == "solved_unique"
        assert check(load_puzzle(EXAMPLE), parse_colouring("\n".join(record["solution"]))).ok
        big = PUZZLES / "loopy_15x15_easy_02.txt"
        code, out, err = run_main("-e", "board", "--port", path, big)
        assert code == ExitCode.TOO_LARGE
        assert err.startswith("host/solve.py: loopy_15x15_easy_02: ") and err.count("\n") == 1
    finally:
        stop()


def test_a_file_of_several_ids_and_unicode_output():
    code, out, _ = run_main("-e", "model", "-u", "-f", "unicode",
                            REPO / "examples" / "loopy_ids_4x6.txt")
    assert code == 0
    assert out.count(": 4x6, engine model: solved, unique") == 3
    assert out.rstrip().splitlines()[-1].startswith("summary: 3 puzzles: 3 solved, unique;")


# --- modes (--mode paper|deduce) ----------------------------------------------------------

def test_mode_chooses_the_golden_model():
    """--engine model is the deduction engine's model (the default mode) or, with --mode
    paper, the paper's search; --engine deduce is an alias of the first.  The JSON record
    names the mode and carries every counter of it (and the cycles of deduce mode)."""
    from slitherlink.model.band import band_solve
    from slitherlink.model.paper import search
    puzzle = load_puzzle(EXAMPLE)
    records = {}
    for mode in ([], ["--mode", "deduce"], ["--mode", "paper"]):
        code, out, err = run_main("-e", "model", *mode, "-u", "-f", "json", EXAMPLE)
        assert code == 0, err
        records[" ".join(mode)] = json.loads(out)
    model = band_solve(puzzle, max_solutions=2)   # the default build's: band 1
    expected = dict(model.counters(), cycles=model.cycles(1))
    for key in ("", "--mode deduce"):
        record = records[key]
        assert (record["engine"], record["mode"], record["status"]) == \
            ("model", "deduce", "solved_unique")
        assert record["counters"] == expected
    paper = records["--mode paper"]
    assert (paper["engine"], paper["mode"]) == ("model", "paper")
    assert paper["counters"] == search(puzzle, max_solutions=2).counters.as_dict()
    assert paper["solution"] == records[""]["solution"]
    code, out, _ = run_main("-e", "deduce", "-u", "-f", "json", EXAMPLE)
    alias = json.loads(out)
    assert (code, alias["engine"], alias["mode"], alias["counters"]) == \
        (0, "deduce", "deduce", expected)
    help_text = " ".join(cli.build_parser().format_help().split())
    assert "deduce alias of --engine model --mode deduce" in help_text
    assert "--mode {deduce,paper}" in help_text


def test_max_decisions_bounds_the_deduction_engine():
    name = PUZZLES / "janko_0103.txt"  # 3 decisions to solve it and prove it unique
    code, out, _ = run_main("-e", "model", "-u", "--max-decisions", "2", name)
    assert code == ExitCode.LIMIT and "limit reached" in out and "decisions 2," in out
    code, out, _ = run_main("-e", "model", "-u", "--max-decisions", "3", name)
    assert code == 0 and "decisions 3," in out


@pytest.mark.parametrize("args, message", [
    (["-e", "model", "--mode", "fast"], "argument --mode: invalid choice: 'fast' (choose from "
                                        "'deduce', 'paper')"),
    (["-e", "board", "--mode", "PAPER"], "argument --mode: invalid choice: 'PAPER'"),
    (["-e", "sat", "--mode", "paper"], "host/solve.py: --mode applies to the model and board "
                                       "engines, not to 'sat'"),
    (["-e", "z3", "--mode", "deduce"], "not to 'z3'"),
    (["-e", "ip", "--mode", "paper"], "not to 'ip'"),
    (["-e", "cpsat", "--mode", "deduce"], "not to 'cpsat'"),
    (["-e", "deduce", "--mode", "paper"], "host/solve.py: --engine deduce stands for --engine "
                                          "model --mode deduce: give --engine model --mode "
                                          "paper instead"),
    (["-e", "model", "--max-checks", "5"], "--max-checks bounds the paper's search (--mode "
                                           "paper); in deduce mode give --max-decisions"),
    (["-e", "board", "--max-checks", "5"], "in deduce mode give --max-decisions ('board')"),
    (["-e", "model", "--mode", "paper", "--max-decisions", "5"], "in paper mode give "
                                                                 "--max-checks ('model')"),
    (["-e", "sat", "--max-decisions", "5"], "--max-decisions is not an option of this engine "
                                            "('sat')"),
])
def test_mode_usage_errors_are_one_line(args, message):
    code, out, err = run_main(*args, EXAMPLE)
    assert code == ExitCode.USAGE
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert out == ""


def test_board_modes_on_fake_devices():
    """The board engine in both modes on the fake device: the JSON counters are the
    models'; on a build without the deduction engine the default falls back to paper
    mode with a note, an explicit --mode deduce is one line, exit 7, and a puzzle too
    large for the build is still exit 11."""
    from slitherlink.host import device as board
    from slitherlink.host.fakedevice import FakeDevice
    from slitherlink.host.protocol import COUNTERS, DEDUCE_COUNTERS, DEDUCE_RESULT_COUNTERS
    from slitherlink.model.band import band_solve
    from slitherlink.model.paper import search
    puzzle = load_puzzle(EXAMPLE)
    path, stop = FakeDevice().serve_pty()
    bare, stop_bare = FakeDevice(deduce=False).serve_pty()
    try:
        code, out, err = run_main("-e", "board", "--port", path, "-u", "-f", "json", EXAMPLE)
        assert code == 0, err
        record = json.loads(out)
        model = band_solve(puzzle, max_solutions=2)
        assert (record["engine"], record["mode"]) == ("board", "deduce")
        assert set(DEDUCE_RESULT_COUNTERS) | {"cycles", "seconds_at_50mhz"} <= \
            set(record["counters"])
        assert {k: record["counters"][k] for k in DEDUCE_COUNTERS} == model.counters()
        assert record["counters"]["cycles"] == model.cycles(1)

        code, out, err = run_main("-e", "board", "--mode", "paper", "--port", path, "-u", "-f",
                                  "json", EXAMPLE)
        assert code == 0, err
        record = json.loads(out)
        assert record["mode"] == "paper" and record["counters"]["cycles"] > 0
        assert {k: record["counters"][k] for k in COUNTERS if k != "cycles"} == \
            search(puzzle, max_solutions=2).counters.as_dict()

        # no --mode on a build without the engine: paper mode, with a note
        code, out, err = run_main("-e", "board", "--port", bare, "-f", "json", EXAMPLE)
        record = json.loads(out)
        assert (code, record["status"], record["mode"]) == (0, "solved", "paper"), err
        assert "paper mode: this build has no deduction engine" in record["message"]
        # --mode deduce asked for explicitly: one line, exit 7
        code, out, err = run_main("-e", "board", "--mode", "deduce", "--port", bare, EXAMPLE)
        assert code == ExitCode.ENGINE == 7
        assert err == (f"host/solve.py: loopy_7x7: this build has no deduction engine: use "
                       f"--mode paper, or rebuild the bitstream (make bitstream) with it; the "
                       f"board on {bare} reports no DEDUCE_OK in its VERSION\n")
        code, out, err = run_main("-e", "board", "--mode", "deduce", "--port", bare, "-f",
                                  "json", EXAMPLE)
        record = json.loads(out)
        assert (code, record["status"], record["mode"], record["exit_code"]) == \
            (7, "error", "deduce", 7)
        assert run_main("-e", "board", "--mode", "paper", "--port", bare, EXAMPLE)[0] == 0
        code, _, err = run_main("-e", "board", "--port", bare,
                                PUZZLES / "loopy_15x15_easy_02.txt")
        assert code == ExitCode.TOO_LARGE and err.count("\n") == 1
        board.close_all()
        # as a user runs it: no traceback
        proc = run_script("--mode", "deduce", "--port", bare, EXAMPLE)
        assert proc.returncode == 7
        assert proc.stderr.count("\n") == 1 and "no deduction engine" in proc.stderr
    finally:
        board.close_all()
        stop()
        stop_bare()
