"""Registers and memory map of the SoC: the one description of the CPU's view.

Paper section 3.2 (the x, a0, a1, s0, s1 register arrays), Fig. 7 (the soft CPU
with its peripherals) and docs/design.md section 4.  The gateware (:mod:`hw.accelerator`,
:mod:`hw.uart`, :mod:`hw.soc`) decodes its buses from these classes, the firmware
includes the C headers generated from them (``python -m slitherlink.spec.generate``) and the
docs show the tables generated from them.  Nothing here is typed twice.

Each register is a small class whose annotations are its fields::

    class Status(Register, address=0x010, access="r"):
        "..."
        conflict: Field(1, "a cell is required both inside and outside")

Field offsets follow the annotation order, from bit 0 up, unless a field gives
its own ``offset``.  A :class:`Block` groups the registers of one peripheral
with its base address; :data:`MEMORY_MAP` lists the blocks.

Timing contract of the accelerator (the gateware guarantees it with wait states):

* a read of any register reflects every write that came before it on the bus;
  in particular STATUS after a CELL write shows the partial condition of the
  new assignment;
* a write of CONTROL with ``flood`` set starts the flood array; STATUS reads
  ``flood_busy`` until it is done, then ``flood_complete`` and
  FLOOD_ITERATIONS hold the result (the iterations exclude any set-up cycles
  and equal :func:`model.paper.flood`'s count).
"""

from dataclasses import dataclass
from enum import IntEnum

from slitherlink.spec.combinations import Attribute, MAX_PATTERNS
from slitherlink.spec.counters import DEDUCE_COUNTERS, ENGINE_CLOCKS
from slitherlink.spec.protocol import OVERHEAD, QUEUE_DEPTH_MAX, QUEUE_DEPTH_MIN, solve_length
from slitherlink.spec.uart import (DIVISOR_CYCLE_BITS, DIVISOR_FRACTION_BITS, MIN_BIT_TIME,
                                   UART_CLOCK_RATIO)

__all__ = ["Field", "Register", "Block", "FloodMode", "REGISTERS", "ACCEL_REGISTERS",
           "UART_REGISTERS", "SYSCTL_REGISTERS", "DEDUCE_REGISTERS", "DEDUCE_COUNTER_REGISTERS",
           "DEDUCE_COUNTER_BASE", "DEDUCE_HW_COUNTERS", "MEMORY_MAP", "RAM", "UART", "SYSCTL",
           "ACCEL", "DEDUCE",
           "DEDUCE_ID_MAGIC", "DEDUCE_VERSION", "DEDUCE_STREAM_CELLS",
           "deduce_clue_address", "ADDR_WIDTH", "REGION_SHIFT",
           "PAGE_SHIFT", "CELL_BASE", "CELL_STRIDE", "CELL_ROWS_MAX",
           "WINDOW_SIZE", "ID_MAGIC", "VERSION", "CLUE_BLANK", "UART_TX_DEPTH", "RX_RING",
           "RX_RING_MIN", "RX_INDEX_BITS", "rx_ring_size", "queue_depth",
           "STACK_RESERVE", "RAM_GRANULE", "cell_address", "check_build_size", "c_header", "soc_header",
           "build_header", "linker_memory", "markdown", "soc_markdown", "soc_diagram",
           "c_name"]

#: Value of the ID register: ASCII "SLK" and the register map version.
ID_MAGIC = 0x534C4B
VERSION = 1

#: The per-cell registers: CELL(r, c) at CELL_BASE + 4 * (r * CELL_STRIDE + c),
#: r and c 0-based within the grid (the frame is not addressable).
CELL_BASE = 0x1000
CELL_STRIDE = 64
CELL_ROWS_MAX = 64
WINDOW_SIZE = CELL_BASE + 4 * CELL_STRIDE * CELL_ROWS_MAX  # bytes the accelerator decodes

#: Bits of the bus address of the accelerator's and the deduction engine's target ports
#: (``hw.bus.Signature(addr_width=ADDR_WIDTH)``): byte addresses within their windows.
ADDR_WIDTH = 16

#: Clue code of a blank cell in the CELL register's ``clue`` field.
CLUE_BLANK = 0b100

#: Depth of the UART's transmit FIFO, in bytes.
UART_TX_DEPTH = 64

#: The UART writes each byte it receives into a ring in block RAM (the RX_RING block, read
#: as memory): of :func:`rx_ring_size` bytes, at least this many (one XC7 RAMB18 or one
#: ECP5 EBR, 512 words of 32 bits).
RX_RING_MIN = 2048

#: RX_WRITTEN and RX_TAKEN count bytes modulo 2^RX_INDEX_BITS (more than any ring holds).
RX_INDEX_BITS = 16

#: Bytes of RAM kept free above the firmware's data for the stack: every build checks that
#: its deepest chain of calls fits (firmware/stack.py; 368 bytes in November 2026).
STACK_RESERVE = 512

#: The firmware RAM's size is a whole number of these bytes: one XC7 RAMB36 (1K x 32) or two
#: ECP5 EBRs (512 x 36), so a RAM of whole blocks wastes none (a power of two could
#: waste nearly half: 28 of the 36x20 build's 64 KiB).
RAM_GRANULE = 4096


