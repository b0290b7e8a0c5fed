"""A fake device that loses requests, as if their START byte was corrupted on the way."""

from slitherlink.host import protocol as P
from slitherlink.host.fakedevice import FakeDevice


class Forgetful(FakeDevice):
    """Loses the requests of the types ``forgets`` (SOLVE by default) whose place among
    them (1, 2, ...) is in ``lose``: a set of places, or a number (the first ``lose``).
    ``count`` is how many of those types it has heard."""

    def __init__(self, *, lose, forgets=(P.MsgType.SOLVE,), **options):
        super().__init__(**options)
        self.forgets = frozenset(forgets)
        self.lose = set(range(1, lose + 1)) if isinstance(lose, int) else set(lose)
        self.count = 0

    def _request(self, frame, at):
        if frame.type in self.forgets:
            self.count += 1
            if self.count in self.lose:
                return None
        return super()._request(frame, at)
