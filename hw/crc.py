"""The link's CRC in gateware: CRC-16/CCITT-FALSE (:func:`spec.protocol.crc16`, the frames'
CRC, docs/protocol.md) a word a clock, for the UART's CRC registers.

The firmware still decides which bytes a frame's CRC covers (the receiver's
resynchronisation is its own); it only hands the bytes over, up to four in one store.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from slitherlink.spec.protocol import CRC_POLY

__all__ = ["crc16_byte", "CRC16"]

_WIDTH = 16


def crc16_byte(crc, byte):
    """The CRC ``crc`` (16 bits) continued over ``byte`` (8 bits): Amaranth values, one
    shift-register step a bit, MSB first (the expression of spec.protocol.crc16's table)."""
    bits = [crc[i] for i in range(_WIDTH)]
    for k in range(7, -1, -1):
        feedback = bits[_WIDTH - 1] ^ byte[k]
        bits = [feedback if i == 0 else bits[i - 1] for i in range(_WIDTH)]
        bits = [b ^ feedback if (CRC_POLY >> i) & 1 and i else b for i, b in enumerate(bits)]
    return Cat(*bits)


class CRC16(wiring.Component):
    """A CRC register: ``set`` loads ``value`` with ``data``'s low 16 bits; else ``lanes``
    (byte enables) continue it over the enabled bytes of ``data``, lane 0 first."""

    data: In(32)
    set: In(1)
    lanes: In(4)
    value: Out(_WIDTH)

    def elaborate(self, platform):
        m = Module()
        crc = self.value
        for lane in range(4):
            fed = Signal(_WIDTH, name=f"after_lane{lane}")
            m.d.comb += fed.eq(crc16_byte(crc, self.data[8 * lane:8 * lane + 8]))
            nxt = Signal(_WIDTH, name=f"crc_lane{lane}")
            m.d.comb += nxt.eq(crc)
            with m.If(self.lanes[lane]):
                m.d.comb += nxt.eq(fed)
            crc = nxt
        with m.If(self.set):
            m.d.sync += self.value.eq(self.data[:_WIDTH])
        with m.Elif(self.lanes.any()):
            m.d.sync += self.value.eq(crc)
        return m
