"""Load a bitstream into a board: ``python -m slitherlink.boards.program --board arty|ulx3s``.

Uses openFPGALoader (``sudo apt-get install openfpgaloader``; or ``$OPENFPGALOADER``)
with the board's cable (``-b arty``, ``-b ulx3s``).  The bitstream is the one
``python -m slitherlink.boards.build`` wrote (``build/<board>/top.bit``).  Loading goes to the
FPGA's configuration RAM (lost at power-off); ``--flash`` writes the SPI flash.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from slitherlink.spec.target import BOARDS, DEFAULT_TARGET, get_board

__all__ = ["main", "program", "ProgramError"]

# What openFPGALoader prints when the cable or the FPGA is not there.
_NO_BOARD = ("unable to open ftdi device", "no device found", "jtag init failed",
             "cable not found", "fails to open device", "no cable", "usb_open",
             "error: no device", "device not found", "idcode", "libusb")


class ProgramError(Exception):
    """Programming cannot go on; the message is one line for the user."""


def program(board, *, bitstream=None, build_dir=None, flash=False, timeout=300):
    """Load ``bitstream`` (default ``<build_dir>/top.bit``) into ``board``."""
    if isinstance(board, str):
        board = get_board(board)
    build_dir = Path(build_dir or Path("build") / board.name)
    explicit = bitstream is not None
    bitstream = Path(bitstream) if explicit else build_dir / "top.bit"
    if explicit and not bitstream.is_file():
        raise ProgramError(f"no bitstream at {bitstream}")
    if not bitstream.exists():
        if (build_dir / "vivado" / "build_top.sh").exists():
            # an Arty build tree without place-and-route tools here
            raise ProgramError(f"no bitstream at {bitstream}: {build_dir}/ has the build tree "
                               f"only; on a machine with Vivado run  cd {build_dir}/vivado && "
                               f"sh build_top.sh  and load its top.bit with  make program "
                               f"BITSTREAM=FILE  (python -m slitherlink.boards.program --bitstream FILE)")
        raise ProgramError(f"no bitstream at {bitstream}: build it first with  "
                           f"make bitstream BOARD={board.name}")
    tool_name = os.environ.get("OPENFPGALOADER", "openFPGALoader")
    tool = shutil.which(tool_name)
    if tool is None:
        raise ProgramError(f"openFPGALoader is not installed ('{tool_name}' not found): "
                           f"sudo apt-get install openfpgaloader  (or set OPENFPGALOADER)")
    cmd = [tool, "-b", board.programmer, *(["-f"] if flash else []), str(bitstream)]
    print(f"boards.program: {' '.join(cmd)}", flush=True)
    try:
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ProgramError(f"openFPGALoader did not finish within {timeout} s") from None
    print(result.stdout, end="", flush=True)
    if result.returncode != 0:
        lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
        last = lines[-1] if lines else f"exit {result.returncode}"
        if any(key in result.stdout.lower() for key in _NO_BOARD):
            raise ProgramError(f"no {board.title} found: is it plugged in over USB, powered, "
                               f"and may this user open it (udev rules, group plugdev)? "
                               f"(openFPGALoader: {last})")
        raise ProgramError(f"openFPGALoader failed (exit {result.returncode}): {last}")
    target = "SPI flash" if flash else "FPGA"
    print(f"boards.program: loaded {bitstream} into the {board.title}'s {target}; its UART "
          f"is usually {board.serial_port}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.boards.program",
                                     description="Load the bitstream into a board with "
                                                 "openFPGALoader.")
    parser.add_argument("--board", default=DEFAULT_TARGET.board, choices=sorted(BOARDS))
    parser.add_argument("--bitstream", help="the .bit file (default: build/<board>/top.bit)")
    parser.add_argument("--build-dir", help="the build directory (default: build/<board>)")
    parser.add_argument("--flash", action="store_true",
                        help="write the SPI flash (kept over power cycles) instead of the FPGA")
    args = parser.parse_args(argv)
    try:
        program(args.board, bitstream=args.bitstream, build_dir=args.build_dir,
                flash=args.flash)
    except ProgramError as e:
        print(f"boards.program: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
