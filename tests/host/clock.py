"""A clock of the test's own, for the host (:class:`host.device.Connection`'s ``clock``)
and the fake device (:class:`host.fakedevice.FakeDevice`'s ``timer``): its seconds pass
only when one of them waits (``sleep``, or a read with nothing to read), never with the
machine's speed."""


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds
