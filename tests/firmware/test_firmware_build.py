"""The firmware build (firmware.build): generated headers, compilers, errors, the image."""

import gc
import shutil
import subprocess
import sys
import warnings

import pytest

from slitherlink.firmware import build as fw
from slitherlink.spec import generate
from slitherlink.spec import registers as regmap
from tests.conftest import REPO


def test_firmware_builds_with_generated_headers(tmp_path):
    image = fw.build_firmware(4, 5, out_dir=tmp_path)
    ram = fw.default_ram_size(4, 5)
    assert image.ram_size == ram
    assert 1000 < len(image) < ram - fw.STACK_RESERVE
    include = tmp_path / "include"
    for name, make in generate.HEADERS.items():
        assert (include / name).read_text() == make()
        # the committed copy is the same text (test_spec checks it is current)
        assert (REPO / "firmware" / "include" / name).read_text() == make()
    assert (include / "slk_build.h").read_text() == regmap.build_header(
        max_rows=4, max_cols=5, ram_size=ram)
    # a second build with nothing changed is the cached image
    assert fw.build_firmware(4, 5, out_dir=tmp_path) == image
    # RV32I only: no compressed instructions (every instruction word ends in 0b11)
    first = int.from_bytes(image[:4], "little")
    assert first & 0b11 == 0b11


def test_building_the_soc_runs_no_compiler(monkeypatch):
    """hw.soc.SoC takes the image; it never builds one (issue 11 item 3)."""
    from slitherlink.hw.soc import SoC
    from slitherlink.spec.target import Target

    def refuse(*args, **kwargs):
        raise AssertionError("the SoC ran a command")

    monkeypatch.setattr(subprocess, "run", refuse)
    with warnings.catch_warnings():  # the SoCs are never elaborated, on purpose
        warnings.simplefilter("ignore")
        target = Target(max_rows=3, max_cols=3)
        soc = SoC(target, firmware=fw.Image(bytes(64), 4096))
        assert soc.ram_size == 4096 and len(soc.firmware) == 64
        with pytest.raises(ValueError, match="ram_size"):
            SoC(target, firmware=bytes(64))
        with pytest.raises(TypeError):
            SoC(target)
        del soc
        gc.collect()


def test_gcc_is_optional_with_a_clear_message(tmp_path):
    if shutil.which("riscv64-unknown-elf-gcc") and shutil.which("riscv64-unknown-elf-objcopy"):
        assert fw.build_firmware(3, 3, cc_kind="gcc", out_dir=tmp_path)
    else:
        with pytest.raises(fw.FirmwareError, match="riscv64-unknown-elf-gcc"):
            fw.build_firmware(3, 3, cc_kind="gcc", out_dir=tmp_path)


def test_command_line_errors_are_one_line():
    run = subprocess.run([sys.executable, "-m", "slitherlink.firmware.build", "--max-rows", "0"],
                         capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 1
    assert run.stderr.startswith("error: max_rows must be") and "Traceback" not in run.stderr
    with pytest.raises(fw.FirmwareError, match="unknown compiler"):
        fw.build_firmware(3, 3, cc_kind="tcc")
