"""A UART model for cocotb: drives the SoC's ``uart_rx`` and listens on its ``uart_tx``.

8N1, LSB first.  Bit timing uses :class:`cocotb.triggers.Timer` (one callback
per bit, not per clock cycle), so it costs little simulation speed.
"""

import cocotb
from cocotb.queue import Queue
from cocotb.triggers import FallingEdge, Timer

__all__ = ["UartSource", "UartSink"]


class UartSource:
    """Sends bytes on ``line`` (the DUT's receive pin) at ``bit_ns`` per bit."""

    def __init__(self, line, bit_ns):
        self.line, self.bit_ns = line, bit_ns
        self.line.value = 1

    async def send(self, data, *, gap_bits=0):
        for byte in bytes(data):
            for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1]:
                self.line.value = bit
                await Timer(self.bit_ns, unit="ns")
            if gap_bits:
                await Timer(self.bit_ns * gap_bits, unit="ns")


class UartSink:
    """Receives bytes from ``line`` (the DUT's transmit pin) into :attr:`queue`."""

    def __init__(self, line, bit_ns):
        self.line, self.bit_ns = line, bit_ns
        self.queue = Queue()
        self.framing_errors = 0
        self._task = cocotb.start_soon(self._run())

    async def _run(self):
        while True:
            await FallingEdge(self.line)
            await Timer(self.bit_ns // 2, unit="ns")
            if int(self.line.value) != 0:
                continue  # a glitch
            byte = 0
            for i in range(8):
                await Timer(self.bit_ns, unit="ns")
                byte |= int(self.line.value) << i
            await Timer(self.bit_ns, unit="ns")
            if int(self.line.value) != 1:
                self.framing_errors += 1
            self.queue.put_nowait(byte)

    def take(self):
        """Every byte received so far."""
        out = bytearray()
        while not self.queue.empty():
            out.append(self.queue.get_nowait())
        return bytes(out)
