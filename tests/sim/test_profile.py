"""The virtual board's profile (sim/vboard/profile.py, harness.cpp's --profile): every cycle
of a stamp interval counted at the address the CPU executes, and summed per firmware
function, on the small profiling build that other tests share (tests/sim/builds.py)."""

import subprocess
import time

import pytest

from slitherlink.boards.design import firmware_image
from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.sim.vboard import profile
from tests.conftest import HANG_SECONDS
from tests.sim import builds


@pytest.fixture(scope="module")
def elf():
    """The ELF of the small build's firmware."""
    return firmware_image(builds.small_target()).elf


def test_by_function_gives_each_address_to_its_function(elf):
    spans = {name: (start, end) for start, end, name in profile.functions(elf)}
    main, rx_take_frame = spans["main"][0], spans["rx_take_frame"][1] - 4
    outside = 0xFFFF_FFF0
    rows = profile.by_function({main: 5, main + 4: 3, rx_take_frame: 7, outside: 2}, elf)
    assert rows == [("main", 8), ("rx_take_frame", 7), (f"?{outside:08x}", 2)]
    text = profile.table(rows, per=2, top=2)
    assert "| `main` | 4 | 47.1 % |" in text
    assert "| (the 1 others) | 1 | 11.8 % |" in text
    assert text.endswith("| all | 8 | 100 % |")


def test_read_sums_the_lines_of_a_profile(tmp_path):
    path = tmp_path / "counts"
    path.write_text("00000010 5\n00000014 6\n")
    assert profile.read(path) == {0x10: 5, 0x14: 6}
    path.write_text("00000010\n")
    with pytest.raises(ValueError, match="counts:1"):
        profile.read(path)


#: cycles after which the firmware has long left its start code for its polling loop
BOOTED = 200_000


def test_a_stamp_interval_is_counted_cycle_for_cycle(tmp_path, elf):
    """Between two stamps every cycle is counted once, at an address of the firmware; an
    idle board spends them in its polling loop."""
    counts = tmp_path / "counts"
    with VirtualBoard("soc", build=builds.small(),
                      args=["--no-pause", "--profile", str(counts)]) as board:
        second = board.stamp()[0]
        while second < BOOTED:      # past the start code (start.S: .bss cleared)
            time.sleep(0.05)
            second = board.stamp()[0]
        time.sleep(0.05)
        third = board.stamp()[0]
        assert third > second
        found = profile.read(counts)
    assert sum(found.values()) == third - second
    rows = profile.by_function(found, elf)
    assert not [name for name, _ in rows if name.startswith("?")]
    assert rows[0][0] in {"main", "serve_poll", "rx_poll", "rx_drain", "rx_next", "baud_poll"}


def test_a_plain_build_refuses_to_profile():
    build = build_design("soc", quiet=True)
    run = subprocess.run([str(build.path), "--profile", "x"], capture_output=True, text=True,
                         timeout=HANG_SECONDS)
    assert run.returncode == 2
    assert "cannot profile" in run.stderr
