"""boards/evidence.py: the evidence an Arty clock needs (the ECP5's post-route Fmax of the
same build), the boards' default clocks chosen from it, and the table of builds in
docs/boards.md generated from the builds' summaries."""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from slitherlink.boards import board_support, evidence
from slitherlink.boards.build import FIXTURES
from slitherlink.boards.options import add_target_options, target_from_args
from slitherlink.spec.target import ARTY, DEFAULT_TARGET, ULX3S, default_target, mhz
from tests.conftest import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]


def ecp5_summary(target, fmax, **changes):
    """A summary.json of a ULX3S build of ``target`` as boards.build writes it."""
    summary = {"board": "ulx3s", "core": target.core, "target": target.as_dict(),
               "source": {"commit": "abc1234", "uncommitted_changes": False},
               "utilisation": {"LUT": 20000, "FF": 6000, "EBR": 30, "DSP": 0, "RAMW": 0},
               "fmax_worst_mhz": fmax, "timing_met": fmax >= target.clock_hz / 1e6,
               "seed": 1, "pnr_opts": "", "hide_names": False, "synth_opts": ""}
    summary.update(changes)
    return summary


def arty_summary(target, luts=12000):
    return {"board": "arty", "core": target.core, "target": target.as_dict(),
            "source": {"commit": "def5678", "uncommitted_changes": True},
            "utilisation": {"LUT": luts, "FF": 6400, "BRAM36": 11.5, "DSP": 0},
            "place_and_route": None}


# --- the check -------------------------------------------------------------------------------

def test_an_arty_clock_without_evidence_is_refused():
    with pytest.raises(evidence.ClockUnsupported, match="no evidence") as error:
        evidence.check_clock(DEFAULT_TARGET, [])
    message = str(error.value)
    assert "\n" not in message and "--force-clock" in message
    assert "make bitstream BOARD=ulx3s CORE=soc-both ROWS=10 COLS=10 BAND=1 " \
           "LABEL_NETWORK=pairs" in message


def test_an_arty_clock_above_the_ecp5_fmax_is_refused():
    target = DEFAULT_TARGET.replace(clock_hz=40_000_000)
    records = evidence.add([], ecp5_summary(target, 38.48))
    with pytest.raises(evidence.ClockUnsupported, match="above the 38.48 MHz") as error:
        evidence.check_clock(target, records)
    # it names the largest clock the MMCM makes within the evidence (with the UART's at
    # twice it)
    assert "CLOCK=38.28125," in str(error.value)
    evidence.check_clock(target.replace(clock_hz=38_281_250), records)
    # the evidence of another build is no evidence
    with pytest.raises(evidence.ClockUnsupported, match="no evidence"):
        evidence.check_clock(target.replace(label_network="fast", clock_hz=25_000_000), records)


def test_the_ulx3s_checks_its_own_timing():
    evidence.check_clock(default_target("ulx3s", clock_hz=100_000_000), [])


def test_the_build_refuses_at_once_with_exit_2(tmp_path):
    """make bitstream of a build without evidence: one line, exit 2, nothing written."""
    out = tmp_path / "arty"
    r = subprocess.run([sys.executable, "-m", "slitherlink.boards.build", "--rows", "2",
                        "--cols", "2", "--build-dir", str(out)],
                       capture_output=True, text=True, cwd=REPO, timeout=HANG_SECONDS)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "no evidence for an Arty clock" in r.stderr
    assert not out.exists()


def test_the_build_refuses_a_clock_above_the_evidence(tmp_path):
    record = evidence.find(DEFAULT_TARGET, evidence.load())
    fmax = record["ulx3s"]["fmax_mhz"] * 1e6
    above = board_support("arty").largest_clock(fmax * 1.3)
    assert above > fmax
    r = subprocess.run([sys.executable, "-m", "slitherlink.boards.build", "--clock",
                        f"{above / 1e6:g}", "--build-dir", str(tmp_path / "arty")],
                       capture_output=True, text=True, cwd=REPO, timeout=HANG_SECONDS)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"above the {fmax / 1e6:.2f} MHz" in r.stderr


# --- the default clocks -----------------------------------------------------------------------

def test_the_default_clocks_are_the_evidence_s():
    """Each board's default clock is the largest its clocking makes within the evidence of
    its default build: the Arty's up to the ECP5's Fmax, the ULX3S's 5 % below it."""
    records = evidence.load()
    for board in (ARTY, ULX3S):
        record = evidence.find(default_target(board.name), records)
        assert record is not None and record.get("ulx3s"), f"no evidence for {board.name}"
        assert board.clock_hz == evidence.board_clock(board.name, record), board.name
    assert evidence.MARGIN == {"arty": 1.0, "ulx3s": 1.05}
    evidence.check_clock(DEFAULT_TARGET, records)


# --- adding builds, the table ------------------------------------------------------------

