"""The on-chip bus: PicoRV32's native memory interface as an Amaranth signature.

An initiator (the CPU) raises ``valid`` with ``addr`` (a byte address),
``wdata`` and ``wstrb`` (write byte enables; all zero for a read) and holds
them until the target answers with ``ready`` high for exactly one cycle; on a
read, ``rdata`` is valid in that cycle.  A target may hold ``ready`` low for as
long as it needs (wait states).  This is the handshake of PicoRV32's
``mem_valid``/``mem_ready`` port, so the CPU connects without glue.
"""

from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Signature"]


class Signature(wiring.Signature):
    """The bus seen from the initiator; a target has ``In(bus.Signature(...))``."""

    def __init__(self, addr_width=32):
        if not isinstance(addr_width, int) or not 2 <= addr_width <= 32:
            raise TypeError(f"address width must be an integer from 2 to 32, "
                            f"not {addr_width!r}")
        self.addr_width = addr_width
        super().__init__({
            "valid": Out(1),
            "addr": Out(addr_width),
            "wdata": Out(32),
            "wstrb": Out(4),
            "ready": In(1),
            "rdata": In(32),
        })

    def __eq__(self, other):
        return isinstance(other, Signature) and self.addr_width == other.addr_width

    def __repr__(self):
        return f"bus.Signature(addr_width={self.addr_width})"
