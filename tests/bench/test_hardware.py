"""The hardware benchmark's runner (bench/hardware.py), the mode a parameter.

The smoke tests run the whole benchmark -- virtual board (the shared, cached default
build of sim/vboard), golden models, a software peer, summary, files -- on a few tiny
puzzles, in paper mode and in both modes at once, and check that the files agree with
each other and with the golden models, and that the results read again give the same
summary (and catch a counter changed in them).  The others check the command line, the
sample, the docs' blocks and the pool of boards without a board.
"""

import csv
import json
import statistics

import pytest

from slitherlink.bench import hardware as H
from slitherlink.boards import evidence
from slitherlink.bench.modes import DEDUCE, PAPER
from slitherlink.bench.summary import count
from slitherlink.host import protocol as P
from slitherlink.host.engines import DEFAULT_MODE
from slitherlink.model.band import band_solve
from slitherlink.model.paper import search
from slitherlink.spec.target import ULX3S
from tests.conftest import PUZZLES, load

TINY = ("janko_0002", "janko_0011")  # a 4x4 and a 5x5, a few hundred checks each
#: 4x4, 5x5 and 10x10 solved without a decision; a blank 5x5 (several solutions: 25
#: decisions and a backtrack before the second solution)
DEDUCE_TINY = {"janko_0002": "SOLVED_UNIQUE", "janko_0011": "SOLVED_UNIQUE",
               "janko_1165": "SOLVED_UNIQUE", "edge_5x5_noclues": "MULTIPLE"}


def _rows(path, mode):
    with open(path, newline="") as f:
        return {row["name"]: row for row in csv.DictReader(f) if row["mode"] == mode}


def test_the_defaults_come_from_the_default_target_and_the_registry():
    args = H.parse_args([])
    assert args.mode == DEFAULT_MODE.name.lower() == "deduce"
    assert args.classes[0] == (H.DEFAULT_TARGET.max_rows, H.DEFAULT_TARGET.max_cols)
    assert args.max_cells == H.DEFAULT_TARGET.max_rows * H.DEFAULT_TARGET.max_cols
    assert (args.band, args.label_network, args.sim_baud) == \
        (H.DEFAULT_TARGET.band, H.DEFAULT_TARGET.label_network, None)
    assert args.bounds == {"deduce": DEDUCE.default_bound, "paper": PAPER.default_bound}
    assert args.engines == ["sat"] and args.bauds[0] == H.DEFAULT_TARGET.baud
    paper = H.parse_args(["--mode", "paper", "--max-checks", "5"])
    assert paper.engines == list(H.DEFAULT_ENGINES) and "board" not in paper.engines
    assert paper.bounds["paper"] == 5
    assert H.parse_args(["--no-peers"]).engines == []


def test_usage_errors_are_one_line(capsys):
    for argv, words in ((["--sizes", "10by10"], "bad size"),
                        (["--names", "no_such_puzzle"], "no puzzle named"),
                        (["--engines", "nope"], "unknown engine"),
                        (["--engines", ""], "use --no-peers"),
                        (["--no-peers", "--engines", "sat"], "contradict"),
                        (["--max-checks", "0"], "--max-checks"),
                        (["--per-class", "many"], "--per-class"),
                        (["--mode", "fast"], "--mode"),
                        (["--grid", "14x24"], "unrecognized arguments"),
                        (["--classes", "10by10"], "bad class"),
                        (["--max-decisions", "0"], "--max-decisions"),
                        (["--mode", "both", "--fmax", "0"], "--fmax"),
                        (["--fmax", "10x10=fast"], "bad clock"),
                        (["--band", "0"], "--band"),
                        (["--update-docs", "Big Section"], "bad section"),
                        (["--from-json", "/nonexistent.json"], "cannot read the results"),
                        (["--names", "loopy_60x60_hard_02", "--classes", "10x10"],
                         "fit no build")):
        assert H.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, (argv, err)


def test_per_source_sample_spreads_over_sources():
    rows = H.read_manifest(PUZZLES)
    args = H.parse_args(["--sizes", "10x10", "--per-class", "12", "--per-source", "3"])
    sample = H.select(rows, args)
    assert len(sample) == 12 and {r["size"] for r in sample} == {"10x10"}
    by_source = {}
    for row in sample:
        by_source[row["source"]] = by_source.get(row["source"], 0) + 1
    assert max(by_source.values()) <= 3 and len(by_source) >= 4
    assert H.select(rows, args) == sample  # seeded: the same sample again


