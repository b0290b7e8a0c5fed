"""A target's command-line options, the same for every command that builds one.

``make bitstream`` (:mod:`boards.build`) and ``make soc-verilog`` (:mod:`boards.verilog`)
take a :class:`spec.target.Target` as options: :func:`add_target_options` adds them to a
parser, :func:`target_from_args` makes the target (:func:`spec.target.default_target`:
what is not given is the board's default build; without ``--clock``, the clock is the
largest the board makes within the build's own ECP5 evidence, :mod:`boards.evidence`, as
the default build's is).
"""

import math

from slitherlink.spec.target import (BOARDS, CORE_ENGINES, CORES, DEFAULT_TARGET,
                                     LABEL_NETWORKS, default_target)
from slitherlink.spec.uart import FAST_BAUD

from . import evidence

__all__ = ["add_target_options", "target_from_args"]


def add_target_options(parser, *, fixtures=()):
    """Add the options of a target to ``parser``; ``fixtures``: more ``--core`` names that
    are not SoCs (:mod:`boards.fixture`), made from the target's grid and clock."""
    group = parser.add_argument_group("the target (spec/target.py; default: the board's "
                                      "default build)")
    group.add_argument("--board", default=DEFAULT_TARGET.board, choices=sorted(BOARDS),
                       help="arty: Arty A7-35T (XC7A35T, the paper's chip; default); "
                            "ulx3s: ULX3S-85F (ECP5, fully open flow)")
    cores = {**CORE_ENGINES,
             "accelerator": "the accelerator alone behind a probe, to measure its resources",
             "loopback": "a UART loopback, to test the flow"}
    choices = [*CORES, *fixtures]
    group.add_argument("--core", choices=choices, metavar="CORE",
                       help="; ".join(f"{name}: {cores[name]}" for name in choices)
                       + f" (default: {DEFAULT_TARGET.core})")
    group.add_argument("--rows", type=int, help="maximum grid rows "
                       f"(default {DEFAULT_TARGET.max_rows})")
    group.add_argument("--cols", type=int, help="maximum grid columns "
                       f"(default {DEFAULT_TARGET.max_cols})")
    group.add_argument("--band", type=int, metavar="N",
                       help="the deduction engine's band height: N framed rows a word "
                            f"(default {DEFAULT_TARGET.band}; docs/design.md section 6)")
    group.add_argument("--label-network", choices=LABEL_NETWORKS,
                       help="the deduction engine's label row network: small (the fewest "
                            "LUTs) or fast (the shorter path); default: the board's")
    group.add_argument("--trail-depth", type=int, metavar="N",
                       help=f"decisions on the deduction engine's trail "
                            f"(default {DEFAULT_TARGET.trail_depth})")
    group.add_argument("--clock", type=float, metavar="MHZ",
                       help="design clock in MHz (default: the largest the board makes "
                            "within the build's ECP5 evidence, boards/evidence.json; "
                            "without evidence, the board's)")
    group.add_argument("--baud", type=int, help=f"UART baud rate (default "
                       f"{DEFAULT_TARGET.baud}; --fast-uart: {FAST_BAUD})")
    group.add_argument("--fast-uart", action="store_true", help=f"UART at {FAST_BAUD} baud")


def target_from_args(args):
    """``(target, fixture)`` from options added by :func:`add_target_options`: the target,
    and the fixture's name when ``--core`` names one (else None).  ValueError (one line)
    for options that make no target."""
    fixture = args.core if args.core is not None and args.core not in CORES else None
    if fixture:
        deduce = False
    elif args.core:
        deduce = CORES[args.core][1]
    else:
        deduce = default_target(args.board).deduce
    if not deduce:
        for option, value in (("--band", args.band), ("--label-network", args.label_network),
                              ("--trail-depth", args.trail_depth)):
            if value is not None:
                raise ValueError(f"{option} is for the cores with the deduction engine "
                                 f"(soc-deduce, soc-both), not {args.core!r}")
    if args.fast_uart and args.baud is not None and args.baud != FAST_BAUD:
        raise ValueError(f"--fast-uart is {FAST_BAUD} baud, not --baud {args.baud}")
    if args.clock is not None and not (math.isfinite(args.clock) and args.clock > 0):
        raise ValueError(f"--clock must be a positive number of MHz, not {args.clock:g}")
    clock_hz = None if args.clock is None else round(args.clock * 1e6)
    target = default_target(
        args.board, core=None if fixture else args.core, max_rows=args.rows,
        max_cols=args.cols, band=args.band, label_network=args.label_network,
        trail_depth=args.trail_depth, clock_hz=clock_hz,
        baud=FAST_BAUD if args.fast_uart else args.baud)
    if clock_hz is None and not fixture:
        # no --clock: the clock the build's own evidence supports, where it has some
        supported = evidence.supported_clock(target)
        if supported is not None:
            target = target.replace(clock_hz=supported)
    return target, fixture
