"""Build the SoC's C firmware: ``python -m slitherlink.firmware.build --max-rows 10 --max-cols 10``.

The firmware (``firmware/src``, ``firmware/start.S``, ``firmware/link.ld``) is
freestanding C for RV32I.  Its headers come from the specification: the
committed ``firmware/include/*.h`` (:mod:`spec.generate`) are written afresh
into the build's private include directory, together with the build's own
``slk_build.h`` (grid size, RAM size) and the linker's ``slk_memory.ld``.
The image is what :class:`hw.soc.SoC` takes: :func:`build_firmware` returns
it as :class:`Image`, bytes that also know the RAM size they were linked for.

Builds are cached in ``build/firmware/<R>x<C>-<ram>-<cc>`` by a hash of the
sources, the generated headers and the command.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from slitherlink.paths import build_root
from slitherlink.firmware.elf import symbol
from slitherlink.firmware.stack import StackError, deepest
from slitherlink.spec import generate
from slitherlink.spec.registers import (RAM_GRANULE, STACK_RESERVE, build_header,
                                        check_build_size, linker_memory)

__all__ = ["Image", "FirmwareError", "build_firmware", "default_ram_size", "symbol",
           "STACK_RESERVE", "CFLAGS", "FIRMWARE_DIR", "main"]

FIRMWARE_DIR = Path(__file__).resolve().parent
CFLAGS = ["-Os", "-flto", "-g", "-fno-jump-tables", "-fomit-frame-pointer", "-ffreestanding",
          "-nostdlib", "-fno-builtin", "-Wall", "-Wextra", "-std=c11"]
#: RAM of the provisional build that measures the firmware.
_MEASURE_RAM = 1 << 20


class FirmwareError(RuntimeError):
    """The firmware could not be built; ``str()`` is one line for the user."""


class Image(bytes):
    """A firmware RAM image; ``ram_size`` is the RAM it was linked for (its stack at the top);
    ``elf`` the ELF file it was made from (its symbols), when built here."""

    def __new__(cls, data, ram_size, elf=None):
        image = super().__new__(cls, data)
        image.ram_size = ram_size
        image.elf = elf
        return image


def _compilers(cc_kind):
    if cc_kind == "zig":
        zig = [sys.executable, "-m", "ziglang"]
        try:
            import ziglang  # noqa: F401
        except ImportError:
            raise FirmwareError("the firmware's default compiler is ziglang (PyPI): "
                                "run 'make setup'") from None
        return (zig + ["cc", "-target", "riscv32-freestanding-none", "-mcpu=generic_rv32",
                       "-Werror"], zig + ["objcopy"])
    if cc_kind == "gcc":
        gcc = shutil.which("riscv64-unknown-elf-gcc")
        objcopy = shutil.which("riscv64-unknown-elf-objcopy")
        if not gcc or not objcopy:
            raise FirmwareError("CC_KIND=gcc needs riscv64-unknown-elf-gcc and "
                                "riscv64-unknown-elf-objcopy on PATH (Debian: apt install "
                                "gcc-riscv64-unknown-elf); the default CC_KIND=zig needs none")
        return [gcc, "-march=rv32i", "-mabi=ilp32", "-nostartfiles"], [objcopy]
    raise FirmwareError(f"unknown compiler kind {cc_kind!r}: choose zig or gcc")


def _sources():
    return sorted((FIRMWARE_DIR / "src").glob("*.c")) + [FIRMWARE_DIR / "start.S"]


def default_ram_size(max_rows, max_cols, *, cc_kind="zig"):
    """The smallest whole number of :data:`spec.registers.RAM_GRANULE` blocks that holds
    the firmware's code, data and per-level arrays for this grid plus
    :data:`STACK_RESERVE` bytes of stack.

    Measured on a provisional build of the firmware (cached like every build), so
    the SoC, ``make firmware`` and the boards agree without a table; 20 KiB for
    a 10x10 build, 36 KiB for a 36x20 one.
    """
    end = _build(max_rows, max_cols, ram_size=_MEASURE_RAM, cc_kind=cc_kind, out_dir=None)[1]
    return -(-(end + STACK_RESERVE) // RAM_GRANULE) * RAM_GRANULE


def build_firmware(max_rows=10, max_cols=10, *, ram_size=None, cc_kind="zig", out_dir=None):
    """Build the firmware for a ``max_rows`` x ``max_cols`` SoC; returns the :class:`Image`.

    ``ram_size`` defaults to :func:`default_ram_size`.  The headers are written
    first into ``out_dir/include``; ``out_dir`` defaults to
    ``build/firmware/<R>x<C>-<ram>-<cc>``.  The build runs in a private
    directory and its results are moved in at the end, so parallel builds of
    the same firmware do not collide.
    """
    check_build_size(max_rows, max_cols)
    _compilers(cc_kind)
    ram_size = ram_size or default_ram_size(max_rows, max_cols, cc_kind=cc_kind)
    data, _, elf = _build(max_rows, max_cols, ram_size=ram_size, cc_kind=cc_kind,
                          out_dir=out_dir)
    return Image(data, ram_size, elf)


def generated_files(max_rows, max_cols, *, ram_size):
    """``{name: text}`` of every generated file the compiler reads."""
    files = {name: make() for name, make in generate.HEADERS.items()}
    files["slk_build.h"] = build_header(max_rows=max_rows, max_cols=max_cols, ram_size=ram_size)
    files["slk_memory.ld"] = linker_memory(ram_size=ram_size)
    return files


def _build(max_rows, max_cols, *, ram_size, cc_kind, out_dir):
    """``(image bytes, end of .bss, the ELF's path)``; see :func:`build_firmware`."""
    check_build_size(max_rows, max_cols)
    cc, objcopy = _compilers(cc_kind)
    out_dir = Path(out_dir or build_root() / "firmware"
                   / f"{max_rows}x{max_cols}-{ram_size}-{cc_kind}")
    out_dir.mkdir(parents=True, exist_ok=True)
    generated = generated_files(max_rows, max_cols, ram_size=ram_size)
    # rebuild only when a source, a generated header or the command changed
    digest = hashlib.sha256(repr((cc, CFLAGS)).encode())
    for path in _sources() + [FIRMWARE_DIR / "link.ld"] + sorted((FIRMWARE_DIR / "src").glob("*.h")):
        digest.update(path.name.encode() + path.read_bytes())
    for name, text in generated.items():
        digest.update(name.encode() + text.encode())
    digest = digest.hexdigest()
    stamp, image, elf_out = out_dir / "slitherlink.firmware.sha256", out_dir / "firmware.bin", \
        out_dir / "firmware.elf"
    if stamp.exists() and image.exists() and elf_out.exists() and stamp.read_text() == digest:
        return image.read_bytes(), symbol(elf_out, "__bss_end"), elf_out

    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".build-") as tmp:
        tmp = Path(tmp)
        (tmp / "include").mkdir()
        for name, text in generated.items():
            (tmp / "include" / name).write_text(text)
        elf = tmp / "firmware.elf"
        command = cc + CFLAGS + [f"-I{tmp / 'include'}", f"-I{FIRMWARE_DIR / 'src'}",
                                 "-T", str(FIRMWARE_DIR / "link.ld"),
                                 "-Wl,--gc-sections", "-ffunction-sections", "-fdata-sections",
                                 "-o", str(elf)] + [str(p) for p in _sources()]
        if cc_kind == "zig":
            env = dict(os.environ)
            env.setdefault("ZIG_LOCAL_CACHE_DIR", str(tmp / "zig-local"))
        else:
            env = None
        # link.ld INCLUDEs the generated slk_memory.ld, found in the working directory
        run = subprocess.run(command, capture_output=True, text=True, env=env,
                             cwd=tmp / "include")
        if run.returncode:
            raise FirmwareError(f"firmware compilation failed ({' '.join(cc[:4])} ...):\n"
                                f"{run.stderr.strip()}")
        binary = tmp / "firmware.bin"
        run = subprocess.run(objcopy + ["-O", "binary", str(elf), str(binary)],
                             capture_output=True, text=True, env=env)
        if run.returncode:
            raise FirmwareError(f"objcopy failed: {run.stderr.strip()}")
        data = binary.read_bytes()
        end = symbol(elf, "__bss_end")
        if end is None:
            raise FirmwareError(f"the firmware {elf} has no __bss_end symbol (see firmware/link.ld)")
        if end + STACK_RESERVE > ram_size:
            raise FirmwareError(f"the firmware needs {end} bytes of RAM plus {STACK_RESERVE} "
                                f"of stack, more than the {ram_size} bytes of the SoC: pass a "
                                f"larger ram_size")
        try:
            depth, chain = deepest(elf)
        except StackError as error:
            raise FirmwareError(f"the firmware's stack cannot be bounded: {error}") from None
        if depth > STACK_RESERVE:
            raise FirmwareError(f"the firmware's deepest calls take {depth} bytes of stack "
                                f"({' -> '.join(chain)}), more than STACK_RESERVE "
                                f"({STACK_RESERVE}, spec/registers.py)")
        target = out_dir / "include"
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(tmp / "include", target, dirs_exist_ok=True)
        for name in ("firmware.elf", "firmware.bin"):
            os.replace(tmp / name, out_dir / name)
        stamp_tmp = tmp / "stamp"
        stamp_tmp.write_text(digest)
        os.replace(stamp_tmp, stamp)
    return data, end, out_dir / "firmware.elf"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.firmware.build",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--max-rows", type=int, default=10)
    parser.add_argument("--max-cols", type=int, default=10)
    parser.add_argument("--ram-size", type=int, default=None)
    parser.add_argument("--cc", choices=("zig", "gcc"), default="zig",
                        help="cross compiler (default: zig, from PyPI)")
    parser.add_argument("--out", default=None, help="output directory")
    args = parser.parse_args(argv)
    try:
        image = build_firmware(args.max_rows, args.max_cols, ram_size=args.ram_size,
                               cc_kind=args.cc, out_dir=args.out)
    except (FirmwareError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"firmware for {args.max_rows}x{args.max_cols}: {len(image)} bytes "
          f"(RAM {image.ram_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
