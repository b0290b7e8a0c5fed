"""The modes and the summary of the hardware benchmark (bench/modes.py, bench/summary.py):
the frames, the golden models' expectations, the figures per class, the goals, the paper's
figures beside ours -- on records made up for the purpose, no board."""

import pytest

from slitherlink.bench import summary as S
from slitherlink.bench.modes import DEDUCE, PAPER
from slitherlink.host import protocol as P
from slitherlink.host.puzzle import Puzzle
from slitherlink.model.band import band_solve
from slitherlink.model.deduce import solve
from tests.conftest import load


def test_frames_are_the_protocols_bytes():
    """SOLVE and its reply, from host.protocol, per mode: a blank 10x10 in 50 bytes of
    clues, a colouring of 100 bits (13 bytes) when solved, none when not."""
    puzzle = Puzzle([[None] * 10 for _ in range(10)])
    for mode, header in ((PAPER, P.RESULT_HEADER), (DEDUCE, P.DEDUCE_RESULT_HEADER)):
        solve_bytes, reply = mode.frame_bytes(puzzle, "SOLVED_UNIQUE", 1000)
        assert solve_bytes == P.OVERHEAD + P.SOLVE_HEADER + 50
        assert reply == P.OVERHEAD + header + 13
        assert mode.frame_bytes(puzzle, "LIMIT", 1000)[1] == P.OVERHEAD + header
        assert mode.frame_bytes(puzzle, "CRASH", 1000)[1] == P.OVERHEAD + header


def test_deduce_expectation_of_a_band_build():
    """A build's golden model (--band): the search of model.deduce.solve, the flood and
    label iterations counted as band passes, and the band cycle model."""
    puzzle = load("janko_1165")[0]
    band = DEDUCE.expect(puzzle, 1000, band=1)
    band2 = DEDUCE.expect(puzzle, 1000, band=2)
    want = band_solve(puzzle, band=1, max_solutions=2, max_decisions=1000)
    assert band["status"] == band2["status"] == "SOLVED_UNIQUE"
    assert band["counters"]["flood_iterations"] == want.band.flood_passes
    assert band["counters"]["label_iterations"] == want.band.label_passes
    assert band["cycles"] == want.cycles(1) != band2["cycles"] == want.cycles(2)
    same = solve(puzzle, max_solutions=2).counters.as_dict()
    for key in ("sweeps", "floods", "probes", "decisions", "saves"):
        assert band["counters"][key] == band2["counters"][key] == same[key]
    paper = PAPER.expect(puzzle, 50, band=1)   # the paper's search, stopped by its bound
    assert paper["limit"] and paper["counters"]["checks"] == 50 and paper["cycles"] is None


def _record(name, size, cycles, *, mode=DEDUCE, cls=None, verdict="ok", match=True,
            peers=None, **counters):
    r, c = map(int, size.split("x"))
    rec = {"name": name, "size": size, "cells": r * c, "class": cls or size, "mode": mode.name,
           "verdict": verdict, "status": "SOLVED_UNIQUE" if verdict == "ok" else "LIMIT",
           "golden_match": match, "cycles": cycles, "solve_frame_bytes": 60,
           "reply_frame_bytes": 80, "uart_115200": 1400 / 115_200,
           "e2e_115200": 1400 / 115_200 + cycles / 50e6, "peers": {}}
    if mode is DEDUCE:
        rec.update(engine_clocks=cycles // 2, model_cycles=cycles // 2, decisions=0,
                   trail_full=False)
    rec.update(counters)
    for engine, seconds in (peers or {}).items():
        rec["peers"][engine] = {"status": "SOLVED_UNIQUE", "verdict": "ok", "seconds": seconds}
    return rec


def _meta(**changes):
    return {"date": "today", "command": "python -m slitherlink.bench.hardware",
            "modes": ["deduce"], "classes": {}, "bounds": {"deduce": 1000, "paper": 200_000},
            "peer_time_limit": 20, "jobs": 2, "cpus": 2, "load_start": "1.0",
            "bauds": [115_200], "engines": ["sat"], "band": 1, **changes}


