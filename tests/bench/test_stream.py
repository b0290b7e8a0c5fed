"""The link benchmark (bench/stream.py): two tiny puzzles streamed through the default
build's virtual board at its start rate and its fastest, every answer checked; the board's
own stamps bound the figures from below by the bytes on the line.  A rate after another
fast one meets its board at the start rate (no attempt in vain)."""

import time

import pytest

from slitherlink.bench import stream as S
from slitherlink.host.corpus import load
from slitherlink.spec.target import DEFAULT_TARGET

NAMES = ("janko_0002", "janko_0011")   # a 4x4 and a 5x5


def test_two_puzzles_at_the_start_rate_and_the_fastest(corpus):
    fastest = S.offered(DEFAULT_TARGET)[0]
    rates = (DEFAULT_TARGET.baud, fastest)
    args = S.parse_args(["--names", ",".join(NAMES), "--rates", ",".join(map(str, rates))])
    results, meta = S.run(args, log=lambda text: None)
    (entry,) = results.values()
    assert [row["rate"] for row in entry["board"]] == list(rates)
    for row in entry["board"]:
        assert row["n"] == len(NAMES) and row["clock_hz"] == DEFAULT_TARGET.clock_hz
        puzzles = [load(name)[0] for name in NAMES]
        frames = [S._frames(p) for p in puzzles]
        line = [10 * (a + b) / row["rate"] for a, b in frames]
        # a puzzle sent alone takes at least its bytes' time on the line, both ways
        assert row["latency_median"] >= min(line) and row["latency_max"] >= max(line)
        # of it on the board: what the line's bytes leave, and some
        assert 0 < row["on_board_median"] < row["latency_median"]
        assert row["on_board_median"] <= row["latency_max"] - min(line)
        # streamed, the requests at least follow each other on the line towards the board
        assert row["stream_cycles"] / row["clock_hz"] >= sum(10 * a / row["rate"]
                                                              for a, _ in frames)
        assert row["per_second"] == pytest.approx(
            len(NAMES) * row["clock_hz"] / row["stream_cycles"])
    slow, fast = entry["board"]
    assert fast["per_second"] > slow["per_second"]
    assert entry["sat_1"] > 0 and entry["sat_2"] > 0 and entry["host_cost"] > 0
    assert entry["cli_cost"] > 0
    text = S.table(results, meta)
    assert f"| {DEFAULT_TARGET.max_rows}x{DEFAULT_TARGET.max_cols} | {fastest:,} | 2 |" in text
    assert f"the fastest of {S.PEER_PASSES} passes" in text and "{" not in text


def test_the_host_cost_goes_through_the_rules_check(corpus, monkeypatch):
    """The host's cost is measured on the streaming run's steps, the rules check among them:
    an answer it refuses (a cell flipped in a unique puzzle's solution) ends the run."""
    assert S.host_cost(NAMES) > 0

    def flipped(name, load=S.corpus.load):
        puzzle, solution = load(name)
        return puzzle, ((not solution[0][0], *solution[0][1:]), *solution[1:])
    monkeypatch.setattr(S.corpus, "load", flipped)
    with pytest.raises(SystemExit, match=f"stream: {NAMES[0]}: .*wrong solution"):
        S.host_cost(NAMES)


def test_a_whole_run_s_cost_is_the_cli_s_and_a_failed_run_ends_the_benchmark(corpus, tmp_path,
                                                                           monkeypatch):
    """The whole run's cost is what ``python -m slitherlink`` spends on the puzzles beyond its
    start; a run that does not solve them (a puzzle file it cannot read) is no figure."""
    monkeypatch.setattr(S, "PEER_PASSES", 1)
    assert S.cli_cost(NAMES) > 0
    (tmp_path / f"{NAMES[0]}.txt").write_text("4x\n")
    monkeypatch.setattr(S.corpus, "root", lambda: tmp_path)
    with pytest.raises(SystemExit, match="the CLI's run over .* ended with exit code"):
        S.cli_cost(NAMES[:1])


def test_a_whole_run_s_cost_waits_for_the_device_to_work_its_answers_out(corpus, monkeypatch):
    """The fake device works each answer out in the first run, however long that takes (the
    deduction model takes seconds over a hard 20x36; 7 s here, longer than the link's wait
    for a 4x4), and remembers it: the measured runs get their answers at once."""
    from slitherlink.host import fakedevice
    worked_out, reply = set(), fakedevice.solve_reply

    def slowly_the_first_time(request, **options):
        if request not in worked_out:
            worked_out.add(request)
            time.sleep(7)
        return reply(request, **options)
    monkeypatch.setattr(fakedevice, "solve_reply", slowly_the_first_time)
    monkeypatch.setattr(S, "PEER_PASSES", 1)
    assert S.cli_cost(NAMES[:1]) > 0
    assert len(worked_out) == 1


