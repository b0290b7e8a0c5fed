"""The SoC's own blocks under Amaranth's simulator: UART, cycle counter, RAM, headers."""

import gc
import warnings

import pytest
from amaranth import Module
from amaranth.sim import Simulator

from slitherlink.firmware.build import default_ram_size
from slitherlink.hw import soc as S
from slitherlink.hw.uart import UART
from slitherlink.spec.uart import MIN_DIVISOR, divisor_for
from slitherlink.spec.registers import (SYSCTL, SYSCTL_REGISTERS, UartData, UartRxFrameErrors,
                            UartRxOverruns, UartStatus)

DIVISOR = MIN_DIVISOR
DATA_EMPTY = UartData.field("empty").offset
REGISTERS = {"DATA": UartData.address, "STATUS": UartStatus.address}
STATUS_BITS = {f.name.upper(): f.offset for f in UartStatus.fields}


async def bus_access(ctx, bus, addr, wdata=None, *, wstrb=0xF, max_wait=100):
    """One access on a bus target; returns rdata (reads) and the cycles it took."""
    ctx.set(bus.addr, addr)
    ctx.set(bus.wdata, wdata or 0)
    ctx.set(bus.wstrb, wstrb if wdata is not None else 0)
    ctx.set(bus.valid, 1)
    for cycles in range(1, max_wait):
        if ctx.get(bus.ready):
            data = ctx.get(bus.rdata)
            await ctx.tick()
            ctx.set(bus.valid, 0)
            return data, cycles
        await ctx.tick()
    raise AssertionError(f"no ready within {max_wait} cycles")


def run(dut, testbench, *, cycles=None):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()


def test_uart_loopback_fifo_and_status():
    m = Module()
    m.submodules.uart = uart = UART(DIVISOR, rx_depth=4)
    m.d.comb += uart.rx.eq(uart.tx)  # loop the line back
    data_addr, status_addr = REGISTERS["DATA"], REGISTERS["STATUS"]

    async def testbench(ctx):
        word, _ = await bus_access(ctx, uart.bus, data_addr)
        assert word == 1 << DATA_EMPTY  # nothing received
        status, _ = await bus_access(ctx, uart.bus, status_addr)
        assert status & (1 << STATUS_BITS["TX_IDLE"]) and status & (1 << STATUS_BITS["TX_READY"])
        sent = [0x00, 0xA5, 0xFF, 0x3C, 0x81, 0x7E]
        for byte in sent:  # 6 bytes into a 4-deep receive FIFO: 2 are lost (overrun)
            await bus_access(ctx, uart.bus, data_addr, byte)
        await ctx.tick().repeat(DIVISOR * 10 * (len(sent) + 2))
        status, _ = await bus_access(ctx, uart.bus, status_addr)
        assert status & (1 << STATUS_BITS["RX_VALID"])
        assert status & (1 << STATUS_BITS["RX_OVERRUN"])
        assert not status & (1 << STATUS_BITS["RX_FRAME_ERROR"])
        got = []
        while True:
            word, _ = await bus_access(ctx, uart.bus, data_addr)
            if word >> DATA_EMPTY:
                break
            got.append(word & 0xFF)
        assert got == sent[:len(got)] and 4 <= len(got) < len(sent)
        # the counters say how many bytes were lost, and why
        assert (await bus_access(ctx, uart.bus, UartRxOverruns.address))[0] == \
            len(sent) - len(got)
        assert (await bus_access(ctx, uart.bus, UartRxFrameErrors.address))[0] == 0
        await bus_access(ctx, uart.bus, status_addr, 1 << STATUS_BITS["RX_OVERRUN"])
        status, _ = await bus_access(ctx, uart.bus, status_addr)
        assert not status & (1 << STATUS_BITS["RX_OVERRUN"])

    run(m, testbench)


