"""The builds the hardware benchmark runs on: a target per size class, and their clocks.

A *class* is the grid of a build (``ROWSxCOLS``); a puzzle runs, as it is (not
transposed), on the smallest build of the run's classes that holds it.  The first class
is the default target's own grid (:data:`spec.target.DEFAULT_TARGET`), and that class
runs on the default build itself: what ``make bitstream`` builds and the virtual board
simulates by default.  A larger class runs on a build of the same target with a larger
grid and, unless ``--sim-baud`` says otherwise, a fast simulated UART
(:data:`spec.uart.FAST_BAUD`), so that its frames do not take minutes of simulation (the
solve cycles do not depend on the UART).

``--fmax`` times the cycles at a board's post-route clock: one clock for every class,
each class at a clock given for it, or (``evidence``) each class at the ECP5 post-route
Fmax of its own build in ``boards/evidence.json`` (:func:`evidence_fmax`).
"""

from slitherlink.spec.protocol import MAX_GRID
from slitherlink.spec.target import CORES, DEFAULT_TARGET, default_label_network, get_board
from slitherlink.spec.uart import FAST_BAUD

__all__ = ["DEFAULT_GRID", "DEFAULT_CLASSES", "grid_name", "parse_classes", "class_for",
           "class_target", "vboard_params", "DEDUCE_CORES", "EVIDENCE", "parse_fmax", "evidence_fmax",
           "fmax_for", "fmax_label"]

#: The default target's grid: the first class, on the default build.
DEFAULT_GRID = (DEFAULT_TARGET.max_rows, DEFAULT_TARGET.max_cols)
#: The builds of a run, smallest first (the corpus has its long side as columns except the
#: 30x25s and a 22x21, so 14x24 runs on 20x36 and 30x25 on a build of its own).
DEFAULT_CLASSES = ",".join(["%dx%d" % DEFAULT_GRID, "15x15", "20x20", "20x36", "30x25",
                            "30x30", "30x40", "40x40", "60x60"])
#: The cores (:data:`spec.target.CORES`) with the deduction engine: ``--core``'s choices.
DEDUCE_CORES = sorted(name for name, (_, deduce) in CORES.items() if deduce)
#: ``--fmax``'s (and the stream benchmark's ``--clock``'s) word for each class's clock from
#: the ECP5 evidence of its build (``boards/evidence.json``).
EVIDENCE = "evidence"


def grid_name(grid):
    return f"{grid[0]}x{grid[1]}"


def parse_classes(text):
    """``"10x10,15x15"`` -> ``[(10, 10), (15, 15)]``, smallest (cells) first; ValueError
    (one line) for a bad one."""
    grids = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        rows, _, cols = part.partition("x")
        if not (rows.isdigit() and cols.isdigit()) or not (
                1 <= int(rows) <= MAX_GRID and 1 <= int(cols) <= MAX_GRID):
            raise ValueError(f"bad class {part!r}: write ROWSxCOLS, each 1..{MAX_GRID}")
        grids.append((int(rows), int(cols)))
    if not grids:
        raise ValueError("no build class given")
    return sorted(set(grids), key=lambda g: (g[0] * g[1], g))


def class_for(row, classes):
    """The grid of the smallest build of ``classes`` that holds the puzzle, or None."""
    for grid in classes:
        if row["rows"] <= grid[0] and row["cols"] <= grid[1]:
            return grid
    return None


def class_target(grid, *, band=DEFAULT_TARGET.band, label_network=None, sim_baud=None,
                 core=None):
    """The target of class ``grid``: the default target at that grid, band and label
    network (by default the network of the grid's width,
    :func:`spec.target.default_label_network`), with the engines of ``core``
    (:data:`spec.target.CORES`; default: the default target's); its UART at ``sim_baud``,
    else the default target's for the default grid and :data:`spec.uart.FAST_BAUD` for a
    larger one."""
    label_network = label_network or default_label_network(get_board(DEFAULT_TARGET.board),
                                                           grid[1])
    baud = sim_baud or (DEFAULT_TARGET.baud if tuple(grid) == DEFAULT_GRID else FAST_BAUD)
    engines = dict(zip(("paper", "deduce"), CORES[core])) if core else {}
    return DEFAULT_TARGET.replace(max_rows=grid[0], max_cols=grid[1], band=band,
                                  label_network=label_network, baud=baud, **engines)


def vboard_params(target):
    """The fields of ``target`` that differ from the default target's: the virtual
    board's ``params`` (:func:`sim.vboard.build_design`)."""
    return {name: value for name, value in target.as_dict().items()
            if value != getattr(DEFAULT_TARGET, name)}


def parse_fmax(text):
    """``--fmax``'s clocks: ``"39.4"`` (one clock for every class) -> 39.4,
    ``"10x10=39.4,36x20=25.1"`` (each class at its own build's post-route Fmax) -> a
    dict ``{class: MHz}``, ``"evidence"`` -> :data:`EVIDENCE` (:func:`evidence_fmax`
    makes it a dict); ValueError (one line) for a bad one."""
    if text.strip() == EVIDENCE:
        return EVIDENCE
    def clock(value, what):
        try:
            mhz = float(value)
        except ValueError:
            mhz = None
        if mhz is None or not 0 < mhz < 10_000:
            raise ValueError(f"bad clock {value!r}{what}: write MHz, e.g. 39.4")
        return mhz
    if "=" not in text:
        return clock(text.strip(), "")
    out = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        cls, _, value = part.partition("=")
        try:
            (grid,) = parse_classes(cls)
        except ValueError:
            raise ValueError(f"bad class {cls.strip()!r}: write ROWSxCOLS=MHZ, "
                             f"e.g. 10x10=39.4") from None
        out[grid_name(grid)] = clock(value.strip(), f" for {cls.strip()}")
    return out


def evidence_fmax(targets):
    """``{class: MHz}``: the ECP5 (ULX3S) post-route Fmax of each class's build in
    ``boards/evidence.json`` (the record of the same core, grid, band and label network);
    a class without one is left out.  ``targets``: ``{class: target}``."""
    from slitherlink.boards import evidence
    from slitherlink.spec.target import ULX3S
    records = evidence.load()
    out = {}
    for cls, target in targets.items():
        ecp5 = (evidence.find(target, records) or {}).get(ULX3S.name)
        if ecp5:
            out[cls] = ecp5["fmax_mhz"]
    return out


def fmax_for(fmax, cls):
    """The clock (MHz) at which class ``cls`` is timed: ``fmax`` itself (one clock for
    all), its entry (a clock per build), or None."""
    return fmax.get(cls) if isinstance(fmax, dict) else fmax


def fmax_label(fmax, clocks=False):
    """``"at 39.4 MHz"`` or ``"at each build's Fmax"``; with ``clocks``, ``"at 39.4 MHz
    (Fmax)"`` or the same with each build's clock."""
    if isinstance(fmax, dict):
        return "at each build's Fmax" + (" (ECP5 post-route: " + ", ".join(
            f"{c} {v:.4g} MHz" for c, v in fmax.items()) + ")" if clocks else "")
    return f"at {fmax:.4g} MHz" + (" (Fmax)" if clocks else "")
