"""The system on chip of the paper's Fig. 7: a soft CPU, its firmware, a UART and the solver.

The paper's MIPS soft processor runs the search (section 3.1, Figs. 8-10) and
checks each step with the hardware solver mapped into its memory space; ours
is PicoRV32 (from the ``pythondata-cpu-picorv32`` package, used in place),
block RAM holding the C firmware (``firmware/``, baked in at build time), a
UART to the host (:mod:`hw.uart`, protocol :mod:`host.protocol`), a
free-running 64-bit cycle counter and the accelerator
(:class:`hw.accelerator.Accelerator`).  docs/soc.md describes the memory map.

API for boards and simulators::

    soc = SoC(max_rows=10, max_cols=10, clock_hz=100_000_000, baud=115200)
    # ports: uart_rx (in), uart_tx (out), trap (out); clock and reset: the sync domain
    verilog, extra_files = soc_verilog(max_rows=10, max_cols=10, clock_hz=..., baud=...)
    firmware = build_firmware(10, 10)          # bytes of the RAM image

``python -m hw.soc firmware --max-rows 10 --max-cols 10`` builds the firmware;
``python -m hw.soc verilog ...`` writes the Verilog top ``slk_soc``.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from amaranth import C, Cat, ClockSignal, Instance, Module, ResetSignal, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from . import bus, regmap
from .uart import UART, REGISTERS as UART_REGISTERS, STATUS_BITS, DATA_EMPTY, divisor_for

__all__ = ["SoC", "Ram", "SysCtl", "soc_verilog", "soc_header", "build_firmware",
           "FirmwareError", "picorv32_source", "RAM_BASE", "UART_BASE", "SYSCTL_BASE",
           "ACCEL_BASE", "SYSCTL_REGISTERS", "TOP_NAME", "default_ram_size"]

REPO = Path(__file__).resolve().parent.parent
FIRMWARE_DIR = REPO / "firmware"

#: The memory map (byte addresses); regions are decoded on address bits 31:28.
RAM_BASE = 0x0000_0000
UART_BASE = 0x1000_0000
SYSCTL_BASE = 0x1000_1000
ACCEL_BASE = 0x2000_0000

#: SysCtl registers (byte offsets), all read-only.
SYSCTL_REGISTERS = {
    "CYCLES_LO": 0x00,   # the cycle counter's low word; reading it latches the high word
    "CYCLES_HI": 0x04,   # the high word as latched by the last CYCLES_LO read
    "CLOCK_HZ": 0x08,    # the build's clock frequency
    "BAUD": 0x0C,        # the build's UART baud rate
    "UART_DIVISOR": 0x10,  # clock cycles per UART bit
    "RAM_SIZE": 0x14,    # bytes of RAM
}

#: Name of the Verilog top module.
TOP_NAME = "slk_soc"
#: Default build parameters.
DEFAULT_CLOCK_HZ = 100_000_000
DEFAULT_BAUD = 115_200


def picorv32_source():
    """Path of ``picorv32.v`` inside the installed ``pythondata-cpu-picorv32`` package."""
    try:
        import pythondata_cpu_picorv32 as package
    except ImportError:
        raise FirmwareError("the SoC needs the Python package pythondata-cpu-picorv32: "
                            "run 'make setup'") from None
    return Path(package.data_location) / "picorv32.v"


#: RAM of the provisional build that measures the firmware.
_MEASURE_RAM = 1 << 20


def default_ram_size(max_rows, max_cols, *, cc_kind="zig"):
    """The smallest power of two (at least 4 KiB) that holds the firmware's code, data
    and per-level arrays for this grid plus :data:`STACK_RESERVE` bytes of stack.

    Measured on a provisional build of the firmware (cached like every build), so
    the SoC, ``make firmware`` and the boards agree without a table; 16 KiB for
    a 10x10 build.
    """
    end = _build(max_rows, max_cols, ram_size=_MEASURE_RAM, cc_kind=cc_kind, out_dir=None)[1]
    size = 4096
    while size < end + STACK_RESERVE:
        size *= 2
    return size


class _Target(wiring.Component):
    """A bus target that answers one cycle after ``valid`` (no wait states)."""

    def __init__(self, addr_width):
        super().__init__({"bus": In(bus.Signature(addr_width=addr_width))})


class Ram(wiring.Component):
    """Block RAM of ``size`` bytes, initialised with ``init`` (bytes, little-endian words).

    Zero wait states: the read starts one cycle early from PicoRV32's
    look-ahead interface (``la_read`` pulses with ``la_addr`` in the cycle
    before ``valid``), so ``ready`` answers in the same cycle as ``valid``.
    This is what gives PicoRV32 its 4.1 cycles per instruction instead of 5.2.
    """

    def __init__(self, size, init=b""):
        if size < 4 or size & (size - 1):
            raise ValueError(f"RAM size must be a power of two of at least 4 bytes, not {size}")
        if len(init) > size:
            raise ValueError(f"the RAM image ({len(init)} bytes) is larger than the RAM "
                             f"({size} bytes)")
        init = bytes(init) + bytes(-len(init) % 4)
        self.size = size
        self.words = [int.from_bytes(init[i:i + 4], "little") for i in range(0, len(init), 4)]
        addr_width = (size - 1).bit_length()
        super().__init__({"bus": In(bus.Signature(addr_width=addr_width)),
                          "la_read": In(1), "la_addr": In(addr_width)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.memory = memory = Memory(shape=32, depth=self.size // 4, init=self.words)
        read = memory.read_port()
        write = memory.write_port(granularity=8)
        b = self.bus
        m.d.comb += [
            read.addr.eq(self.la_addr[2:]), read.en.eq(self.la_read),
            write.addr.eq(b.addr[2:]), write.data.eq(b.wdata),
            write.en.eq(Cat(*(b.wstrb[i] & b.valid for i in range(4)))),
            b.ready.eq(b.valid), b.rdata.eq(read.data),
        ]
        return m


class SysCtl(_Target):
    """The free-running 64-bit cycle counter and the build's parameters (SYSCTL_REGISTERS)."""

    def __init__(self, *, clock_hz, baud, divisor, ram_size):
        self.values = {"CLOCK_HZ": clock_hz, "BAUD": baud, "UART_DIVISOR": divisor,
                       "RAM_SIZE": ram_size}
        super().__init__(5)

    def elaborate(self, platform):
        m = Module()
        cycles = Signal(64)
        high = Signal(32)
        m.d.sync += cycles.eq(cycles + 1)
        b = self.bus
        ready = Signal()
        rdata = Signal(32)
        m.d.comb += [b.ready.eq(ready), b.rdata.eq(rdata)]
        m.d.sync += ready.eq(0)
        with m.If(b.valid & ~ready):
            m.d.sync += [ready.eq(1), rdata.eq(0)]
            with m.If(~b.wstrb.any()):
                with m.Switch(b.addr[2:]):
                    with m.Case(SYSCTL_REGISTERS["CYCLES_LO"] >> 2):
                        m.d.sync += [rdata.eq(cycles[:32]), high.eq(cycles[32:])]
                    with m.Case(SYSCTL_REGISTERS["CYCLES_HI"] >> 2):
                        m.d.sync += rdata.eq(high)
                    for name, value in self.values.items():
                        with m.Case(SYSCTL_REGISTERS[name] >> 2):
                            m.d.sync += rdata.eq(value)
        return m


