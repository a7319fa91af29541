"""Our own code, not a Kafka port: what a ZooKeeper-mode run's ZooKeeper says (controller, partition state), read
the way a test would, for the gallery's stories; the traces say why, ZooKeeper says what holds now."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from kafka_edu.cluster_runner.runner import ClusterRunner


@contextmanager
def zookeeper(runner: ClusterRunner) -> Iterator[KazooClient]:
    zk = KazooClient(hosts=runner.run.read_manifest()["zookeeper_connect"], timeout=10)
    zk.start(timeout=15)
    try:
        yield zk
    finally:
        zk.stop()
        zk.close()


def controller(zk: KazooClient) -> tuple[int, int] | None:
    """(/controller's broker id, /controller_epoch); None while there is no controller."""
    try:
        return json.loads(zk.get("/controller")[0])["brokerid"], int(zk.get("/controller_epoch")[0])
    except NoNodeError:
        return None


def partition_state(zk: KazooClient, topic: str, partition: int = 0) -> dict[str, Any] | None:
    """The partition's leader, leader_epoch and isr as the controller last wrote them."""
    try:
        return json.loads(zk.get(f"/brokers/topics/{topic}/partitions/{partition}/state")[0])
    except NoNodeError:
        return None


def registered(zk: KazooClient) -> list[int]:
    return sorted(int(b) for b in zk.get_children("/brokers/ids"))
