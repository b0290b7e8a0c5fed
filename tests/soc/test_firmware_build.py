"""The firmware build (hw.soc.build_firmware): generated headers, compilers, errors."""

import shutil
import subprocess
import sys

import pytest

from host import protocol
from hw import regmap, soc
from tests.conftest import REPO


def test_firmware_builds_with_generated_headers(tmp_path):
    image = soc.build_firmware(4, 5, out_dir=tmp_path)
    ram = soc.default_ram_size(4, 5)
    assert 1000 < len(image) < ram - soc.STACK_RESERVE
    include = tmp_path / "include"
    assert (include / "slk_regs.h").read_text() == regmap.c_header(
        base=soc.ACCEL_BASE, max_rows=4, max_cols=5)
    assert (include / "slk_protocol.h").read_text() == protocol.c_header()
    assert (include / "slk_soc.h").read_text() == soc.soc_header(ram_size=ram)
    # a second build with nothing changed is the cached image
    assert soc.build_firmware(4, 5, out_dir=tmp_path) == image
    # RV32I only: no compressed instructions (every instruction word ends in 0b11)
    first = int.from_bytes(image[:4], "little")
    assert first & 0b11 == 0b11


def test_gcc_is_optional_with_a_clear_message(tmp_path):
    if shutil.which("riscv64-unknown-elf-gcc") and shutil.which("riscv64-unknown-elf-objcopy"):
        assert soc.build_firmware(3, 3, cc_kind="gcc", out_dir=tmp_path)
    else:
        with pytest.raises(soc.FirmwareError, match="riscv64-unknown-elf-gcc"):
            soc.build_firmware(3, 3, cc_kind="gcc", out_dir=tmp_path)


def test_command_line_errors_are_one_line():
    run = subprocess.run([sys.executable, "-m", "hw.soc", "firmware", "--max-rows", "0"],
                         capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 1
    assert run.stderr.startswith("error: max_rows must be") and "Traceback" not in run.stderr
    with pytest.raises(soc.FirmwareError, match="unknown compiler"):
        soc.build_firmware(3, 3, cc_kind="tcc")