def test_deduce_summary_speedups_and_goals():
    records = [_record("a", "10x10", 800, peers={"sat": 0.004}),
               _record("b", "10x10", 900, peers={"sat": 0.002}),
               _record("c", "10x10", 1_500, peers={"sat": 0.003}),
               _record("d", "20x36", 40_000, peers={"sat": 0.01}),
               _record("e", "20x36", 3_000_000, verdict="timeout", peers={"sat": 0.03})]
    summary = S.summarise(DEDUCE, records, ["sat"], [115_200], fmax=25.0)
    s10, s36 = summary["10x10"], summary["20x36"]
    assert (s10["n"], s10["ok"], s10["limits"], s10["golden_match"]) == (3, 3, 0, 3)
    assert s10["cycles"]["median"] == 900 and s10["cycles"]["max"] == 1_500
    assert s10["decisions_max"] == 0 and s10["engine_clocks_median"] == 450
    # sat's median over the hardware's median time: 3 ms / (900 / 50 MHz) = 166.7
    assert s10["speedup_50mhz"] == pytest.approx(0.003 / (900 / 50e6))
    assert s10["speedup_fmax"] == pytest.approx(0.003 / (900 / 25e6))
    assert s36["cycles"]["median"] == 1_520_000 and s36["limits"] == 1
    assert s36["speedup_50mhz"] == pytest.approx(0.02 / (1_520_000 / 50e6))   # < 10x
    meta = _meta(fmax_mhz=25.0, classes={
        "10x10": {"n": 3, "error": None},
        "30x30": {"n": 2, "error": "the 30x30 virtual board could not be built"}})
    lines = S.goals(summary, records, meta)
    assert lines[0].startswith("10x10 median at most 1,000 cycles: **reached** — 900 cycles "
                               "over 3")
    assert "20x36 median at most 30,000 cycles: **not reached** — ≥ 1,520,000" in lines[1]
    assert "**not reached** — 3,000,000 cycles (e, 20x36)" in lines[2]
    assert "at 50 MHz: **not reached**" in lines[3] and "below 10x: 20x36" in lines[3]
    assert "at 25 MHz (Fmax): **not reached**" in lines[4]
    assert lines[-1].startswith("class 30x30: **not reached**")
    # the same with only the 10x10s: every goal it can judge is reached
    small = records[:3]
    lines = S.goals(S.summarise(DEDUCE, small, ["sat"], [115_200]), small, {"classes": {}})
    assert "**reached**" in lines[0] and "not measured" in lines[1]
    assert "**reached on this sample**" in lines[2] and "at 50 MHz: **reached**" in lines[3]
    assert "not given" in lines[4]


def test_fmax_per_build_in_the_summary():
    """``--fmax`` per build: the times, speed-ups and goals use the class's clock, and a
    class without one is named as not measured."""
    records = [_record("a", "10x10", 800, peers={"sat": 0.004}),
               _record("d", "20x36", 40_000, peers={"sat": 0.01}),
               _record("f", "30x30", 200_000, peers={"sat": 0.03})]
    fmax = {"10x10": 40.0, "20x36": 20.0}
    summary = S.summarise(DEDUCE, records, ["sat"], [115_200], fmax=fmax)
    assert summary["10x10"]["speedup_fmax"] == pytest.approx(0.004 / (800 / 40e6))
    assert summary["20x36"]["speedup_fmax"] == pytest.approx(0.01 / (40_000 / 20e6))
    assert summary["30x30"]["seconds_at_fmax"] is None
    assert summary["30x30"]["speedup_fmax"] is None
    meta = _meta(fmax_mhz=fmax)
    line = S.goals(summary, records, meta)[4]
    assert line.startswith("at least 10x the sat peer's median on every size class at each "
                           "build's Fmax (ECP5 post-route: 10x10 40 MHz, 20x36 20 MHz): "
                           "**not reached** — 10x10: 200x, 20x36: 5x")
    assert "(below 10x: 20x36)" in line and "(no sat median or no Fmax: 30x30)" in line
    table = S.markdown(meta, {"deduce": summary}, {"deduce": records})
    assert "| ECP5 Fmax | median at Fmax | max at Fmax |" in table
    assert "| 20x36 | 20x36 (1) |" in table and "| 20 MHz | 2 ms | 2 ms |" in table
    assert "| 30x30 | 30x30 (1) |" in table and "| - | - | - |" in table