class _NoTarget(_Target):
    """Answers accesses to unmapped addresses (reads 0) so the CPU never hangs."""

    def __init__(self):
        super().__init__(2)

    def elaborate(self, platform):
        m = Module()
        ready = Signal()
        m.d.sync += ready.eq(self.bus.valid & ~ready)
        m.d.comb += [self.bus.ready.eq(ready), self.bus.rdata.eq(0)]
        return m


class SoC(wiring.Component):
    """PicoRV32 + RAM with the firmware + UART + cycle counter + accelerator (Fig. 7).

    Ports: ``uart_rx`` (in, idle high), ``uart_tx`` (out), ``trap`` (out: the
    CPU stopped on an illegal instruction or misaligned access; a firmware
    bug).  Clock and reset are the ``sync`` domain (``clk``, ``rst`` active
    high in the Verilog).

    ``firmware``: the RAM image (bytes); by default :func:`build_firmware`
    builds it for ``max_rows`` x ``max_cols``.  ``baud`` must be reachable from
    ``clock_hz`` within 2 %.
    """

    uart_rx: In(1, init=1)
    uart_tx: Out(1, init=1)
    trap: Out(1)

    def __init__(self, max_rows=10, max_cols=10, *, clock_hz=DEFAULT_CLOCK_HZ,
                 baud=DEFAULT_BAUD, firmware=None, ram_size=None, cc_kind="zig"):
        from .accelerator import Accelerator
        self.max_rows, self.max_cols = max_rows, max_cols
        self.clock_hz, self.baud = int(clock_hz), int(baud)
        self.divisor = divisor_for(self.clock_hz, self.baud)
        self.ram_size = ram_size or default_ram_size(max_rows, max_cols, cc_kind=cc_kind)
        self.accelerator = Accelerator(max_rows, max_cols)
        if firmware is None:
            firmware = build_firmware(max_rows, max_cols, ram_size=self.ram_size,
                                      cc_kind=cc_kind)
        self.firmware = bytes(firmware)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.ram = ram = Ram(self.ram_size, self.firmware)
        m.submodules.uart = uart = UART(self.divisor)
        m.submodules.sysctl = sysctl = SysCtl(clock_hz=self.clock_hz, baud=self.baud,
                                              divisor=self.divisor, ram_size=self.ram_size)
        m.submodules.accelerator = accel = self.accelerator
        m.submodules.none = none = _NoTarget()

        if platform is not None and hasattr(platform, "add_file"):
            platform.add_file("picorv32.v", picorv32_source().read_text())

        mem_valid, mem_ready, mem_instr, mem_la_read = Signal(), Signal(), Signal(), Signal()
        mem_la_addr = Signal(32)
        mem_addr, mem_wdata, mem_rdata, mem_wstrb = Signal(32), Signal(32), Signal(32), Signal(4)
        m.submodules.cpu = Instance(
            "picorv32",
            p_ENABLE_COUNTERS=0, p_ENABLE_COUNTERS64=0, p_ENABLE_REGS_16_31=1,
            p_ENABLE_REGS_DUALPORT=1, p_LATCHED_MEM_RDATA=0, p_TWO_STAGE_SHIFT=1,
            p_BARREL_SHIFTER=1, p_TWO_CYCLE_COMPARE=0, p_TWO_CYCLE_ALU=0, p_COMPRESSED_ISA=0,
            p_CATCH_MISALIGN=1, p_CATCH_ILLINSN=1, p_ENABLE_PCPI=0, p_ENABLE_MUL=0,
            p_ENABLE_FAST_MUL=0, p_ENABLE_DIV=0, p_ENABLE_IRQ=0, p_ENABLE_TRACE=0,
            p_REGS_INIT_ZERO=0, p_PROGADDR_RESET=C(RAM_BASE, 32),
            p_STACKADDR=C(RAM_BASE + self.ram_size, 32),
            i_clk=ClockSignal(), i_resetn=~ResetSignal(), o_trap=self.trap,
            o_mem_valid=mem_valid, o_mem_instr=mem_instr, i_mem_ready=mem_ready,
            o_mem_addr=mem_addr, o_mem_wdata=mem_wdata, o_mem_wstrb=mem_wstrb,
            i_mem_rdata=mem_rdata, o_mem_la_read=mem_la_read, o_mem_la_addr=mem_la_addr,
            i_pcpi_wr=C(0, 1), i_pcpi_rd=C(0, 32), i_pcpi_wait=C(0, 1), i_pcpi_ready=C(0, 1),
            i_irq=C(0, 32),
        )

        # address decoder: regions on addr[31:28]; UART and SysCtl apart on addr[27:12]
        region = mem_addr[28:32]
        targets = {
            "ram": (ram.bus, (region == RAM_BASE >> 28) & (mem_addr[:28] < self.ram_size)),
            "uart": (uart.bus, (region == UART_BASE >> 28)
                     & (mem_addr[12:28] == (UART_BASE >> 12) & 0xFFFF)),
            "sysctl": (sysctl.bus, (region == SYSCTL_BASE >> 28)
                       & (mem_addr[12:28] == (SYSCTL_BASE >> 12) & 0xFFFF)),
            "accel": (accel.bus, (region == ACCEL_BASE >> 28)
                      & (mem_addr[:28] < regmap.WINDOW_SIZE)),
        }
        selected = []
        for name, (target, hit) in targets.items():
            sel = Signal(name=f"sel_{name}")
            m.d.comb += [sel.eq(hit), target.valid.eq(mem_valid & sel),
                         target.addr.eq(mem_addr[:len(target.addr)]),
                         target.wdata.eq(mem_wdata), target.wstrb.eq(mem_wstrb)]
            selected.append((sel, target))
        none_sel = ~Cat(*(sel for sel, _ in selected)).any()
        m.d.comb += [none.bus.valid.eq(mem_valid & none_sel), none.bus.wstrb.eq(mem_wstrb)]
        selected.append((none_sel, none.bus))
        with m.If(selected[0][0]):
            m.d.comb += [mem_ready.eq(selected[0][1].ready), mem_rdata.eq(selected[0][1].rdata)]
        for sel, target in selected[1:]:
            with m.Elif(sel):
                m.d.comb += [mem_ready.eq(target.ready), mem_rdata.eq(target.rdata)]

        m.d.comb += [ram.la_read.eq(mem_la_read), ram.la_addr.eq(mem_la_addr[:len(ram.la_addr)]),
                     uart.rx.eq(self.uart_rx), self.uart_tx.eq(uart.tx)]
        return m


