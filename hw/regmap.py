"""Register map of the solver accelerator: the one description of the CPU's view.

Paper section 3.2 (the x, a0, a1, s0, s1 register arrays) and DESIGN.md section 4.
The gateware (:mod:`hw.accelerator`) decodes its bus from these classes, the
firmware includes the C header :func:`c_header` generates from them, and the
docs show the Markdown table :func:`markdown` generates.  Nothing here is typed
twice.

Each register is a small class whose annotations are its fields::

    class Status(Register, address=0x010, access="r"):
        "..."
        conflict: Field(1, "a cell is required both inside and outside")

Field offsets follow the annotation order, from bit 0 up, unless a field gives
its own ``offset``.

Timing contract (the gateware guarantees it with wait states):

* a read of any register reflects every write that came before it on the bus;
  in particular STATUS after a CELL write shows the partial condition of the
  new assignment;
* a write of CONTROL with ``flood`` set starts the flood array; STATUS reads
  ``flood_busy`` until it is done, then ``flood_complete`` and
  FLOOD_ITERATIONS hold the result (the iterations exclude any set-up cycles
  and equal :func:`hw.model.flood`'s count).
"""

from dataclasses import dataclass

from .combinations import Attribute, MAX_PATTERNS
from .model import FloodMode

__all__ = ["Field", "Register", "REGISTERS", "CELL_BASE", "CELL_STRIDE", "CELL_ROWS_MAX",
           "WINDOW_SIZE", "ID_MAGIC", "VERSION", "cell_address", "c_header", "markdown"]

#: Value of the ID register: ASCII "SLK" and the register map version.
ID_MAGIC = 0x534C4B
VERSION = 1

#: The per-cell registers: CELL(r, c) at CELL_BASE + 4 * (r * CELL_STRIDE + c),
#: r and c 0-based within the grid (the frame is not addressable).
CELL_BASE = 0x1000
CELL_STRIDE = 64
CELL_ROWS_MAX = 64
WINDOW_SIZE = CELL_BASE + 4 * CELL_STRIDE * CELL_ROWS_MAX  # bytes the accelerator decodes

#: Clue code of a blank cell in the CELL register's ``clue`` field.
CLUE_BLANK = 0b100


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
    """Base class of a register: ``address`` (bytes), ``access`` "r", "w" or "rw"."""

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
    pattern: Field(3, "the combination's pattern index (hw.combinations order)")
    attribute: Field(2, "[a1:a0]: 0 unassigned, 1 OUTSIDE, 2 INSIDE")
    clue: Field(3, "0..3 the digit, 4 blank")
    s0: Field(1, "read only: required outside", offset=8)
    s1: Field(1, "read only: required inside", offset=9)


REGISTERS = (Id, Config, Size, Control, Status, FloodIterations, PickS, PickI, PickB, Cell)


def cell_address(row, col):
    """Byte offset of CELL(row, col) within the accelerator's window."""
    if not (0 <= row < CELL_ROWS_MAX and 0 <= col < CELL_STRIDE):
        raise ValueError(f"cell ({row}, {col}) is outside the addressable "
                         f"{CELL_ROWS_MAX}x{CELL_STRIDE} window")
    return CELL_BASE + 4 * (row * CELL_STRIDE + col)


def _c_name(register):
    out = ""
    for i, ch in enumerate(register.__name__):
        if ch.isupper() and i:
            out += "_"
        out += ch.upper()
    return out


def c_header(*, base=None, max_rows=None, max_cols=None):
    """The C header of this register map (``firmware/include/slk_regs.h``).

    ``base`` is the accelerator's address in the SoC; the build size, when
    given, is emitted too so the firmware can size its arrays.
    """
    from .combinations import combinations, b_table, patterns
    lines = [
        "/* Generated by hw/regmap.py -- do not edit; run 'make firmware' to regenerate. */",
        "#ifndef SLK_REGS_H", "#define SLK_REGS_H", "", "#include <stdint.h>", "",
        f"#define SLK_ID_MAGIC 0x{ID_MAGIC:06X}u",
        f"#define SLK_REGMAP_VERSION {VERSION}u",
    ]
    if base is not None:
        lines.append(f"#define SLK_BASE 0x{base:08X}u")
    if max_rows is not None:
        lines += [f"#define SLK_MAX_ROWS {max_rows}u", f"#define SLK_MAX_COLS {max_cols}u"]
    lines += [f"#define SLK_CELL_BASE 0x{CELL_BASE:04X}u", f"#define SLK_CELL_STRIDE {CELL_STRIDE}u",
              f"#define SLK_CLUE_BLANK {CLUE_BLANK}u",
              f"#define SLK_ATTR_NONE {int(Attribute.NONE)}u",
              f"#define SLK_ATTR_OUTSIDE {int(Attribute.OUTSIDE)}u",
              f"#define SLK_ATTR_INSIDE {int(Attribute.INSIDE)}u",
              f"#define SLK_FLOOD_REACH {int(FloodMode.REACH)}u",
              f"#define SLK_FLOOD_ESCAPE {int(FloodMode.ESCAPE)}u",
              f"#define SLK_MAX_PATTERNS {MAX_PATTERNS}u", ""]
    lines.append("/* Combinations per digit, in search order: pattern = i / 2, "
                 "attribute = OUTSIDE if i is even else INSIDE. */")
    counts = ", ".join(str(len(combinations(d))) for d in range(4))
    lines += [f"static const uint8_t slk_combinations[4] = {{{counts}}};", ""]
    for register in REGISTERS:
        name = _c_name(register)
        lines.append(f"/* {register.__name__} ({register.access}): "
                     f"{register.__doc__.strip().splitlines()[0]} */")
        lines.append(f"#define SLK_{name} 0x{register.address:04X}u")
        for f in register.fields:
            lines.append(f"#define SLK_{name}_{f.name.upper()}_SHIFT {f.offset}u")
            lines.append(f"#define SLK_{name}_{f.name.upper()}_MASK 0x{f.mask:08X}u")
        lines.append("")
    lines += ["#define SLK_CELL_ADDR(r, c) (SLK_CELL_BASE + 4u * ((r) * SLK_CELL_STRIDE + (c)))",
              "", "#endif /* SLK_REGS_H */", ""]
    return "\n".join(lines)


def markdown():
    """The register map as a Markdown table, for ``docs/registers.md``."""
    out = ["<!-- Generated by hw/regmap.py -- do not edit. -->", "",
           "| address | register | access | bits | field | meaning |",
           "|---|---|---|---|---|---|"]
    for register in REGISTERS:
        where = f"0x{register.address:04X}"
        if register is Cell:
            where += f" + 4*(row*{CELL_STRIDE}+col)"
        doc = register.__doc__.strip().splitlines()[0]
        out.append(f"| {where} | **{register.__name__}** | {register.access} | | | {doc} |")
        for f in register.fields:
            bits = f"{f.offset}" if f.width == 1 else f"{f.offset + f.width - 1}:{f.offset}"
            out.append(f"| | | | {bits} | {f.name} | {f.doc} |")
    return "\n".join(out) + "\n"
