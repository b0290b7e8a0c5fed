"""Fixtures of the host's tests."""

import pytest

from slitherlink.host import device as B


@pytest.fixture
def serve():
    """``serve(device) -> pty path``: serves a fake device on a pseudo-terminal; stops every
    device and closes every session after the test."""
    stops = []

    def start(device):
        path, stop = device.serve_pty()
        stops.append(stop)
        return path

    yield start
    B.close_all()
    for stop in stops:
        stop()
