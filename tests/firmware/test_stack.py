"""The firmware's stack bound (firmware.stack), on small programs and on the firmware."""

import subprocess

import pytest

from slitherlink.firmware import build as fw
from slitherlink.firmware.stack import StackError, deepest, frames_and_calls

CHAIN = """
volatile int sink;
__attribute__((noinline)) int leaf(int x) { volatile int b[8]; b[x & 7] = x; return b[1]; }
__attribute__((noinline)) int mid(int x) { volatile int b[16]; b[x & 15] = leaf(x); return b[3] + leaf(x); }
int main(void) { return mid(sink); }
"""

RECURSION = """
volatile int sink;
int odd(int x);
__attribute__((noinline)) int even(int x) { volatile int b[4]; b[x & 3] = x; return x ? odd(x - 1) + b[1] : b[2]; }
__attribute__((noinline)) int odd(int x) { volatile int b[4]; b[x & 3] = x; return x ? even(x - 1) - b[1] : b[3]; }
int main(void) { return even(sink); }
"""

POINTER = """
volatile int sink;
__attribute__((noinline)) int one(int x) { return x + 1; }
__attribute__((noinline)) int two(int x) { return x + 2; }
int (*volatile pick)(int) = one;
int main(void) { if (sink) pick = two; return pick(sink); }
"""


def compiled(tmp_path, source):
    """The ELF of a small freestanding C program, compiled as the firmware is."""
    cc, _ = fw._compilers("zig")
    (tmp_path / "p.c").write_text(source)
    flags = [f for f in fw.CFLAGS if f != "-flto"]
    run = subprocess.run(cc + flags + ["-Wl,--entry=main", "-o", str(tmp_path / "p.elf"),
                                       str(tmp_path / "p.c")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return tmp_path / "p.elf"


def test_the_deepest_chain_is_its_frames_summed(tmp_path):
    elf = compiled(tmp_path, CHAIN)
    frames, calls = frames_and_calls(elf)
    assert calls["main"] == {"mid"} and calls["mid"] == {"leaf"}
    assert frames["leaf"] >= 8 * 4 and frames["mid"] >= 16 * 4   # their volatile arrays
    assert deepest(elf) == (frames["main"] + frames["mid"] + frames["leaf"],
                            ["main", "mid", "leaf"])


def test_recursion_has_no_bound(tmp_path):
    with pytest.raises(StackError, match="recursion: even -> odd -> even"):
        deepest(compiled(tmp_path, RECURSION))


def test_a_call_through_a_pointer_has_no_bound(tmp_path):
    with pytest.raises(StackError, match="through a register"):
        deepest(compiled(tmp_path, POINTER))


def test_the_firmware_s_deepest_calls_fit_its_reserve(tmp_path):
    fw.build_firmware(10, 10, out_dir=tmp_path)
    depth, chain = deepest(tmp_path / "firmware.elf")
    assert chain[0] == "main" and len(chain) > 3
    assert 0 < depth <= fw.STACK_RESERVE


def test_a_build_whose_stack_does_not_fit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(fw, "STACK_RESERVE", 16)
    with pytest.raises(fw.FirmwareError, match=r"deepest calls take \d+ bytes of stack \(main -> "):
        fw.build_firmware(4, 4, ram_size=32768, out_dir=tmp_path)
