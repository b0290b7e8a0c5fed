"""The checker's b_k lookup is generated from spec/combinations.py, not typed by hand."""

from slitherlink.spec import registers as regmap
from slitherlink.hw.cells import CellLayout
from slitherlink.hw.checker import OFFSETS, requirement_table
from slitherlink.spec.combinations import (NEIGHBOURS, Attribute, Need, b_table, combinations, patterns,
                             requirements)


def key(clue, pattern, attribute):
    return (clue << CellLayout["clue"].offset | pattern << CellLayout["pattern"].offset
            | int(attribute) << CellLayout["attribute"].offset)


def test_layout_is_the_cell_register_low_byte():
    for name in ("pattern", "attribute", "clue"):
        assert CellLayout[name].offset == regmap.Cell.field(name).offset
    assert CellLayout.size == 8


def test_table_equals_the_paper_tables_b1_to_b8():
    table = requirement_table()
    for digit in range(4):
        for pattern, attribute in combinations(digit):
            s0, s1 = table[key(digit, pattern, attribute)]
            needs = b_table(digit, pattern, attribute)
            for k, offset in enumerate(NEIGHBOURS):
                bit = 1 << OFFSETS.index(offset)
                got = Need.OUTSIDE if s0 & bit else Need.INSIDE if s1 & bit else Need.FREE
                assert not (s0 & s1 & bit)
                assert got == needs[k], (digit, pattern, attribute, k + 1)
            centre = 1 << OFFSETS.index((0, 0))
            assert bool(s1 & centre) == (attribute is Attribute.INSIDE)
            assert bool(s0 & centre) == (attribute is Attribute.OUTSIDE)


def paper_row(digit, pattern, attribute):
    s0, s1 = requirement_table()[key(digit, pattern, attribute)]
    return " ".join("{:02b}".format((s1 >> OFFSETS.index(o) & 1) << 1 | (s0 >> OFFSETS.index(o) & 1))
                    for o in NEIGHBOURS)


def test_table_spot_checks_against_the_paper():
    """Rows of the paper's Tables 3 and 6 (b_1 .. b_8), as printed."""
    assert paper_row(0, 0, Attribute.OUTSIDE) == "00 01 00 01 01 00 01 00"  # Table 3
    assert paper_row(0, 0, Attribute.INSIDE) == "00 10 00 10 10 00 10 00"
    assert paper_row(3, 0, Attribute.INSIDE) == "01 01 00 01 10 01 01 00"  # Table 6, x=0
    assert paper_row(3, 3, Attribute.OUTSIDE) == "00 01 00 10 10 10 10 10"  # Table 6, x=3


def test_only_valid_states_have_requirements():
    table = requirement_table()
    valid = {key(d, p, a) for d in range(4) for p, a in combinations(d)}
    valid |= {key(regmap.CLUE_BLANK, p, a) for p in range(8)
              for a in (Attribute.OUTSIDE, Attribute.INSIDE)}
    assert set(table) == valid
    assert len(table) == sum(len(combinations(d)) for d in range(4)) + 16
    # a blank cell only requires itself
    for p in range(8):
        s0, s1 = table[key(regmap.CLUE_BLANK, p, Attribute.INSIDE)]
        assert (s0, s1) == (0, 1 << OFFSETS.index((0, 0)))
    # and every entry agrees with requirements() including the centre
    for d in range(4):
        for p in range(len(patterns(d))):
            for a in (Attribute.OUTSIDE, Attribute.INSIDE):
                s0, s1 = table[key(d, p, a)]
                forced = requirements(d, p, a)
                assert {o for o in OFFSETS if s0 >> OFFSETS.index(o) & 1} == \
                    {o for o, v in forced.items() if v is Attribute.OUTSIDE}
                assert {o for o in OFFSETS if s1 >> OFFSETS.index(o) & 1} == \
                    {o for o, v in forced.items() if v is Attribute.INSIDE}