class FloodMode(IntEnum):
    """What the flood array floods (section 3.3.1, extended): CONTROL.flood_mode."""
    #: From the first inside cell through cells not required outside; complete
    #: when every inside cell is reached.  On a fully determined colouring this
    #: is exactly the paper's flood over the inside cells.
    REACH = 0
    #: From the frame through cells not required inside; complete when every
    #: cell required outside is reached (no enclosed outside cell).
    ESCAPE = 1


@dataclass(frozen=True)
class Field:
    width: int
    doc: str
    offset: int = None
    name: str = None

    def __post_init__(self):
        if not isinstance(self.width, int) or not 1 <= self.width <= 32:
            raise TypeError(f"field width must be an integer from 1 to 32, not {self.width!r}")

    @property
    def mask(self):
        return ((1 << self.width) - 1) << self.offset


class Register:
    """Base class of a register: ``address`` (bytes, within its block), ``access`` "r", "w"
    or "rw"."""

    address: int
    access: str
    fields: tuple

    def __init_subclass__(cls, *, address, access, **kwargs):
        super().__init_subclass__(**kwargs)
        if access not in ("r", "w", "rw"):
            raise ValueError(f"{cls.__name__}: access must be 'r', 'w' or 'rw', not {access!r}")
        if address % 4:
            raise ValueError(f"{cls.__name__}: address {address:#x} is not word aligned")
        fields, offset = [], 0
        for name, field in cls.__dict__.get("__annotations__", {}).items():
            if not isinstance(field, Field):
                raise TypeError(f"{cls.__name__}.{name}: annotation must be a Field")
            start = offset if field.offset is None else field.offset
            if start + field.width > 32:
                raise ValueError(f"{cls.__name__}.{name} does not fit in 32 bits")
            fields.append(Field(field.width, field.doc, start, name))
            offset = start + field.width
        used = 0
        for field in fields:
            if used & field.mask:
                raise ValueError(f"{cls.__name__}.{field.name} overlaps another field")
            used |= field.mask
        cls.address, cls.access, cls.fields = address, access, tuple(fields)

    @classmethod
    def field(cls, name):
        return next(f for f in cls.fields if f.name == name)

    @classmethod
    def pack(cls, **values):
        """The register value with the named fields set (others zero)."""
        word = 0
        for name, value in values.items():
            f = cls.field(name)
            if not 0 <= value < (1 << f.width):
                raise ValueError(f"{cls.__name__}.{name}: {value} does not fit in {f.width} bits")
            word |= value << f.offset
        return word

    @classmethod
    def unpack(cls, word):
        return {f.name: (word >> f.offset) & ((1 << f.width) - 1) for f in cls.fields}


# -- the accelerator (paper section 3.2) -------------------------------------------------------

class Id(Register, address=0x000, access="r"):
    """Identifies the accelerator and the version of this register map."""
    version: Field(8, "register map version")
    magic: Field(24, "0x534C4B, ASCII 'SLK'")


class Config(Register, address=0x004, access="r"):
    """Build-time parameters of the gateware."""
    max_rows: Field(8, "largest number of rows the build supports")
    max_cols: Field(8, "largest number of columns the build supports")


class Size(Register, address=0x008, access="rw"):
    """The puzzle's own size, 1..max_rows by 1..max_cols; cells beyond it are frame."""
    rows: Field(8, "rows of the loaded puzzle")
    cols: Field(8, "columns of the loaded puzzle")


class Control(Register, address=0x00C, access="w"):
    """Commands; a written 1 acts once, a 0 does nothing."""
    clear: Field(1, "make every cell blank and unassigned")
    unassign: Field(1, "make every cell unassigned, keeping the clues")
    flood: Field(1, "start the flood array in mode flood_mode")
    flood_mode: Field(2, "0 = REACH (from the first inside cell through cells not required "
                         "outside), 1 = ESCAPE (from the frame through cells not required inside)",
                      offset=4)


class Status(Register, address=0x010, access="r"):
    """The checker's verdict on the current state (paper section 3.3)."""
    conflict: Field(1, "some cell (frame included) is required both inside and outside")
    checkerboard: Field(1, "some fully determined 2x2 block is a checkerboard")
    flood_busy: Field(1, "the flood array is running")
    flood_complete: Field(1, "the last flood reached every target cell")
    pick_ok: Field(1, "2S == 2I + B - 2 (Pick's theorem) for the cells required inside")
    inside_empty: Field(1, "no cell is required inside (S == 0)")


class FloodIterations(Register, address=0x014, access="r"):
    """Clock cycles the last flood iterated (section 3.3.1)."""
    count: Field(32, "iterations, including the last one in which nothing grew")


class PickS(Register, address=0x018, access="r"):
    """Pick's theorem, section 3.3.2: S."""
    count: Field(16, "cells required inside")


class PickI(Register, address=0x01C, access="r"):
    """Pick's theorem, section 3.3.2: I."""
    count: Field(16, "lattice points whose four cells are all required inside")


class PickB(Register, address=0x020, access="r"):
    """Pick's theorem, section 3.3.2: B."""
    count: Field(16, "lines between a cell required inside and one that is not")


