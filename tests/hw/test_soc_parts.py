"""The SoC's own blocks under Amaranth's simulator: UART (at several rates, fractional bit
times, the DIVISOR register, the receive ring; its line side in the ``uart`` domain at
spec.uart.UART_CLOCK_RATIO times the design clock, in phase), cycle counter, RAM, headers;
the rates a build offers."""

import gc
import warnings

import pytest
from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.sim import Simulator

from slitherlink.firmware.build import default_ram_size
from slitherlink.hw import bus
from slitherlink.hw import soc as S
from slitherlink.hw.uart import LINE_DOMAIN, UART
from slitherlink.spec import uart as rates
from slitherlink.spec.registers import (RX_INDEX_BITS, SYSCTL, SYSCTL_REGISTERS, UartData,
                                        UartDivisor, UartRxFrameErrors, UartRxOverruns,
                                        UartRxTaken, UartRxWritten, UartStatus, rx_ring_size)
from slitherlink.spec.target import BOARDS, DEFAULT_TARGET

#: the design clock's period (s); the UART's clock ticks UART_CLOCK_RATIO times in one
PERIOD = 1e-8
#: the fewest whole UART clock cycles a bit the UART makes (spec.uart.MIN_BIT_TIME, rounded
#: up)
DIVISOR = -(-rates.MIN_BIT_TIME >> rates.DIVISOR_FRACTION_BITS)
#: the bit time of DIVISOR whole cycles (the DIVISOR register's units)
BIT_TIME = DIVISOR << rates.DIVISOR_FRACTION_BITS
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


def simulator(dut):
    """A simulator with both clocks: the design clock and the UART's, in phase (every
    rising edge of the design clock is one of the UART's)."""
    sim = Simulator(dut)
    sim.add_clock(PERIOD, phase=PERIOD / 2)
    sim.add_clock(PERIOD / rates.UART_CLOCK_RATIO, phase=PERIOD / 2, domain=LINE_DOMAIN,
                  if_exists=True)
    return sim


def line_ticks(ctx, cycles):
    """``cycles`` of the UART's clock."""
    return ctx.tick(LINE_DOMAIN).repeat(cycles)


def run(dut, testbench):
    sim = simulator(dut)
    sim.add_testbench(testbench)
    sim.run()


async def lookahead_read(ctx, bus, la_read, la_addr, addr):
    """A read as PicoRV32 makes it: its look-ahead (``la_read``, ``la_addr``) a cycle before
    ``valid``; a target that starts its read from it answers in the cycle of ``valid``."""
    ctx.set(la_read, 1)
    ctx.set(la_addr, addr)
    await ctx.tick()
    ctx.set(la_read, 0)
    data, cycles = await bus_access(ctx, bus, addr)
    assert cycles == 1
    return data


async def ring_read(ctx, uart, addr):
    """A read of the receive ring (RX_RING) as the CPU makes it."""
    return await lookahead_read(ctx, uart.ring, uart.ring_la_read, uart.ring_la_addr, addr)


async def ring_bytes(ctx, uart, start, n):
    """The ``n`` bytes of the ring from byte index ``start`` (RX_WRITTEN's count) on, wrapping."""
    size = uart.rx_ring_size
    out = []
    for i in range(start, start + n):
        word = await ring_read(ctx, uart, (i % size) & ~3)
        out.append(word >> (8 * (i % 4)) & 0xFF)
    return out


async def read_all(ctx, uart):
    """The bytes received and not taken yet; takes them (RX_TAKEN)."""
    written, _ = await bus_access(ctx, uart.bus, UartRxWritten.address)
    taken, _ = await bus_access(ctx, uart.bus, UartRxTaken.address)
    got = await ring_bytes(ctx, uart, taken, (written - taken) % (1 << RX_INDEX_BITS))
    await bus_access(ctx, uart.bus, UartRxTaken.address, written)
    return got


