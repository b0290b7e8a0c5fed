"""The on-chip bus: PicoRV32's native memory interface as an Amaranth signature.

An initiator (the CPU) raises ``valid`` with ``addr`` (a byte address),
``wdata`` and ``wstrb`` (write byte enables; all zero for a read) and holds
them until the target answers with ``ready`` high for exactly one cycle; on a
read, ``rdata`` is valid in that cycle.  A target may hold ``ready`` low for as
long as it needs (wait states).  This is the handshake of PicoRV32's
``mem_valid``/``mem_ready`` port, so the CPU connects without glue.

A target decodes its registers from their :mod:`spec.registers` classes with the helpers
below: :func:`field_of` and :func:`field_lanes` take a written field apart, :func:`pack`
builds a read value.  A :class:`Register` stage between the initiator and a target cuts
the paths from the initiator's address into the target's logic, for a clock of latency.
"""

from amaranth import Cat, Const, Module, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Signature", "Register", "field_of", "field_lanes", "pack"]


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


class Register(wiring.Component):
    """A register stage: ``bus`` (a target port) reaches ``target`` (an initiator port) a
    clock later; ``ready`` and ``rdata`` come back through it without a register.

    The request (``valid``, ``addr``, ``wdata``, ``wstrb``) is registered, so no path
    runs from the initiator's address into the target's logic in one clock, and every
    access takes one more cycle.  ``valid`` falls with the target's ``ready``: in the clock
    of ``ready`` the target still sees ``valid`` (as it does without the stage), after it
    not, so the handshake the target sees is the bus's (docs/soc.md, "The bus").
    """

    def __init__(self, addr_width):
        super().__init__({"bus": In(Signature(addr_width=addr_width)),
                          "target": Out(Signature(addr_width=addr_width))})

    def elaborate(self, platform):
        m = Module()
        i, t = self.bus, self.target
        m.d.sync += [t.valid.eq(i.valid & ~t.ready),
                     t.addr.eq(i.addr), t.wdata.eq(i.wdata), t.wstrb.eq(i.wstrb)]
        m.d.comb += [i.ready.eq(t.ready), i.rdata.eq(t.rdata)]
        return m


def field_of(register, name, word):
    """The field ``name`` of ``register`` (a :class:`spec.registers.Register`) in the 32-bit
    ``word``, e.g. the bus's ``wdata``."""
    f = register.field(name)
    return word[f.offset:f.offset + f.width]


def field_lanes(register, name, wstrb):
    """True when ``wstrb`` enables every byte lane of field ``name``: the write sets it."""
    f = register.field(name)
    return Cat(*(wstrb[b] for b in range(f.offset // 8, (f.offset + f.width - 1) // 8 + 1))).all()


def pack(register, **values):
    """A 32-bit read value with each named field of ``register`` at its offset (others 0)."""
    bits = [Const(0, 1)] * 32
    for name, value in values.items():
        f, value = register.field(name), Value.cast(value)
        if len(value) > f.width:
            raise ValueError(f"{register.__name__}.{name} is {f.width} bits wide, "
                             f"not {len(value)}")
        for i in range(len(value)):
            bits[f.offset + i] = value[i]
    return Cat(*bits)
