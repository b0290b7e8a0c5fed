"""The local rule tables of the deduction engine, enumerated from the rules (docs/design.md sections 1 and 6).

Nothing here is typed by hand: every rule is found by enumerating all
colourings of a small *window* of cells and keeping the minimal implications
between the window's state literals that hold in every colouring the window's
constraint allows.  The golden model (:mod:`model.deduce`) and the gateware
(``hw/deduce``) are both generated from :func:`rule_table`.

State literals.  Every piece of engine state is a relation between two nodes:
a cell's colour is its relation to the outside ``O`` (``S`` = same = OUT,
``D`` = different = IN), an edge is the relation of two orthogonally adjacent
cells (``S`` = NOLINE, ``D`` = LINE) and a diagonal is the relation of two
diagonally adjacent cells (Loopy's "dlines": ``S`` = the two lines of the
corner between them are both present or both absent, ``D`` = exactly one).
On the framed bitboard (bit ``r*W + c``, frame included, ``W = C + 2``):

====  =================================  =================
var   bit ``p`` is the relation of        exists for
====  =================================  =================
C     cell ``p`` and the outside          every cell
H     ``p`` and ``p+1`` (east)            columns 0..C
V     ``p`` and ``p+W`` (south)           rows 0..R
A     ``p`` and ``p+W+1`` (south-east)    rows 0..R, cols 0..C
B     ``p+1`` and ``p+W`` (south-west)    rows 0..R, cols 0..C
====  =================================  =================

Each variable has two bitboards, value 0 (``S``) and value 1 (``D``); a
variable with both set is a conflict.

Windows (the anchor is the cell the window is placed on; offsets ``(dr, dc)``):

* ``lattice``: the 2x2 block at every lattice point (anchor = its top-left
  cell, rows 0..R, columns 0..C); constraint: no checkerboard (rule 2).  Its
  ten literals form the complete graph on {O, a, b, c, d}, so its rules are the
  triangle (parity) rules - edge<->colour coupling, the vertex rule's parity -
  and the anti-checkerboard rules (0 or 2 lines at a point).
* ``clue0`` .. ``clue3``: the plus-shaped clue cell and its 4 neighbours with
  the 4 corner diagonals; constraint: exactly ``d`` of the 4 edges are lines
  (rule 1).  With the diagonals this gives the clue-corner rules (a 1 or a 3
  in a corner, a line entering a clue's corner, a 2's opposite corners).
* ``h33``/``v33`` (3-3 side by side / one above the other) and ``d33``/``a33``
  (3-3 on the down / up diagonal): the two plus windows together with the
  lattice points between them; constraint: both clues, no checkerboard, no
  enclosed pair of OUT cells.  ``h33i``/``v33i`` also exclude the two cells as
  an isolated IN island; they are used only when :func:`island_free` holds for
  the puzzle (then the 1x2 loop cannot be the whole solution).  Rules that the
  lattice and clue-3 rules already derive within the window are dropped.
"""

import itertools
from dataclasses import dataclass
from functools import cache

from .geometry import Geometry

__all__ = ["VARS", "BOARDS", "Window", "Rule", "WINDOWS", "window", "literals", "models",
           "implicants", "closure", "rule_table", "island_free", "node_pair_var", "Geometry",
           "anchors", "C0", "C1", "H0", "H1", "V0", "V1", "A0", "A1", "B0", "B1", "OUT", "IN"]

#: the stored variables, in board order: board ``2*i + v`` is value ``v`` of ``VARS[i]``
VARS = ("C", "H", "V", "A", "B")
BOARDS = tuple(f"{var}{value}" for var in VARS for value in (0, 1))

O = "O"  # the outside node


def node_pair_var(u, v):
    """The stored variable ``(var, (dr, dc))`` relating nodes ``u`` and ``v``, or None."""
    if u == O and v == O:
        return None
    if u == O:
        return ("C", v)
    if v == O:
        return ("C", u)
    (r1, c1), (r2, c2) = sorted((u, v))
    if r1 == r2 and c2 == c1 + 1:
        return ("H", (r1, c1))
    if c1 == c2 and r2 == r1 + 1:
        return ("V", (r1, c1))
    if r2 == r1 + 1 and c2 == c1 + 1:
        return ("A", (r1, c1))
    if r2 == r1 + 1 and c2 == c1 - 1:
        return ("B", (r1, c1 - 1))
    return None


@dataclass(frozen=True)
class Rule:
    """``premises`` (literals) imply ``conclusion``; a literal is ``(var, (dr, dc), value)``."""
    window: str
    premises: tuple
    conclusion: tuple


@dataclass(frozen=True)
class Window:
    name: str
    cells: tuple          # cell offsets (dr, dc) from the anchor
    constraint: object    # function(colour dict (dr, dc) -> 0/1) -> bool
    max_size: int         # the largest premise set enumerated
    base: object = None   # the structural constraint (no checkerboard inside); its rules are dropped
    colours: tuple = None  # cells whose colour is a literal (None: all)
    clues: tuple = ()     # (clue window, offset) whose rules also count as known here


