"""The system on chip of the paper's Fig. 7: a soft CPU, its firmware, a UART and the engines.

The paper's MIPS soft processor runs the search (section 3.1, Figs. 8-10) and
checks each step with the hardware solver mapped into its memory space; ours
is PicoRV32 (from the ``pythondata-cpu-picorv32`` package, used in place),
block RAM holding the C firmware (``firmware/``, baked in at build time), a
UART to the host that receives into a ring in block RAM (:mod:`hw.uart`, protocol
:mod:`spec.protocol`), a
free-running 64-bit cycle counter, and the engines a target asks for: the
paper's accelerator (:class:`hw.accelerator.Accelerator`) and the deduction
engine (:class:`hw.deduce.engine.DeduceEngine`, docs/design.md section 6) at the
same grid size, each behind a bus register stage (:class:`hw.bus.Register`, docs/soc.md
"The bus").  The memory map and every register are declared in
:mod:`spec.registers` (docs/soc.md shows them).

A :class:`spec.target.Target` says what the SoC carries; building it never runs a
compiler: it takes the firmware's RAM image, which the caller builds first
(``boards.design`` does both for a target)::

    image = build_firmware(10, 10)                     # firmware.build
    soc = SoC(DEFAULT_TARGET, firmware=image)
    # ports: uart_rx (in), uart_tx (out), trap (out), uart_served (out); clocks and
    # resets: the sync domain (the design clock) and the uart domain (the UART's line
    # side, spec.uart.UART_CLOCK_RATIO times the design clock, in phase)

``ram_size`` defaults to the image's ``ram_size`` attribute (the firmware build
sets it: an image runs only with the RAM it was linked for, its stack at the top).
"""

from pathlib import Path

from amaranth import C, Cat, ClockSignal, Instance, Module, ResetSignal, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from slitherlink.spec.target import get_board
from slitherlink.spec.uart import bit_time_for, max_baud
from slitherlink.spec.registers import (ACCEL, DEDUCE, PAGE_SHIFT, RAM, REGION_SHIFT, RX_RING,
                                        SYSCTL, UART as UART_BLOCK, WINDOW_SIZE, ClockHz,
                                        CyclesHi, CyclesLo, MaxBaud, RamSize, StartBaud,
                                        rx_ring_size)

from . import bus
from .uart import LINE_DOMAIN, UART

__all__ = ["SoC", "Ram", "SysCtl", "picorv32_source", "MissingPackage", "TOP_NAME"]

#: Name of the Verilog top module.
TOP_NAME = "slk_soc"


class MissingPackage(RuntimeError):
    """A Python package the SoC needs is not installed; ``str()`` is one line."""