def test_builds_add_to_one_record_and_replace_their_board_s_numbers():
    target = default_target("arty", core="soc-deduce", max_rows=36, max_cols=20)
    records = evidence.add([], ecp5_summary(target, 25.7))
    records = evidence.add(records, arty_summary(target))
    (record,) = records
    assert record["core"] == "soc-deduce" and record["band"] == 1
    assert record["ulx3s"]["fmax_mhz"] == 25.7 and record["arty"]["LUT"] == 12000
    assert record["arty"]["local_changes"] is True
    (record,) = evidence.add(records, ecp5_summary(target, 27.1))
    assert record["ulx3s"]["fmax_mhz"] == 27.1 and record["arty"]["LUT"] == 12000
    # a paper-only SoC has no band or label network in its key
    paper = DEFAULT_TARGET.replace(deduce=False)
    records = evidence.add(records, ecp5_summary(paper, 59.6))
    assert [(r["core"], r["band"], r["label_network"]) for r in records] == \
        [("soc", None, None), ("soc-deduce", 1, "small")]


def test_a_fixture_or_an_unrouted_build_is_no_evidence():
    with pytest.raises(ValueError, match="not a SoC"):
        evidence.add([], {**ecp5_summary(DEFAULT_TARGET, 30.0), "core": "loopback"})
    with pytest.raises(ValueError, match="no post-route Fmax"):
        evidence.add([], ecp5_summary(DEFAULT_TARGET, 30.0, fmax_worst_mhz=None))


def test_the_table_rows():
    both = DEFAULT_TARGET.replace(clock_hz=25_000_000)
    big = default_target("arty", core="soc-deduce", max_rows=20, max_cols=36)
    records = evidence.add([], ecp5_summary(both, 38.48))
    records = evidence.add(records, arty_summary(both))
    records = evidence.add(records, arty_summary(big, luts=22837))
    text = evidence.table(records)
    lines = text.splitlines()
    assert len(lines) == 4 and lines[0].startswith("| core | grid |")
    row = next(line for line in lines if line.startswith("| soc-both | 10x10 | 1, pairs |"))
    assert ("| 20,000 (23.9 %) | 6,000 | 30 | **38.48 MHz** (25 MHz asked; UART clock not "
            "measured;") in row
    assert "abc1234)" in row and "| 12,000 (57.7 %; def5678 + local changes) |" in row
    record = evidence.find(both, records)
    arty_clock = evidence.board_clock("arty", record) / 1e6
    ulx3s_clock = evidence.board_clock("ulx3s", record) / 1e6
    assert arty_clock == 38.28125 and ulx3s_clock == 35
    # each board's default clock where the evidence supports it, else the CLOCK= it does
    for board, clock in ((ARTY, arty_clock), (ULX3S, ulx3s_clock)):
        used = board.clock_hz / 1e6 if board.clock_hz / 1e6 <= clock else clock
        assert f"| {mhz(round(used * 1e6))} MHz" in row
    row = next(line for line in lines if line.startswith("| soc-deduce | 20x36 |"))
    assert "no evidence" in row and "22,837 (109.8 %, over 80 %;" in row


def test_the_docs_table_is_current():
    docs = (REPO / "docs" / "boards.md").read_text()
    assert evidence.with_table(docs, evidence.load()) == docs, \
        "docs/boards.md's table of builds is stale: run python -m slitherlink.boards.evidence"


def test_the_readme_s_paragraph_on_the_default_build_is_current():
    readme = (REPO / "README.md").read_text()
    assert evidence.with_default_build(readme, evidence.load()) == readme, \
        "README.md's paragraph on the default build is stale: run python -m " \
        "slitherlink.boards.evidence"


def test_the_readme_s_paragraph_says_what_the_evidence_holds():
    """The default build's figures, from its record: its XC7A35T LUTs and share, its ECP5
    Fmax, each board's clock; without ECP5 evidence it says so."""
    arty = evidence.add([], arty_summary(DEFAULT_TARGET, luts=10_400))
    text = " ".join(evidence.default_build(evidence.add(
        arty, ecp5_summary(DEFAULT_TARGET, 61.3))).split())
    assert "10,400 LUTs of the XC7A35T, 50.0 % (6,400 FFs, 11.5 RAMB36" in text
    assert "def5678 + local changes" in text
    assert "**61.30 MHz**" in text and f"**{mhz(ARTY.clock_hz)} MHz**" in text
    assert "not reached" not in text   # above the paper's 50 MHz
    text = " ".join(evidence.default_build(evidence.add(
        arty, ecp5_summary(DEFAULT_TARGET, 45.0))).split())
    assert "The paper's 50 MHz is not reached by this build." in text
    text = " ".join(evidence.default_build([]).split())
    assert "no ECP5 post-route Fmax yet" in text and "LUTs" not in text