def test_clock_goals_at_each_builds_fmax():
    """The clock's goals: each build's Fmax (the default grid's higher), the median time
    against the 2026-11-25 run's over the time factor, the speed-up over sat; a class
    without an Fmax is named, not judged."""
    records = [_record("a", "10x10", 600, peers={"sat": 0.002}),
               _record("f", "30x30", 60_000, peers={"sat": 0.02}),
               _record("g", "12x12", 2_000, peers={"sat": 0.003})]
    fmax = {"10x10": 80.0, "30x30": 50.0}
    lines = S.clock_goals(S.summarise(DEDUCE, records, ["sat"], [115_200], fmax=fmax))
    # 10x10: 600 / 80 MHz = 7.5 µs <= 1,283 / 38.48 MHz / 2 = 16.7 µs; 30x30: 60,000 /
    # 50 MHz = 1.2 ms <= 108,850 / 31.91 MHz / 2 = 1.71 ms; speed-ups 267x and 17x
    assert lines[0] == ("every class's build at least 50 MHz on the ECP5 (10x10 at least 75 "
                        "MHz): **reached** — 10x10: 80 MHz, 30x30: 50 MHz")
    assert lines[1] == ("the median solve time at each build's Fmax at most 1/2 of the run of "
                        "2026-11-25's: **reached** — 10x10: 7.5 µs (goal 16.7 µs), 30x30: "
                        "1.2 ms (goal 1.71 ms)")
    assert lines[2] == ("at least 20x the sat peer's median at each build's Fmax: **not "
                        "reached** — 10x10: 267x, 30x30: 17x")
    assert lines[3] == "no ECP5 Fmax for 12x12: not timed"
    slow = S.clock_goals(S.summarise(DEDUCE, records[:1], ["sat"], [115_200],
                                     fmax={"10x10": 60.0}))
    assert slow[0].endswith("**not reached** — 10x10: 60 MHz")
    assert "**reached** — 10x10: 10 µs" in slow[1]                 # 600 / 60 MHz
    none = S.clock_goals(S.summarise(DEDUCE, records, [], [115_200]))
    assert all("not measured" in line for line in none[:3])


def test_paper_summary_and_the_papers_figures_beside_it():
    """Paper mode: a row per puzzle size (the builds' classes hold several), the checks,
    time-outs as lower bounds (≥), and the paper's Table 8 beside our figures of the same
    statistic over the 10x10 puzzles."""
    def paper_record(name, cycles, checks, verdict="ok", z3=None, size="10x10"):
        return _record(name, size, cycles, mode=PAPER, cls="10x10", verdict=verdict,
                       checks=checks, peers={"z3": z3})
    records = [paper_record("a", 1_000_000, 10_000, z3=2.0),
               paper_record("b", 3_000_000, 30_000, z3=4.0),
               paper_record("c", 20_000_000, 200_000, verdict="timeout", z3=3.0),
               paper_record("d", 50_000, 800, z3=0.5, size="7x7")]
    summary = S.summarise(PAPER, records, ["z3"], [115_200])
    assert list(summary) == ["7x7", "10x10"] and summary["7x7"]["n"] == 1
    s = summary["10x10"]
    assert (s["n"], s["ok"], s["limits"], s["wrong"]) == (3, 2, 1, 0)
    assert s["cycles"]["median"] == 3_000_000 and s["cycles"]["max"] == 20_000_000
    assert s["checks_median"] == 30_000 and s["checks_max"] == 200_000
    assert s["cycles_per_check"] == pytest.approx(24_000_000 / 240_000)
    assert s["peers"]["z3"]["mean"] == pytest.approx(3.0)
    text = S.markdown(_meta(modes=["paper"], engines=["z3"]), {"paper": summary},
                      {"paper": records})
    assert "| 10x10 | 3 | 0 | 1 | 3/3 | ≥ 3,000,000 | ≥ 20,000,000 | 30,000 | 200,000 | " \
           "100 |" in text                                         # time-outs: a lower bound
    assert "| 7x7 | 1 | 0 | 0 | 1/1 | 50,000 | 50,000 | 800 | 800 | 62.5 |" in text
    assert "Table 8" in text and "158 ms" in text                  # the paper's 0.1578 s
    assert "≥ 60 ms hardware at 50 MHz (median" in text
    assert "≥ 160 ms hardware at 50 MHz (mean, n=3); 40 ms over the 2 finished" in text
    assert "3 s z3 (mean" in text and "4.88 s" in text             # ours beside Z3's 4.877 s
    assert "goals" not in text                                     # the deduction engine's


def test_reach_counts_what_the_golden_model_finishes():
    rows = [{"size": "5x5", "expect": {"paper": {"counters": {"checks": c}, "limit": c >= 100}}}
            for c in (10, 30, 100)]
    text = S.reach(rows, PAPER, 100)
    assert "| size | n | finished within 100 checks | median checks |" in text
    assert "| 5x5 | 3 | 2 | 30 | 30 |" in text