def test_uart_loopback_ring_and_status():
    """Received bytes go into the ring, wrapping at its size; a byte that finds it full
    (RX_WRITTEN - RX_TAKEN = the size) is lost: RX_OVERRUNS counts it, STATUS.rx_overrun
    sticks until written 1; RX_TAKEN frees room."""
    m = Module()
    m.submodules.uart = uart = UART(BIT_TIME, rx_ring_size=8)
    m.d.comb += uart.rx.eq(uart.tx)  # loop the line back
    data_addr, status_addr = REGISTERS["DATA"], REGISTERS["STATUS"]
    overrun = 1 << STATUS_BITS["RX_OVERRUN"]

    async def send(ctx, data):
        for byte in data:
            await bus_access(ctx, uart.bus, data_addr, byte, max_wait=DIVISOR * 10 * 80)
        await ctx.tick().repeat(DIVISOR * 10 * (len(data) + 2))

    async def counts(ctx):
        return [(await bus_access(ctx, uart.bus, r.address))[0]
                for r in (UartRxWritten, UartRxTaken, UartRxOverruns)]

    async def testbench(ctx):
        assert await counts(ctx) == [0, 0, 0]
        status, _ = await bus_access(ctx, uart.bus, status_addr)
        assert status & (1 << STATUS_BITS["TX_IDLE"]) and status & (1 << STATUS_BITS["TX_READY"])
        assert not status & overrun
        first = [0x00, 0xA5, 0xFF, 0x3C, 0x81, 0x7E, 0x5A, 0xC3, 0x11, 0x22, 0x33]
        await send(ctx, first)   # 11 bytes into a ring of 8: the last 3 are lost
        assert await counts(ctx) == [8, 0, 3]
        assert await ring_bytes(ctx, uart, 0, 8) == first[:8]
        status, _ = await bus_access(ctx, uart.bus, status_addr)
        assert status & overrun and not status & (1 << STATUS_BITS["RX_FRAME_ERROR"])
        await bus_access(ctx, uart.bus, status_addr, overrun)
        status, _ = await bus_access(ctx, uart.bus, status_addr)
        assert not status & overrun
        await bus_access(ctx, uart.bus, UartRxTaken.address, 5)   # 5 taken: room for 5
        second = [0x44, 0x55, 0x66, 0x77, 0x88, 0x99]
        await send(ctx, second)   # bytes 8 .. 12 at ring bytes 0 .. 4; the sixth is lost
        assert await counts(ctx) == [13, 5, 4]
        assert await ring_bytes(ctx, uart, 5, 8) == first[5:8] + second[:5]
        assert (await ring_read(ctx, uart, 0)) == int.from_bytes(bytes(second[:4]), "little")
        status, _ = await bus_access(ctx, uart.bus, status_addr)
        assert status & overrun
        assert (await bus_access(ctx, uart.bus, UartRxFrameErrors.address))[0] == 0
        await bus_access(ctx, uart.bus, UartRxTaken.address, 13)
        await send(ctx, [0xEE])   # room again: nothing more is lost
        assert await counts(ctx) == [14, 13, 4]
        assert await read_all(ctx, uart) == [0xEE]

    run(m, testbench)


def test_uart_ring_room_is_counted_modulo_the_index():
    """The ring's room is its size less RX_WRITTEN - RX_TAKEN modulo 2^RX_INDEX_BITS: with
    RX_TAKEN 2 below the wrap and RX_WRITTEN 0 past it, 2 bytes are waiting, 6 more fill
    the ring of 8, the rest are lost."""
    m = Module()
    m.submodules.uart = uart = UART(BIT_TIME, rx_ring_size=8)
    m.d.comb += uart.rx.eq(uart.tx)
    top = (1 << RX_INDEX_BITS) - 2

    async def testbench(ctx):
        await bus_access(ctx, uart.bus, UartRxTaken.address, top)
        for byte in range(8):
            await bus_access(ctx, uart.bus, REGISTERS["DATA"], byte, max_wait=DIVISOR * 10 * 80)
        await ctx.tick().repeat(DIVISOR * 10 * 10)
        written, _ = await bus_access(ctx, uart.bus, UartRxWritten.address)
        assert written == 6
        assert (await bus_access(ctx, uart.bus, UartRxOverruns.address))[0] == 2
        assert await ring_bytes(ctx, uart, 0, 6) == list(range(6))

    run(m, testbench)


