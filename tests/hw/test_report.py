"""hw/report.py: parsing of yosys's statistics and timing, and its command line."""

import subprocess
import sys
from pathlib import Path

from slitherlink.hw.report import Result, _parse_sta, _parse_stat, markdown_table

REPO = Path(__file__).resolve().parents[2]

STAT = """
=== slk_accelerator ===
     3730 cells
        4   $scopeinfo
       42   CARRY4
     3141   FDRE
      206   FDSE
      533   LUT2
      485   LUT3
      656   LUT4
     1033   LUT5
      795   LUT6
        4   MUXF7
        2   MUXF8
        1   RAMB18E1
"""

STA = """
Latest arrival time in 'slk_accelerator' is 2948:
    2948 (<unknown>)
    2948 $abc$1 (LUT5.I2->O)
    2541 $abc$2 (LUT6.I0->O)
    1133 $abc$3 (CARRY4.CI->CO[3])
     472 $abc$4 (LUT4.I0->O)
       0   \\bus__wstrb [3] (<primary input>)
"""


def test_parse_stat_and_sta():
    r = Result("accelerator", 10, 10)
    _parse_stat(STAT, r)
    _parse_sta(STA, r)
    assert (r.luts, r.ffs, r.carry, r.muxf, r.bram) == (3502, 3347, 42, 6, 0.5)
    assert (r.levels, r.delay_ns) == (3, 2.948)
    table = markdown_table([r])
    assert "| accelerator | 10x10 | 3,502 | 16.8 % | 3,347 |" in table
    assert "paper Table 7" in table


def test_bad_size_is_one_line():
    for bad in ("10by10", "0x5", "65x2"):
        result = subprocess.run([sys.executable, "-m", "slitherlink.hw.report", "--sizes", bad],
                                capture_output=True, text=True, cwd=REPO, timeout=120)
        assert result.returncode == 2
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, \
            result.stderr
