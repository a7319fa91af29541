"""kafka-edu: an instrumented Python port of the Apache Kafka broker."""

import sys

__version__ = "0.1.0"


def _load_kio_without_hypothesis() -> None:
    """kio, the wire-protocol library, registers a hypothesis strategy for each of its types at import when
    hypothesis is installed (it is, for the tests): about 0.4 s of every broker's, controller's and command's start.
    Only a test process uses those strategies, so any other process loads kio as if hypothesis were absent."""
    if "hypothesis" in sys.modules or "_pytest" in sys.modules:
        return
    sys.modules["hypothesis"] = None  # an import of it raises ImportError, which kio takes as "not installed"
    try:
        import kio.static._phantom  # noqa: F401
    finally:
        del sys.modules["hypothesis"]


_load_kio_without_hypothesis()
