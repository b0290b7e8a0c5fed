"""The UART's rates, shared by the gateware, the firmware, the boards, the simulators and
the host.

docs/design.md section 4.  The UART's line side (its receiver, transmitter and their bit
clocks) runs in a clock domain of its own, ``uart``, at :data:`UART_CLOCK_RATIO` times the
design clock (:func:`uart_clock_hz`), made by the same PLL; every rate is made from that
clock, so the ``uart_hz`` of every function below is the UART's clock and "cycles" are its
cycles.  The UART's bit time is a register (the UART's DIVISOR, :func:`bit_time_for`):
cycles a bit with :data:`DIVISOR_FRACTION_BITS` fractional bits, so each bit lasts N or N+1
whole cycles and bit k starts within one cycle of k times the exact bit time: every rate is
made to within 1/2^(DIVISOR_FRACTION_BITS+1) of a cycle a bit, a fraction of a percent.
The receiver finds the start bit to within one cycle and then samples the middle of every
bit, so with a bit time of at least :data:`MIN_BIT_TIME` (7.5 cycles) and the two ends'
rates apart by at most :data:`MAX_BAUD_ERROR` the sampling point stays within
1/7.5 + 9.5 * 2 % < 1/3 bit of the middle over a 10-bit frame.

The device starts at its build's rate (:data:`DEFAULT_BAUD` unless the build says
otherwise) and switches when the host asks (SET_BAUD, docs/protocol.md).  The rates a
build offers (:func:`offered_bauds`) are those its board's USB-UART bridge makes exactly
and its UART clock carries; the fastest of them is the build's ``max_baud`` (VERSION, the
SysCtl's MAX_BAUD register), the bound of the device's SET_BAUD rule
(:func:`set_baud_bit_time`).
"""

__all__ = ["LINE_DOMAIN", "UART_CLOCK_RATIO", "uart_clock_hz", "DEFAULT_BAUD", "FAST_BAUD",
           "MIN_BIT_TIME", "MAX_BAUD_ERROR", "DIVISOR_FRACTION_BITS", "DIVISOR_CYCLE_BITS",
           "DIVISOR_BITS", "bit_time_for", "divisor_for", "baud_of", "bridge_bauds",
           "offered_bauds", "max_baud", "set_baud_bit_time"]

#: The clock domain of the UART's line side (the gateware's, the boards' clockings', the
#: builds' reports).
LINE_DOMAIN = "uart"
#: The UART's clock (the ``uart`` domain: the line side) over the design clock (``sync``):
#: each board's PLL makes both, in phase (docs/boards.md, "The clock").
UART_CLOCK_RATIO = 2

#: The UART rate every build starts at unless it says otherwise, and the host's first
#: rate (any USB-UART bridge makes it).
DEFAULT_BAUD = 115_200
#: A build option (``--fast-uart``): a start rate of 1 Mbaud, which both boards' bridges
#: (FT2232H on the Arty, FT231X on the ULX3S) make exactly.
FAST_BAUD = 1_000_000
#: Largest relative difference between the rate asked for and the rate the clock makes.
MAX_BAUD_ERROR = 0.02
#: Fractional bits of the bit time (the UART's DIVISOR register, ``fraction`` field).
DIVISOR_FRACTION_BITS = 8
#: Shortest bit time (on average over a byte), in the DIVISOR register's units: 7.5 clock
#: cycles, the fewest for which 1 / cycles + 9.5 * MAX_BAUD_ERROR keeps the sampling point
#: within a third of a bit of the middle (the module's docstring), with some margin.
MIN_BIT_TIME = 15 << (DIVISOR_FRACTION_BITS - 1)
#: Whole-cycle bits of the bit time (the DIVISOR register's ``cycles`` field).
DIVISOR_CYCLE_BITS = 16
#: Bits of the DIVISOR register's value.
DIVISOR_BITS = DIVISOR_FRACTION_BITS + DIVISOR_CYCLE_BITS

# the rounding of the bit time moves the rate by at most half a fractional step a bit: far
# inside MAX_BAUD_ERROR at MIN_BIT_TIME or more, so the rate made is never refused for
# its error (the firmware's SET_BAUD check leaves that test out)
assert 0.5 / MIN_BIT_TIME < MAX_BAUD_ERROR / 10
assert (1 << DIVISOR_FRACTION_BITS) / MIN_BIT_TIME + 9.5 * MAX_BAUD_ERROR < 1 / 3