def test_uart_ring_reader_reads_words_from_any_byte_and_feeds_the_crc():
    """RX_AT names a byte of the ring; each RX_WORD read gives the four bytes from there on,
    wrapping at the ring's end, and moves on four; RX_CRC_WORD does the same and continues
    CRC over the four bytes: b"123456789" (8 bytes through it, the last by CRC_DATA) gives
    CRC-16/CCITT-FALSE's check value 0x29B1; RX_WORD feeds nothing."""
    from slitherlink.spec.protocol import CRC_INIT, crc16
    from slitherlink.spec.registers import UartCrc, UartCrcData, UartRxAt, UartRxCrcWord, UartRxWord
    m = Module()
    m.submodules.uart = uart = UART(BIT_TIME, rx_ring_size=16)
    m.d.comb += uart.rx.eq(uart.tx)
    data = b"123456789" + bytes([0xA5, 0x00, 0xFF, 0x3C, 0x81, 0x7E, 0x5A])   # 16 bytes
    words = []

    async def word(ctx, register):
        value, cycles = await bus_access(ctx, uart.bus, register.address)
        assert cycles == 3   # two wait states
        words.append(value)
        return value

    async def testbench(ctx):
        for byte in data:
            await bus_access(ctx, uart.bus, REGISTERS["DATA"], byte, max_wait=DIVISOR * 10 * 80)
        await ctx.tick().repeat(DIVISOR * 10 * (len(data) + 2))
        assert (await bus_access(ctx, uart.bus, UartRxWritten.address))[0] == len(data)
        ring = data * 3
        for start in range(16):   # from every byte, across the ring's end
            await bus_access(ctx, uart.bus, UartRxAt.address, start)
            for k in range(5):
                got = await word(ctx, UartRxWord)
                at = start + 4 * k
                assert got == int.from_bytes(ring[at:at + 4], "little"), (start, k)
        # the index counts as RX_WRITTEN does: beyond the ring's size it wraps
        await bus_access(ctx, uart.bus, UartRxAt.address, 16 * 7 + 5)
        assert await word(ctx, UartRxWord) == int.from_bytes(data[5:9], "little")
        await bus_access(ctx, uart.bus, UartCrc.address, CRC_INIT)
        await bus_access(ctx, uart.bus, UartRxAt.address, 0)
        await word(ctx, UartRxCrcWord)
        await word(ctx, UartRxWord)          # not fed
        await bus_access(ctx, uart.bus, UartRxAt.address, 4)
        await word(ctx, UartRxCrcWord)
        await bus_access(ctx, uart.bus, UartCrcData.address, data[8], wstrb=1)
        assert (await bus_access(ctx, uart.bus, UartCrc.address))[0] == 0x29B1
        await bus_access(ctx, uart.bus, UartCrc.address, CRC_INIT)
        await bus_access(ctx, uart.bus, UartRxAt.address, 13)
        for _ in range(3):
            await word(ctx, UartRxCrcWord)
        fed = ring[13:25]
        assert (await bus_access(ctx, uart.bus, UartCrc.address))[0] == crc16(fed, CRC_INIT)

    run(m, testbench)
    assert len(words) == 16 * 5 + 7


def test_uart_clue_word_checks_the_codes_it_copies():
    """RX_CLUE_WORD reads as RX_CRC_WORD does (the same words, the CRC fed the same) and sets
    CLUE_BAD when a word held a code that spec.protocol.clue_code_bad refuses (any of 4..14,
    in any of the eight nibbles); RX_WORD and RX_CRC_WORD check nothing; a CRC write clears
    it."""
    from slitherlink.spec.protocol import CRC_INIT, clue_code_bad, crc16
    from slitherlink.spec.registers import (UartClueBad, UartCrc, UartRxAt, UartRxClueWord,
                                            UartRxCrcWord, UartRxWord)
    good = bytes([0x10, 0x32, 0xFF, 0x0F, 0xF3, 0x21, 0x00, 0x3F])   # digits and blanks
    bad = bytes([0x10, 0x32, 0xFF, 0x0F, 0xF3, 0x21, 0x00, 0xE3])    # 0xE: 14, the last nibble
    m = Module()
    m.submodules.uart = uart = UART(BIT_TIME, rx_ring_size=16)
    m.d.comb += uart.rx.eq(uart.tx)

    def bad_codes(data):
        return any(clue_code_bad((byte >> shift) & 0xF) for byte in data for shift in (0, 4))

    assert not bad_codes(good) and bad_codes(bad)
    assert [code for code in range(16) if clue_code_bad(code)] == list(range(4, 15))

    async def clue_bad(ctx):
        return (await bus_access(ctx, uart.bus, UartClueBad.address))[0]

    async def testbench(ctx):
        for byte in good + bad:
            await bus_access(ctx, uart.bus, REGISTERS["DATA"], byte, max_wait=DIVISOR * 10 * 80)
        await ctx.tick().repeat(DIVISOR * 10 * 18)
        await bus_access(ctx, uart.bus, UartCrc.address, CRC_INIT)
        await bus_access(ctx, uart.bus, UartRxAt.address, 0)
        for k in range(2):
            value, cycles = await bus_access(ctx, uart.bus, UartRxClueWord.address)
            assert cycles == 3 and value == int.from_bytes(good[4 * k:4 * k + 4], "little")
        assert await clue_bad(ctx) == 0
        assert (await bus_access(ctx, uart.bus, UartCrc.address))[0] == crc16(good, CRC_INIT)
        for register in (UartRxWord, UartRxCrcWord):   # they check nothing
            await bus_access(ctx, uart.bus, UartRxAt.address, 12)
            await bus_access(ctx, uart.bus, register.address)
            assert await clue_bad(ctx) == 0
        ring = (good + bad) * 2
        seen = set()
        for at in range(16):   # the bad code in each lane of the word read, and in none
            await bus_access(ctx, uart.bus, UartCrc.address, CRC_INIT)
            await bus_access(ctx, uart.bus, UartRxAt.address, at)
            await bus_access(ctx, uart.bus, UartRxClueWord.address)
            expected = bad_codes(ring[at:at + 4])
            seen.add(expected)
            assert await clue_bad(ctx) == expected, at
            await bus_access(ctx, uart.bus, UartRxAt.address, 0)
            await bus_access(ctx, uart.bus, UartRxClueWord.address)   # sticky
            assert await clue_bad(ctx) == expected, at
        assert seen == {False, True}
        await bus_access(ctx, uart.bus, UartCrc.address, CRC_INIT)
        assert await clue_bad(ctx) == 0

    run(m, testbench)