class Cell(Register, address=CELL_BASE, access="rw"):
    """One cell: its clue and assignment (the paper's x, a0, a1) and the checker's s0, s1.

    At CELL_BASE + 4 * (row * CELL_STRIDE + col).  Writes set pattern, attribute
    and clue together; s0 and s1 are read-only.
    """
    pattern: Field(3, "the combination's pattern index (spec.combinations order)")
    attribute: Field(2, "[a1:a0]: 0 unassigned, 1 OUTSIDE, 2 INSIDE")
    clue: Field(3, "0..3 the digit, 4 blank")
    s0: Field(1, "read only: required outside", offset=8)
    s1: Field(1, "read only: required inside", offset=9)


#: The accelerator's registers (``REGISTERS`` is the historical name).
ACCEL_REGISTERS = REGISTERS = (Id, Config, Size, Control, Status, FloodIterations, PickS, PickI,
                               PickB, Cell)


# -- the deduction engine (hw/deduce/engine.py, docs/deduce.md) -------------------------------

#: Value of the deduction engine's ID register: ASCII "SLD" and its register map version.
DEDUCE_ID_MAGIC = 0x534C44
DEDUCE_VERSION = 3

#: The counters the engine keeps (:data:`spec.counters.DEDUCE_COUNTERS` but those the
#: firmware counts), plus ``clocks``: every clock the engine was busy.
DEDUCE_HW_COUNTERS = tuple(c.name for c in DEDUCE_COUNTERS if c.engine) + (ENGINE_CLOCKS.name,)

#: DEDUCE_CLUE(r, c) at DEDUCE_CLUE_BASE + 4 * (r * CELL_STRIDE + c).
DEDUCE_CLUE_BASE = CELL_BASE


class DeduceId(Register, address=0x000, access="r"):
    """Identifies the deduction engine and the version of its register map."""
    version: Field(8, "register map version")
    magic: Field(24, "0x534C44, ASCII 'SLD'")


class DeduceConfig(Register, address=0x004, access="r"):
    """Build-time parameters of the deduction engine."""
    max_rows: Field(8, "largest number of rows the build supports")
    max_cols: Field(8, "largest number of columns the build supports")
    trail_depth: Field(16, "decisions the hardware trail holds")


class DeduceSize(Register, address=0x008, access="rw"):
    """The puzzle's own size and its island flag; written before LOAD."""
    rows: Field(8, "rows of the loaded puzzle")
    cols: Field(8, "columns of the loaded puzzle")
    island: Field(1, "spec.deduce.island_free(puzzle): the nonzero clues do not fit in a 3x4 "
                     "or 4x3 box (the 3-3 side-by-side rules may then exclude a 1x2 island)")


class DeduceControl(Register, address=0x00C, access="w"):
    """Commands (write exactly one 1); each runs until STATUS.busy falls.

    A write waits (bus wait states) while a command runs and while the engine adds a run's
    counts, in the clocks after the run (docs/deduce.md section 8.6)."""
    load: Field(1, "initial state (frame OUT, the rest unknown), label registers cleared, "
                   "trail emptied, counters zeroed; clues and SIZE must be written before")
    deduce: Field(1, "propagate and probe to a fixpoint (model.deduce.Engine.deduce)")
    decide: Field(1, "the branch picker's cell (the cell the last DEDUCE scored best: whose "
                     "weaker probe deduced the most): push the state on the trail, set the "
                     "cell IN, deduce; ignored when the trail is full or no cell is unknown")
    backtrack: Field(1, "pop the trail: restore the state of the last decision, set its cell "
                        "OUT, deduce; ignored when the trail is empty")


class DeduceStatus(Register, address=0x010, access="r"):
    """The engine's state after its last command."""
    busy: Field(1, "a command is running")
    conflict: Field(1, "the last deduction ended in a conflict")
    complete: Field(1, "no grid cell is unknown")
    trail_empty: Field(1, "no decision is on the trail")
    trail_full: Field(1, "the trail holds trail_depth decisions (DECIDE is ignored)")


#: Cells a DEDUCE_CLUES write carries, one 4-bit code each.
DEDUCE_STREAM_CELLS = 8


DeduceClues = type("DeduceClues", (Register,), {
    "__doc__": """The next eight cells' clues in row-major order of DEDUCE_SIZE's grid; before LOAD.

    A DEDUCE_SIZE write starts the stream at cell (0, 0); cells past the grid's last are
    ignored.  Code j is cell j of the eight: 0..3 the digit, any other code blank (the
    protocol's blank code as it is).  The stream writes whole words of the clue memory (the
    cells of a word it does not reach become blank), so it replaces every clue written
    before, by DEDUCE_CLUE or an earlier stream; it takes one clock a cell.""",
    "__annotations__": {f"code{j}": Field(4, f"cell {j} of the eight: 0..3 the digit, else blank")
                        for j in range(DEDUCE_STREAM_CELLS)}}, address=0x014, access="w")


class DeduceColouringStart(Register, address=0x018, access="w"):
    """Start the colouring of the solution in the state (DEDUCE_COLOURING); when no command runs.

    The colouring is the ANSWER's (host.protocol.pack_colouring): DEDUCE_SIZE's rows of
    cols cells, row-major, a bit a cell, 1 when the cell is IN.  A command ends it."""
    skip: Field(5, "zero bits before the first cell's in the first word (the colouring's "
                   "bit offset in the reply's word that holds its first byte)")


