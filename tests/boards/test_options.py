"""boards/options.py: the target's options, shared by make bitstream and make soc-verilog."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from slitherlink.boards import evidence
from slitherlink.boards.build import FIXTURES
from slitherlink.boards.options import add_target_options, target_from_args
from slitherlink.spec.target import DEFAULT_TARGET, default_target
from slitherlink.spec.uart import FAST_BAUD
from tests.conftest import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]


def parse(*argv, fixtures=FIXTURES):
    parser = argparse.ArgumentParser()
    add_target_options(parser, fixtures=fixtures)
    return target_from_args(parser.parse_args(argv))


def test_no_options_are_the_default_target():
    """make bitstream with no variables builds the default target: both modes, 10x10,
    band 1, the Arty's clock and label network."""
    assert parse() == (DEFAULT_TARGET, None)
    assert DEFAULT_TARGET.core == "soc-both" and DEFAULT_TARGET.band == 1
    assert (DEFAULT_TARGET.max_rows, DEFAULT_TARGET.max_cols) == (10, 10)


def test_a_board_s_defaults():
    target, _ = parse("--board", "ulx3s")
    assert target == default_target("ulx3s")
    assert target.label_network == "pairs" and target.core == DEFAULT_TARGET.core
    # wider rows take the board's network (spec.target.PAIRS_MAX_POINTS)
    assert parse("--board", "ulx3s", "--cols", "11")[0].label_network == "fast"
    assert parse("--cols", "11")[0].label_network == "small"


def test_every_option_reaches_the_target():
    target, fixture = parse("--core", "soc-deduce", "--rows", "36", "--cols", "20", "--band",
                            "2", "--label-network", "fast", "--trail-depth", "64",
                            "--clock", "37.5", "--fast-uart")
    assert fixture is None
    assert target == default_target("arty", core="soc-deduce", max_rows=36, max_cols=20,
                                    band=2, label_network="fast", trail_depth=64,
                                    clock_hz=37_500_000, baud=FAST_BAUD)


def test_a_build_without_a_clock_runs_at_what_its_evidence_supports():
    """Without --clock a build takes the largest clock its board makes within the ECP5
    evidence of the same core, grid, band and label network (as the default build does);
    a build without evidence, the board's clock; --clock wins."""
    records = evidence.load()
    with_evidence = [r for r in records if r.get("ulx3s") and r["band"] is not None
                     and evidence.board_clock("arty", r) != DEFAULT_TARGET.clock_hz]
    assert with_evidence, "boards/evidence.json has no deduce build at another clock"
    record = with_evidence[0]
    argv = ("--core", record["core"], "--rows", str(record["max_rows"]), "--cols",
            str(record["max_cols"]), "--band", str(record["band"]), "--label-network",
            record["label_network"])
    target, _ = parse(*argv)
    assert target.clock_hz == evidence.board_clock("arty", record) != DEFAULT_TARGET.clock_hz
    assert parse(*argv, "--clock", "20")[0].clock_hz == 20_000_000
    # a grid no build of the evidence has
    target, _ = parse("--core", "soc-deduce", "--rows", "7", "--cols", "9")
    assert evidence.find(target, records) is None
    assert target.clock_hz == DEFAULT_TARGET.clock_hz


def test_a_fixture_takes_the_grid_and_clock():
    target, fixture = parse("--core", "accelerator", "--rows", "4", "--cols", "6")
    assert fixture == "accelerator" and (target.max_rows, target.max_cols) == (4, 6)
    assert target.clock_hz == DEFAULT_TARGET.clock_hz


def test_fixtures_are_only_where_offered():
    with pytest.raises(SystemExit):
        parse("--core", "loopback", fixtures=())


@pytest.mark.parametrize("argv, message", [
    (("--core", "soc", "--band", "2"), "--band is for the cores with the deduction engine"),
    (("--core", "soc", "--trail-depth", "8"), "--trail-depth is for the cores"),
    (("--band", "13"), "band must be an integer from 1 to 12"),
    (("--clock", "-5"), "--clock must be a positive number of MHz"),
    (("--clock", "nan"), "--clock must be a positive number of MHz"),
    (("--fast-uart", "--baud", "9600"), "--fast-uart is 1000000 baud"),
    (("--baud", "0"), "baud rate must be a positive integer"),
])
def test_bad_options_are_one_line(argv, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")) as error:
        parse(*argv)
    assert "\n" not in str(error.value)


def test_soc_verilog_takes_the_same_options():
    """boards.verilog refuses what make bitstream refuses, with one line (and no fixtures)."""
    run = lambda *argv: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "slitherlink.boards.verilog", *argv, "--out", "/dev/null"],
        capture_output=True, text=True, cwd=REPO, timeout=HANG_SECONDS)
    r = run("--core", "soc", "--band", "2")
    assert r.returncode == 1 and r.stderr.count("\n") == 1
    assert "--band is for the cores with the deduction engine" in r.stderr
    r = run("--core", "loopback")
    assert r.returncode == 2 and "invalid choice: 'loopback'" in r.stderr