def test_uart_receiver_timing_and_frame_error():
    """Bits sampled mid-bit from an external line; a 0 stop bit is a frame error."""
    uart = UART(DIVISOR)

    async def send(ctx, byte, stop=1):
        for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [stop]:
            ctx.set(uart.rx, bit)
            await ctx.tick().repeat(DIVISOR)
        ctx.set(uart.rx, 1)
        await ctx.tick().repeat(DIVISOR)

    async def testbench(ctx):
        ctx.set(uart.rx, 1)
        await ctx.tick().repeat(5)
        await send(ctx, 0x5A)
        await send(ctx, 0x33, stop=0)
        await send(ctx, 0xC4)
        word, _ = await bus_access(ctx, uart.bus, REGISTERS["DATA"])
        assert word == 0x5A
        word, _ = await bus_access(ctx, uart.bus, REGISTERS["DATA"])
        assert word == 0xC4
        status, _ = await bus_access(ctx, uart.bus, REGISTERS["STATUS"])
        assert status & (1 << STATUS_BITS["RX_FRAME_ERROR"])
        assert (await bus_access(ctx, uart.bus, UartRxFrameErrors.address))[0] == 1
        await send(ctx, 0x00, stop=0)
        assert (await bus_access(ctx, uart.bus, UartRxFrameErrors.address))[0] == 2
        assert (await bus_access(ctx, uart.bus, UartRxOverruns.address))[0] == 0
        # a write does not clear the counters (they run since reset)
        await bus_access(ctx, uart.bus, UartRxFrameErrors.address, 0)
        assert (await bus_access(ctx, uart.bus, UartRxFrameErrors.address))[0] == 2

    run(uart, testbench)


def test_uart_transmit_waveform():
    uart = UART(DIVISOR)

    async def testbench(ctx):
        await bus_access(ctx, uart.bus, REGISTERS["DATA"], 0xB2)
        while ctx.get(uart.tx):  # wait for the start bit
            await ctx.tick()
        await ctx.tick().repeat(DIVISOR // 2)
        bits = []
        for _ in range(10):
            bits.append(ctx.get(uart.tx))
            await ctx.tick().repeat(DIVISOR)
        assert bits == [0] + [(0xB2 >> i) & 1 for i in range(8)] + [1]

    run(uart, testbench)


def test_sysctl_counter_and_parameters():
    sysctl = S.SysCtl(clock_hz=50_000_000, baud=6_250_000, divisor=8, ram_size=32768)
    regs = {register.__name__: register.address for register in SYSCTL_REGISTERS}

    async def testbench(ctx):
        await ctx.tick().repeat(10)
        lo1, _ = await bus_access(ctx, sysctl.bus, regs["CyclesLo"])
        hi1, _ = await bus_access(ctx, sysctl.bus, regs["CyclesHi"])
        lo2, _ = await bus_access(ctx, sysctl.bus, regs["CyclesLo"])
        assert hi1 == 0 and 10 <= lo1 < lo2 <= lo1 + 6
        for name, value in (("ClockHz", 50_000_000), ("Baud", 6_250_000),
                            ("UartDivisor", 8), ("RamSize", 32768)):
            assert (await bus_access(ctx, sysctl.bus, regs[name]))[0] == value

    run(sysctl, testbench)


def test_ram_zero_wait_with_lookahead():
    ram = S.Ram(64, bytes(range(16)))

    async def read(ctx, addr):
        ctx.set(ram.la_read, 1)
        ctx.set(ram.la_addr, addr)
        await ctx.tick()
        ctx.set(ram.la_read, 0)
        data, cycles = await bus_access(ctx, ram.bus, addr)
        assert cycles == 1
        return data

    async def testbench(ctx):
        assert await read(ctx, 0) == 0x03020100
        assert await read(ctx, 12) == 0x0F0E0D0C
        _, cycles = await bus_access(ctx, ram.bus, 4, 0x1111AB11, wstrb=0b0010)
        assert cycles == 1
        assert await read(ctx, 4) == 0x0706AB04

    run(ram, testbench)


def test_ram_rejects_bad_sizes():
    with warnings.catch_warnings():  # the half-built RAMs are never elaborated, on purpose
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="power of two"):
            S.Ram(100)
        with pytest.raises(ValueError, match="larger than the RAM"):
            S.Ram(16, bytes(20))
        gc.collect()


def test_divisor_validation():
    assert divisor_for(50_000_000, 6_250_000) == 8
    assert divisor_for(100_000_000, 115_200) == 868
    with pytest.raises(ValueError, match="too fast"):
        divisor_for(10_000_000, 5_000_000)
    with pytest.raises(ValueError, match="off"):
        divisor_for(1_000_000, 115_200)


def test_memory_map_and_ram_size():
    """The SoC decodes the blocks of spec.registers.MEMORY_MAP; the firmware fits its RAM."""
    assert SYSCTL.size == 4 * len(SYSCTL_REGISTERS)
    assert default_ram_size(10, 10) >= 16384