def test_uart_ring_size_validation():
    with warnings.catch_warnings():  # the half-built UARTs are never elaborated, on purpose
        warnings.simplefilter("ignore")
        for bad in (0, 4, 6, 100, 1 << RX_INDEX_BITS):
            with pytest.raises(ValueError, match="power of two"):
                UART(BIT_TIME, rx_ring_size=bad)
        gc.collect()
    # a build's ring holds its queue of largest requests, in a power of two from 2 KiB; the
    # queue is deeper than QUEUE_DEPTH_MIN only where the smallest ring holds it
    from slitherlink.spec.protocol import (OVERHEAD, QUEUE_DEPTH_MAX, QUEUE_DEPTH_MIN,
                                           solve_length)
    from slitherlink.spec.registers import queue_depth
    for rows, cols in ((1, 1), (10, 10), (15, 15), (20, 20), (36, 20), (30, 40), (64, 64)):
        size, depth = rx_ring_size(rows, cols), queue_depth(rows, cols)
        assert size >= depth * (solve_length(rows, cols) + OVERHEAD) and size >= 2048
        assert size & (size - 1) == 0 and size < 1 << RX_INDEX_BITS
        assert QUEUE_DEPTH_MIN <= depth <= QUEUE_DEPTH_MAX
        assert depth == QUEUE_DEPTH_MIN or size == 2048
    assert rx_ring_size(10, 10) == 2048 and rx_ring_size(64, 64) == 16384
    assert queue_depth(1, 1) == queue_depth(10, 10) == QUEUE_DEPTH_MAX
    assert queue_depth(30, 40) == queue_depth(64, 64) == QUEUE_DEPTH_MIN
    with pytest.raises(ValueError, match="max_rows"):
        rx_ring_size(65, 10)


