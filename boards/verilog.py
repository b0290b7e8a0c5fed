"""The SoC's Verilog top with its firmware baked in, for other tools:
``python -m slitherlink.boards.verilog --max-rows 10 --max-cols 10 --out build/soc/slk_soc.v``.

Builds the firmware (:mod:`firmware.build`), then the SoC (:mod:`hw.soc`) with it,
and prints the path written and the extra Verilog files (``picorv32.v``).
"""

import argparse
import sys
from pathlib import Path

from slitherlink.firmware.build import FirmwareError, build_firmware
from slitherlink.spec.target import DEFAULT_TARGET

from . import design

__all__ = ["main"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.boards.verilog",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--max-rows", type=int, default=10)
    parser.add_argument("--max-cols", type=int, default=10)
    parser.add_argument("--ram-size", type=int, default=None)
    parser.add_argument("--cc", choices=("zig", "gcc"), default="zig",
                        help="cross compiler (default: zig, from PyPI)")
    parser.add_argument("--clock-hz", type=int, default=DEFAULT_TARGET.clock_hz)
    parser.add_argument("--baud", type=int, default=DEFAULT_TARGET.baud)
    parser.add_argument("--out", required=True, help="the Verilog file to write")
    args = parser.parse_args(argv)
    try:
        image = build_firmware(args.max_rows, args.max_cols, ram_size=args.ram_size,
                               cc_kind=args.cc)
        target = DEFAULT_TARGET.replace(max_rows=args.max_rows, max_cols=args.max_cols,
                                        clock_hz=args.clock_hz, baud=args.baud)
        text, extra = design.verilog(target, firmware=image)
    except (FirmwareError, design.DesignError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(args.out)
    for path in extra:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