def test_the_command_adds_summaries_and_rewrites_the_table(tmp_path):
    store, docs = tmp_path / "evidence.json", tmp_path / "boards.md"
    readme = tmp_path / "README.md"
    evidence.save([], store)
    docs.write_text(f"# Boards\n\n{evidence.BEGIN}\nold\n{evidence.END}\n\nmore text\n")
    readme.write_text(f"# Read me\n{evidence.README_BEGIN}\nold\n{evidence.README_END}\nend\n")
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps(ecp5_summary(DEFAULT_TARGET, 38.48)))
    command = [sys.executable, "-m", "slitherlink.boards.evidence", "--evidence", str(store),
               "--docs", str(docs), "--readme", str(readme)]
    r = subprocess.run([*command, "--check"], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert r.returncode == 1 and "not current" in r.stderr
    r = subprocess.run([*command, "--add", str(summary)], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert r.returncode == 0, r.stderr
    (record,) = evidence.load(store)
    assert record["ulx3s"]["fmax_mhz"] == 38.48
    text = docs.read_text()
    assert "old" not in text and "**38.48 MHz**" in text and text.endswith("\nmore text\n")
    text = readme.read_text()
    assert "old" not in text and "**38.48 MHz**" in text and text.endswith("\nend\n")
    r = subprocess.run([*command, "--check"], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert r.returncode == 0, r.stderr
    summary.write_text("{}")
    r = subprocess.run([*command, "--add", str(summary)], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and str(summary) in r.stderr


def test_the_uart_clock_bounds_the_design_clock_with_the_same_margin():
    """A build routed with both clocks: its evidence is the fastest design clock at which
    both meet timing, so a UART clock slower than twice the design clock's Fmax bounds
    both boards' clocks (the ULX3S's 5 % below it, the Arty's at it)."""
    target = DEFAULT_TARGET.replace(clock_hz=40_000_000)
    slow_uart = ecp5_summary(target, 38.0, clock_fmax_mhz={"sync": 45.0, "uart": 76.0})
    record = evidence.find(target, evidence.add([], slow_uart))
    assert record["ulx3s"]["uart_fmax_mhz"] == 76.0 and record["ulx3s"]["fmax_mhz"] == 38.0
    assert evidence.board_clock("arty", record) == 38_000_000
    assert evidence.board_clock("ulx3s", record) <= 38e6 / 1.05
    assert "UART clock 76.00 MHz" in evidence.table([record])


# --- the builds the docs show ----------------------------------------------------------------

#: the pages whose commands a user copies
COMMAND_PAGES = ("README.md", "docs/boards.md", "docs/deduce.md", "docs/soc.md", "docs/host.md")


def _documented_builds():
    """``{command: page}`` of every ``make bitstream ...`` and ``python -m
    slitherlink.boards.build ...`` the pages show (in a code block or in backticks), but
    for a synopsis (``--board arty|ulx3s``)."""
    pattern = re.compile(r"(make bitstream(?:[ \t]+[A-Z_]+=[^\s`#]+)*|python -m "
                         r"slitherlink\.boards\.build(?:[ \t]+[^\s`#]+)*)")
    commands = {}
    for page in COMMAND_PAGES:
        for line in (REPO / page).read_text().splitlines():
            for command in pattern.findall(line):
                if "|" not in command:
                    commands.setdefault(" ".join(command.split()), page)
    return commands


def _build_options(command):
    """The options of ``boards.build`` that ``command`` runs with, as make passes them
    (``make -n``: the Makefile says how its variables become options)."""
    if command.startswith("python"):
        return command.split()[3:]
    variables = command.split()[2:]
    r = subprocess.run(["make", "-s", "-n", "-C", str(REPO), "bitstream", *variables],
                       capture_output=True, text=True, timeout=HANG_SECONDS)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if "-m slitherlink.boards.build" in x]
    return line.split("-m slitherlink.boards.build", 1)[1].split()


def test_every_build_the_docs_show_has_a_clock_its_evidence_supports():
    """What a user copies from the pages builds: a build given no clock takes the one its
    evidence supports (boards/options.py), so each must have ECP5 evidence (else the Arty
    refuses it, and the ULX3S tries the default build's clock), unless the command forces
    the clock or names one."""
    records, checked, refused = evidence.load(), [], []
    for command, page in _documented_builds().items():
        options = _build_options(command)
        if any(o in options for o in ("--clock", "--force-clock")):
            continue
        parser = argparse.ArgumentParser()
        add_target_options(parser, fixtures=FIXTURES)
        args, _ = parser.parse_known_args(options)
        target, fixture = target_from_args(args)
        if fixture:
            continue
        checked.append(target.board)
        try:
            evidence.check_clock(target, records)
            if not (evidence.find(target, records) or {}).get(ULX3S.name):
                raise evidence.ClockUnsupported(f"no ECP5 evidence for {target}")
        except evidence.ClockUnsupported as error:
            refused.append(f"{page}: {command}: {error}")
    # the default build, CORE=soc, the 36x20 build, the ULX3S's, ...
    assert checked.count(ARTY.name) >= 3 and checked.count(ULX3S.name) >= 3, checked
    assert not refused, "\n".join(refused)
