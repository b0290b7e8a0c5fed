"""The SoC as a virtual-board design: a target's Verilog, PicoRV32 and the firmware.

By default the virtual board is exactly what ``make bitstream`` builds for the primary
board (:data:`spec.target.DEFAULT_TARGET`: the Arty A7-35T's build, both modes, the
same grid, the same design clock and UART clock and the same UART rate), so its cycle counts are the
board's and the host sees the same bytes at the same rate.  Any other target can be
simulated: ``python -m slitherlink.sim.vboard build --max-rows 16 --max-cols 16
--no-deduce``, or :func:`target_of` with the fields to change.
"""

import dataclasses

from slitherlink.spec.target import DEFAULT_TARGET, Target
from slitherlink.spec.uart import UART_CLOCK_RATIO

from .builder import BuildError, Design

__all__ = ["design", "target_of", "design_name", "PARAMETERS"]

#: the fields of a target the virtual board's callers may change (:func:`target_of`)
PARAMETERS = tuple(f.name for f in dataclasses.fields(Target) if f.name != "board")


def target_of(params=None):
    """:data:`DEFAULT_TARGET` with ``params`` (``{field: value}``; a value of None keeps
    the default); BuildError (one line) for a target that cannot be built."""
    changes = {k: v for k, v in (params or {}).items() if v is not None}
    unknown = sorted(set(changes) - set(PARAMETERS))
    if unknown:
        raise BuildError(f"the SoC takes {', '.join(PARAMETERS)}, not {', '.join(unknown)}")
    try:
        return DEFAULT_TARGET.replace(**changes)
    except (ValueError, TypeError) as error:
        raise BuildError(f"cannot build the SoC: {error}") from None


def design_name(target):
    """``soc`` for the default target, else a name that tells the target apart."""
    return "soc" if target == DEFAULT_TARGET else f"soc-{target.name}"


def design(target=DEFAULT_TARGET):
    """The :class:`Design` of the target's SoC (builds the firmware if needed)."""
    from slitherlink.boards import design as soc_design
    from slitherlink.hw.soc import TOP_NAME
    try:
        image = soc_design.firmware_image(target)
        text, extra = soc_design.verilog(target, firmware=image)
    except soc_design.DesignError as error:
        raise BuildError(str(error)) from None
    sources = {f"{TOP_NAME}.v": text}
    for path in extra:
        sources[path.name] = path
    return Design(design_name(target), TOP_NAME, target.clock_hz, target.baud, sources,
                  ports={"clk": "clk", "rst": "rst", "uart_rx": "uart_rx",
                         "uart_tx": "uart_tx", "trap": "trap", "served": "uart_served",
                         "uart_clk": "uart_clk", "uart_rst": "uart_rst"},
                  line_ratio=UART_CLOCK_RATIO,
                  pc=("picorv32", "cpu", "dbg_insn_addr"),
                  info={**target.as_dict(), "firmware_bytes": len(image)})
