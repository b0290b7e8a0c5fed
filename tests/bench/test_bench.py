"""The benchmark (bench/board.py, bench/board_deduce.py, bench/paper.py, bench/plot.py).

The smoke test runs the whole benchmark -- virtual board (the shared, cached
build of sim/vboard), golden model, one software peer, summary, plot -- on
two tiny puzzles and checks that its files agree with each other and with
the golden model; its deduce-mode twin does the same with three puzzles on the
same build.  The other tests check the paper's figures as typed, the
end-to-end formula, and deduce mode's classes, summary and goals.
"""

import csv
import json
import statistics

import pytest

from slitherlink.bench import board as B
from slitherlink.bench import board_deduce as D
from slitherlink.bench import paper
from slitherlink.host import protocol as P
from slitherlink.host.puzzle import Puzzle
from slitherlink.model.band import band_solve
from slitherlink.model.paper import search
from slitherlink.spec.protocol import DEDUCE_COUNTERS
from tests.conftest import PUZZLES, load

TINY = ("janko_0002", "janko_0011")  # a 4x4 and a 5x5, a few hundred checks each


def test_paper_averages_match_their_rows():
    """The typed rows of Tables 8 and 9 reproduce the paper's own average rows."""
    hw = [row[3] for row in paper.TABLE8]
    smt = [row[2] for row in paper.TABLE8]
    assert len(paper.TABLE8) == 9
    assert statistics.fmean(hw) == pytest.approx(paper.TABLE8_AVERAGE["hardware"], abs=1e-4)  # 0.157856, printed 0.1578
    assert statistics.fmean(smt) == pytest.approx(paper.TABLE8_AVERAGE["smt"], abs=5e-4)
    for size, (average, _) in paper.TABLE9_AVERAGE.items():
        rows = [row[3] for row in paper.TABLE9 if row[2] == size]
        if size == "20x36":  # the paper averages No. 15 and 16 only
            rows = [row[3] for row in paper.TABLE9 if row[0] in (15, 16)]
        assert statistics.fmean(rows) == pytest.approx(average, abs=5e-4), size
    assert paper.hardware_average_10x10()["cycles_at_50mhz"] == 7_890_000
    assert [fig["seconds"] for fig in paper.figures_for_size("10x10")][:1] == [0.1578]
    assert paper.figures_for_size("7x7") == []
    assert all("Table 9" in fig["citation"] for fig in paper.figures_for_size("20x36"))


def test_end_to_end_counts_both_frames_at_ten_bits_per_byte():
    puzzle = Puzzle([[None] * 10 for _ in range(10)])
    solve, result = B.frame_bytes(puzzle, "SOLVED_UNIQUE", 1000)
    assert solve == P.OVERHEAD + P.SOLVE_HEADER + 50
    assert result == P.OVERHEAD + P.RESULT_HEADER + 13   # 100 bits of colouring
    assert B.frame_bytes(puzzle, "LIMIT", 1000)[1] == P.OVERHEAD + P.RESULT_HEADER
    assert B.frame_bytes(puzzle, "CRASH", 1000)[1] == P.OVERHEAD + P.RESULT_HEADER
    seconds = B.end_to_end(solve, result, 5_000_000, 50_000_000, 115_200)
    assert seconds == pytest.approx(10 * (solve + result) / 115_200 + 0.1)


def test_usage_errors_are_one_line(capsys):
    for argv, words in ((["--sizes", "10by10"], "bad size"),
                        (["--names", "no_such_puzzle"], "no puzzle named"),
                        (["--engines", "nope"], "unknown engine"),
                        (["--no-peers", "--engines", "sat"], "contradict"),
                        (["--grid", "big"], "bad --grid"),
                        (["--max-checks", "0"], "--max-checks")):
        assert B.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, (argv, err)


