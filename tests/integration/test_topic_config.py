"""A topic's own configuration applies from its first log on: `CreateTopics` with configs writes them to
`/config/topics/<topic>` and the broker that creates the log reads them there, as 1.0.2's Partition does."""

from __future__ import annotations

from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.helpers import wait_until


def test_min_insync_replicas_of_a_new_topic_refuses_an_acks_all_write_it_cannot_meet(brokers, zookeeper):
    broker = brokers("b0", broker_id="0").start()
    broker.wait_running().wait_for_controller()
    bootstrap = broker.props["listeners"].removeprefix("PLAINTEXT://")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("strict", 1, 1, config={"min.insync.replicas": "2"}),
                         NewTopic("lenient", 1, 1)])["strict"].result(30)

    outcomes: dict[str, list[KafkaError | None]] = {"strict": [], "lenient": []}
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "message.timeout.ms": 20_000,
                         "retries": 0})
    for topic in outcomes:
        wait_until(lambda t=topic: t in producer.list_topics(t, timeout=5).topics
                   and producer.list_topics(t, timeout=5).topics[t].partitions[0].leader >= 0, 30, f"{topic} led")
        producer.produce(topic, b"x", on_delivery=lambda err, msg: outcomes[msg.topic()].append(err))
    producer.flush(30)

    # one replica in the ISR, two required by the topic's own config: Kafka refuses the acks=all write
    (strict,) = outcomes["strict"]
    assert strict is not None and strict.code() == KafkaError.NOT_ENOUGH_REPLICAS
    # the broker default (1) applies to the topic created without a config
    assert outcomes["lenient"] == [None]