def test_a_fast_rate_after_another_meets_its_board_at_the_start_rate(corpus):
    """The second fast rate's connection finds the board at the start rate: the first
    left it there (else the host would try the start rate three times before the rate
    it left it at, with flushes that take minutes of simulation)."""
    grid = (DEFAULT_TARGET.max_rows, DEFAULT_TARGET.max_cols)
    rates = S.offered(S.stream_target(grid))[:2]
    assert len(rates) == 2 and DEFAULT_TARGET.baud not in rates
    rows = S.board_run(grid, NAMES[:1], rates, latency_count=1, log=lambda text: None)
    assert [row["rate"] for row in rows] == list(rates)
    assert [row["found_at"] for row in rows] == [DEFAULT_TARGET.baud] * 2


def test_a_class_streams_through_the_core_network_and_clock_asked_for():
    args = S.parse_args(["--classes", "10x10,30x30", "--core", "soc-deduce",
                         "--label-network", "fast", "--clock", "30x30=31.875"])
    large, small = S.stream_target((30, 30), args), S.stream_target((10, 10), args)
    assert (large.max_rows, large.max_cols, large.clock_hz) == (30, 30, 31_875_000)
    assert small.clock_hz == DEFAULT_TARGET.clock_hz          # no clock given for it
    for target in (large, small):
        assert (target.core, target.label_network) == ("soc-deduce", "fast")
    assert S.stream_target((10, 10)) == DEFAULT_TARGET
    # the clock from the evidence of each class's build (boards/evidence.json)
    from slitherlink.boards import evidence
    args = S.parse_args(["--classes", "30x30", "--core", "soc-deduce", "--label-network",
                         "fast", "--clock", "evidence"])
    target = S.stream_target((30, 30), args)
    record = evidence.find(target, evidence.load())
    assert target.clock_hz == evidence.board_clock("arty", record) <= \
        record["ulx3s"]["fmax_mhz"] * 1e6
    # the rates follow the clock: the fastest a 31.875 MHz build makes for the bridge
    assert S.offered(large)[0] <= S.offered(DEFAULT_TARGET)[0]


def test_a_full_queue_at_the_fastest_rate_loses_no_byte(corpus):
    """Ten 10x10 puzzles streamed at the default build's fastest rate, the device's queue
    kept full: the firmware takes the frames out of its UART's receive ring often enough
    (every 64 polls of the engine while it runs) that no byte is lost and no frame dropped (the
    device's own counters; the host's resends are not asserted: on a busy machine a slow
    answer may be asked for again)."""
    grid = (DEFAULT_TARGET.max_rows, DEFAULT_TARGET.max_cols)
    names = S.sample([grid], 10, seed=1)[grid]
    assert len(names) == 10
    fastest = S.offered(DEFAULT_TARGET)[0]
    (row,) = S.board_run(grid, names, [fastest], latency_count=1, log=lambda text: None)
    assert (row["rate"], row["n"]) == (fastest, 10)
    assert (row["rx_overruns"], row["frames_bad"]) == (0, 0)


def test_usage_errors(capsys):
    for argv in (["--classes", "0x3"], ["--rates", "fast"], ["--per-class", "0"],
                 ["--clock", "fast"], ["--clock", "30x30=0"], ["--core", "soc"]):
        with pytest.raises(SystemExit) as stop:
            S.parse_args(argv)
        assert stop.value.code == 2
    assert "error" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        S.parse_args(["--clock", "fast"])
    assert "--clock: bad clock 'fast'" in capsys.readouterr().err
    with pytest.raises(SystemExit):   # the default build's grid at 36x36: no evidence
        S.parse_args(["--classes", "36x36", "--clock", "evidence"])
    assert "--clock: no ECP5 evidence for soc-both 36x36" in capsys.readouterr().err
    # a rate the build's UART clock cannot make: the rates it offers, not a traceback
    with pytest.raises(SystemExit) as stop:   # a 24 MHz build: a 48 MHz UART clock
        S.parse_args(["--clock", "24", "--rates", "12000000"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--rates: 12,000,000 baud is not offered by the" in err and "48 MHz" in err
    assert "it offers 6,000,000, 4,000,000" in err


def _blocks():
    from slitherlink.bench.modes import BY_NAME
    yield from ((block, "slitherlink.bench.stream") for block in S.DOC_BLOCKS)
    yield "lossy", "slitherlink.bench.lossy"
    yield from ((mode, "slitherlink.bench.hardware") for mode in BY_NAME)


@pytest.mark.parametrize("section, writer", list(_blocks()))
def test_the_benchmark_page_has_every_block_a_benchmark_writes(section, writer):
    """docs/benchmark.md keeps the begin and end lines of each block a benchmark's
    --update-docs fills (an edit of the prose around them must not take them away)."""
    from slitherlink.bench.hardware import DOC_BEGIN, DOC_END, REPO
    page = (REPO / "docs" / "benchmark.md").read_text()
    assert DOC_BEGIN.format(section=section, writer=writer) in page
    assert DOC_END.format(section=section) in page
