"""Find the board's serial port: the UART interface of a Digilent board's FT2232.

The Arty A7's FTDI FT2232HQ (USB 0403:6010) has two interfaces: the first is
JTAG, the second the UART, usually ``/dev/ttyUSB1``.  :func:`candidates`
lists the second interfaces of the FT2232s attached; :func:`find_board` picks
the only one (``host/solve.py --port auto``).  ``python -m slitherlink.host.ports`` prints
what it finds.
"""

import sys

__all__ = ["candidates", "find_board", "describe", "FTDI_VID", "FT2232_PID"]

FTDI_VID = 0x0403
FT2232_PID = 0x6010


def _interface(info):
    """The USB interface number of a port (from its location ``bus-port:config.interface``)."""
    location = getattr(info, "location", None) or ""
    if ":" in location and "." in location.rsplit(":", 1)[1]:
        try:
            return int(location.rsplit(".", 1)[1])
        except ValueError:
            return None
    device = getattr(info, "device", "")
    if "-if01" in device or getattr(info, "interface", None) == "Digilent USB Device B":
        return 1
    return None


def candidates(ports=None):
    """The UART interfaces of attached FT2232s, Digilent's first: ``ListPortInfo``s."""
    if ports is None:
        from serial.tools import list_ports
        ports = list_ports.comports()
    found = [p for p in ports if p.vid == FTDI_VID and p.pid == FT2232_PID
             and _interface(p) == 1]
    return sorted(found, key=lambda p: ("digilent" not in (p.manufacturer or "").lower(),
                                        p.device))


def find_board(ports=None):
    """The device path of the only board attached; raises :class:`LookupError` (one
    line) when there is none or more than one."""
    found = candidates(ports)
    if not found:
        raise LookupError("no FT2232 UART (an Arty's /dev/ttyUSB1) is attached; plug in the "
                          "board, or give --port, or leave --port out for the virtual board")
    if len(found) > 1:
        raise LookupError(f"several boards are attached ({', '.join(p.device for p in found)}); "
                          f"choose one with --port")
    return found[0].device


def describe(info):
    parts = [info.device]
    if info.manufacturer or info.product:
        parts.append(f"{info.manufacturer or ''} {info.product or ''}".strip())
    if info.serial_number:
        parts.append(f"serial {info.serial_number}")
    if info.location:
        parts.append(f"at {info.location}")
    return ", ".join(parts)


def main():
    found = candidates()
    if not found:
        print("no FT2232 UART found (an Arty A7 shows up as 0403:6010, interface 1)")
        return 1
    for info in found:
        print(describe(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
