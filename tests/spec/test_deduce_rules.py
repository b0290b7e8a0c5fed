"""The deduction engine's rule tables (spec/deduce.py) against brute-force enumeration.

The constraints are written again here, independently of the module, and every
rule is checked on every colouring of its window.
"""

import itertools

import pytest

from slitherlink.spec.deduce import (WINDOWS, closure, literals, node_pair_var, rule_table,
                                island_free)
from slitherlink.host.puzzle import Puzzle

N4 = ((-1, 0), (0, 1), (1, 0), (0, -1))


def lines_of(col, cell):
    r, c = cell
    return sum(col[cell] != col[(r + dr, c + dc)] for dr, dc in N4)


def checkerboard(col, r, c):
    a, b, d, e = col[(r, c)], col[(r, c + 1)], col[(r + 1, c)], col[(r + 1, c + 1)]
    return a == e and b == d and a != b


def enclosed(col, group, colour):
    return all(col[g] == colour for g in group) and all(
        col[(r + dr, c + dc)] != colour for r, c in group for dr, dc in N4
        if (r + dr, c + dc) not in group)


PAIRS = {"h33": (0, 1), "v33": (1, 0), "d33": (1, 1), "a33": (1, -1)}


def allowed(name, col):
    """The window's rules, from docs/design.md section 1, written independently."""
    cells = set(col)
    boards = [(r, c) for r, c in cells
              if {(r, c + 1), (r + 1, c), (r + 1, c + 1)} <= cells]
    if name == "lattice":
        return not checkerboard(col, 0, 0)
    if name.startswith("clue"):
        return lines_of(col, (0, 0)) == int(name[4])
    other = PAIRS[name.rstrip("i")]
    if lines_of(col, (0, 0)) != 3 or lines_of(col, other) != 3:
        return False
    if any(checkerboard(col, r, c) for r, c in boards):
        return False
    if enclosed(col, ((0, 0), other), 0):
        return False
    return not (name.endswith("i") and enclosed(col, ((0, 0), other), 1))


def relation(col, var, off):
    """The value of stored variable ``var`` at ``off`` under colouring ``col``."""
    r, c = off
    if var == "C":
        return col[(r, c)]
    if var == "B":
        return col[(r, c + 1)] ^ col[(r + 1, c)]
    other = {"H": (r, c + 1), "V": (r + 1, c), "A": (r + 1, c + 1)}[var]
    return col[(r, c)] ^ col[other]


def colourings(cells):
    for bits in itertools.product((0, 1), repeat=len(cells)):
        yield dict(zip(cells, bits))


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_every_rule_is_sound(name):
    w = WINDOWS[name]
    models = [col for col in colourings(w.cells) if allowed(name, col)]
    assert models, name
    for rule in rule_table()[name]:
        holding = [col for col in models
                   if all(relation(col, v, o) == x for v, o, x in rule.premises)]
        assert holding, rule  # the premises can hold
        var, off, value = rule.conclusion
        assert all(relation(col, var, off) == value for col in holding), rule


def test_the_window_literals_are_the_stored_relations():
    assert node_pair_var((0, 0), (0, 1)) == ("H", (0, 0))
    assert node_pair_var((1, 0), (0, 0)) == ("V", (0, 0))
    assert node_pair_var((0, 0), (1, 1)) == ("A", (0, 0))
    assert node_pair_var((0, 1), (1, 0)) == ("B", (0, 0))
    assert node_pair_var((0, 0), (0, 2)) is None
    assert len(literals("lattice")) == 20  # the complete graph on O and four cells


def lattice_rules_in(cells):
    """Every lattice rule placed at every 2x2 block inside ``cells``."""
    cells = set(cells)
    out = []
    for r, c in cells:
        if {(r, c + 1), (r + 1, c), (r + 1, c + 1)} <= cells:
            for rule in rule_table()["lattice"]:
                def move(lit, r=r, c=c):
                    return (lit[0], (lit[1][0] + r, lit[1][1] + c), lit[2])
                out.append((frozenset(map(move, rule.premises)), move(rule.conclusion)))
    return out


def exact(name, known):
    """Forced literals of the window given ``known`` (None: no allowed colouring)."""
    w = WINDOWS[name]
    models = [col for col in colourings(w.cells) if allowed(name, col)
              and all(relation(col, v, o) == x for v, o, x in known)]
    if not models:
        return None
    return {(v, o, x) for v, o, x in literals(name)
            if all(relation(col, v, o) == x for col in models)}


def test_lattice_rules_reach_the_exact_projection():
    """For every state of the 2x2 block with up to 5 known relations (12,585 states),
    the lattice rules iterated to a fixpoint find exactly what enumeration forces."""
    rules = [(frozenset(r.premises), r.conclusion) for r in rule_table()["lattice"]]
    variables = sorted({(v, o) for v, o, _ in literals("lattice")})
    assert len(variables) == 10
    checked = 0
    for size in range(6):
        for chosen in itertools.combinations(variables, size):
            for values in itertools.product((0, 1), repeat=size):
                known = {(v, o, x) for (v, o), x in zip(chosen, values)}
                want = exact("lattice", known)
                got = closure(known, rules)
                assert (got is None) == (want is None), known
                if want is not None:
                    assert got == want, known
                checked += 1
    assert checked == 12585