# -- constraints -----------------------------------------------------------

N4 = ((-1, 0), (0, 1), (1, 0), (0, -1))


def _lines(col, cell):
    r, c = cell
    return sum(col[cell] != col[(r + dr, c + dc)] for dr, dc in N4)


def _checkerboard(col, top_left):
    r, c = top_left
    a, b, d, e = col[(r, c)], col[(r, c + 1)], col[(r + 1, c)], col[(r + 1, c + 1)]
    return a == e and b == d and a != b


def _clue(d):
    return lambda col: _lines(col, (0, 0)) == d


def _closed(col, group, colour):
    """The cells of ``group`` all have ``colour`` and every other neighbour the other."""
    if any(col[g] != colour for g in group):
        return False
    for r, c in group:
        for dr, dc in N4:
            n = (r + dr, c + dc)
            if n not in group and col[n] == colour:
                return False
    return True


def _pair33(other, lattice_points, island):
    def constraint(col):
        if _lines(col, (0, 0)) != 3 or _lines(col, other) != 3:
            return False
        if any(_checkerboard(col, p) for p in lattice_points):
            return False
        group = ((0, 0), other)
        if _closed(col, group, 0):          # an enclosed OUT pair: a hole (rule 4)
            return False
        if island and _closed(col, group, 1):  # an IN island that is not the whole loop
            return False
        return True
    return constraint


def _plus(centre):
    r, c = centre
    return [(r, c)] + [(r + dr, c + dc) for dr, dc in N4]


def _pair_cells(other):
    return tuple(sorted(set(_plus((0, 0)) + _plus(other))))


LATTICE_CELLS = ((0, 0), (0, 1), (1, 0), (1, 1))


def _blocks(cells):
    """Top-left corners of the 2x2 blocks that lie wholly in ``cells``."""
    cells = set(cells)
    return [(r, c) for r, c in cells
            if {(r, c + 1), (r + 1, c), (r + 1, c + 1)} <= cells]


def _no_checkerboard(cells):
    blocks = _blocks(cells)
    return lambda col: not any(_checkerboard(col, p) for p in blocks)


def _windows():
    found = [Window("lattice", LATTICE_CELLS, _no_checkerboard(LATTICE_CELLS), 2,
                    base=lambda col: True)]
    plus = tuple(_plus((0, 0)))
    for d in range(4):
        found.append(Window(f"clue{d}", plus, _clue(d), 3, base=_no_checkerboard(plus),
                            colours=()))
    pairs = {
        "h33": ((0, 1), [(-1, 0), (0, 0)]),
        "v33": ((1, 0), [(0, -1), (0, 0)]),
        "d33": ((1, 1), [(0, 0)]),
        "a33": ((1, -1), [(0, -1)]),
    }
    for name, (other, points) in pairs.items():
        cells = _pair_cells(other)
        variants = [(name, False)] + ([(name + "i", True)] if name in ("h33", "v33") else [])
        for wname, island in variants:
            found.append(Window(wname, cells, _pair33(other, points, island), 2,
                                base=_no_checkerboard(cells), colours=((0, 0), other),
                                clues=(("clue3", (0, 0)), ("clue3", other))))
    return {w.name: w for w in found}


WINDOWS = _windows()


def window(name):
    return WINDOWS[name]


# -- enumeration -----------------------------------------------------------

def _colourings(cells):
    return [dict(zip(cells, bits)) for bits in itertools.product((0, 1), repeat=len(cells))]


@cache
def _all_literals(name):
    """Every relation literal of the window's nodes: ``{(var, offset, value): bitmask}``."""
    w = WINDOWS[name]
    cols = _colourings(w.cells)
    nodes = (O,) + w.cells
    found = {}
    for u, v in itertools.combinations(nodes, 2):
        var = node_pair_var(u, v)
        if var is None:
            continue
        for value in (0, 1):
            mask = 0
            for i, col in enumerate(cols):
                if ((0 if u == O else col[u]) ^ col[v]) == value:
                    mask |= 1 << i
            found[var + (value,)] = mask
    return found


@cache
def literals(name):
    """The window's literals (its ``colours`` restriction applied): ``{literal: bitmask}``."""
    w = WINDOWS[name]
    return {lit: mask for lit, mask in _all_literals(name).items()
            if lit[0] != "C" or w.colours is None or lit[1] in w.colours}


def _models(name, constraint):
    mask = 0
    for i, col in enumerate(_colourings(WINDOWS[name].cells)):
        if constraint(col):
            mask |= 1 << i
    return mask


@cache
def models(name):
    """Bitmask of the window's colourings that satisfy its constraint."""
    return _models(name, WINDOWS[name].constraint)


