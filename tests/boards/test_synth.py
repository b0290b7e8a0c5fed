"""boards/synth.py: the one synthesis path's reading of yosys's statistics and timing, the
blocks' table, and the block report's command line.  (The path itself runs in
test_boards.py's Arty build, the only slow synthesis of the tests.)"""

import subprocess
import sys
from pathlib import Path

from slitherlink.boards import reports
from slitherlink.boards.synth import BlockResult, Synthesis, markdown_table
from slitherlink.spec.target import ARTY
from tests.conftest import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]

# `stat -json` of the accelerator at 10x10 (cell counts as yosys 0.70 printed them)
STAT = {"design": {"num_cells_by_type": {
    "$scopeinfo": 4, "CARRY4": 42, "FDRE": 3141, "FDSE": 206, "LUT2": 533, "LUT3": 485,
    "LUT4": 656, "LUT5": 1033, "LUT6": 795, "MUXF7": 4, "MUXF8": 2, "RAMB18E1": 1,
    "RAM64M": 3, "SRL16E": 2}}}

STA = """
Latest arrival time in 'slk_accelerator' is 2948:
    2948 (<unknown>)
    2948 $abc$1 (LUT5.I2->O)
    2541 $abc$2 (LUT6.I0->O)
    1133 $abc$3 (CARRY4.CI->CO[3])
     472 $abc$4 (LUT4.I0->O)
       0   \\bus__wstrb [3] (<primary input>)
"""


def test_block_result_from_a_synthesis():
    u = reports.xilinx_utilisation(STAT, ARTY.capacity)
    r = BlockResult("accelerator", 10, 10)
    r.measured(Synthesis(u, reports.yosys_sta(STA), 12.5))
    # LUTs as logic; LUT RAM (3 RAM64M of 4 LUTs, 2 shift registers of 1) apart
    assert (r.luts, r.lutram, r.ffs, r.carry, r.muxf, r.bram) == (3502, 14, 3347, 42, 6, 0.5)
    assert (r.levels, r.delay_ns, r.seconds) == (3, 2.948, 12.5)
    table = markdown_table([r])
    assert "| accelerator | 10x10 | 3,502 | 16.8 % | 3,347 | 0.5 + 14 LUT RAM |" in table
    assert "| 3 | 2.95 ns |" in table and "paper Table 7" in table


def test_sta_without_a_path():
    assert reports.yosys_sta("no timing here") is None


def test_a_failed_block_is_a_row():
    r = BlockResult("deduce", 20, 36, error="ERROR: out of memory")
    assert "| deduce | 20x36 | failed: ERROR: out of memory |" in markdown_table([r])


def test_bad_size_is_one_line():
    for bad in ("10by10", "0x5", "65x2"):
        result = subprocess.run([sys.executable, "-m", "slitherlink.boards.synth", "--sizes", bad],
                                capture_output=True, text=True, cwd=REPO, timeout=HANG_SECONDS)
        assert result.returncode == 2
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, \
            result.stderr


def test_unknown_block_is_refused():
    result = subprocess.run([sys.executable, "-m", "slitherlink.boards.synth", "--block",
                             "nonesuch"], capture_output=True, text=True, cwd=REPO,
                            timeout=HANG_SECONDS)
    assert result.returncode == 2 and "invalid choice: 'nonesuch'" in result.stderr
