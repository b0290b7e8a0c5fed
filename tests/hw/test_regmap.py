"""The register map (hw/regmap.py): generated docs and C header agree with the classes.

The header is also shown to drive the gateware in
tests/hw/test_accelerator.py::test_c_header_drives_the_hardware.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from hw import regmap
from hw.regmap import REGISTERS, c_header, markdown

REPO = Path(__file__).resolve().parents[2]


def defines(text):
    found = re.findall(r"^#define (SLK_\w+) (0x[0-9A-Fa-f]+|\d+)u$", text, re.M)
    names = [n for n, _ in found]
    assert len(names) == len(set(names)), "a name is defined twice"
    return {n: int(v, 0) for n, v in found}


def test_committed_register_doc_is_generated():
    """docs/registers.md is exactly hw.regmap.markdown() (regenerate: make registers-doc)."""
    assert (REPO / "docs" / "registers.md").read_text() == markdown()


def test_header_has_every_register_and_field():
    h = defines(c_header(base=0x40000000, max_rows=10, max_cols=10))
    assert h["SLK_BASE"] == 0x40000000 and h["SLK_MAX_ROWS"] == 10
    assert h["SLK_CELL_BASE"] == regmap.CELL_BASE and h["SLK_CELL_STRIDE"] == regmap.CELL_STRIDE
    for register in REGISTERS:
        name = regmap._c_name(register)
        assert h[f"SLK_{name}"] == register.address
        used = 0
        for f in register.fields:
            mask = h[f"SLK_{name}_{f.name.upper()}_MASK"]
            assert mask == ((1 << f.width) - 1) << f.offset
            assert h[f"SLK_{name}_{f.name.upper()}_SHIFT"] == f.offset
            assert not used & mask
            used |= mask
    # registers do not overlap each other or the cell window
    addresses = [r.address for r in REGISTERS if r is not regmap.Cell]
    assert len(set(addresses)) == len(addresses)
    assert max(addresses) < regmap.CELL_BASE <= regmap.WINDOW_SIZE <= 1 << 16
    assert regmap.cell_address(63, 63) + 4 == regmap.WINDOW_SIZE
    with pytest.raises(ValueError):
        regmap.cell_address(64, 0)


def test_pack_unpack_round_trip():
    word = regmap.Cell.pack(pattern=5, attribute=2, clue=3)
    assert regmap.Cell.unpack(word) == {"pattern": 5, "attribute": 2, "clue": 3, "s0": 0, "s1": 0}
    with pytest.raises(ValueError):
        regmap.Size.pack(rows=256)


def test_header_compiles(tmp_path):
    """The header is valid C for the firmware's compiler (zig cc, from PyPI)."""
    src = tmp_path / "t.c"
    (tmp_path / "slk_regs.h").write_text(c_header(base=0x40000000, max_rows=10, max_cols=10))
    src.write_text('#include "slk_regs.h"\n'
                   "unsigned f(void) { return SLK_CELL_ADDR(3, 4) + SLK_STATUS_CONFLICT_MASK"
                   " + slk_combinations[2]; }\n")
    result = subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target",
                             "riscv32-freestanding-none", "-c", "-o", "t.o", "-Wall", "-Werror",
                             "-ffreestanding", str(src)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