@pytest.mark.parametrize("name", [n for n in sorted(WINDOWS) if n != "lattice"])
def test_no_implication_of_the_window_is_lost(name):
    """Every minimal implication with up to ``max_size`` premises over the window's
    literals (found here by enumeration) follows from the kept rules of the window
    and the lattice rules of its 2x2 blocks; the dropped ones were redundant."""
    w = WINDOWS[name]
    lits = literals(name)
    variables = sorted({(v, o) for v, o, _ in lits})
    rules = [(frozenset(r.premises), r.conclusion) for r in rule_table()[name]]
    rules += lattice_rules_in(w.cells)
    # triangles of relations whose 2x2 block sticks out of the window
    rules += structural_triangles(w.cells)
    if name.rstrip("i") in PAIRS:  # the clue-3 rules at the two clue cells
        rules += placed("clue3", 0, 0) + placed("clue3", *PAIRS[name.rstrip("i")])
    models = [col for col in colourings(w.cells) if allowed(name, col)]
    tried = 0
    for size in range(w.max_size + 1):
        for chosen in itertools.combinations(variables, size):
            for values in itertools.product((0, 1), repeat=size):
                known = {(v, o, x) for (v, o), x in zip(chosen, values)}
                holding = [col for col in models
                           if all(relation(col, v, o) == x for v, o, x in known)]
                if not holding:
                    continue
                got = closure(known, rules)
                assert got is not None, known
                for v, o in variables:
                    vals = {relation(col, v, o) for col in holding}
                    if len(vals) == 1:
                        assert (v, o, vals.pop()) in got, (name, known, (v, o))
                tried += 1
    assert tried > 0


def structural_triangles(cells):
    """Parity rules of every triangle of stored relations among the window's nodes
    (each such triangle lies in one 2x2 block, where the lattice window has it)."""
    nodes = ["O"] + list(cells)
    out = []
    for a, b, c in itertools.combinations(nodes, 3):
        ab, bc, ac = node_pair_var(a, b), node_pair_var(b, c), node_pair_var(a, c)
        if not (ab and bc and ac):
            continue
        for x, y, z in ((ab, bc, ac), (ab, ac, bc), (bc, ac, ab)):
            for p, q in itertools.product((0, 1), repeat=2):
                out.append((frozenset({x + (p,), y + (q,)}), z + (p ^ q,)))
    return out


def test_every_triangle_of_stored_relations_is_a_lattice_rule():
    """So the engine, which applies the lattice rules everywhere, has them all."""
    lattice = {(frozenset(r.premises), r.conclusion) for r in rule_table()["lattice"]}
    cells = [(r, c) for r in range(-1, 3) for c in range(-1, 3)]
    for premises, concl in structural_triangles(cells):
        offs = [o for _, o, _ in premises] + [concl[1]]
        # move the triangle so that its 2x2 block is the lattice window
        lits = list(premises) + [concl]
        rows = [o[0] for o in offs] + [o[0] + (1 if v in "VAB" else 0)
                                       for v, o, _ in lits]
        cols = [o[1] for o in offs] + [o[1] + (1 if v in "HAB" else 0)
                                       for v, o, _ in lits]
        r0, c0 = min(rows), min(cols)
        assert max(rows) - r0 <= 1 and max(cols) - c0 <= 1
        move = lambda l: (l[0], (l[1][0] - r0, l[1][1] - c0), l[2])
        assert (frozenset(map(move, premises)), move(concl)) in lattice


def placed(name, dr, dc):
    def move(lit):
        return (lit[0], (lit[1][0] + dr, lit[1][1] + dc), lit[2])
    return [(frozenset(map(move, r.premises)), move(r.conclusion)) for r in rule_table()[name]]


@pytest.mark.parametrize("name,other,lines", [
    # 3-3 side by side: three parallel lines, and no line continuing the middle one
    ("h33i", (0, 1), {("H", (0, -1), 1), ("H", (0, 0), 1), ("H", (0, 1), 1),
                      ("H", (-1, 0), 0), ("H", (1, 0), 0)}),
    ("v33i", (1, 0), {("V", (-1, 0), 1), ("V", (0, 0), 1), ("V", (1, 0), 1)}),
    # 3-3 on a diagonal: the outer corners
    ("d33", (1, 1), {("H", (0, -1), 1), ("V", (-1, 0), 1), ("H", (1, 1), 1), ("V", (1, 1), 1)}),
    ("a33", (1, -1), {("H", (0, 0), 1), ("V", (-1, 0), 1), ("H", (1, -2), 1),
                      ("V", (1, -1), 1)}),
])
def test_the_classic_3_3_patterns(name, other, lines):
    """From nothing but the two clues, the window's rules with the clue-3 and lattice
    rules around it derive the textbook lines."""
    cells = [(r, c) for r in range(-2, 4) for c in range(-3, 4)]
    rules = placed(name, 0, 0) + placed("clue3", 0, 0) + placed("clue3", *other)
    rules += lattice_rules_in(cells)
    got = closure(set(), rules)
    assert got is not None and lines <= got


def test_corner_rules():
    """A 1 in a corner of the grid: its two frame edges are NOLINE; a 3: LINE."""
    frame = {("C", (-1, -1), 0), ("C", (-1, 0), 0), ("C", (0, -1), 0), ("C", (-1, 1), 0),
             ("C", (1, -1), 0)}
    cells = [(r, c) for r in range(-1, 2) for c in range(-1, 2)]
    for clue, value in ((1, 0), (3, 1)):
        got = closure(frame, placed(f"clue{clue}", 0, 0) + lattice_rules_in(cells))
        assert {("V", (-1, 0), value), ("H", (0, -1), value)} <= got


def test_island_flag():
    assert not island_free(Puzzle([[3, 3]]))
    assert not island_free(Puzzle([[None] * 5] * 5))
    assert island_free(Puzzle([[3, 3, None, None, 1]] + [[None] * 5] * 4 + [[1] + [None] * 4]))
