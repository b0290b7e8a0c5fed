"""The SoC as a virtual-board design: hw/soc.py's Verilog, PicoRV32 and the firmware.

Filled in against hw/soc.py once it is in the tree; until then building the
SoC's virtual board fails with one clear line.
"""

from .builder import BuildError

__all__ = ["design"]


def design():
    try:
        import hw.soc  # noqa: F401
    except ModuleNotFoundError as error:
        if error.name == "hw.soc":
            raise BuildError("the SoC (hw/soc.py) is not in this tree yet, so there is no "
                             "virtual board to build; use --engine model") from None
        raise
    raise BuildError("the virtual board does not know this hw/soc.py yet")
