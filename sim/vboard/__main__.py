"""``python -m slitherlink.sim.vboard build|run``: build or start a virtual board by hand.

    python -m slitherlink.sim.vboard build            # what 'make vboard' runs
    python -m slitherlink.sim.vboard run              # what 'make vboard-run' runs
    python -m slitherlink.sim.vboard run --trace board.fst --link /tmp/slk-board

``run`` prints ``PTY /dev/pts/N`` as its first line; then, in another
terminal, ``host/solve.py --port /dev/pts/N puzzle.txt``.  Ctrl-C stops it and
prints the number of cycles simulated.
"""

import argparse
import os
import sys

from . import DESIGNS, BuildError, build_design, trace_kind


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.sim.vboard",
                                     description="The virtual board: the SoC in Verilator "
                                                 "with its UART on a pseudo-terminal.")
    from slitherlink.spec.target import LABEL_NETWORKS
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("build", "build the virtual board (if an input changed)"),
                       ("run", "start a virtual board and print its pseudo-terminal")):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("--design", default="soc", choices=sorted(DESIGNS),
                         help="the top-level design (default: soc; echo is a self-test)")
        sub.add_argument("--force", action="store_true", help="rebuild even if up to date")
        for option, text in (("--max-rows", "largest grid (default: the Arty build's)"),
                             ("--max-cols", "largest grid (default: the Arty build's)"),
                             ("--clock-hz", "SoC clock (default: the Arty build's)"),
                             ("--baud", "UART baud rate (default: the Arty build's)")):
            sub.add_argument(option, type=int, metavar="N", help=text)
        sub.add_argument("--no-deduce", dest="deduce", action="store_const", const=False,
                         help="leave the deduction engine out (paper mode only)")
        sub.add_argument("--no-paper", dest="paper", action="store_const", const=False,
                         help="leave the paper's accelerator out (deduce mode only)")
        sub.add_argument("--band", type=int, metavar="N",
                         help="the deduction engine's framed rows a word (default: the "
                              "Arty build's)")
        sub.add_argument("--label-network", choices=LABEL_NETWORKS,
                         help="the deduction engine's label row network (the same cycles; "
                              "default: the Arty build's)")
        if name == "build":
            sub.add_argument("--trace", choices=["vcd", "fst"],
                             help="build the variant that can write a trace")
        else:
            sub.add_argument("--trace", metavar="FILE",
                             help="write a waveform trace (.fst: FST, otherwise VCD); slow")
            sub.add_argument("--link", metavar="PATH",
                             help="also make PATH a symbolic link to the pseudo-terminal")
            sub.add_argument("--no-pause", action="store_true",
                             help="keep the clock running while no program has the port open")
            sub.add_argument("--max-cycles", type=int, metavar="N",
                             help="stop after N clock cycles")
    args = parser.parse_args(argv)

    trace = args.trace if args.command == "build" else trace_kind(args.trace)
    try:
        params = {key: getattr(args, key)
                  for key in ("max_rows", "max_cols", "clock_hz", "baud", "paper", "deduce",
                              "band", "label_network")
                  if getattr(args, key, None) is not None}
        built = build_design(args.design, params=params, trace=trace, force=args.force)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if args.command == "build":
        print(f"vboard: {built.path} ({built.design}, {built.clock_hz} Hz, {built.baud} baud)",
              file=sys.stderr)
        return 0

    command = [str(built.path)]
    if args.trace:
        command += ["--trace", args.trace]
    if args.link:
        command += ["--link", args.link]
    if args.no_pause:
        command.append("--no-pause")
    if args.max_cycles is not None:
        command += ["--max-cycles", str(args.max_cycles)]
    if args.design == "soc":
        print(f"vboard: starting {built.path}; then connect with  host/solve.py --port "
              f"<the /dev/pts/N it prints> PUZZLE  (Ctrl-C stops the board)",
              file=sys.stderr, flush=True)
    sys.stdout.flush()
    # the harness takes this process's place: signals reach it directly
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main())