def test_uart_receiver_timing_and_frame_error():
    """Bits sampled mid-bit from an external line; a 0 stop bit is a frame error."""
    uart = UART(BIT_TIME)

    async def send(ctx, byte, stop=1):
        for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [stop]:
            ctx.set(uart.rx, bit)
            await line_ticks(ctx, DIVISOR)
        ctx.set(uart.rx, 1)
        await line_ticks(ctx, DIVISOR)

    async def testbench(ctx):
        ctx.set(uart.rx, 1)
        await ctx.tick().repeat(5)
        await send(ctx, 0x5A)
        await send(ctx, 0x33, stop=0)
        await send(ctx, 0xC4)
        assert await read_all(ctx, uart) == [0x5A, 0xC4]
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
    uart = UART(BIT_TIME)

    async def testbench(ctx):
        await bus_access(ctx, uart.bus, REGISTERS["DATA"], 0xB2)
        while ctx.get(uart.tx):  # wait for the start bit
            await line_ticks(ctx, 1)
        await line_ticks(ctx, DIVISOR // 2)
        bits = []
        for _ in range(10):
            bits.append(ctx.get(uart.tx))
            await line_ticks(ctx, DIVISOR)
        assert bits == [0] + [(0xB2 >> i) & 1 for i in range(8)] + [1]

    run(uart, testbench)


def test_uart_tx_idle_only_once_the_last_stop_bit_has_left_the_pin():
    """STATUS.tx_idle, polled every read from a byte's write on, reads 0 until the stop bit
    of every byte written has ended on the pin (the bytes cross into the UART's clock and
    its state comes back), then 1; bytes written at once, a few cycles apart and one at a
    time."""
    uart = UART(BIT_TIME)
    idle_bit = 1 << STATUS_BITS["TX_IDLE"]
    ended = []         # the bytes whose stop bit has ended on the pin
    polls = []         # (bytes written, bytes ended, tx_idle) of every STATUS read

    async def monitor(ctx):
        left = 0   # UART cycles until the frame on the pin ends
        while True:
            await ctx.tick(LINE_DOMAIN)
            if left:
                left -= 1
                if not left:
                    ended.append(1)
            elif not ctx.get(uart.tx):   # a start bit: its frame ends 10 bit times after it
                left = 10 * DIVISOR - 1

    async def testbench(ctx):
        written = 0
        for burst, gap in (([0x5A], 0), ([0xC3, 0x00, 0xFF], 0), ([0x81, 0x7E], 7),
                           ([0x11], 1)):
            for byte in burst:
                await bus_access(ctx, uart.bus, REGISTERS["DATA"], byte)
                written += 1
                if gap:
                    await ctx.tick().repeat(gap)
            while True:
                status, _ = await bus_access(ctx, uart.bus, REGISTERS["STATUS"])
                polls.append((written, len(ended), bool(status & idle_bit)))
                if status & idle_bit:
                    break
        assert len(ended) == written

    sim = simulator(uart)
    sim.add_testbench(monitor, background=True)
    sim.add_testbench(testbench)
    sim.run()
    assert all(done == written for written, done, idle in polls if idle)
    # busy from the first read after each write
    assert sum(not idle for _, _, idle in polls) > 4 * 10 * DIVISOR // 2 // 2


#: bit times (UART clock cycles a bit, the DIVISOR register's value) of the rates tried: the
#: fewest whole cycles, the default build's fastest rate (a few cycles), 6, 4 and 3 Mbaud,
#: its start rate (115200 baud: hundreds of cycles) and the shortest bit time
#: (spec.uart.MIN_BIT_TIME, 7.5 cycles)
DEFAULT_MAX_BAUD = rates.max_baud(DEFAULT_TARGET.uart_clock_hz,
                                  BOARDS[DEFAULT_TARGET.board].bridge_max_baud)
START_BIT_TIME = rates.bit_time_for(DEFAULT_TARGET.uart_clock_hz, 115_200)
FASTEST_BIT_TIME = rates.bit_time_for(DEFAULT_TARGET.uart_clock_hz, DEFAULT_MAX_BAUD)
BIT_TIMES = list(dict.fromkeys([BIT_TIME, FASTEST_BIT_TIME,
                                *(rates.bit_time_for(DEFAULT_TARGET.uart_clock_hz, baud)
                                  for baud in (6_000_000, 4_000_000, 3_000_000)),
                                START_BIT_TIME, rates.MIN_BIT_TIME]))


def edges(bit_time, count, start=0):
    """UART cycles of ``count`` bit edges from ``start``: edge k at round(k * the exact bit
    time)."""
    one = 1 << rates.DIVISOR_FRACTION_BITS
    return [start + (2 * k * bit_time + one) // (2 * one) for k in range(count)]


async def drive_bytes(ctx, line, data, bit_time, *, error=0.0):
    """Send ``data`` on ``line`` (8N1, back to back) at a bit time ``bit_time`` stretched by
    ``error`` (a sender that is that much slow, or fast when negative)."""
    bit_time = round(bit_time * (1 + error))
    bits = [bit for byte in data for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1]]
    times = edges(bit_time, len(bits) + 1)
    for bit, (begin, end) in zip(bits, zip(times, times[1:])):
        ctx.set(line, bit)
        await line_ticks(ctx, end - begin)


@pytest.mark.parametrize("bit_time", BIT_TIMES)
@pytest.mark.parametrize("error", [0.0, rates.MAX_BAUD_ERROR, -rates.MAX_BAUD_ERROR])
def test_uart_receives_at_every_rate(bit_time, error):
    """The receiver samples mid-bit at a fractional bit time: bytes back to back from a
    sender at the rate, or off by the largest error allowed either way, all arrive."""
    uart = UART(bit_time)
    data = [0x55, 0x00, 0xFF, 0xA5, 0x81]

    async def testbench(ctx):
        ctx.set(uart.rx, 1)
        await ctx.tick().repeat(3)
        await drive_bytes(ctx, uart.rx, data, bit_time, error=error)
        ctx.set(uart.rx, 1)
        await ctx.tick().repeat(bit_time >> rates.DIVISOR_FRACTION_BITS)
        assert await read_all(ctx, uart) == data
        assert (await bus_access(ctx, uart.bus, UartRxFrameErrors.address))[0] == 0

    run(uart, testbench)


@pytest.mark.parametrize("bit_time", BIT_TIMES)
def test_uart_transmits_at_every_rate(bit_time):
    """Bytes back to back: every cycle's level is the exact waveform's (edge k at k exact
    bit times from the first), but within a cycle of an edge."""
    uart = UART(bit_time)
    data = [0x55, 0xAA, 0x0F]
    bits = [bit for byte in data for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1]]
    exact = edges(bit_time, len(bits) + 1)
    want = [bits[k] for k, (a, b) in enumerate(zip(exact, exact[1:])) for _ in range(b - a)]
    levels = []

    async def writer(ctx):
        for byte in data:
            await bus_access(ctx, uart.bus, REGISTERS["DATA"], byte)

    async def monitor(ctx):
        while len(levels) < len(want) + 2:
            level = ctx.get(uart.tx)
            if levels or not level:   # from the start bit on
                levels.append(level)
            await line_ticks(ctx, 1)

    sim = simulator(uart)
    sim.add_testbench(writer)
    sim.add_testbench(monitor)
    sim.run()
    mismatched = [i for i, (got, ok) in enumerate(zip(levels, want)) if got != ok]
    assert all(min(abs(i - e) for e in exact) <= 1 for i in mismatched), mismatched
    assert levels[len(want):] == [1, 1]   # then the idle line