def test_update_docs_fills_only_its_section(tmp_path):
    """The block between its two lines is replaced, its first line naming the module that
    wrote it now (whichever wrote it before)."""
    doc = tmp_path / "benchmark.md"
    before = H.DOC_BEGIN.format(section="larger", writer="slitherlink.bench.earlier")
    end = H.DOC_END.format(section="larger")
    doc.write_text(f"# title\n\n{before}\nold\n{end}\n\nafter\n")
    png = tmp_path / "plot.png"
    png.write_bytes(b"\x89PNG fake")
    H.update_docs("| new | table |\n", png, lambda _: None, "larger", doc=doc,
                  writer="slitherlink.bench.stream")
    text = doc.read_text()
    begin = H.DOC_BEGIN.format(section="larger", writer="slitherlink.bench.stream")
    assert "python -m slitherlink.bench.stream --update-docs" in begin
    assert text.startswith("# title\n\n" + begin) and text.endswith(end + "\n\nafter\n")
    assert "old" not in text and "| new | table |" in text
    assert "(benchmark-larger.png)" in text
    assert (tmp_path / "benchmark-larger.png").read_bytes() == png.read_bytes()
    with pytest.raises(H.UsageError, match="no section 'paper'"):
        H.update_docs("x", None, lambda _: None, "paper", doc=doc)


def test_the_board_pool_starts_afresh_after_a_failed_board_and_keeps_every_failure():
    """run_pool with stand-in boards: a CRASH record closes its board and the next solve
    gets a new one; a board that cannot be made ends its thread with the error among the
    failures (what it had not solved is missing, which the runner reports)."""
    from slitherlink.host.device import NoAnswer

    made, closed = [], []

    class Worker:
        def __init__(self):
            self.number = len(made)
            made.append(self)

        def close(self):
            closed.append(self.number)

    def solve(worker, task):  # one or two solves per task, like --mode both
        for kind in ("deduce", "paper") if task % 2 else ("deduce",):
            yield kind, {"task": task, "kind": kind, "board": worker().number,
                         "status": "CRASH" if (task, kind) == (3, "deduce") else "SOLVED"}

    taken = []
    failures = H.run_pool([1, 2, 3, 4], 1, Worker, solve,
                          lambda kind, rec: taken.append((kind, rec)))
    assert failures == []
    assert [(r["task"], kind, r["board"]) for kind, r in taken] == [
        (1, "deduce", 0), (1, "paper", 0), (2, "deduce", 0), (3, "deduce", 0),
        (3, "paper", 1), (4, "deduce", 1)]  # the failed board 0 is replaced by board 1
    assert sorted(closed) == [0, 1]         # every board is closed, once

    made.clear(), closed.clear()

    def flaky():  # the board that replaces the failed one cannot be made
        if made:
            raise NoAnswer("no answer from the virtual board (planted)")
        return Worker()

    taken.clear()
    failures = H.run_pool([1, 2, 3, 4], 1, flaky, solve,
                          lambda kind, rec: taken.append((kind, rec)))
    assert failures == ["no answer from the virtual board (planted)"]
    assert [(r["task"], kind, r["status"]) for kind, r in taken] == [
        (1, "deduce", "SOLVED"), (1, "paper", "SOLVED"), (2, "deduce", "SOLVED"),
        (3, "deduce", "CRASH")]  # the rest is missing: the runner reports it
    assert closed == [0]


def test_a_class_that_cannot_be_built_is_reported(tmp_path, monkeypatch, capsys):
    from slitherlink.sim import vboard

    def fail(*args, **kwargs):
        raise vboard.BuildError("out of memory (planted)")
    monkeypatch.setattr(vboard, "build_design", fail)
    assert H.main(["--names", "janko_0002", "--no-peers", "--out", str(tmp_path),
                   "--quiet"]) == 1
    assert "could not be built" in capsys.readouterr().err