def picorv32_source():
    """Path of ``picorv32.v`` inside the installed ``pythondata-cpu-picorv32`` package."""
    try:
        import pythondata_cpu_picorv32 as package
    except ImportError:
        raise MissingPackage("the SoC needs the Python package pythondata-cpu-picorv32: "
                             "run 'make setup'") from None
    return Path(package.data_location) / "picorv32.v"


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
        if size < 4 or size % 4:
            raise ValueError(f"RAM size must be a whole number of 32-bit words, not {size}")
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
    """The free-running 64-bit cycle counter and the build's parameters
    (:data:`spec.registers.SYSCTL_REGISTERS`): the clock, the UART's start rate and the
    fastest rate the build offers (:func:`spec.uart.max_baud`), the RAM."""

    def __init__(self, *, clock_hz, start_baud, max_baud, ram_size):
        self.values = {ClockHz: clock_hz, StartBaud: start_baud, MaxBaud: max_baud,
                       RamSize: ram_size}
        super().__init__((SYSCTL.size - 1).bit_length())

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
                    with m.Case(CyclesLo.address >> 2):
                        m.d.sync += [rdata.eq(cycles[:32]), high.eq(cycles[32:])]
                    with m.Case(CyclesHi.address >> 2):
                        m.d.sync += rdata.eq(high)
                    for register, value in self.values.items():
                        with m.Case(register.address >> 2):
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
    """PicoRV32 + RAM with the firmware + UART + cycle counter + the engines (Fig. 7).

    Ports: ``uart_rx`` (in, idle high), ``uart_tx`` (out), ``trap`` (out: the
    CPU stopped on an illegal instruction or misaligned access; a firmware
    bug), ``uart_served`` (out: high in each cycle in which an access of the CPU to
    the UART's registers completes; the firmware serves its link at least every
    :data:`spec.protocol.SERVICE_INTERVAL_CYCLES`, which the virtual board watches).  Clocks
    and resets: the ``sync`` domain (``clk``, ``rst`` active high in the Verilog) and the
    UART's line side, the ``uart`` domain (``uart_clk``, ``uart_rst``) at
    :data:`spec.uart.UART_CLOCK_RATIO` times the design clock, in phase with it.

    ``target`` (:class:`spec.target.Target`): the engines, the grid, the deduction
    engine's band height, label network and trail, the design clock and the UART's
    start rate (the fastest it offers follows from the board's bridge and the UART's
    clock).  A window without its engine reads 0, and the firmware then refuses that mode.  ``firmware``: the RAM image (bytes, built by :mod:`firmware.build`);
    ``ram_size`` the RAM it was built for (default: the image's ``ram_size`` attribute).
    """

    uart_rx: In(1, init=1)
    uart_tx: Out(1, init=1)
    trap: Out(1)
    uart_served: Out(1)

    #: the domain of ``uart_rx`` and ``uart_tx`` (boards.top.BoardTop)
    line_domain = LINE_DOMAIN

    def __init__(self, target, *, firmware, ram_size=None):
        from .accelerator import Accelerator
        from .deduce.engine import DeduceEngine
        self.target = target
        self.max_rows, self.max_cols = target.max_rows, target.max_cols
        self.clock_hz, self.baud = int(target.clock_hz), int(target.baud)
        self.bit_time = bit_time_for(target.uart_clock_hz, self.baud)
        self.max_baud = max_baud(target.uart_clock_hz,
                                 get_board(target.board).bridge_max_baud, self.baud)
        if not isinstance(firmware, (bytes, bytearray)):
            raise TypeError(f"firmware must be the RAM image (bytes), not "
                            f"{type(firmware).__name__}")
        self.ram_size = ram_size or getattr(firmware, "ram_size", None)
        if not self.ram_size:
            raise ValueError("give ram_size: the RAM the firmware image was built for")
        self.firmware = bytes(firmware)
        self.accelerator = (Accelerator(target.max_rows, target.max_cols) if target.paper
                            else None)
        self.deduce = (DeduceEngine(target.max_rows, target.max_cols, band=target.band,
                                    trail_depth=target.trail_depth,
                                    label_network=target.label_network)
                       if target.deduce else None)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.ram = ram = Ram(self.ram_size, self.firmware)
        m.submodules.uart = uart = UART(
            self.bit_time, rx_ring_size=rx_ring_size(self.max_rows, self.max_cols))
        m.submodules.sysctl = sysctl = SysCtl(clock_hz=self.clock_hz, start_baud=self.baud,
                                              max_baud=self.max_baud, ram_size=self.ram_size)
        # the engines sit behind a register stage: no CPU address reaches their logic in
        # the clock it leaves the CPU (docs/soc.md, "The bus")
        engines = {}
        for name, module, engine in (("accel", "accelerator", self.accelerator),
                                     ("deduce", "deduce", self.deduce)):
            if engine is not None:
                m.submodules[module] = engine
                m.submodules[f"{module}_stage"] = stage = bus.Register(len(engine.bus.addr))
                wiring.connect(m, stage.target, engine.bus)
                engines[name] = stage.bus
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
            p_REGS_INIT_ZERO=0, p_PROGADDR_RESET=C(RAM.base, 32),
            p_STACKADDR=C(RAM.base + self.ram_size, 32),
            i_clk=ClockSignal(), i_resetn=~ResetSignal(), o_trap=self.trap,
            o_mem_valid=mem_valid, o_mem_instr=mem_instr, i_mem_ready=mem_ready,
            o_mem_addr=mem_addr, o_mem_wdata=mem_wdata, o_mem_wstrb=mem_wstrb,
            i_mem_rdata=mem_rdata, o_mem_la_read=mem_la_read, o_mem_la_addr=mem_la_addr,
            i_pcpi_wr=C(0, 1), i_pcpi_rd=C(0, 32), i_pcpi_wait=C(0, 1), i_pcpi_ready=C(0, 1),
            i_irq=C(0, 32),
        )

        # address decoder: regions on addr[31:28]; UART and SysCtl apart on addr[27:12]
        region = mem_addr[REGION_SHIFT:32]
        page = mem_addr[PAGE_SHIFT:REGION_SHIFT]
        targets = {
            "ram": (ram.bus, (region == RAM.region) & (mem_addr[:REGION_SHIFT] < self.ram_size)),
            "uart": (uart.bus, (region == UART_BLOCK.region) & (page == UART_BLOCK.page)),
            "sysctl": (sysctl.bus, (region == SYSCTL.region) & (page == SYSCTL.page)),
            "rx_ring": (uart.ring, (region == RX_RING.region)
                        & (mem_addr[:REGION_SHIFT] < uart.rx_ring_size)),
        }
        if "accel" in engines:
            targets["accel"] = (engines["accel"], (region == ACCEL.region)
                                & (mem_addr[:REGION_SHIFT] < WINDOW_SIZE))
        if "deduce" in engines:
            targets["deduce"] = (engines["deduce"], (region == DEDUCE.region)
                                 & (mem_addr[:REGION_SHIFT] < DEDUCE.size))
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
                     uart.ring_la_read.eq(mem_la_read),
                     uart.ring_la_addr.eq(mem_la_addr[:len(uart.ring_la_addr)]),
                     uart.rx.eq(self.uart_rx), self.uart_tx.eq(uart.tx),
                     self.uart_served.eq(uart.bus.valid & uart.bus.ready)]
        return m
