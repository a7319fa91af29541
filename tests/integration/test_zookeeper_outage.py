"""ZooKeeper unreachable for longer than the brokers' session timeout (Kafka 1.0.2): every broker loses its
connection mid-work. When ZooKeeper comes back it may expire the sessions (those brokers re-register on new ones,
and if the controller's went, another election raises the epoch) or let the reconnecting clients keep them; which
happens is ZooKeeper's race between its expiry thread and the reconnects. Either way every broker process lives on,
the cluster agrees on one controller, every partition has a live leader and nothing acknowledged is lost."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid

from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.exceptions import NoNodeError

from tests.integration.helpers import (
    PARTITIONS,
    SESSION_TIMEOUT_S,
    N,
    ZooKeeper,
    bootstrap,
    consume_all,
    controller_of,
    metadata_leaders,
    partition_states,
    produce,
    start_cluster,
    wait_until,
)


def controller_election(zookeeper: ZooKeeper) -> tuple[int, int, int] | None:
    """Which election made the controller (the zxid that created /controller: a new election, even of the same
    broker, creates a new one), its id and its epoch; None while /controller changes under the reads."""
    try:
        election = zookeeper.client.get("/controller")[1].czxid
        controller, epoch = controller_of(zookeeper)
        if zookeeper.client.get("/controller")[1].czxid == election:
            return election, controller, epoch
    except NoNodeError:
        pass
    return None


def test_brokers_survive_a_zookeeper_outage_longer_than_their_sessions(brokers, zookeeper):
    cluster = start_cluster(brokers)
    topic = f"outage-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    admin.create_topics([NewTopic(topic, num_partitions=PARTITIONS, replication_factor=3)])[topic].result(30)
    wait_until(lambda: partition_states(zookeeper, topic), 15, "the partition state znodes")
    assert produce(cluster, topic, 0, N // 2) == []
    election_before, controller_before, epoch_before = wait_until(lambda: controller_election(zookeeper), 10,
                                                                  "the controller")
    sessions_before = {b.name: b.log_file.read_text().count("re-registering broker info") for b in cluster.values()}
    expirations_before = {b.name: b.log_file.read_text().count("Session has expired") for b in cluster.values()}

    zookeeper_pid = zookeeper.server.process.pid
    os.kill(zookeeper_pid, signal.SIGSTOP)
    try:
        # The outage itself: ZooKeeper must stay unreachable for more than every session timeout.
        time.sleep(SESSION_TIMEOUT_S * 2 + 1)
    finally:
        os.kill(zookeeper_pid, signal.SIGCONT)

    def recovered() -> bool:
        registered = sorted(int(b) for b in zookeeper.client.get_children("/brokers/ids"))
        if registered != [0, 1, 2] or not zookeeper.exists("/controller"):
            return False
        states = partition_states(zookeeper, topic)
        return bool(states) and all(s["leader"] in registered for s in states.values())
    wait_until(recovered, 40, "brokers registered, a controller and live leaders")

    assert all(b.process.poll() is None for b in cluster.values()), "a broker died during the outage"
    # A broker whose session expired registered again on a new one (KafkaHealthcheck's SessionExpireListener).
    for broker in cluster.values():
        log = broker.log_file.read_text()
        if log.count("Session has expired") > expirations_before[broker.name]:
            assert log.count("re-registering broker info") > sessions_before[broker.name], broker.name
    election, controller, epoch = wait_until(lambda: controller_election(zookeeper), 10, "the controller")
    if election == election_before:
        # The controller's session survived: no election, the same controller at the same epoch.
        assert (controller, epoch) == (controller_before, epoch_before)
    else:
        # A new controller was elected: its epoch is strictly greater than the one before it.
        assert epoch > epoch_before
    wait_until(lambda: all(metadata_leaders({i: b}, topic) and
                           AdminClient({"bootstrap.servers": bootstrap({i: b})}).list_topics(timeout=10).controller_id
                           == controller for i, b in cluster.items()), 30, "every broker to name the new controller")
    # Writes go on, and nothing acknowledged before the outage is gone.
    assert produce(cluster, topic, N // 2, N // 2) == []
    assert sorted(consume_all(cluster, topic, N)) == sorted(f"v{i}" for i in range(N))
    assert json.loads(zookeeper.client.get("/controller")[0])["brokerid"] == controller
