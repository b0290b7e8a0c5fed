"""The deduction rules as logic: the generated sweep of the rule table, its anchors and
the run-time masks (docs/design.md section 6; docs/deduce.md, "Rules").

The sweep is generated from :func:`spec.deduce.rule_table`, exactly as the golden model's
(:func:`model.deduce.sweep`): for every window, every rule and every anchor at once, the
conclusion's bit is set when the premises' bits are set in the current state.  The
functions here work on bit vectors of any length holding rows of ``width`` framed cells
(:class:`spec.deduce.Geometry` of the *build* size, ``W = max_cols + 2``); the sweep
processor (:class:`hw.deduce.sweep.Sweep`) applies them to a window of rows.

A puzzle of run-time size ``rows`` x ``cols`` occupies the top-left corner of the build
(``grid`` is its cells).  The run-time framed box is ``grid`` and its eight neighbours; a
variable whose cells are not all in that box does not exist for the puzzle and is held at
S (value 0 = same: OUT, NOLINE), so the puzzle's part of the state evolves exactly as the
model's state of the puzzle's own size.  The lattice windows are anchored at every
lattice point of the build; the clue windows at the clue cells (``clue[d]``); the 3-3
windows at pairs of 3s, with the ``island`` flag (:func:`spec.deduce.island_free`,
computed when the puzzle is loaded) choosing the island variants.

:func:`sweep_next` generates the rules, :func:`anchor_boards` the anchors (from
:data:`spec.deduce.WINDOWS`) and :func:`runtime_valid` the run-time masks;
:func:`rule_reach`, :func:`anchor_reach` and :func:`valid_reach` give how many rows each
reaches.
"""

from amaranth import Cat, Const

from slitherlink.spec.deduce import VARS, WINDOWS, rule_table

__all__ = ["BOARDS", "shift", "runtime_valid", "anchor_boards", "sweep_next",
           "rule_reach", "anchor_reach", "valid_reach"]

#: the state's bitboards: S and D of cells, edges H and V, diagonals A and B (spec.deduce.VARS)
BOARDS = 2 * len(VARS)

#: the run-time framed box is the grid dilated by this many cells in every direction
BOX_DILATION = 1
#: a variable exists for the run-time puzzle when these cells (offsets from its
#: position) all lie in the box: C its cell, H/V its two cells, A/B their 2x2 block
VALID_BLOCKS = {"C": ((0, 0),), "H": ((0, 0), (0, 1)), "V": ((0, 0), (1, 0)),
                "A": ((0, 0), (0, 1), (1, 0), (1, 1)), "B": ((0, 0), (0, 1), (1, 0), (1, 1))}


def shift(value, k, n):
    """``value`` (``n`` bits) moved so that bit ``p + k`` lands on bit ``p``; zeros come in."""
    if k == 0:
        return value
    if k > 0:
        return Cat(value[k:], Const(0, k)) if k < n else Const(0, n)
    k = -k
    return Cat(Const(0, k), value[:n - k]) if k < n else Const(0, n)


def runtime_valid(grid, width, n):
    """Per variable, the positions that exist for the run-time puzzle (``grid``)."""
    dil = grid
    for _ in range(BOX_DILATION):
        for k in (1, -1):
            dil = dil | shift(dil, k, n)
        for k in (width, -width):
            dil = dil | shift(dil, k, n)
    box = dil  # grid and its eight neighbours: the run-time framed array
    out = {}
    for var, cells in VALID_BLOCKS.items():
        value = box
        for dr, dc in cells:
            if (dr, dc) != (0, 0):
                value = value & shift(box, dr * width + dc, n)
        out[var] = value
    return out


def _clue_digit(name):
    return int(name[len("clue"):])


def anchor_boards(clue, grid, island, lattice, width, n):
    """``{window name: anchor bits}``, generated from :data:`spec.deduce.WINDOWS`.

    ``lattice`` is the lattice windows' anchor (the build's lattice points);
    ``clue[d]`` (masked by ``grid``) anchors window ``clue<d>``; a pair window
    is anchored where all its clue cells (``Window.clues``) hold their digits,
    its island variant (name + ``i``) only when ``island`` is set, the plain
    one then only when it is not.
    """
    clue = [clue[d] & grid for d in range(4)]
    out = {}
    for name, win in WINDOWS.items():
        if name == "lattice":
            value = lattice
        elif not win.clues:
            value = clue[_clue_digit(name)]
        else:
            value = None
            for sub, (dr, dc) in win.clues:
                term = shift(clue[_clue_digit(sub)], dr * width + dc, n)
                value = term if value is None else value & term
            if name.endswith("i") and name[:-1] in WINDOWS:
                value = value & island.replicate(n)
            elif name + "i" in WINDOWS:
                value = value & ~island.replicate(n)
        out[name] = value
    return out


def sweep_next(state, anchors, valid, exists, width, n):
    """One sweep over ``n``-bit boards of row width ``width``: the 10 new boards.

    ``state``: the 10 boards;
    ``anchors``: :func:`anchor_boards`; ``valid[var]``: the positions that exist
    for the run-time puzzle (within the build); ``exists[var]``: the positions
    that exist in the build.  A variable that exists in the build but not for
    the puzzle is held at S; positions outside the build are 0.
    """
    s = state
    aligned = {}

    def lit(var, off, value):
        k = off[0] * width + off[1]
        key = (var, value, k)
        if key not in aligned:
            aligned[key] = shift(s[VARS.index(var) * 2 + value], k, n)
        return aligned[key]

    concl = [[] for _ in range(BOARDS)]
    for wname, rules in rule_table().items():
        groups = {}
        for rule in rules:
            var, off, value = rule.conclusion
            k = off[0] * width + off[1]
            groups.setdefault((VARS.index(var) * 2 + value, k), []).append(rule.premises)
        for (board, k), premise_sets in sorted(groups.items()):
            terms = []
            for premises in premise_sets:
                term = anchors[wname]
                for p in premises:
                    term = term & lit(*p)
                terms.append(term)
            acc = terms[0]
            for t in terms[1:]:
                acc = acc | t
            concl[board].append(shift(acc, -k, n))

    out = []
    for i in range(BOARDS):
        var = VARS[i // 2]
        total = s[i]
        for c in concl[i]:
            total = total | c
        if i % 2 == 0:  # value S: held set where the variable does not exist
            out.append((total | ~valid[var]) & exists[var])
        else:
            out.append(total & valid[var])
    return out


def rule_reach():
    """``(up, down)``: how many rows above and below a rule's conclusion its
    premises and its anchor lie (over every rule of :func:`spec.deduce.rule_table`)."""
    up = down = 0
    for rules in rule_table().values():
        for rule in rules:
            row = rule.conclusion[1][0]
            for other in [0] + [p[1][0] for p in rule.premises]:
                up, down = max(up, row - other), max(down, other - row)
    return up, down


def anchor_reach():
    """``(up, down)``: rows above and below a rule's conclusion of the clue cells its
    anchor depends on (the anchor cell itself, and a pair window's clue cells)."""
    up = down = 0
    for name, rules in rule_table().items():
        rows = {0} | {dr for _, (dr, _dc) in WINDOWS[name].clues}
        for rule in rules:
            row = rule.conclusion[1][0]
            for other in rows:
                up, down = max(up, row - other), max(down, other - row)
    return up, down


def valid_reach():
    """``(up, down)``: rows of ``grid`` that :func:`runtime_valid` reads around a position."""
    rows = [dr for cells in VALID_BLOCKS.values() for dr, _ in cells]
    return BOX_DILATION - min(rows), BOX_DILATION + max(rows)