def test_uart_divisor_register_switches_the_rate():
    """DIVISOR reads the build's bit time after reset; written, both directions change rate."""
    slow, fast = START_BIT_TIME, FASTEST_BIT_TIME
    m = Module()
    m.submodules.uart = uart = UART(slow)
    m.d.comb += uart.rx.eq(uart.tx)   # loop the line back
    field = UartDivisor.field

    async def testbench(ctx):
        word, _ = await bus_access(ctx, uart.bus, UartDivisor.address)
        assert word == slow
        # the whole cycles of the bit time (its fraction in the bits below)
        assert word >> field("cycles").offset == DEFAULT_TARGET.uart_clock_hz // 115_200
        await bus_access(ctx, uart.bus, UartDivisor.address, fast)
        assert (await bus_access(ctx, uart.bus, UartDivisor.address))[0] == fast
        await bus_access(ctx, uart.bus, REGISTERS["DATA"], 0x3C)
        await ctx.tick().repeat(11 * (fast >> rates.DIVISOR_FRACTION_BITS) + 20)
        assert await read_all(ctx, uart) == [0x3C]   # the byte is made in 10 fast bits

    run(m, testbench)


def test_rates_a_build_offers():
    """The bridges' exact rates the clock carries, the start rate among them; the fastest is
    the build's max_baud, the bound of SET_BAUD."""
    arty, ulx3s = BOARDS["arty"], BOARDS["ulx3s"]
    offered = rates.offered_bauds(37_000_000, arty.bridge_max_baud)
    assert offered[:3] == (4_000_000, 3_000_000, 2_400_000) and offered[-1] == 115_200
    assert all(arty.bridge_max_baud % baud == 0 for baud in offered[:-1])
    assert rates.offered_bauds(35_000_000, ulx3s.bridge_max_baud)[0] == 3_000_000
    # a start rate beyond the bridge's is offered too (simulations start at clock / 8)
    assert rates.max_baud(50_000_000, arty.bridge_max_baud, 6_250_000) == 6_250_000
    for baud in offered:   # each made to within a fraction of a percent
        made = rates.made_baud(37_000_000, baud)
        assert abs(made - baud) / baud < 0.0005
    assert rates.set_baud_bit_time(37_000_000, 4_000_000, 4_000_000) == 37 << 6
    with pytest.raises(ValueError, match="faster than the build offers"):
        rates.set_baud_bit_time(37_000_000, 4_000_000, 4_000_001)
    with pytest.raises(ValueError, match="too fast"):
        rates.set_baud_bit_time(37_000_000, 10_000_000, 6_000_000)
    # the UART's clock makes the rates: the Arty's default build (49.22 MHz, its UART's clock
    # 98.4 MHz: 8.2 cycles a bit) carries its bridge's 12 Mbaud; a 40 MHz build (80 MHz:
    # 6.67 cycles) does not, and stops at 6 Mbaud
    assert DEFAULT_TARGET.uart_clock_hz == rates.UART_CLOCK_RATIO * DEFAULT_TARGET.clock_hz
    assert DEFAULT_MAX_BAUD == arty.bridge_max_baud == 12_000_000
    slower = DEFAULT_TARGET.replace(clock_hz=40_000_000)
    assert rates.max_baud(slower.uart_clock_hz, arty.bridge_max_baud) == 6_000_000
    with pytest.raises(ValueError, match="too fast for a 80 MHz UART clock"):
        rates.bit_time_for(slower.uart_clock_hz, 12_000_000)


