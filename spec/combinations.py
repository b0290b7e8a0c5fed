"""Attribute/pattern combinations of a clue cell, derived from the rules.

Paper section 2.2 (Fig. 6) and section 3.3 (Tables 1-6); docs/design.md section 2.

A *combination* of a clue cell with digit ``d`` is its attribute (INSIDE or
OUTSIDE) and a *pattern*: the set of ``d`` orthogonal neighbours that take the
opposite colour (a line is drawn on exactly those sides).  A combination fixes
the colour of the centre and of its four orthogonal neighbours; the no-crossing
rule then fixes a diagonal neighbour exactly when both orthogonal neighbours
beside that corner have the opposite colour.  Every other diagonal stays free.

This module is the single source of the tables: the golden model, the
gateware, the generated C header (``slk_options.h``: the CELL register word of
every option, in search order) and the tests all take them from here.

Encoding (the paper's):

* attribute ``[a1:a0]``: ``01`` = OUTSIDE, ``10`` = INSIDE, ``00`` = unassigned;
* requirement ``b_k[1:0]`` for neighbour ``k`` (1..8, Fig. 12):
  ``01`` = must be outside, ``10`` = must be inside, ``00`` = free.

Neighbour numbering (Fig. 12), as offsets ``(drow, dcol)``::

    1 2 3
    4 . 5
    6 7 8

Pattern order.  For digit 1, pattern ``p`` draws a line on side ``SIDES[p]``
(W, N, E, S), which reproduces the paper's Table 4.  For digit 3, pattern ``p``
is the U shape whose bottom is side ``SIDES[p]`` (all sides but the opposite
one), which reproduces Table 6.  For digit 2 the paper's Table 5 is lost; we
take the six pairs of sides in lexicographic order of their indices in
``SIDES``.  Digit 0 has the single empty pattern (Table 3).
"""

from enum import IntEnum
from itertools import combinations as _subsets
from functools import cache

__all__ = [
    "Attribute", "Need", "SIDES", "NEIGHBOURS", "patterns", "combinations",
    "requirements", "b_table", "MAX_PATTERNS", "OPTION_BLANK", "options", "option_words",
    "c_header",
]


class Attribute(IntEnum):
    """The paper's ``[a1:a0]`` code of a cell's attribute."""
    NONE = 0b00
    OUTSIDE = 0b01
    INSIDE = 0b10

    @property
    def opposite(self):
        return {Attribute.OUTSIDE: Attribute.INSIDE,
                Attribute.INSIDE: Attribute.OUTSIDE}[self]


class Need(IntEnum):
    """The paper's ``b_k[1:0]`` requirement code for one neighbour."""
    FREE = 0b00
    OUTSIDE = 0b01
    INSIDE = 0b10


#: The four sides, as (drow, dcol), in the paper's pattern order for digit 1.
SIDES = ((0, -1), (-1, 0), (0, 1), (1, 0))  # W, N, E, S
SIDE_NAMES = ("W", "N", "E", "S")

#: Neighbour k (1..8) of Fig. 12 as (drow, dcol); index 0 is neighbour 1.
NEIGHBOURS = ((-1, -1), (-1, 0), (-1, 1),
              (0, -1),           (0, 1),
              (1, -1), (1, 0), (1, 1))

#: Largest number of patterns of any digit (digit 2: C(4,2) = 6).
MAX_PATTERNS = 6

#: Combination order within a pattern: the paper's tables list 01 before 10.
ATTRIBUTE_ORDER = (Attribute.OUTSIDE, Attribute.INSIDE)


@cache
def patterns(digit):
    """The patterns of ``digit`` in their fixed order, each a frozenset of side indices."""
    if digit not in (0, 1, 2, 3):
        raise ValueError(f"a clue is 0, 1, 2 or 3, not {digit!r}")
    if digit == 0:
        return (frozenset(),)
    if digit == 1:
        return tuple(frozenset({s}) for s in range(4))
    if digit == 2:
        return tuple(frozenset(pair) for pair in _subsets(range(4), 2))
    # digit 3: the U whose bottom is side s lacks the side opposite to s.
    return tuple(frozenset(range(4)) - {(s + 2) % 4} for s in range(4))


