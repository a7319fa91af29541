"""Our own tests, not a Kafka port: the TUI's `i` key (isolate the node under the cursor, or heal it) and the cut
links in the status bar (issue 26). The cluster is a recorded run with a stand-in control, as in test_app.py; the
real cuts are tests/integration/test_network_partitions.py's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.tui.helpers import copy_run, opened, wait_for
from tui.app import KafkaEduApp


class NetworkControl:
    """Stands in for tui.control.ClusterControl; `network`: whether the run has namespaces."""

    def __init__(self, network: bool) -> None:
        self.network = network
        self.calls: list[tuple[str, tuple[object, ...]]] = []

    def has_network(self) -> bool:
        return self.network

    def __getattr__(self, verb: str) -> Any:
        return lambda *args: self.calls.append((verb, args))


def notices(app: KafkaEduApp) -> list[str]:
    return [notification.message for notification in app._notifications]


def test_i_isolates_or_heals_the_node_under_the_cursor_only_on_a_run_with_namespaces(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            app.control = control = NetworkControl(network=True)
            app.model.brokers[2].alive = True
            await pilot.press("j", "j")  # from b0 to b2
            assert app.cluster_pane.selected_broker == 2
            await pilot.press("i")
            await wait_for(pilot, lambda: ("isolate_or_heal", (2,)) in control.calls,
                           what=f"isolate broker 2 ({notices(app)})")

            app.control = plain = NetworkControl(network=False)
            await pilot.press("i")
            await wait_for(pilot, lambda: any("cluster up --netns" in n for n in notices(app)),
                           what="why i did nothing")
            assert plain.calls == []
    asyncio.run(scenario())


def test_the_status_bar_shows_the_links_cut(failover: Path, tmp_path: Path) -> None:
    run_dir = copy_run(failover, tmp_path / "run")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["network"] = {"cuts": [
        {"id": 1, "kind": "isolate", "from": ["0"], "to": ["zk", "1", "2"], "links": []},
        {"id": 2, "kind": "one-way", "from": ["1"], "to": ["zk"], "links": []}]}
    (run_dir / "manifest.json").write_text(json.dumps(manifest))

    async def scenario() -> None:
        async with opened(run_dir, size=(200, 40)) as (app, pilot):
            await wait_for(pilot, lambda: "0<->zk,1,2; 1->zk" in app._status_text(), what="the cuts")
    asyncio.run(scenario())