def _record(name, cycles, checks, verdict="ok", z3=None):
    rec = {"name": name, "size": "10x10", "cells": 100, "source": "janko.at",
           "verdict": verdict, "golden_match": True, "checks": checks, "cycles": cycles,
           "seconds_at_clock": cycles / 50e6, "seconds_at_50mhz": cycles / 50e6,
           "e2e_115200": cycles / 50e6 + 0.0116, "peers": {}}
    if z3 is not None:
        rec["peers"]["z3"] = {"status": "SOLVED_UNIQUE", "verdict": "ok", "seconds": z3}
    return rec


def test_summary_statistics_and_the_papers_figures_beside_them():
    records = [_record("a", 1_000_000, 10_000, z3=2.0), _record("b", 3_000_000, 30_000, z3=4.0),
               _record("c", 20_000_000, 200_000, verdict="timeout", z3=3.0)]
    summary = B.summarise(records, ["z3"], [115_200])
    s = summary["10x10"]
    assert (s["n"], s["ok"], s["timeouts"], s["wrong"]) == (3, 2, 1, 0)
    assert s["cycles"]["median"] == 3_000_000 and s["cycles"]["max"] == 20_000_000
    assert s["cycles_per_check"] == pytest.approx(24_000_000 / 240_000)
    assert s["peers"]["z3"]["seconds"]["mean"] == pytest.approx(3.0)
    meta = {"date": "today", "command": "python -m slitherlink.bench.board", "puzzles": 3,
            "clock_hz": 50_000_000, "max_checks": 200_000, "peer_time_limit": 20,
            "jobs": 2, "cpus": 2, "load_start": "1.0", "bauds": [115_200], "engines": ["z3"],
            "hardware_note": "note"}
    text = B.markdown(summary, meta)
    assert "| 10x10 | 3 | 2 | 1 | 0 | 3/3 | ≥ 30,000 |" in text   # time-outs: a lower bound
    assert "Table 8" in text and "158 ms" in text                # the paper's 0.1578 s
    assert "≥ 60 ms hardware at 50 MHz (median" in text
    assert "≥ 160 ms hardware at 50 MHz (mean, n=3); 40 ms over the 2 finished" in text
    assert "3 s z3 (mean" in text and "4.88 s" in text           # ours beside Z3's 4.877 s


def test_per_source_sample_spreads_over_sources():
    rows = B.read_manifest(PUZZLES)
    args = B.parse_args(["--sizes", "10x10", "--per-class", "12", "--per-source", "3"])
    sample = B.select(rows, args)
    assert len(sample) == 12 and {r["size"] for r in sample} == {"10x10"}
    by_source = {}
    for row in sample:
        by_source[row["source"]] = by_source.get(row["source"], 0) + 1
    assert max(by_source.values()) <= 3 and len(by_source) >= 4
    assert B.select(rows, args) == sample  # seeded: the same sample again