def test_smoke_paper_mode(tmp_path, capsys):
    """Two tiny puzzles in paper mode on the default virtual board, with a bound that stops
    the first (292 checks to prove it unique) after it found its solution: a time-out, with
    the same counters and status (SOLVED) as the golden model's; the second (220 checks)
    ends."""
    out = tmp_path / "bench"
    bound = 250
    status = H.main(["--mode", "paper", "--names", ",".join(TINY), "--engines", "model",
                     "--jobs", "1", "--max-checks", str(bound), "--out", str(out), "--quiet"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    rows = _rows(out / "hardware-latest.csv", "paper")
    data = json.loads((out / "hardware-latest.json").read_text())
    markdown = (out / "hardware-latest.md").read_text()
    assert (out / "hardware-latest.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert set(rows) == set(TINY) and data["modes"] == ["paper"]

    expected = {"janko_0002": ("SOLVED", "timeout"), "janko_0011": ("SOLVED_UNIQUE", "ok")}
    for name in TINY:
        row = rows[name]
        puzzle, _ = load(name)
        model = search(puzzle, max_solutions=2, max_checks=bound)
        # the board's counters are the golden model's, exactly, also when stopped
        for key in PAPER.counters:
            assert int(row[key]) == model.counters.as_dict()[key], (name, key)
        assert model.limit_reached == (name == "janko_0002")
        assert (row["status"], row["verdict"]) == expected[name]
        assert row["golden_match"] == "True" and row["golden_status"] == row["status"]
        checks, cycles = model.counters.checks, int(row["cycles"])
        assert cycles > checks * 10  # every check costs cycles
        assert row["class"] == "10x10" and int(row["clock_hz"]) == H.DEFAULT_TARGET.clock_hz
        assert float(row["seconds_at_50mhz"]) == pytest.approx(cycles / 50e6)
        assert float(row["cycles_per_check"]) == pytest.approx(cycles / checks, abs=0.01)
        solve, reply = PAPER.frame_bytes(puzzle, row["status"], bound)
        assert (int(row["solve_frame_bytes"]), int(row["reply_frame_bytes"])) == (solve, reply)
        for baud in H.DEFAULT_BAUDS:
            assert float(row[f"e2e_{baud}"]) == pytest.approx(
                10 * (solve + reply) / baud + cycles / int(row["clock_hz"]))
        assert row["model_verdict"] in ("ok", "timeout") and float(row["model_seconds"]) >= 0

    # the summary (a row per puzzle size in paper mode) says what the rows say
    summary = data["summary"]["paper"]
    assert list(summary) == ["4x4", "5x5"]
    for size, entry in summary.items():
        (name,) = [n for n in TINY if rows[n]["size"] == size]
        cycles, timeout = int(rows[name]["cycles"]), rows[name]["verdict"] == "timeout"
        assert entry["cycles"]["median"] == entry["cycles"]["max"] == cycles
        assert entry["checks_max"] == int(rows[name]["checks"])
        assert (entry["ok"], entry["limits"], entry["wrong"], entry["golden_match"]) == \
            (int(not timeout), int(timeout), 0, 1)
        ge = "≥ " if timeout else ""
        assert f"| {size} | 1 | 0 | {int(timeout)} | 1/1 | {ge}{cycles:,} | {ge}{cycles:,} |" \
            in markdown
        assert entry["peers"]["model"]["n"] == 1
    assert "wrong answers: 0" in printed

    # re-rendering from the JSON (comparing with the model again) gives the same summary
    again = tmp_path / "again"
    assert H.main(["--from-json", str(out / "hardware-latest.json"), "--out", str(again),
                   "--no-plot"]) == 0
    assert (again / "hardware-latest.md").read_text() == markdown


def test_smoke_both_modes_on_the_virtual_board(tmp_path, capsys):
    """Four tiny puzzles in deduce mode on the default build and, on the same boards, the
    paper's search where its golden model ends within the bound, beside the sat peer: every
    counter is the golden model's (decisions and backtracks too), the files agree with each
    other, the results read again at an Fmax give times at that clock too, and a counter
    changed in the results is caught when they are read again."""
    out = tmp_path / "bench"
    status = H.main(["--mode", "both", "--names", ",".join(DEDUCE_TINY), "--engines", "sat",
                     "--jobs", "1", "--max-decisions", "50", "--max-checks", "250",
                     "--out", str(out), "--quiet", "--no-plot"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    rows = _rows(out / "hardware-latest.csv", "deduce")
    papers = _rows(out / "hardware-latest.csv", "paper")
    data = json.loads((out / "hardware-latest.json").read_text())
    assert set(rows) == set(DEDUCE_TINY) and data["modes"] == ["deduce", "paper"]
    assert data["classes"]["10x10"]["target"] == H.DEFAULT_TARGET.name
    for name in DEDUCE_TINY:
        row = rows[name]
        puzzle, _ = load(name)
        model = band_solve(puzzle, max_solutions=2, max_decisions=50)
        counters = model.counters()
        for key in DEDUCE.counters:   # the board's counters are the golden model's, exactly
            assert int(row[key]) == counters[key], (name, key)
        assert (row["status"], row["verdict"], row["golden_match"]) == \
            (DEDUCE_TINY[name], "ok", "True")
        assert row["class"] == "10x10" and int(row["model_cycles"]) == model.cycles(1)
        cycles, clocks = int(row["cycles"]), int(row["engine_clocks"])
        assert 0 < clocks < cycles
        assert float(row["seconds_at_50mhz"]) == pytest.approx(cycles / 50e6)
        solve = len(P.encode_solve(puzzle, unique=True, max_checks=50, mode="deduce"))
        reply = P.OVERHEAD + P.DEDUCE_RESULT_HEADER + (puzzle.rows * puzzle.cols + 7) // 8
        assert counters["decisions"] == (25 if name == "edge_5x5_noclues" else 0)
        assert (int(row["solve_frame_bytes"]), int(row["reply_frame_bytes"])) == (solve, reply)
        assert float(row["uart_3000000"]) == pytest.approx(10 * (solve + reply) / 3e6)
        assert float(row["e2e_115200"]) == pytest.approx(
            10 * (solve + reply) / 115_200 + cycles / int(row["clock_hz"]))
        assert row["sat_verdict"] == "ok"
        # the paper's search beside it, where its golden model ends within 250 checks
        paper = search(puzzle, max_solutions=2, max_checks=250)
        assert (name in papers) == (not paper.limit_reached), name
        if name in papers:
            assert {k: int(papers[name][k]) for k in PAPER.counters} == \
                paper.counters.as_dict()
            assert papers[name]["golden_match"] == "True"
            assert papers[name]["sat_seconds"] == row["sat_seconds"]   # one peer run
    assert data["paper_over_bound"] == ["janko_0002"]
    # the summary says what the rows say
    (entry,) = data["summary"]["deduce"].values()
    cycles = [int(r["cycles"]) for r in rows.values()]
    median = statistics.median(cycles)
    sat = statistics.median(float(r["sat_seconds"]) for r in rows.values())
    assert entry["n"] == 4 and entry["golden_match"] == 4 and entry["wrong"] == 0
    assert entry["cycles"]["median"] == median and entry["cycles"]["max"] == max(cycles)
    assert entry["decisions_max"] == 25
    assert entry["speedup_50mhz"] == pytest.approx(sat / (median / 50e6))
    markdown = (out / "hardware-latest.md").read_text()
    assert f"| 10x10 | 4x4 (1), 5x5 (2), 10x10 (1) | 4 | 0 | 0 | 4/4 | {count(median)} | " \
           f"{max(cycles):,} |" in markdown
    assert f"| 10x10 | {len(papers)} | 1 | 0 | {len(papers)}/{len(papers)} |" in markdown
    assert "10x10 median at most 1,000 cycles" in markdown and "wrong answers: 0" in printed
    # by default each class is timed at its build's ECP5 Fmax in the evidence
    fmax = evidence.find(H.DEFAULT_TARGET, evidence.load())[ULX3S.name]["fmax_mhz"]
    assert data["fmax_mhz"] == {"10x10": fmax}
    assert entry["seconds_at_fmax"]["median"] == pytest.approx(median / (fmax * 1e6))
    assert "| ECP5 Fmax | median at Fmax |" in markdown and "The clock's goals" in markdown

    # read again with an Fmax: the same rows, times at that clock too
    again = tmp_path / "again"
    assert H.main(["--from-json", str(out / "hardware-latest.json"), "--fmax", "25",
                   "--out", str(again), "--no-plot"]) == 0
    text = (again / "hardware-latest.md").read_text()
    assert "median at 25 MHz" in text and "at 25 MHz (Fmax)" in text

    def head(md):   # the deduce hardware table's: the build's Fmax a column of its own
        return next(line for line in md.splitlines() if line.startswith("| class (build) | s"))
    assert head(text).count("|") == head(markdown).count("|") - 1
    # read again at the evidence: the Fmax of the run's own builds (its core, band and
    # label network), not of this command's defaults
    data["core"], data["label_network"] = "soc-deduce", "fast"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    assert H.main(["--from-json", str(other), "--fmax", "evidence", "--out",
                   str(tmp_path / "other"), "--no-plot"]) == 0
    deduce_only = evidence.find(H.DEFAULT_TARGET.replace(paper=False, label_network="fast"),
                                evidence.load())[ULX3S.name]["fmax_mhz"]
    assert deduce_only != fmax
    again = json.loads((tmp_path / "other" / "hardware-latest.json").read_text())
    assert again["fmax_mhz"] == {"10x10": deduce_only}
    # a counter that differs from the golden model's is caught (exit status 1)
    data["records"]["deduce"][0]["sweeps"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert H.main(["--from-json", str(bad), "--out", str(tmp_path / "bad"), "--no-plot"]) == 1
    flagged = [r for r in _rows(tmp_path / "bad" / "hardware-latest.csv", "deduce").values()
               if r["golden_match"] == "False"]
    assert [r["name"] for r in flagged] == [data["records"]["deduce"][0]["name"]]
    assert "counters differ from the golden model's: sweeps" in flagged[0]["note"]