def test_sysctl_counter_and_parameters():
    sysctl = S.SysCtl(clock_hz=50_000_000, start_baud=115_200, max_baud=6_000_000,
                      ram_size=32768)
    regs = {register.__name__: register.address for register in SYSCTL_REGISTERS}

    async def testbench(ctx):
        await ctx.tick().repeat(10)
        lo1, _ = await bus_access(ctx, sysctl.bus, regs["CyclesLo"])
        hi1, _ = await bus_access(ctx, sysctl.bus, regs["CyclesHi"])
        lo2, _ = await bus_access(ctx, sysctl.bus, regs["CyclesLo"])
        assert hi1 == 0 and 10 <= lo1 < lo2 <= lo1 + 6
        for name, value in (("ClockHz", 50_000_000), ("StartBaud", 115_200),
                            ("MaxBaud", 6_000_000), ("RamSize", 32768)):
            assert (await bus_access(ctx, sysctl.bus, regs[name]))[0] == value

    run(sysctl, testbench)


def test_bus_register_stage_adds_a_cycle_and_one_access_per_request():
    """hw.bus.Register before a target: the same answers a cycle later than a target of its
    own, and the target accepts each request exactly once (its ``valid`` falls with its
    ``ready``)."""
    def sysctl():
        return S.SysCtl(clock_hz=50_000_000, start_baud=115_200, max_baud=6_000_000,
                        ram_size=32768)
    m = Module()
    m.submodules.direct, m.submodules.staged = direct, staged = sysctl(), sysctl()
    m.submodules.stage = stage = bus.Register(len(staged.bus.addr))
    wiring.connect(m, stage.target, staged.bus)
    accepts = Signal(8)
    m.d.sync += accepts.eq(accepts + (staged.bus.valid & ~staged.bus.ready))
    regs = {register.__name__: register.address for register in SYSCTL_REGISTERS}

    async def testbench(ctx):
        for n, (name, value) in enumerate((("ClockHz", 50_000_000), ("RamSize", 32768)), 1):
            word, direct_cycles = await bus_access(ctx, direct.bus, regs[name])
            assert word == value
            word, staged_cycles = await bus_access(ctx, stage.bus, regs[name])
            assert word == value
            assert staged_cycles == direct_cycles + 1 == 3
            await ctx.tick().repeat(3)
            assert not ctx.get(staged.bus.valid)
            assert ctx.get(accepts) == n

    run(m, testbench)


def test_ram_zero_wait_with_lookahead():
    ram = S.Ram(64, bytes(range(16)))

    async def read(ctx, addr):
        return await lookahead_read(ctx, ram.bus, ram.la_read, ram.la_addr, addr)

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
        with pytest.raises(ValueError, match="whole number of 32-bit words"):
            S.Ram(102)
        with pytest.raises(ValueError, match="larger than the RAM"):
            S.Ram(16, bytes(20))
        gc.collect()


def test_divisor_validation():
    assert rates.divisor_for(50_000_000, 6_250_000) == 8
    assert rates.divisor_for(100_000_000, 115_200) == 868
    assert rates.bit_time_for(1_000_000, 115_200) == 2222   # 8.68 cycles: made exactly
    with pytest.raises(ValueError, match="too fast"):
        rates.divisor_for(10_000_000, 5_000_000)
    with pytest.raises(ValueError, match="too slow"):
        rates.bit_time_for(100_000_000, 1_000)
    with pytest.raises(ValueError, match="positive"):
        rates.bit_time_for(100_000_000, 0)
    # the register's fields hold the bit time: the fraction below the whole cycles
    assert UartDivisor.field("fraction").offset == 0
    assert UartDivisor.field("cycles").offset == rates.DIVISOR_FRACTION_BITS
    assert UartDivisor.field("cycles").width == rates.DIVISOR_CYCLE_BITS


def test_memory_map_and_ram_size():
    """The SoC decodes the blocks of spec.registers.MEMORY_MAP; the firmware fits its RAM."""
    assert SYSCTL.size == 4 * len(SYSCTL_REGISTERS)
    assert default_ram_size(10, 10) >= 16384