def test_smoke_two_tiny_puzzles(tmp_path, capsys):
    """Two tiny puzzles on the virtual board, with a bound that stops the first (292
    checks to prove it unique) after it found its solution: a time-out, with the same
    counters and status (SOLVED) as the golden model's; the second (220 checks) ends."""
    out = tmp_path / "bench"
    bound = 250
    status = B.main(["--names", ",".join(TINY), "--engines", "model", "--jobs", "1",
                     "--max-checks", str(bound), "--bauds", "115200,3000000", "--out", str(out),
                     "--quiet"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    with open(out / "board-latest.csv", newline="") as f:
        rows = {row["name"]: row for row in csv.DictReader(f)}
    data = json.loads((out / "board-latest.json").read_text())
    markdown = (out / "board-latest.md").read_text()
    assert (out / "board-latest.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert set(rows) == set(TINY)

    expected = {"janko_0002": ("SOLVED", "timeout"), "janko_0011": ("SOLVED_UNIQUE", "ok")}
    for name in TINY:
        row = rows[name]
        puzzle, _ = load(name)
        model = search(puzzle, max_solutions=2, max_checks=bound)
        # the board's counters are the golden model's, exactly, also when stopped
        for key in B.SEARCH_COUNTERS:
            assert int(row[key]) == model.counters.as_dict()[key], (name, key)
        assert model.limit_reached == (name == "janko_0002")
        assert (row["status"], row["verdict"]) == expected[name]
        assert row["golden_match"] == "True" and row["golden_status"] == row["status"]
        checks = model.counters.checks
        cycles = int(row["cycles"])
        assert cycles > checks * 10  # every check costs cycles
        assert float(row["seconds_at_50mhz"]) == pytest.approx(cycles / 50e6)
        assert float(row["cycles_per_check"]) == pytest.approx(cycles / checks, abs=0.01)
        solve, result = B.frame_bytes(puzzle, row["status"], bound)
        assert (int(row["solve_frame_bytes"]), int(row["result_frame_bytes"])) == (solve, result)
        assert float(row["e2e_115200"]) == pytest.approx(
            10 * (solve + result) / 115_200 + cycles / int(row["clock_hz"]))
        assert row["model_verdict"] in ("ok", "timeout") and float(row["model_seconds"]) >= 0

    # the summary says what the rows say
    summary = data["summary"]
    assert set(summary) == {"4x4", "5x5"}
    for size, entry in summary.items():
        (name,) = [n for n in TINY if rows[n]["size"] == size]
        cycles = int(rows[name]["cycles"])
        assert entry["cycles"]["median"] == entry["cycles_sum"] == cycles
        assert entry["checks_sum"] == int(rows[name]["checks"])
        timeout = rows[name]["verdict"] == "timeout"
        assert (entry["ok"], entry["timeouts"], entry["wrong"], entry["golden_mismatch"]) \
            == (int(not timeout), int(timeout), 0, 0)
        assert f"{'≥ ' if timeout else ''}{cycles:,}" in markdown
        assert entry["peers"]["model"]["n"] == 1
    assert [r["cycles"] for r in data["records"]] == \
        [int(rows[n]["cycles"]) for n in sorted(TINY)]
    assert "wrong answers: 0" in printed

    # re-rendering from the JSON (comparing with the model again) gives the same summary
    again = tmp_path / "again"
    assert B.main(["--from-json", str(out / "board-latest.json"), "--out", str(again),
                   "--no-plot"]) == 0
    assert (again / "board-latest.md").read_text() == markdown


def test_update_docs_fills_only_its_section(tmp_path):
    doc = tmp_path / "benchmark.md"
    begin, end = B.DOC_BEGIN.format("larger"), B.DOC_END.format("larger")
    doc.write_text(f"# title\n\n{begin}\nold\n{end}\n\nafter\n")
    png = tmp_path / "plot.png"
    png.write_bytes(b"\x89PNG fake")
    B.update_docs("| new | table |\n", png, lambda _: None, "larger", doc=doc)
    text = doc.read_text()
    assert text.startswith("# title\n\n" + begin) and text.endswith(end + "\n\nafter\n")
    assert "old" not in text and "| new | table |" in text
    assert "(benchmark-larger.png)" in text
    assert (tmp_path / "benchmark-larger.png").read_bytes() == png.read_bytes()
    with pytest.raises(B.UsageError, match="no section 'results'"):
        B.update_docs("x", None, lambda _: None, "results", doc=doc)


# -- deduce mode (bench/board_deduce.py) -------------------------------------------------------

#: 4x4, 5x5 and 10x10 solved without a decision; a blank 5x5 (several solutions: 25
#: decisions and a backtrack before the second solution)
DEDUCE_TINY = {"janko_0002": "SOLVED_UNIQUE", "janko_0011": "SOLVED_UNIQUE",
               "janko_1165": "SOLVED_UNIQUE", "edge_5x5_noclues": "MULTIPLE"}


def test_deduce_classes_put_each_puzzle_on_the_smallest_build_that_holds_it():
    classes = D.parse_classes("20x36,10x10,15x15,30x25,20x20")
    assert classes == [(10, 10), (15, 15), (20, 20), (20, 36), (30, 25)]
    place = lambda r, c: D.class_for({"rows": r, "cols": c}, classes)  # noqa: E731
    assert place(4, 4) == place(10, 10) == (10, 10)
    assert place(10, 14) == place(12, 12) == (15, 15)
    assert place(10, 18) == place(16, 19) == (20, 20)
    assert place(14, 24) == place(20, 36) == (20, 36)    # 14x24 is too wide for 20x20
    assert place(30, 25) == place(22, 21) == (30, 25)
    assert place(36, 20) is None and place(40, 40) is None
    for bad in ("10by10", "0x5", "10x65", ""):
        with pytest.raises(ValueError):
            D.parse_classes(bad)


def _deduce_record(name, size, cls, cycles, *, sat=None, verdict="ok", match=True):
    r, c = map(int, size.split("x"))
    rec = {"name": name, "size": size, "cells": r * c, "class": cls, "verdict": verdict,
           "status": "SOLVED_UNIQUE" if verdict == "ok" else "LIMIT", "golden_match": match,
           "cycles": cycles, "engine_clocks": cycles // 2, "model_cycles": cycles // 2,
           "decisions": 0, "solve_frame_bytes": 60, "result_frame_bytes": 80,
           "uart_115200": 140e-4 / 1.152, "e2e_115200": 140e-4 / 1.152 + cycles / 50e6,
           "peers": {}}
    if sat is not None:
        rec["peers"]["sat"] = {"status": "SOLVED_UNIQUE", "verdict": "ok", "seconds": sat}
    return rec


def test_deduce_summary_speedups_and_goals():
    records = [_deduce_record("a", "10x10", "10x10", 800, sat=0.004),
               _deduce_record("b", "10x10", "10x10", 900, sat=0.002),
               _deduce_record("c", "10x10", "10x10", 1_500, sat=0.003),
               _deduce_record("d", "20x36", "20x36", 40_000, sat=0.01),
               _deduce_record("e", "20x36", "20x36", 3_000_000, sat=0.03, verdict="timeout")]
    summary = D.summarise(records, ["sat"], [115_200], fmax_mhz=25.0)
    s10, s36 = summary["10x10"], summary["20x36"]
    assert (s10["n"], s10["ok"], s10["limits"], s10["golden_match"]) == (3, 3, 0, 3)
    assert s10["cycles"]["median"] == 900 and s10["cycles"]["max"] == 1_500
    # sat's median over the hardware's median time: 3 ms / (900 / 50 MHz) = 166.7
    assert s10["speedup_50mhz"] == pytest.approx(0.003 / (900 / 50e6))
    assert s10["speedup_fmax"] == pytest.approx(0.003 / (900 / 25e6))
    assert s36["cycles"]["median"] == 1_520_000 and s36["limits"] == 1
    assert s36["speedup_50mhz"] == pytest.approx(0.02 / (1_520_000 / 50e6))   # < 10x
    meta = {"bauds": [115_200], "engines": ["sat"], "fmax_mhz": 25.0,
            "classes": {"10x10": {"n": 3, "build_seconds": None, "error": None},
                        "30x30": {"n": 2, "build_seconds": 900.0,
                                  "error": "the 30x30 virtual board could not be built"}}}
    lines = D.goals(summary, records, meta)
    assert lines[0].startswith("10x10 median ≤ 1,000 cycles: **reached** — 900 cycles over 3")
    assert "20x36 median ≤ 30,000 cycles: **not reached** — ≥ 1,520,000" in lines[1]
    assert "**not reached** — 3,000,000 cycles (e, 20x36)" in lines[2]
    assert "at 50 MHz: **not reached**" in lines[3] and "below 10x: 20x36" in lines[3]
    assert "at 25 MHz (Fmax): **not reached**" in lines[4]
    assert lines[-1].startswith("class 30x30: **not reached**")
    # the same with only the 10x10s: every goal it can judge is reached
    small = records[:3]
    lines = D.goals(D.summarise(small, ["sat"], [115_200]), small, {"classes": {}})
    assert "**reached**" in lines[0] and "not measured" in lines[1]
    assert "**reached on this sample**" in lines[2] and "at 50 MHz: **reached**" in lines[3]
    assert "not given" in lines[4]


def test_fmax_per_build():
    """``--fmax`` is one clock, or each class at its own build's post-route Fmax: the
    times, speed-ups and goals use the class's clock, and a class without one is named
    as not measured."""
    assert D.parse_fmax("39.4") == 39.4
    assert D.parse_fmax("10x10=39.4, 36x20=25") == {"10x10": 39.4, "36x20": 25.0}
    for bad, words in (("0", "bad clock '0'"), ("fast", "bad clock 'fast'"),
                       ("10x10=", "bad clock '' for 10x10"), ("10by10=30", "bad class '10by10'"),
                       ("10x10=30,20x20=-1", "for 20x20"), (",", "bad clock ','")):
        with pytest.raises(ValueError, match=words):
            D.parse_fmax(bad)
    records = [_deduce_record("a", "10x10", "10x10", 800, sat=0.004),
               _deduce_record("d", "20x36", "20x36", 40_000, sat=0.01),
               _deduce_record("f", "30x30", "30x30", 200_000, sat=0.03)]
    fmax = {"10x10": 40.0, "20x36": 20.0}
    summary = D.summarise(records, ["sat"], [115_200], fmax_mhz=fmax)
    assert summary["10x10"]["speedup_fmax"] == pytest.approx(0.004 / (800 / 40e6))
    assert summary["20x36"]["speedup_fmax"] == pytest.approx(0.01 / (40_000 / 20e6))
    assert summary["30x30"]["seconds_at_fmax"] is None
    assert summary["30x30"]["speedup_fmax"] is None
    meta = {"bauds": [115_200], "engines": ["sat"], "fmax_mhz": fmax, "classes": {}}
    line = D.goals(summary, records, meta)[4]
    assert line.startswith("≥ 10x faster than sat's median on every size class at each "
                           "build's Fmax (ECP5 post-route: 10x10 40 MHz, 20x36 20 MHz): "
                           "**not reached** — 10x10: 200x, 20x36: 5x")
    assert "(below 10x: 20x36)" in line and "(no sat median or no Fmax: 30x30)" in line
    run = {"date": "d", "command": "c", "puzzles": 3, "clock_hz": 50e6, "sim_baud": 1_000_000,
           "max_decisions": 9, "peer_time_limit": 1.0, "jobs": 1, "cpus": 2, "load_start": 0,
           "hardware_note": "h"}
    table = D.markdown(summary, {**meta, **run}, records)
    assert "| ECP5 Fmax | median at Fmax | max at Fmax |" in table
    assert "| 20x36 | 20x36 (1) |" in table and "| 20 MHz | 2 ms | 2 ms |" in table
    assert "| 30x30 | 30x30 (1) |" in table and "| - | - | - |" in table


def test_deduce_mode_usage_errors(capsys):
    for argv, words in ((["--mode", "deduce", "--grid", "14x24"], "--classes"),
                        (["--mode", "deduce", "--classes", "10by10"], "bad class"),
                        (["--mode", "deduce", "--max-decisions", "0"], "--max-decisions"),
                        (["--mode", "both", "--fmax", "0"], "--fmax"),
                        (["--mode", "deduce", "--fmax", "10x10=fast"], "--fmax: bad clock"),
                        (["--mode", "deduce", "--band", "0"], "--band must be"),
                        (["--mode", "deduce", "--names", "loopy_60x60_hard_02",
                          "--classes", "10x10"], "fit no build")):
        assert B.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, (argv, err)


def test_deduce_mode_reports_a_class_it_cannot_build(tmp_path, monkeypatch, capsys):
    from slitherlink.sim import vboard

    def fail(*args, **kwargs):
        raise vboard.BuildError("out of memory (planted)")
    monkeypatch.setattr(vboard, "build_design", fail)
    assert B.main(["--mode", "deduce", "--names", "janko_0002", "--no-peers",
                   "--out", str(tmp_path), "--quiet"]) == 1
    assert "could not be built" in capsys.readouterr().err


def test_deduce_smoke_on_the_virtual_board(tmp_path, capsys):
    """Four tiny puzzles in deduce mode on the default (shared, cached) 10x10 build and
    the sat peer: every counter is the golden model's (decisions and backtracks too), the
    files agree with each other, and a counter changed in the results is caught when
    they are read again."""
    out = tmp_path / "bench"
    status = B.main(["--mode", "deduce", "--names", ",".join(DEDUCE_TINY), "--classes",
                     "10x10", "--sim-baud", "115200", "--engines", "sat", "--jobs", "1",
                     "--max-decisions", "50", "--bauds", "115200,3000000", "--out", str(out),
                     "--quiet", "--no-plot"])
    printed = capsys.readouterr().out
    assert status == 0, printed
    with open(out / "board-deduce-latest.csv", newline="") as f:
        rows = {row["name"]: row for row in csv.DictReader(f)}
    data = json.loads((out / "board-deduce-latest.json").read_text())
    assert set(rows) == set(DEDUCE_TINY) and data["mode"] == "deduce"
    for name in DEDUCE_TINY:
        row = rows[name]
        puzzle, _ = load(name)
        model = band_solve(puzzle, max_solutions=2, max_decisions=50)
        counters = model.counters()
        for key in DEDUCE_COUNTERS:   # the board's counters are the golden model's, exactly
            assert int(row[key]) == counters[key], (name, key)
        assert (row["status"], row["verdict"], row["golden_match"]) == \
            (DEDUCE_TINY[name], "ok", "True")
        assert row["class"] == "10x10" and int(row["model_cycles"]) == model.cycles(1)
        cycles, clocks = int(row["cycles"]), int(row["engine_clocks"])
        assert 0 < clocks < cycles
        assert float(row["seconds_at_50mhz"]) == pytest.approx(cycles / 50e6)
        solve = len(P.encode_solve(puzzle, unique=True, max_checks=50, mode="deduce"))
        result = P.OVERHEAD + P.DEDUCE_RESULT_HEADER + (puzzle.rows * puzzle.cols + 7) // 8
        assert counters["decisions"] == (25 if name == "edge_5x5_noclues" else 0)
        assert (int(row["solve_frame_bytes"]), int(row["result_frame_bytes"])) == (solve, result)
        assert float(row["uart_3000000"]) == pytest.approx(10 * (solve + result) / 3e6)
        assert float(row["e2e_115200"]) == pytest.approx(
            10 * (solve + result) / 115_200 + cycles / 50e6)
        assert row["sat_verdict"] == "ok"
    # the summary says what the rows say
    (entry,) = data["summary"].values()
    cycles = [int(r["cycles"]) for r in rows.values()]
    median = statistics.median(cycles)
    sat = statistics.median(float(r["sat_seconds"]) for r in rows.values())
    assert entry["n"] == 4 and entry["golden_match"] == 4 and entry["wrong"] == 0
    assert entry["cycles"]["median"] == median and entry["cycles"]["max"] == max(cycles)
    assert entry["decisions_max"] == 25
    assert entry["speedup_50mhz"] == pytest.approx(sat / (median / 50e6))
    markdown = (out / "board-deduce-latest.md").read_text()
    assert f"| 10x10 | 4x4 (1), 5x5 (2), 10x10 (1) | 4 | 0 | 0 | 4/4 | {D._n(median)} | " \
           f"{max(cycles):,} |" in markdown
    assert "10x10 median ≤ 1,000 cycles" in markdown and "wrong answers: 0" in printed

    # read again with an Fmax: the same rows, times at that clock too
    again = tmp_path / "again"
    assert B.main(["--from-json", str(out / "board-deduce-latest.json"), "--fmax", "25",
                   "--out", str(again), "--no-plot"]) == 0
    text = (again / "board-deduce-latest.md").read_text()
    assert "median at 25 MHz" in text and "at 25 MHz (Fmax)" in text
    assert text.split("### The hardware")[1].split("### The UART")[0].count("|") > \
        markdown.split("### The hardware")[1].split("### The UART")[0].count("|")
    # a counter that differs from the golden model's is caught (exit status 1)
    data["records"][0]["sweeps"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert B.main(["--from-json", str(bad), "--out", str(tmp_path / "bad"), "--no-plot"]) == 1
    with open(tmp_path / "bad" / "board-deduce-latest.csv", newline="") as f:
        flagged = [r for r in csv.DictReader(f) if r["golden_match"] == "False"]
    assert [r["name"] for r in flagged] == [data["records"][0]["name"]]
    assert "counters differ from the golden model's: sweeps" in flagged[0]["note"]


def test_the_board_pool_starts_afresh_after_a_failed_board_and_keeps_every_failure():
    """bench.board.run_pool, the worker pool of both runners, with stand-in boards: a CRASH
    record closes its board and the next solve gets a new one; a board that cannot be
    made ends its thread with the error among the failures (what it had not solved is
    missing, which both runners report)."""
    from slitherlink.host.device import NoAnswer

    made, closed = [], []

    class Worker:
        def __init__(self):
            self.number = len(made)
            made.append(self)

        def close(self):
            closed.append(self.number)

    def solve(worker, task):  # one or two solves per task, like deduce and paper
        for kind in ("deduce", "paper") if task % 2 else ("deduce",):
            yield kind, {"task": task, "kind": kind, "board": worker().number,
                         "status": "CRASH" if (task, kind) == (3, "deduce") else "SOLVED"}

    taken = []
    failures = B.run_pool([1, 2, 3, 4], 1, Worker, solve,
                          lambda kind, record: taken.append((kind, record)))
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
    failures = B.run_pool([1, 2, 3, 4], 1, flaky, solve,
                          lambda kind, record: taken.append((kind, record)))
    assert failures == ["no answer from the virtual board (planted)"]
    assert [(r["task"], kind, r["status"]) for kind, r in taken] == [
        (1, "deduce", "SOLVED"), (1, "paper", "SOLVED"), (2, "deduce", "SOLVED"),
        (3, "deduce", "CRASH")]  # the rest is missing: the runners report it
    assert closed == [0]


def test_deduce_expectation_of_a_band_build():
    """A build's golden model (bench --band): the search of model.deduce.solve, the flood
    and label iterations counted as band passes, and the band cycle model."""
    from slitherlink.bench import board_deduce as D
    from slitherlink.model.band import band_solve
    from slitherlink.model.deduce import solve
    from tests.conftest import load
    puzzle = load("janko_1165")[0]
    band = D.model_expectation(puzzle, 1000, band=1)
    band2 = D.model_expectation(puzzle, 1000, band=2)
    want = band_solve(puzzle, band=1, max_solutions=2, max_decisions=1000)
    assert band["status"] == band2["status"] == "SOLVED_UNIQUE"
    assert band["counters"]["flood_iterations"] == want.band.flood_passes
    assert band["counters"]["label_iterations"] == want.band.label_passes
    assert band["cycles"] == want.cycles(1) != band2["cycles"] == want.cycles(2)
    same = solve(puzzle, max_solutions=2).counters.as_dict()
    for key in ("sweeps", "floods", "probes", "decisions", "saves"):
        assert band["counters"][key] == band2["counters"][key] == same[key]


def test_band_model_benchmark_beside_and_after_the_floods(capsys):
    """``bench.band`` on one puzzle of the 10x10 class: every answer right, and the band-1
    median with the label stage beside the floods (the engine's) below the one with the
    label stage after them (``--labels-after-floods``, the sequence before), the search
    being the same."""
    from slitherlink.bench import band

    def median(args):
        assert band.main(["--names", "janko_0047", "--quiet", "--bands", "1", *args]) == 0
        row = next(line for line in capsys.readouterr().out.splitlines()
                   if line.startswith("| 10x10 build |"))
        return int(row.split("|")[5].split("/")[0].replace(",", ""))

    beside, after = median([]), median(["--labels-after-floods"])
    assert 0 < beside < after