def soc_verilog(max_rows=10, max_cols=10, *, clock_hz=DEFAULT_CLOCK_HZ, baud=DEFAULT_BAUD,
                firmware=None, ram_size=None, name=TOP_NAME):
    """``(verilog_text, [picorv32.v path])``: the SoC as one Verilog top module ``name``.

    Ports: ``clk``, ``rst`` (active high), ``uart_rx``, ``uart_tx``, ``trap``.
    Simulate or synthesise the text together with the extra files.
    """
    from amaranth.back import verilog
    soc = SoC(max_rows, max_cols, clock_hz=clock_hz, baud=baud, firmware=firmware,
              ram_size=ram_size)
    text = verilog.convert(soc, name=name, emit_src=False)
    return text, [picorv32_source()]


def soc_header(*, ram_size):
    """``slk_soc.h``: the SoC's memory map for the firmware."""
    lines = ["/* Generated by hw/soc.py -- do not edit; 'make firmware' regenerates it. */",
             "#ifndef SLK_SOC_H", "#define SLK_SOC_H", "",
             f"#define SOC_RAM_BASE 0x{RAM_BASE:08X}u",
             f"#define SOC_RAM_SIZE {ram_size}u",
             f"#define SOC_UART_BASE 0x{UART_BASE:08X}u",
             f"#define SOC_SYSCTL_BASE 0x{SYSCTL_BASE:08X}u",
             f"#define SOC_ACCEL_BASE 0x{ACCEL_BASE:08X}u", ""]
    for name, offset in UART_REGISTERS.items():
        lines.append(f"#define SOC_UART_{name} 0x{UART_BASE + offset:08X}u")
    lines.append(f"#define SOC_UART_DATA_EMPTY 0x{1 << DATA_EMPTY:08X}u")
    for name, bit in STATUS_BITS.items():
        lines.append(f"#define SOC_UART_STATUS_{name} 0x{1 << bit:08X}u")
    lines.append("")
    for name, offset in SYSCTL_REGISTERS.items():
        lines.append(f"#define SOC_SYSCTL_{name} 0x{SYSCTL_BASE + offset:08X}u")
    lines += ["", "#endif /* SLK_SOC_H */", ""]
    return "\n".join(lines)


