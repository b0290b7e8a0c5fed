"""The device session: talking to the board, or to the virtual board, over a UART.

docs/design.md section 4.  The board engine (:mod:`host.engines.board`) solves
through it; it knows nothing of engines or results, only of the device and its
protocol (:mod:`host.protocol`):

* :mod:`host.device.port` -- opening a serial port, exclusively, with one-line
  errors (:mod:`host.ports` finds the Arty's);
* :mod:`host.device.link` -- the link's timing, derived from the baud rate and
  the frame lengths, the retry policy and its bound, the ledger of the link's
  sequence numbers, and the frame log of ``--verbose``;
* :mod:`host.device.rates` -- the rate the host asks for, and where a device may be left;
* :mod:`host.device.connection` -- one conversation: requests with retries,
  ABORT, PING, the switch to the fast rate (:class:`Connection`);
* :mod:`host.device.pipeline` -- the SOLVEs, several in flight, answered in order;
* :mod:`host.device.virtual` -- starting the virtual board when no port is
  given, connecting to one (:func:`connect_to`), and telling when it has died;
* :mod:`host.device.sessions` -- the connections of this program, kept from
  one puzzle to the next and closed at its end (:func:`open_connection`,
  :func:`close_all`);
* :mod:`host.device.errors` -- the one-line errors, each with its exit code.

``-v`` logs every frame sent and received (logger ``slitherlink.host.device``).
"""

from .connection import Connection
from .errors import (BoardError, DeviceError, GarbledAnswer, NoAnswer, NoDeduceEngine,
                     NotSent, PortError, TooLarge, VirtualBoardFailed)
from .link import DEFAULT_RETRIES
from .sessions import close_all, connections, drop, open_connection
from .virtual import connect_to

__all__ = ["Connection", "connect_to", "open_connection", "drop", "close_all", "connections", "DEFAULT_RETRIES",
           "BoardError", "PortError", "NoAnswer", "GarbledAnswer", "TooLarge", "DeviceError",
           "NoDeduceEngine", "VirtualBoardFailed", "NotSent"]