class DeduceColouring(Register, address=0x01C, access="r"):
    """The next 32 bits of the colouring DEDUCE_COLOURING_START started, the first in bit 0.

    A read waits (bus wait states) until its word is packed: a cell a clock, a row of cols
    cells in cols + 2 clocks (docs/deduce.md section 8.6).  The bits past the last cell read
    0, and so do the reads past its last word, reads with no colouring started and reads
    while a command runs."""
    bits: Field(32, "the colouring's next 32 bits")


def _counter_register(name, address):
    doc = f"Counter {name} since LOAD (model.deduce.Counters; clocks: busy clocks)."
    if name in ("flood_iterations", "label_iterations"):
        doc = (f"Counter {name} since LOAD (model.deduce.Counters; a band build counts "
               f"passes: model.band.BandCounters.{name.split('_')[0]}_passes).")
    doc += ("\n\nA read waits (bus wait states) while a command runs and while the engine adds "
            "a run's counts, in the clocks after the run (docs/deduce.md section 8.6).")
    return type(f"Deduce{''.join(w.title() for w in name.split('_'))}", (Register,),
                {"__doc__": doc, "__annotations__": {"count": Field(32, "wraps at 2^32")}},
                address=address, access="r")


#: The first counter register's offset; counter k is at DEDUCE_COUNTER_BASE + 4 * k.
DEDUCE_COUNTER_BASE = 0x020
#: One read-only register per hardware counter, from DEDUCE_COUNTER_BASE on, in
#: DEDUCE_HW_COUNTERS order.
DEDUCE_COUNTER_REGISTERS = tuple(_counter_register(name, DEDUCE_COUNTER_BASE + 4 * i)
                                 for i, name in enumerate(DEDUCE_HW_COUNTERS))


class DeduceClue(Register, address=DEDUCE_CLUE_BASE, access="w"):
    """One cell's clue, at DEDUCE_CLUE_BASE + 4 * (row * CELL_STRIDE + col); before LOAD."""
    clue: Field(3, "0..3 the digit, 4 blank")


DEDUCE_REGISTERS = (DeduceId, DeduceConfig, DeduceSize, DeduceControl, DeduceStatus,
                    DeduceClues, DeduceColouringStart, DeduceColouring,
                    *DEDUCE_COUNTER_REGISTERS, DeduceClue)


def deduce_clue_address(row, col):
    """Byte offset of DEDUCE_CLUE(row, col) within the deduction engine's window."""
    return cell_address(row, col)


# -- the UART (hw/uart.py) --------------------------------------------------------------------

class UartData(Register, address=0x0, access="w"):
    """Queue a byte for sending (the receiver's bytes are in RX_RING).

    A write waits (bus wait states) while the transmit FIFO is full or a TX_WORD or TX_CRC
    write is still being queued.
    """
    byte: Field(8, "the byte to send")


class UartStatus(Register, address=0x4, access="rw"):
    """The transmitter's state and the receiver's sticky error flags (writing 1 clears one)."""
    tx_ready: Field(1, "the transmit FIFO has room")
    tx_idle: Field(1, "everything has been sent")
    rx_overrun: Field(1, "sticky: a byte was lost because the receive ring was full")
    rx_frame_error: Field(1, "sticky: a stop bit was 0")
    tx_word_ready: Field(1, "the transmit FIFO has room for four bytes: a TX_WORD or TX_CRC "
                         "write does not wait")


class UartRxOverruns(Register, address=0x8, access="r"):
    """Bytes the receiver lost because the receive ring was full, since reset."""
    count: Field(32, "wraps at 2^32")


class UartRxFrameErrors(Register, address=0xC, access="r"):
    """Bytes received with a 0 stop bit (dropped, not put in the ring), since reset."""
    count: Field(32, "wraps at 2^32")


class UartDivisor(Register, address=0x10, access="rw"):
    """The bit time of both directions, in the UART's clock cycles (spec.uart.bit_time_for);
    reset: the build's start rate.

    Each bit lasts ``cycles`` or ``cycles + 1`` of the UART's clock cycles, so that bit k starts within a
    cycle of k times the exact bit time.  The firmware writes it for SET_BAUD, with the
    transmitter idle; it never writes less than spec.uart.MIN_BIT_TIME.
    """
    fraction: Field(DIVISOR_FRACTION_BITS, "the bit time's fraction of a cycle, in "
                    f"1/{1 << DIVISOR_FRACTION_BITS}")
    cycles: Field(DIVISOR_CYCLE_BITS, "the bit time's whole UART clock cycles")


class UartCrc(Register, address=0x14, access="rw"):
    """The link's CRC-16/CCITT-FALSE (the frames' CRC, spec.protocol.crc16) over the bytes fed
    to CRC_DATA; a write sets it (the protocol's CRC_INIT starts a frame's)."""
    crc: Field(16, "the CRC so far")


class UartCrcData(Register, address=0x18, access="w"):
    """Continues CRC over the written bytes, byte lane 0 first: a byte store feeds its byte,
    a word store four (one clock, no wait)."""
    bytes: Field(32, "the bytes; lanes without a write enable are not fed")


class UartRxWritten(Register, address=0x1C, access="r"):
    """Bytes the receiver has written into the receive ring since reset (its write index).

    The next byte goes to byte ``count`` modulo the ring's size of RX_RING.
    """
    count: Field(RX_INDEX_BITS, f"wraps at 2^{RX_INDEX_BITS}")


class UartTxWord(Register, address=0x20, access="w"):
    """Queue the stored bytes for sending, byte lane 0 first: a word store queues four, a byte
    store one; waits (bus wait states) while STATUS.tx_word_ready is 0."""
    bytes: Field(32, "the bytes; lanes without a write enable are not sent")


class UartTxCrc(Register, address=0x24, access="w"):
    """TX_WORD that also continues CRC over the bytes it queues (as CRC_DATA does): a frame
    is sent and its CRC made in one pass."""
    bytes: Field(32, "the bytes; lanes without a write enable are neither sent nor fed")


class UartRxTaken(Register, address=0x28, access="rw"):
    """Bytes the firmware has taken from the receive ring (its read index; reset: 0).

    The receiver may write over the bytes before it.  A byte that arrives while
    RX_WRITTEN - RX_TAKEN is the ring's size is lost (RX_OVERRUNS, STATUS.rx_overrun).
    """
    count: Field(RX_INDEX_BITS, f"wraps at 2^{RX_INDEX_BITS}")


class UartRxAt(Register, address=0x2C, access="w"):
    """Where RX_WORD and RX_CRC_WORD read next: a byte of the receive ring.

    Its bytes and those after it that are read must have been received before this write
    (RX_WRITTEN counted them).
    """
    index: Field(RX_INDEX_BITS, "a byte index as RX_WRITTEN counts (modulo the ring's size)")


class UartRxWord(Register, address=0x30, access="r"):
    """The ring's four bytes from RX_AT on, which then moves four bytes on.

    A read takes two wait states; the bytes need not start a word of the ring, and wrap at
    its end: a frame is read a word at a time wherever it begins.
    """
    bytes: Field(32, "the bytes, the one at RX_AT in bits 7:0")


class UartRxCrcWord(Register, address=0x34, access="r"):
    """RX_WORD that also continues CRC over the four bytes it reads (as CRC_DATA does).

    A received frame is copied out of the ring and its CRC made in one pass.
    """
    bytes: Field(32, "the bytes, the one at RX_AT in bits 7:0")


class UartRxClueWord(Register, address=0x38, access="r"):
    """RX_CRC_WORD that also checks the four bytes as a SOLVE's clue codes (CLUE_BAD).

    A SOLVE's clue words are copied out of the ring through it: their codes are checked
    in the same pass, with no instruction of the firmware's.
    """
    bytes: Field(32, "the bytes, the one at RX_AT in bits 7:0")


class UartClueBad(Register, address=0x3C, access="r"):
    """Whether a word read through RX_CLUE_WORD since CRC was last written held a code
    that is neither a clue 0..3 nor a blank (spec.protocol.clue_code_bad: the SOLVE is
    refused with BAD_CLUE)."""
    bad: Field(1, "sticky until the next CRC write")


UART_REGISTERS = (UartData, UartStatus, UartRxOverruns, UartRxFrameErrors, UartDivisor,
                  UartCrc, UartCrcData, UartRxWritten, UartTxWord, UartTxCrc, UartRxTaken,
                  UartRxAt, UartRxWord, UartRxCrcWord, UartRxClueWord, UartClueBad)


# -- the system controller (hw/soc.py SysCtl) --------------------------------------------------

class CyclesLo(Register, address=0x00, access="r"):
    """The cycle counter's low word; reading it latches the high word into CYCLES_HI."""
    value: Field(32, "cycles since reset, bits 31:0")


class CyclesHi(Register, address=0x04, access="r"):
    """The cycle counter's high word as latched by the last CYCLES_LO read."""
    value: Field(32, "cycles since reset, bits 63:32")


class ClockHz(Register, address=0x08, access="r"):
    """The build's design clock frequency; the UART's clock is SOC_UART_CLOCK_RATIO
    (spec.uart.UART_CLOCK_RATIO) times it."""
    value: Field(32, "Hz")


class StartBaud(Register, address=0x0C, access="r"):
    """The UART's rate at reset: the build's start rate (the UART's DIVISOR makes it)."""
    value: Field(32, "bits per second")


class MaxBaud(Register, address=0x10, access="r"):
    """The fastest rate the build offers: its board's USB-UART bridge's as its UART clock
    makes it (spec.uart.max_baud)."""
    value: Field(32, "bits per second")


class RamSize(Register, address=0x14, access="r"):
    """Bytes of RAM."""
    value: Field(32, "bytes")


SYSCTL_REGISTERS = (CyclesLo, CyclesHi, ClockHz, StartBaud, MaxBaud, RamSize)


# -- the memory map ---------------------------------------------------------------------------

#: Regions are decoded on address bits 31:REGION_SHIFT; blocks sharing a region are
#: told apart by bits REGION_SHIFT-1:PAGE_SHIFT.
REGION_SHIFT = 28
PAGE_SHIFT = 12


@dataclass(frozen=True)
class Block:
    """One target of the CPU's bus: ``base`` address, ``size`` bytes (None: set by the build);
    ``pins``: the SoC's ports it drives or reads, ``(name, "in" or "out")``."""
    name: str
    base: int
    size: int
    registers: tuple
    prefix: str     # of its C names
    doc: str
    pins: tuple = ()
    size_name: str = ""   # what sets the size, when the build does (size None)

    @property
    def region(self):
        return self.base >> REGION_SHIFT

    @property
    def page(self):
        return (self.base >> PAGE_SHIFT) & ((1 << (REGION_SHIFT - PAGE_SHIFT)) - 1)


