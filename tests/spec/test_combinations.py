"""The combination tables reproduce the paper's Tables 3, 4 and 6 (docs/design.md section 2).

The ``PAPER_*`` tables below are transcribed from the paper (Miyauchi & Tanaka, "Solving
Slitherlink with FPGA and SMT Solver", JIP 28, 2020, section 3.3) as test oracles; they
are not used by the solver, which derives its tables from the rules in
spec/combinations.py.
"""

import pytest

from slitherlink.spec.combinations import (Attribute, NEIGHBOURS, Need, b_table, combinations, patterns,
                             requirements)

# (pattern x, [a1:a0]) -> "b_1 ... b_8" as printed in the paper.
PAPER_TABLE_3 = {  # digit 0
    (0, 0b01): "00 01 00 01 01 00 01 00",
    (0, 0b10): "00 10 00 10 10 00 10 00",
}
PAPER_TABLE_4 = {  # digit 1
    (0, 0b01): "00 01 00 10 01 00 01 00",
    (0, 0b10): "00 10 00 01 10 00 10 00",
    (1, 0b01): "00 10 00 01 01 00 01 00",
    (1, 0b10): "00 01 00 10 10 00 10 00",
    (2, 0b01): "00 01 00 01 00 10 01 00",
    (2, 0b10): "00 10 00 10 00 01 10 00",
    (3, 0b01): "00 01 00 01 01 00 10 00",
    (3, 0b10): "00 10 00 10 10 00 01 00",
}
PAPER_TABLE_6 = {  # digit 3
    (0, 0b01): "10 10 00 10 01 10 10 00",
    (0, 0b10): "01 01 00 01 10 01 01 00",
    (1, 0b01): "10 10 10 10 10 00 01 00",
    (1, 0b10): "01 01 01 01 01 00 10 00",
    (2, 0b01): "00 10 10 01 10 00 10 10",
    (2, 0b10): "00 01 01 10 01 00 01 01",
    (3, 0b01): "00 01 00 10 10 10 10 10",
    (3, 0b10): "00 10 00 01 01 01 01 01",
}

#: The one place where the derived table and the paper's printed Table 4 differ.
#: Digit 1, pattern 2 draws its line on the right (b_5 is the opposite colour)
#: and constrains no diagonal; the printed rows put that requirement under b_6
#: (the bottom-left diagonal) and leave b_5 free, which would let the right
#: neighbour match the centre and give the clue no line at all.  We read it as
#: a transposition of b_5 and b_6 in the printed table.
TABLE_4_ERRATUM = {(2, 0b01), (2, 0b10)}


def _derived(digit, pattern, attribute):
    return " ".join(format(int(b), "02b") for b in b_table(digit, pattern, attribute))


def _swap_b5_b6(row):
    b = row.split()
    b[4], b[5] = b[5], b[4]
    return " ".join(b)


def test_pattern_counts():
    assert [len(patterns(d)) for d in range(4)] == [1, 4, 6, 4]
    assert [len(combinations(d)) for d in range(4)] == [2, 8, 12, 8]


@pytest.mark.parametrize("digit,table", [(0, PAPER_TABLE_3), (3, PAPER_TABLE_6)])
def test_tables_3_and_6_bit_for_bit(digit, table):
    derived = {(p, int(a)): _derived(digit, p, a) for p, a in combinations(digit)}
    assert derived == table


def test_table_4_bit_for_bit_but_the_erratum():
    for (p, a), printed in PAPER_TABLE_4.items():
        derived = _derived(1, p, a)
        if (p, a) in TABLE_4_ERRATUM:
            assert derived != printed
            assert derived == _swap_b5_b6(printed)
        else:
            assert derived == printed


def test_unassigned_and_blank_rows_are_free():
    # Tables 1-3: [a1:a0] = 00 requires nothing
    for d in range(4):
        for p in range(len(patterns(d))):
            assert b_table(d, p, Attribute.NONE) == (Need.FREE,) * 8


@pytest.mark.parametrize("digit", range(4))
def test_every_combination_satisfies_its_clue_and_no_crossing(digit):
    """Rules 1 and 2 on the 3x3 block a combination fixes (the derivation's premise)."""
    for p, a in combinations(digit):
        forced = requirements(digit, p, a)
        centre = forced[(0, 0)]
        sides = [forced[o] for o in ((0, -1), (-1, 0), (0, 1), (1, 0))]
        assert sum(s != centre for s in sides) == digit
        for dr in (-1, 1):
            for dc in (-1, 1):
                a_, b_ = forced[(dr, 0)], forced[(0, dc)]
                diagonal = forced.get((dr, dc))
                if a_ != centre and b_ != centre:
                    assert diagonal == centre.opposite  # else a checkerboard
                else:
                    assert diagonal is None  # the rule leaves it free


def test_combinations_are_distinct_and_ordered():
    for d in range(4):
        combos = combinations(d)
        assert len(set(combos)) == len(combos)
        assert [a for _, a in combos[:2]] == [Attribute.OUTSIDE, Attribute.INSIDE]
        assert len(NEIGHBOURS) == 8


def test_bad_digit_is_refused():
    with pytest.raises(ValueError, match="0, 1, 2 or 3"):
        patterns(4)
