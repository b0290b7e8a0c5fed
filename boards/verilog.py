"""A target's SoC as one Verilog top with its firmware baked in, for other tools:
``python -m slitherlink.boards.verilog [target options] --out build/soc/slk_soc.v``.

Takes the same target options as ``make bitstream`` (:mod:`boards.options`; default: the
default target), builds the firmware (:mod:`firmware.build`), then the SoC
(:mod:`boards.design`) with it, and prints the path written and the extra Verilog files
(``picorv32.v``).
"""

import argparse
import sys
from pathlib import Path

from slitherlink.firmware.build import FirmwareError, build_firmware

from . import design
from .options import add_target_options, target_from_args

__all__ = ["main"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.boards.verilog",
                                     description=__doc__.split("\n")[0])
    add_target_options(parser)
    parser.add_argument("--ram-size", type=int, default=None,
                        help="the firmware RAM's size in bytes (default: the firmware's)")
    parser.add_argument("--cc", choices=("zig", "gcc"), default="zig",
                        help="cross compiler (default: zig, from PyPI)")
    parser.add_argument("--out", required=True, help="the Verilog file to write")
    args = parser.parse_args(argv)
    try:
        target, _ = target_from_args(args)
        image = build_firmware(target.max_rows, target.max_cols, ram_size=args.ram_size,
                               cc_kind=args.cc)
        text, extra = design.verilog(target, firmware=image)
    except (FirmwareError, design.DesignError, ValueError) as error:
        print(f"error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(args.out)
    for path in extra:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