RAM = Block("RAM", 0x0000_0000, None, (), "SOC_RAM",
            "block RAM: code, data, stack (top of RAM); the size is a build parameter",
            size_name="RAM size")
UART = Block("UART", 0x1000_0000, 64, UART_REGISTERS, "SOC_UART",
             f"8N1 serial port: receives into RX_RING, TX FIFO {UART_TX_DEPTH} bytes",
             pins=(("uart_rx", "in"), ("uart_tx", "out")))
SYSCTL = Block("SysCtl", 0x1000_1000, 24, SYSCTL_REGISTERS, "SOC_SYSCTL",
               "free-running 64-bit cycle counter and the build's parameters")
ACCEL = Block("Accelerator", 0x2000_0000, WINDOW_SIZE, ACCEL_REGISTERS, "SOC_ACCEL",
              "the solver (paper section 3.2): docs/registers.md")
DEDUCE = Block("Deduce", 0x3000_0000, WINDOW_SIZE, DEDUCE_REGISTERS, "SOC_DEDUCE",
               "the deduction engine (docs/design.md section 6), when the build has it: "
               "docs/registers.md")

RX_RING = Block("RxRing", 0x4000_0000, None, (), "SOC_RX_RING",
                "the UART's receive ring (read only): byte i received is at i modulo the "
                "ring's size (rx_ring_size)", size_name="ring size")

MEMORY_MAP = (RAM, UART, SYSCTL, ACCEL, DEDUCE, RX_RING)


def queue_depth(max_rows, max_cols):
    """SOLVE requests the device of a build taking grids up to ``max_rows`` x ``max_cols``
    holds (VERSION's ``queue``): as many of its largest requests (a SOLVE of its largest
    grid) as the smallest ring (:data:`RX_RING_MIN`) holds, from
    :data:`spec.protocol.QUEUE_DEPTH_MIN` to :data:`spec.protocol.QUEUE_DEPTH_MAX`: a small
    grid's requests are short and quickly solved, and a host keeps more of them in flight
    (docs/soc.md, "The UART")."""
    check_build_size(max_rows, max_cols)
    fit = RX_RING_MIN // (solve_length(max_rows, max_cols) + OVERHEAD)
    return max(QUEUE_DEPTH_MIN, min(QUEUE_DEPTH_MAX, fit))


def rx_ring_size(max_rows, max_cols):
    """Bytes of the receive ring of a build taking grids up to ``max_rows`` x ``max_cols``:
    the smallest power of two, at least :data:`RX_RING_MIN`, that holds
    :func:`queue_depth` of its largest requests (a SOLVE of its largest grid), so the
    requests a host has in flight arrive whole while the firmware solves (docs/soc.md,
    "The UART")."""
    need = queue_depth(max_rows, max_cols) * (solve_length(max_rows, max_cols) + OVERHEAD)
    size = RX_RING_MIN
    while size < need:
        size *= 2
    return size


def _check_memory_map():
    if WINDOW_SIZE > 1 << ADDR_WIDTH:
        raise ValueError(f"the register window ({WINDOW_SIZE:#x} bytes) does not fit a "
                         f"{ADDR_WIDTH}-bit bus address")
    for block in MEMORY_MAP:
        for register in block.registers:
            if block.size is not None and register.address >= block.size:
                raise ValueError(f"{block.name}.{register.__name__} lies outside the block")
    paged = [b for b in MEMORY_MAP if b.size is not None and b.size <= 1 << PAGE_SHIFT]
    keys = [(b.region, b.page) for b in paged]
    if len(set(keys)) != len(keys):
        raise ValueError("two blocks share a page")


_check_memory_map()


def cell_address(row, col):
    """Byte offset of CELL(row, col) within the accelerator's window."""
    if not (0 <= row < CELL_ROWS_MAX and 0 <= col < CELL_STRIDE):
        raise ValueError(f"cell ({row}, {col}) is outside the addressable "
                         f"{CELL_ROWS_MAX}x{CELL_STRIDE} window")
    return CELL_BASE + 4 * (row * CELL_STRIDE + col)


