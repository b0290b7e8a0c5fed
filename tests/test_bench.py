"""The benchmark (bench/board.py, bench/paper.py, bench/plot.py).

The smoke test runs the whole benchmark -- virtual board (the shared, cached
build of sim/vboard), golden model, one software peer, summary, plot -- on
two tiny puzzles and checks that its files agree with each other and with
the golden model.  The other tests check the paper's figures as typed and
the end-to-end formula.
"""

import csv
import json
import statistics

import pytest

from slitherlink.bench import board as B
from slitherlink.bench import paper
from slitherlink.host import protocol as P
from slitherlink.host.puzzle import Puzzle
from slitherlink.model.paper import search
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
