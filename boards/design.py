"""A target's design: its firmware image and its system on chip, and the SoC's Verilog.

One place turns a :class:`spec.target.Target` into hardware, for every consumer: the
bitstream builds (:mod:`boards.build`), the virtual board (:mod:`sim.vboard`), the cocotb
system tests and the Verilog export (:mod:`boards.verilog`).  The firmware depends only
on the grid (it finds the engines a build has at run time), so it is built for the
target's ``max_rows`` x ``max_cols`` (:func:`firmware.build.build_firmware`, cached);
the SoC (:class:`hw.soc.SoC`) takes the image and every other parameter of the target.

    from slitherlink.spec.target import DEFAULT_TARGET
    soc = design.soc(DEFAULT_TARGET)                 # an Amaranth component
    text, extra = design.verilog(DEFAULT_TARGET)     # one Verilog top + picorv32.v
"""

from pathlib import Path

from slitherlink.spec.target import DEFAULT_TARGET

__all__ = ["DesignError", "firmware_image", "soc", "verilog", "sources"]


class DesignError(Exception):
    """A target that cannot be made into a design here; ``str()`` is one line."""


def firmware_image(target=DEFAULT_TARGET, *, cc_kind="zig", path=None):
    """The target's firmware image (:class:`firmware.build.Image`): built (or found in the
    build cache) for its grid, or read from ``path``."""
    from slitherlink.firmware.build import FirmwareError, Image, build_firmware, default_ram_size
    try:
        if path is None:
            return build_firmware(target.max_rows, target.max_cols, cc_kind=cc_kind)
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise DesignError(f"cannot read the firmware image {path}: "
                              f"{error.strerror}") from None
        return Image(data, default_ram_size(target.max_rows, target.max_cols, cc_kind=cc_kind))
    except FirmwareError as error:
        raise DesignError(f"cannot build the firmware: {str(error).splitlines()[0]}") from None


def soc(target=DEFAULT_TARGET, *, firmware=None, cc_kind="zig"):
    """The target's :class:`hw.soc.SoC` with its firmware (``firmware``: an image, or the
    path of one; default: built for the target)."""
    from slitherlink.hw.soc import MissingPackage, SoC
    if not isinstance(firmware, (bytes, bytearray)):
        firmware = firmware_image(target, cc_kind=cc_kind, path=firmware)
    try:
        return SoC(target, firmware=firmware)
    except (ValueError, TypeError, MissingPackage) as error:
        raise DesignError(f"cannot build the SoC: {error}") from None


def verilog(target=DEFAULT_TARGET, *, firmware=None, cc_kind="zig", name=None):
    """``(verilog_text, [picorv32.v path])``: the target's SoC as one Verilog top module
    (``name``, default :data:`hw.soc.TOP_NAME`; ports ``clk``, ``rst`` active high,
    ``uart_rx``, ``uart_tx``, ``trap``), to simulate or synthesise with the extra files."""
    from amaranth.back import verilog as back

    from slitherlink.hw.soc import TOP_NAME, picorv32_source
    top = soc(target, firmware=firmware, cc_kind=cc_kind)
    return back.convert(top, name=name or TOP_NAME, emit_src=False), [picorv32_source()]


def sources():
    """The folders and files a target's design is made from (for build caches)."""
    from slitherlink.paths import part
    return [part("hw"), part("spec"), part("firmware"), Path(__file__).resolve()]