def test_uart_crc_registers_equal_the_protocol_crc():
    """CRC and CRC_DATA (hw/crc.py): a write sets the CRC; byte stores (each lane) and word
    stores continue it over their bytes, lane 0 first; it reads back as spec.protocol.crc16
    of the bytes fed, with the CRC set anywhere."""
    import random
    from slitherlink.spec.protocol import CRC_INIT, crc16
    from slitherlink.spec.registers import UartCrc, UartCrcData
    uart = UART(BIT_TIME)
    rng = random.Random(5)
    checked = []

    async def testbench(ctx):
        for start in (CRC_INIT, 0, 0x1D0F, rng.randrange(1 << 16)):
            await bus_access(ctx, uart.bus, UartCrc.address, start)
            fed = bytearray()
            for _ in range(40):
                lanes = rng.choice([0b0001, 0b0010, 0b0100, 0b1000, 0b1111, 0b0011, 0b1100])
                word = rng.randrange(1 << 32)
                _, cycles = await bus_access(ctx, uart.bus, UartCrcData.address, word,
                                             wstrb=lanes)
                assert cycles <= 2
                fed += bytes(word >> (8 * k) & 0xFF for k in range(4) if lanes >> k & 1)
                value, _ = await bus_access(ctx, uart.bus, UartCrc.address)
                assert value == crc16(fed, start), (fed.hex(), start)
            checked.append(len(fed))
        await bus_access(ctx, uart.bus, UartCrc.address, CRC_INIT)
        for byte in b"123456789":
            await bus_access(ctx, uart.bus, UartCrcData.address, byte, wstrb=1)
        value, _ = await bus_access(ctx, uart.bus, UartCrc.address)
        assert value == 0x29B1   # CRC-16/CCITT-FALSE's check value
        checked.append(value)

    run(uart, testbench)
    assert len(checked) == 5 and min(checked[:4]) >= 40


def test_uart_tx_word_and_tx_crc_queue_the_stored_lanes_in_order():
    """TX_WORD and TX_CRC queue the stored lanes' bytes, lane 0 first, behind DATA's bytes
    in store order; TX_CRC also continues the CRC over its bytes (spec.protocol.crc16), and
    TX_WORD does not; STATUS.tx_word_ready is 0 while the FIFO has no room for four bytes,
    and a store then waits until it has."""
    import random
    from slitherlink.spec.protocol import CRC_INIT, crc16
    from slitherlink.spec.registers import UartCrc, UartTxCrc, UartTxWord
    m = Module()
    m.submodules.uart = uart = UART(BIT_TIME, tx_depth=8)
    m.d.comb += uart.rx.eq(uart.tx)  # loop the line back
    rng = random.Random(7)
    word_ready = 1 << STATUS_BITS["TX_WORD_READY"]
    sent, fed, waits = bytearray(), bytearray(), []

    async def testbench(ctx):
        await bus_access(ctx, uart.bus, UartCrc.address, CRC_INIT)
        status, _ = await bus_access(ctx, uart.bus, REGISTERS["STATUS"])
        assert status & word_ready
        for k in range(16):
            lanes = rng.choice([0b0001, 0b0010, 0b0100, 0b1000, 0b1111, 0b0011, 0b1100])
            word = rng.randrange(1 << 32)
            stored = bytes(word >> (8 * j) & 0xFF for j in range(4) if lanes >> j & 1)
            status, _ = await bus_access(ctx, uart.bus, REGISTERS["STATUS"])
            if k % 5 == 4:
                await bus_access(ctx, uart.bus, REGISTERS["DATA"], stored[0],
                                 max_wait=DIVISOR * 10 * 8)
                sent.extend(stored[:1])
                continue
            crc = k % 2 == 0
            _, cycles = await bus_access(ctx, uart.bus,
                                         (UartTxCrc if crc else UartTxWord).address, word,
                                         wstrb=lanes, max_wait=DIVISOR * 10 * 8)
            # tx_word_ready says whether the store waits
            waits.append((bool(status & word_ready), cycles))
            sent.extend(stored)
            if crc:
                fed.extend(stored)
        value, _ = await bus_access(ctx, uart.bus, UartCrc.address)
        assert value == crc16(bytes(fed), CRC_INIT)
        await ctx.tick().repeat(DIVISOR * 10 * (len(sent) + 2))
        assert bytes(await read_all(ctx, uart)) == bytes(sent)
        status, _ = await bus_access(ctx, uart.bus, REGISTERS["STATUS"])
        assert status & (1 << STATUS_BITS["TX_IDLE"]) and status & word_ready

    run(m, testbench)
    assert len(sent) > 16 and len(fed) > 8
    assert all(cycles <= 2 for ready, cycles in waits if ready)
    assert any(cycles > DIVISOR for ready, cycles in waits if not ready)
