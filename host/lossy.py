"""A lossy serial link for tests and benchmarks: a pseudo-terminal in front of a device's
port that drops or corrupts a share of the bytes, in both directions, reproducibly.

``LossyLink(target, loss=0.01, seed=1)`` opens ``target`` (the fake device's
pty, :meth:`host.fakedevice.FakeDevice.serve_pty`, or the virtual board's),
creates a new pseudo-terminal and forwards every byte between the two; each
byte is damaged with probability ``loss``: dropped (share ``drop_share``) or
XORed with a random non-zero byte.  The damage of the n-th byte of a direction
depends only on the seed and n (one ``random.Random`` per direction), so a run
with the same bytes is damaged the same way.  The line rate the host sets on its pty is
set on the device's too (:mod:`host.ptyrate`), as a cable carries it: a device that reads
its host's rate from its pty (the virtual board, the fake device) sees the host switch.  ``python -m slitherlink.host.lossy TARGET``
serves one from the shell (it prints ``PTY /dev/pts/N``).
"""

import argparse
import os
import random
import select
import sys
import threading
import tty

from .ptyrate import line_rate, set_line_rate

__all__ = ["LossyLink", "LossyLine"]


class LossyLink:
    """Forward bytes between a new pty (:attr:`path`, for the host) and ``target``."""

    def __init__(self, target, *, loss=0.01, seed=0, drop_share=0.5):
        if not 0 <= loss <= 1 or not 0 <= drop_share <= 1:
            raise ValueError("loss and drop_share are probabilities (0..1)")
        self.target, self.loss, self.drop_share = target, float(loss), float(drop_share)
        self._rng = {"to_device": random.Random(f"{seed}:to_device"),
                     "to_host": random.Random(f"{seed}:to_host")}
        self.stats = {f"{d}_{k}": 0 for d in ("to_device", "to_host")
                      for k in ("bytes", "dropped", "corrupted")}
        self.path = None
        self._thread = None
        self._stop = threading.Event()
        self._fds = []

    def damage(self, data, direction):
        """``data`` going ``direction`` ("to_device" or "to_host"), damaged."""
        rng, out = self._rng[direction], bytearray()
        for byte in data:
            self.stats[f"{direction}_bytes"] += 1
            if rng.random() < self.loss:
                if rng.random() < self.drop_share:
                    self.stats[f"{direction}_dropped"] += 1
                    continue
                byte ^= rng.randrange(1, 256)
                self.stats[f"{direction}_corrupted"] += 1
            out.append(byte)
        return bytes(out)

    def start(self):
        """Open both ends and start forwarding; returns the host's pty path."""
        device = os.open(self.target, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(device)
        master, slave = os.openpty()
        tty.setraw(slave)
        rate = line_rate(device)
        if rate:  # until the host sets its own
            set_line_rate(slave, rate)
        self._fds = [device, master, slave]
        self.path = os.ttyname(slave)
        self._thread = threading.Thread(target=self._run, args=(device, master),
                                        name="lossy-link", daemon=True)
        self._thread.start()
        return self.path

    def _run(self, device, master):
        rate = None
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([device, master], [], [], 0.005)
            except (OSError, ValueError):
                return
            now = line_rate(master)
            if now and now != rate:
                rate = now
                set_line_rate(device, rate)
            for fd in ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:  # e.g. EIO: the other side has gone
                    continue
                if not data:
                    continue
                if fd == master:
                    out, to = self.damage(data, "to_device"), device
                else:
                    out, to = self.damage(data, "to_host"), master
                if out:
                    try:
                        os.write(to, out)
                    except OSError:
                        pass

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = []

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


class LossyLine:
    """The same damage in front of a pyserial-like object in this process (the fake device
    on a clock of a test's own): what is written reaches ``line`` damaged, what is read
    from it arrives damaged; every other attribute is ``line``'s (``baudrate`` too)."""

    def __init__(self, line, **options):
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "link", LossyLink(None, **options))

    def write(self, data):
        self.line.write(self.link.damage(bytes(data), "to_device"))
        return len(data)

    def read(self, size=1):
        return self.link.damage(self.line.read(size), "to_host")

    def __getattr__(self, name):
        return getattr(self.line, name)

    def __setattr__(self, name, value):
        setattr(self.line, name, value)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slitherlink.host.lossy",
                                     description="Serve a lossy pty in front of a device's.")
    parser.add_argument("target", help="the device's port, e.g. the virtual board's /dev/pts/N")
    parser.add_argument("--loss", type=float, default=0.01, help="share of bytes damaged")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drop-share", type=float, default=0.5,
                        help="share of the damaged bytes that are dropped (the rest corrupted)")
    args = parser.parse_args(argv)
    try:
        link = LossyLink(args.target, loss=args.loss, seed=args.seed,
                         drop_share=args.drop_share)
        print(f"PTY {link.start()}", flush=True)
    except (OSError, ValueError) as error:
        print(f"python -m slitherlink.host.lossy: {error}", file=sys.stderr)
        return 2
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        link.stop()
        print(" ".join(f"{k} {v}" for k, v in link.stats.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