def check_build_size(max_rows, max_cols):
    """Validate a build-time maximum grid size, with a one-line message."""
    for what, value, limit in (("max_rows", max_rows, CELL_ROWS_MAX),
                               ("max_cols", max_cols, CELL_STRIDE)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
            raise ValueError(f"{what} must be an integer from 1 to {limit} "
                             f"(the CELL register window), not {value!r}")


def _check_rx_ring():
    if RX_RING_MIN & (RX_RING_MIN - 1) or RX_RING_MIN % 4:
        raise ValueError("RX_RING_MIN must be a power of two of whole words")
    if rx_ring_size(CELL_ROWS_MAX, CELL_STRIDE) >= 1 << RX_INDEX_BITS:
        raise ValueError("RX_WRITTEN and RX_TAKEN cannot count a full ring of the largest build")


_check_rx_ring()


# -- generated artefacts ----------------------------------------------------------------------

GENERATED = "Generated by spec/registers.py -- do not edit; 'python -m slitherlink.spec.generate' rewrites it."


def c_name(register):
    """``FloodIterations`` -> ``FLOOD_ITERATIONS``; ``UartData`` (in its block) -> ``DATA``."""
    name = register.__name__
    if name.startswith("Uart") and register in UART_REGISTERS:
        name = name[4:]
    out = ""
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out += "_"
        out += ch.upper()
    return out


def _register_defines(prefix, register, base=0):
    name = f"{prefix}_{c_name(register)}"
    lines = [f"/* {register.__name__} ({register.access}): "
             f"{register.__doc__.strip().splitlines()[0]} */",
             f"#define {name} 0x{base + register.address:0{8 if base else 4}X}u"]
    for f in register.fields:
        lines.append(f"#define {name}_{f.name.upper()}_SHIFT {f.offset}u")
        lines.append(f"#define {name}_{f.name.upper()}_MASK 0x{f.mask:08X}u")
    return lines + [""]


def c_header():
    """``slk_regs.h``: the accelerator's registers (offsets within its window)."""
    lines = [f"/* {GENERATED} */", "#ifndef SLK_REGS_H", "#define SLK_REGS_H", "",
             f"#define SLK_ID_MAGIC 0x{ID_MAGIC:06X}u",
             f"#define SLK_REGMAP_VERSION {VERSION}u",
             f"#define SLK_BASE 0x{ACCEL.base:08X}u",
             f"#define SLK_CELL_BASE 0x{CELL_BASE:04X}u", f"#define SLK_CELL_STRIDE {CELL_STRIDE}u",
             f"#define SLK_CLUE_BLANK {CLUE_BLANK}u",
             f"#define SLK_ATTR_NONE {int(Attribute.NONE)}u",
             f"#define SLK_ATTR_OUTSIDE {int(Attribute.OUTSIDE)}u",
             f"#define SLK_ATTR_INSIDE {int(Attribute.INSIDE)}u",
             f"#define SLK_FLOOD_REACH {int(FloodMode.REACH)}u",
             f"#define SLK_FLOOD_ESCAPE {int(FloodMode.ESCAPE)}u",
             f"#define SLK_MAX_PATTERNS {MAX_PATTERNS}u", ""]
    for register in ACCEL_REGISTERS:
        lines += _register_defines("SLK", register)
    lines += ["#define SLK_CELL_ADDR(r, c) (SLK_CELL_BASE + 4u * ((r) * SLK_CELL_STRIDE + (c)))",
              "", "/* The deduction engine (offsets within its window at SLK_DEDUCE_BASE) */",
              f"#define SLK_DEDUCE_BASE 0x{DEDUCE.base:08X}u",
              f"#define SLK_DEDUCE_ID_MAGIC 0x{DEDUCE_ID_MAGIC:06X}u",
              f"#define SLK_DEDUCE_REGMAP_VERSION {DEDUCE_VERSION}u",
              f"#define SLK_DEDUCE_CLUE_BASE 0x{DEDUCE_CLUE_BASE:04X}u",
              "/* cells a DEDUCE_CLUES write carries, 4 bits each */",
              f"#define SLK_DEDUCE_STREAM_CELLS {DEDUCE_STREAM_CELLS}u",
              f"#define SLK_DEDUCE_COUNTERS {len(DEDUCE_HW_COUNTERS)}u",
              "/* counter k (DEDUCE_HW_COUNTERS order) at SLK_DEDUCE_COUNTER_BASE + 4 * k */",
              f"#define SLK_DEDUCE_COUNTER_BASE 0x{DEDUCE_COUNTER_BASE:04X}u"]
    for k, name in enumerate(DEDUCE_HW_COUNTERS):
        lines.append(f"#define SLK_DEDUCE_COUNTER_{name.upper()} {k}u")
    lines.append("")
    for register in DEDUCE_REGISTERS:
        lines += _register_defines("SLK", register)
    lines += ["#define SLK_DEDUCE_CLUE_ADDR(r, c) "
              "(SLK_DEDUCE_CLUE_BASE + 4u * ((r) * SLK_CELL_STRIDE + (c)))",
              "", "#endif /* SLK_REGS_H */", ""]
    return "\n".join(lines)


def soc_header():
    """``slk_soc.h``: the memory map, the UART's and the system controller's registers
    (absolute addresses)."""
    lines = [f"/* {GENERATED} */", "#ifndef SLK_SOC_H", "#define SLK_SOC_H", ""]
    for block in MEMORY_MAP:
        lines.append(f"#define {block.prefix}_BASE 0x{block.base:08X}u")
    lines += [f"#define SOC_UART_TX_DEPTH {UART_TX_DEPTH}u",
              "/* spec.uart.MIN_BIT_TIME: the shortest bit time, in DIVISOR's units */",
              f"#define SOC_UART_MIN_BIT_TIME {MIN_BIT_TIME}u",
              "/* spec.uart.UART_CLOCK_RATIO: the UART's clock over the design clock */",
              f"#define SOC_UART_CLOCK_RATIO {UART_CLOCK_RATIO}u", ""]
    for block in (UART, SYSCTL):
        for register in block.registers:
            lines += _register_defines(block.prefix, register, block.base)
    lines += ["#endif /* SLK_SOC_H */", ""]
    return "\n".join(lines)


def build_header(*, max_rows, max_cols, ram_size):
    """``slk_build.h``: the parameters of one build (written by the firmware build)."""
    check_build_size(max_rows, max_cols)
    return "\n".join([
        "/* Generated by the firmware build (spec.registers.build_header) -- do not edit. */",
        "#ifndef SLK_BUILD_H", "#define SLK_BUILD_H", "",
        f"#define SLK_MAX_ROWS {max_rows}u", f"#define SLK_MAX_COLS {max_cols}u",
        f"#define SOC_RAM_SIZE {ram_size}u",
        f"#define SOC_RX_RING_SIZE {rx_ring_size(max_rows, max_cols)}u",
        f"#define SLK_QUEUE_DEPTH {queue_depth(max_rows, max_cols)}u", "",
        "#endif /* SLK_BUILD_H */", ""])


def linker_memory(*, ram_size):
    """``slk_memory.ld``: the RAM region of the linker script."""
    return ("/* Generated by the firmware build (spec.registers.linker_memory) -- do not "
            "edit. */\n"
            f"MEMORY {{ RAM (rwx) : ORIGIN = 0x{RAM.base:08X}, LENGTH = {ram_size} }}\n")


def _bits(f):
    return f"{f.offset}" if f.width == 1 else f"{f.offset + f.width - 1}:{f.offset}"


def _register_table(registers, *, windows=None):
    """``windows``: ``{register: address formula}`` of the registers that are arrays."""
    out = ["| address | register | access | bits | field | meaning |",
           "|---|---|---|---|---|---|"]
    for register in registers:
        where = f"0x{register.address:04X}"
        if register in (windows or {}):
            where += windows[register]
        doc = register.__doc__.strip().splitlines()[0]
        out.append(f"| {where} | **{c_name(register)}** | {register.access} | | | {doc} |")
        for f in register.fields:
            out.append(f"| | | | {_bits(f)} | {f.name} | {f.doc} |")
    return out


def markdown():
    """The accelerator's register map as a Markdown table, for ``docs/registers.md``."""
    out = ["<!-- Generated by spec/registers.py (python -m slitherlink.spec.generate) -- do not edit. -->", "",
           f"The accelerator's window starts at 0x{ACCEL.base:08X} in the SoC's memory map "
           "(docs/soc.md); addresses below are offsets within it.", ""]
    out += _register_table(ACCEL_REGISTERS, windows={Cell: f" + 4*(row*{CELL_STRIDE}+col)"})
    out += ["", "## The deduction engine", "",
            f"The deduction engine's window starts at 0x{DEDUCE.base:08X} (docs/deduce.md, "
            "docs/soc.md); addresses below are offsets within it.  A build without the engine "
            "reads 0 there.", ""]
    out += _register_table(DEDUCE_REGISTERS, windows={
        DeduceClue: f" + 4*(row*{CELL_STRIDE}+col)"})
    return "\n".join(out) + "\n"


def soc_markdown():
    """The tables of ``docs/soc.md``: the memory map and the UART's and SysCtl's registers."""
    out = ["| base | size | block | what |", "|---|---|---|---|"]
    for block in MEMORY_MAP:
        size = block.size_name if block.size is None else (
            "`WINDOW_SIZE` = " + str(block.size) if block in (ACCEL, DEDUCE) else str(block.size))
        out.append(f"| `0x{block.base >> 16:04X}_{block.base & 0xFFFF:04X}` | {size} | "
                   f"{block.name} | {block.doc} |")
    for block in (UART, SYSCTL):
        out += ["", f"{block.name} registers (offsets from 0x{block.base:08X}):", ""]
        out += _register_table(block.registers)
    return "\n".join(out) + "\n"


def _address(value):
    return f"0x{value >> 16:04X}_{value & 0xFFFF:04X}"


def soc_diagram():
    """The block diagram of ``docs/soc.md`` (paper Fig. 7): the CPU, its bus and every block
    of :data:`MEMORY_MAP` at its addresses, with the SoC's ports."""
    region = f"{31}:{REGION_SHIFT}"
    page = f"{REGION_SHIFT - 1}:{PAGE_SHIFT}"
    body = [("trap", "out", "PicoRV32 (RV32I): runs the firmware from RAM"), (None, None, "  |"),
            (None, None, f"  |  bus (hw/bus.py): regions on address bits {region},"),
            (None, None, f"  |  blocks in one region on bits {page}")]
    for i, block in enumerate(MEMORY_MAP):
        last = i == len(MEMORY_MAP) - 1
        end = (f"+ {block.size_name}" if block.size is None
               else f"{_address(block.base + block.size - 1)}")
        pins = list(block.pins) or [(None, None)]
        for j, (pin, direction) in enumerate(pins):
            text = (f"  +-- {_address(block.base)} .. {end:<11}  {block.name}" if j == 0
                    else "     " if last else "  |")
            body.append((pin, direction, text))
    width = max(len(text) for _, _, text in body) + 1
    pin_width = max(len(pin) for pin, _, _ in body if pin)
    margin = " " * (pin_width + 6)
    out = ["```", f"{margin}+{'-' * (width + 1)}+"]
    for pin, direction, text in body:
        if pin is None:
            left = margin
        else:
            arrow = "--->" if direction == "in" else "<---"
            left = f" {pin:<{pin_width}} {arrow}"
        out.append(f"{left}| {text:<{width}}|")
    out += [f"{margin}+{'-' * (width + 1)}+", "```"]
    return "\n".join(out) + "\n"