@cache
def combinations(digit):
    """All (pattern index, attribute) pairs of ``digit``, in search order.

    The order is pattern-major, OUTSIDE before INSIDE: combination ``i`` is
    pattern ``i // 2`` with attribute ``ATTRIBUTE_ORDER[i % 2]``.
    """
    return tuple((p, a) for p in range(len(patterns(digit))) for a in ATTRIBUTE_ORDER)


@cache
def requirements(digit, pattern, attribute):
    """The colours a combination forces, as a dict ``{(drow, dcol): Attribute}``.

    The centre ``(0, 0)`` is included.  Follows docs/design.md section 2: centre and
    orthogonal neighbours from the clue, diagonals from the no-crossing rule.
    """
    attribute = Attribute(attribute)
    if attribute is Attribute.NONE:
        return {}
    lined = patterns(digit)[pattern]
    forced = {(0, 0): attribute}
    for s, offset in enumerate(SIDES):
        forced[offset] = attribute.opposite if s in lined else attribute
    for s in range(4):
        t = (s + 1) % 4  # adjacent sides, going round W, N, E, S
        if s in lined and t in lined:
            corner = (SIDES[s][0] + SIDES[t][0], SIDES[s][1] + SIDES[t][1])
            forced[corner] = attribute.opposite
    return forced


def b_table(digit, pattern, attribute):
    """The paper's ``b_1 .. b_8`` of a combination, as a tuple of :class:`Need`."""
    forced = requirements(digit, pattern, attribute)
    return tuple(Need(int(forced[n])) if n in forced else Need.FREE for n in NEIGHBOURS)


#: Index of the options of an undetermined (blank) cell, after the digits 0..3.
OPTION_BLANK = 4


def options(index):
    """The options of a search level, in search order, as (pattern, attribute) pairs.

    ``index`` 0..3 is a clue cell's digit (its :func:`combinations`);
    :data:`OPTION_BLANK` an undetermined cell (OUTSIDE, then INSIDE, pattern 0).
    """
    if index == OPTION_BLANK:
        return tuple((0, a) for a in ATTRIBUTE_ORDER)
    return combinations(index)


def option_words(index):
    """The CELL register words (:class:`spec.registers.Cell`) of :func:`options` ``(index)``:
    what the firmware writes to try each option (clue included)."""
    from .registers import CLUE_BLANK, Cell
    clue = CLUE_BLANK if index == OPTION_BLANK else index
    return tuple(Cell.pack(pattern=p, attribute=int(a), clue=clue) for p, a in options(index))


def c_header():
    """``slk_options.h``: the option words of every level kind, for the firmware's search."""
    width = 2 * MAX_PATTERNS
    lines = ["/* Generated by spec/combinations.py -- do not edit; 'python -m slitherlink.spec.generate' "
             "rewrites it. */", "#ifndef SLK_OPTIONS_H", "#define SLK_OPTIONS_H", "",
             "#include <stdint.h>", "",
             f"#define SLK_OPTION_BLANK {OPTION_BLANK}u",
             f"#define SLK_OPTION_KINDS {OPTION_BLANK + 1}u",
             f"#define SLK_OPTION_BLANK_COUNT {len(options(OPTION_BLANK))}u",
             f"#define SLK_OPTIONS_MAX {width}u", "",
             "/* Options of a level in search order: digits 0..3 (their combinations, "
             "pattern-major,", "   OUTSIDE first), then SLK_OPTION_BLANK (an undetermined cell: "
             "OUTSIDE, INSIDE). */",
             f"static const uint8_t slk_option_counts[SLK_OPTION_KINDS] = "
             f"{{{', '.join(str(len(options(i))) for i in range(OPTION_BLANK + 1))}}};",
             "/* The CELL register word of each option (clue, pattern, attribute). */",
             "static const uint32_t slk_option_words[SLK_OPTION_KINDS][SLK_OPTIONS_MAX] = {"]
    for i in range(OPTION_BLANK + 1):
        words = list(option_words(i)) + [0] * (width - len(options(i)))
        lines.append("    {" + ", ".join(f"0x{w:03X}u" for w in words) + "},")
    lines += ["};", "", "#endif /* SLK_OPTIONS_H */", ""]
    return "\n".join(lines)