def soc_linker_memory(*, ram_size):
    return (f"/* Generated by hw/soc.py -- do not edit. */\n"
            f"MEMORY {{ RAM (rwx) : ORIGIN = 0x{RAM_BASE:08X}, LENGTH = {ram_size} }}\n")


# -- the firmware build ---------------------------------------------------------------------

class FirmwareError(RuntimeError):
    """The firmware could not be built; ``str()`` is one line for the user."""


#: Bytes of RAM kept free above the firmware's data for the stack.
STACK_RESERVE = 2048
CFLAGS = ["-O2", "-ffreestanding", "-nostdlib", "-fno-builtin", "-Wall", "-Wextra", "-std=c11"]


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


def build_firmware(max_rows=10, max_cols=10, *, ram_size=None, cc_kind="zig", out_dir=None):
    """Build the firmware for a ``max_rows`` x ``max_cols`` SoC; returns the RAM image.

    ``ram_size`` defaults to :func:`default_ram_size`; an image only runs on a
    SoC with the RAM size it was built for (its stack starts at the top).

    The headers are generated first (``slk_regs.h`` from :mod:`hw.regmap`,
    ``slk_protocol.h`` from :mod:`host.protocol`, ``slk_soc.h`` from this
    module) into ``out_dir/include``; ``out_dir`` defaults to
    ``build/firmware/<R>x<C>-<ram>-<cc>``.  The build runs in a private
    directory and its results are moved in at the end, so parallel builds of
    the same firmware do not collide.
    """
    from .cells import check_build_size
    check_build_size(max_rows, max_cols)
    _compilers(cc_kind)
    ram_size = ram_size or default_ram_size(max_rows, max_cols, cc_kind=cc_kind)
    return _build(max_rows, max_cols, ram_size=ram_size, cc_kind=cc_kind, out_dir=out_dir)[0]