def _minimal(lits, allowed, max_size):
    """All minimal ``(premises, conclusion)`` over ``lits`` that hold in ``allowed``."""
    keys = sorted(lits)
    found = {}
    out = []
    for size in range(max_size + 1):
        for premises in itertools.combinations(keys, size):
            pvars = {(var, off) for var, off, _ in premises}
            if len(pvars) < size:
                continue  # two values of one variable
            mask = allowed
            for lit in premises:
                mask &= lits[lit]
            if not mask:
                continue
            pset = frozenset(premises)
            for concl in keys:
                if (concl[0], concl[1]) in pvars or mask & ~lits[concl]:
                    continue
                if any(prev <= pset for prev in found.get(concl, ())):
                    continue
                found.setdefault(concl, []).append(pset)
                out.append((tuple(sorted(premises)), concl))
    return out


def closure(known, rules):
    """Literals derived from ``known`` by ``rules`` to a fixpoint (None on a conflict)."""
    known = set(known)
    changed = True
    while changed:
        changed = False
        for premises, concl in rules:
            if concl not in known and premises <= known:
                if (concl[0], concl[1], 1 - concl[2]) in known:
                    return None
                known.add(concl)
                changed = True
    return known


@cache
def implicants(name):
    """The window's rules: minimal implications that the constraint adds to the structure.

    1. Enumerate every minimal ``premises -> conclusion`` (up to ``max_size``
       premises) that holds in all allowed colourings of the window.
    2. Drop those that hold under the window's structural constraint alone
       (``base``: no checkerboard in its 2x2 blocks; those are the lattice
       window's rules), then, smallest first, every rule that the structural
       rules and the rules kept so far already derive within the window.
    """
    w = WINDOWS[name]
    lits = literals(name)
    rules = _minimal(lits, models(name), w.max_size)
    if name == "lattice":
        return tuple(Rule(name, p, c) for p, c in rules)
    every = _all_literals(name)
    structural = [(frozenset(p), c) for p, c in _minimal(every, _models(name, w.base), 2)]
    for sub, (dr, dc) in w.clues:  # the clue windows placed on the window's clue cells
        def move(lit, dr=dr, dc=dc):
            return (lit[0], (lit[1][0] + dr, lit[1][1] + dc), lit[2])
        structural += [(frozenset(map(move, r.premises)), move(r.conclusion))
                       for r in implicants(sub)]
    base = _models(name, w.base)
    kept = []
    for premises, concl in rules:
        mask = base
        for lit in premises:
            mask &= lits[lit]
        if not mask & ~lits[concl]:
            continue  # structural
        derived = closure(premises, structural + kept)
        if derived is None or concl in derived:
            continue
        kept.append((frozenset(premises), concl))
    return tuple(Rule(name, tuple(sorted(p)), c) for p, c in kept)


@cache
def rule_table():
    """Every rule of every window: ``{window name: (Rule, ...)}``."""
    return {name: implicants(name) for name in WINDOWS}


def island_free(puzzle):
    """True when no 1x2 loop can be the whole solution of ``puzzle``.

    The nonzero clues of such a solution all lie within the 3x4 (or 4x3) box of
    the two cells and their neighbours; a puzzle whose nonzero clues do not fit
    in such a box may use the ``h33i``/``v33i`` windows.  A puzzle without a nonzero
    clue is not island free (nothing rules the 1x2 loop out).  The firmware computes the
    same rule for DEDUCE_SIZE.island (``firmware/src/rules.c``, tested against this one).
    """
    cells = [(r, c) for r, row in enumerate(puzzle.clues) for c, v in enumerate(row) if v]
    if not cells:
        return False
    h = max(r for r, _ in cells) - min(r for r, _ in cells) + 1
    w = max(c for _, c in cells) - min(c for _, c in cells) + 1
    return not ((h <= 3 and w <= 4) or (h <= 4 and w <= 3))


# -- the state's layout, shared by the model and the gateware ---------------------

#: the state's bitboards, in VARS order: S and D of cells, edges H and V, diagonals A and B
C0, C1, H0, H1, V0, V1, A0, A1, B0, B1 = range(10)
OUT, IN = 0, 1


def anchors(geo, puzzle):
    """``{window name: anchor bitboard}`` of ``puzzle`` on the framed grid ``geo``
    (:class:`spec.geometry.Geometry`)."""
    w = geo.width
    clue = [0, 0, 0, 0]
    for r, row in enumerate(puzzle.clues):
        for c, v in enumerate(row):
            if v is not None:
                clue[v] |= 1 << ((r + 1) * w + c + 1)
    three = clue[3]
    island = island_free(puzzle)
    h = three & (three >> 1)
    v = three & (three >> w)
    out = {"lattice": geo.points, "clue0": clue[0], "clue1": clue[1], "clue2": clue[2],
           "clue3": three,
           "h33": 0 if island else h, "h33i": h if island else 0,
           "v33": 0 if island else v, "v33i": v if island else 0,
           "d33": three & (three >> (w + 1)), "a33": three & (three >> (w - 1))}
    assert set(out) == set(WINDOWS)
    return out
