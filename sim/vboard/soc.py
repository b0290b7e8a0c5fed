"""The SoC as a virtual-board design: hw/soc.py's Verilog, PicoRV32 and the firmware.

The virtual board mirrors the primary board, the Arty A7-35T
(:class:`boards.arty.ArtyA7_35`): the same grid size, the same SoC clock (the
paper's 50 MHz) and the same UART baud rate, so its cycle counts are the
board's and the host sees the same bytes at the same rate, with the
deduction engine (``deduce``, DESIGN.md section 6, band 1) beside the paper's
accelerator, so it serves both modes.  Other parameters can be given
(``python -m slitherlink.sim.vboard build --max-rows 16 --max-cols 16 --no-deduce``).
"""

from slitherlink.boards.arty import ArtyA7_35
from slitherlink.spec.board import DEFAULT_BAUD

from .builder import BuildError, Design

__all__ = ["design", "board_parameters"]


def board_parameters():
    """``{max_rows, max_cols, clock_hz, baud}`` of the Arty A7 build, ``deduce``
    (1: the deduction engine too), ``band`` (its framed rows a word) and
    ``label_network`` (its label row network, :data:`hw.deduce.labels.NETWORKS`: the
    same cycles)."""
    return {"max_rows": ArtyA7_35.max_rows, "max_cols": ArtyA7_35.max_cols,
            "clock_hz": int(ArtyA7_35.clock_frequency), "baud": DEFAULT_BAUD, "deduce": 1,
            "band": 1, "label_network": "small"}


def design(max_rows=None, max_cols=None, clock_hz=None, baud=None, deduce=None, band=None,
           label_network=None):
    """The :class:`Design` of the SoC (builds the firmware if needed)."""
    from slitherlink.firmware.build import FirmwareError, build_firmware
    from slitherlink.hw import soc
    from slitherlink.hw.deduce.labels import check_network
    params = board_parameters()
    for key, value in (("max_rows", max_rows), ("max_cols", max_cols),
                       ("clock_hz", clock_hz), ("baud", baud), ("deduce", deduce),
                       ("band", band)):
        if value is not None:
            params[key] = int(value)
    if label_network is not None:
        try:
            params["label_network"] = check_network(label_network)
        except ValueError as error:
            raise BuildError(f"label_{error}") from None
    try:
        firmware = build_firmware(params["max_rows"], params["max_cols"])
        text, extra = soc.soc_verilog(params["max_rows"], params["max_cols"],
                                      clock_hz=params["clock_hz"], baud=params["baud"],
                                      firmware=firmware, deduce=bool(params["deduce"]),
                                      band=params["band"],
                                      label_network=params["label_network"])
    except FirmwareError as error:
        raise BuildError(f"cannot build the firmware: {str(error).splitlines()[0]}") from None
    except (ValueError, soc.MissingPackage) as error:
        raise BuildError(f"cannot build the SoC: {error}") from None
    sources = {f"{soc.TOP_NAME}.v": text}
    for path in extra:
        sources[path.name] = path
    name = design_name(params)
    return Design(name, soc.TOP_NAME, params["clock_hz"], params["baud"], sources,
                  ports={"clk": "clk", "rst": "rst", "uart_rx": "uart_rx",
                         "uart_tx": "uart_tx", "trap": "trap"},
                  info={**params, "firmware_bytes": len(firmware)})


def design_name(params):
    default = board_parameters()
    if params == default:
        return "soc"
    return (f"soc-{params['max_rows']}x{params['max_cols']}-{params['clock_hz']}"
            f"-{params['baud']}{'' if params['deduce'] else '-paper'}"
            f"{'-band%d' % params['band'] if params['deduce'] and params['band'] != 1 else ''}"
            f"{'-' + params['label_network'] if params['label_network'] != 'small' else ''}")