def _build(max_rows, max_cols, *, ram_size, cc_kind, out_dir):
    """``(image, end of .bss)``; see :func:`build_firmware`."""
    from host import protocol
    from .cells import check_build_size
    check_build_size(max_rows, max_cols)
    cc, objcopy = _compilers(cc_kind)
    out_dir = Path(out_dir or REPO / "build" / "firmware"
                   / f"{max_rows}x{max_cols}-{ram_size}-{cc_kind}")
    out_dir.mkdir(parents=True, exist_ok=True)
    generated = {
        "slk_regs.h": regmap.c_header(base=ACCEL_BASE, max_rows=max_rows, max_cols=max_cols),
        "slk_protocol.h": protocol.c_header(),
        "slk_soc.h": soc_header(ram_size=ram_size),
        "slk_memory.ld": soc_linker_memory(ram_size=ram_size),
    }
    # rebuild only when a source, a generated header or the command changed
    digest = hashlib.sha256(repr((cc, CFLAGS)).encode())
    for path in _sources() + [FIRMWARE_DIR / "link.ld"] + sorted((FIRMWARE_DIR / "src").glob("*.h")):
        digest.update(path.name.encode() + path.read_bytes())
    for name, text in generated.items():
        digest.update(name.encode() + text.encode())
    digest = digest.hexdigest()
    stamp, image, elf_out = out_dir / "firmware.sha256", out_dir / "firmware.bin", \
        out_dir / "firmware.elf"
    if stamp.exists() and image.exists() and elf_out.exists() and stamp.read_text() == digest:
        return image.read_bytes(), _symbol(elf_out, "__bss_end", cc_kind)

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
        end = _symbol(elf, "__bss_end", cc_kind)
        if end is None:
            raise FirmwareError(f"the firmware {elf} has no __bss_end symbol (see firmware/link.ld)")
        if end + STACK_RESERVE > ram_size:
            raise FirmwareError(f"the firmware needs {end} bytes of RAM plus {STACK_RESERVE} "
                                f"of stack, more than the {ram_size} bytes of the SoC: pass a "
                                f"larger ram_size")
        for name in ("include",):
            target = out_dir / name
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(tmp / name, target, dirs_exist_ok=True)
        for name in ("firmware.elf", "firmware.bin"):
            os.replace(tmp / name, out_dir / name)
        stamp_tmp = tmp / "stamp"
        stamp_tmp.write_text(digest)
        os.replace(stamp_tmp, stamp)
    return data, end


def _symbol(elf, name, cc_kind):
    """Address of symbol ``name`` in ``elf`` (read from the ELF symbol table)."""
    import struct
    data = Path(elf).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1:
        return None
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize)
                for i in range(shnum)]
    for sec in sections:
        if sec[1] == 2:  # SHT_SYMTAB
            strtab = sections[sec[6]]
            for off in range(sec[4], sec[4] + sec[5], 16):
                st_name, st_value = struct.unpack_from("<II", data, off)
                start = strtab[4] + st_name
                if data[start:data.index(b"\0", start)].decode() == name:
                    return st_value
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m hw.soc", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fw = sub.add_parser("firmware", help="build the firmware image")
    vl = sub.add_parser("verilog", help="write the SoC's Verilog top and list its extra files")
    for p in (fw, vl):
        p.add_argument("--max-rows", type=int, default=10)
        p.add_argument("--max-cols", type=int, default=10)
        p.add_argument("--ram-size", type=int, default=None)
        p.add_argument("--cc", choices=("zig", "gcc"), default="zig",
                       help="cross compiler (default: zig, from PyPI)")
    fw.add_argument("--out", default=None, help="output directory")
    vl.add_argument("--clock-hz", type=int, default=DEFAULT_CLOCK_HZ)
    vl.add_argument("--baud", type=int, default=DEFAULT_BAUD)
    vl.add_argument("--out", required=True, help="the Verilog file to write")
    args = parser.parse_args(argv)
    try:
        firmware = build_firmware(args.max_rows, args.max_cols, ram_size=args.ram_size,
                                  cc_kind=args.cc,
                                  out_dir=args.out if args.command == "firmware" else None)
        if args.command == "firmware":
            print(f"firmware for {args.max_rows}x{args.max_cols}: {len(firmware)} bytes")
            return 0
        text, extra = soc_verilog(args.max_rows, args.max_cols, clock_hz=args.clock_hz,
                                  baud=args.baud, firmware=firmware, ram_size=args.ram_size)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
        print(args.out)
        for path in extra:
            print(path)
        return 0
    except (FirmwareError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
