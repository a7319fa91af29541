"""Our own code, not a Kafka port: the gallery's scenarios, in the order docs/gallery.md tells them."""

from __future__ import annotations

from types import ModuleType

from kafka_edu.gallery import (
    broker_session,
    jepsen_2013,
    kip_279_divergence,
    kraft_check_quorum,
    kraft_no_prevote,
    zombie_controller,
)


def scenarios() -> dict[str, ModuleType]:
    """name -> the scenario's module (its NAME, TITLE and run(traces_dir, keep, out) -> Report)."""
    return {m.NAME: m for m in (jepsen_2013, zombie_controller, broker_session, kip_279_divergence, kraft_check_quorum,
                                kraft_no_prevote)}