def uart_clock_hz(clock_hz):
    """The UART's clock (Hz) of a build whose design clock is ``clock_hz``."""
    return UART_CLOCK_RATIO * int(clock_hz)


def _check(uart_hz, baud):
    if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
        raise ValueError(f"baud rate must be a positive integer, not {baud!r}")
    if uart_hz <= 0:
        raise ValueError(f"the clock ({uart_hz} Hz) must be positive")


def bit_time_for(uart_hz, baud):
    """The UART's DIVISOR register for ``baud`` at a UART clock of ``uart_hz``: its cycles
    a bit times 2^DIVISOR_FRACTION_BITS, rounded; ValueError (one line) when the clock
    cannot make the rate (a bit time below :data:`MIN_BIT_TIME`, or more than the register
    holds)."""
    _check(uart_hz, baud)
    bit_time = (int(uart_hz) * 2 * (1 << DIVISOR_FRACTION_BITS) + baud) // (2 * baud)
    if bit_time < MIN_BIT_TIME:
        raise ValueError(f"baud rate {baud} is too fast for a {uart_hz / 1e6:g} MHz UART "
                         f"clock (at least {MIN_BIT_TIME / (1 << DIVISOR_FRACTION_BITS):g} "
                         f"clock cycles per bit are needed)")
    if bit_time >= 1 << DIVISOR_BITS:
        raise ValueError(f"baud rate {baud} is too slow for a {uart_hz / 1e6:g} MHz UART "
                         f"clock (at most {(1 << DIVISOR_CYCLE_BITS) - 1} clock cycles per bit)")
    return bit_time


def divisor_for(uart_hz, baud):
    """Whole clock cycles a bit for ``baud`` at ``uart_hz`` (rounded; BAUD's ``divisor``),
    by the rule of :func:`bit_time_for`; ValueError (one line) when unusable."""
    bit_time_for(uart_hz, baud)
    return (2 * int(uart_hz) + baud) // (2 * baud)


def baud_of(uart_hz, bit_time):
    """The rate a DIVISOR register of ``bit_time`` makes at ``uart_hz`` (rounded)."""
    return (int(uart_hz) * 2 * (1 << DIVISOR_FRACTION_BITS) + bit_time) // (2 * bit_time)


def made_baud(uart_hz, baud):
    """The rate the UART makes of ``baud`` at ``uart_hz`` (VERSION's ``baud``): near
    ``baud``, equal only where the bit time is a whole number of fractions of a cycle."""
    return baud_of(uart_hz, bit_time_for(uart_hz, baud))


def bridge_bauds(bridge_max_baud, slowest=DEFAULT_BAUD):
    """The whole rates a USB-UART bridge makes exactly, fastest first, down to ``slowest``:
    its fastest rate divided by a whole number (the FTDI bridges' baud generators: the
    FT2232H makes 12 MHz / n, the FT231X 3 MHz / n; fractional n, which they also make, are
    left out)."""
    return tuple(bridge_max_baud // n for n in range(1, bridge_max_baud // slowest + 1)
                 if bridge_max_baud % n == 0)


def offered_bauds(uart_hz, bridge_max_baud, start_baud=DEFAULT_BAUD):
    """The rates a build offers, fastest first: its start rate and every rate its board's
    bridge makes exactly (:func:`bridge_bauds`, down to :data:`DEFAULT_BAUD`) that its clock
    carries (a bit time of at least :data:`MIN_BIT_TIME`).  The first is the build's
    ``max_baud``: the host asks for it unless told otherwise."""
    rates = set()
    for baud in (start_baud, *bridge_bauds(bridge_max_baud)):
        try:
            bit_time_for(uart_hz, baud)
        except ValueError:
            continue
        rates.add(baud)
    return tuple(sorted(rates, reverse=True))


def max_baud(uart_hz, bridge_max_baud, start_baud=DEFAULT_BAUD):
    """The fastest rate a build offers (:func:`offered_bauds`): VERSION's ``max_baud``."""
    return offered_bauds(uart_hz, bridge_max_baud, start_baud)[0]


def set_baud_bit_time(uart_hz, max_baud, baud):
    """The device's SET_BAUD rule: the DIVISOR register for ``baud`` (:func:`bit_time_for`),
    or ValueError (one line) when the clock cannot make it or it is faster than the build's
    ``max_baud`` (ERROR BAD_BAUD)."""
    bit_time = bit_time_for(uart_hz, baud)
    if baud > max_baud:
        raise ValueError(f"baud rate {baud} is faster than the build offers ({max_baud})")
    return bit_time
