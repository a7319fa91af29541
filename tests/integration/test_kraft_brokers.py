"""KRaft part 2, first slice, on real processes: brokers join the quorum as Kafka 3.9's do. `cluster up --mode kraft
--brokers 2` starts three controllers and two broker-only nodes (BrokerServer, BrokerLifecycleManager). Each
broker registers with the active controller (RegisterBrokerRecord, its offset the broker epoch), catches up with the
metadata log, is unfenced (BrokerRegistrationChangeRecord fenced=-1) and RUNNING. A broker killed with -9 is fenced
after broker.session.timeout.ms, and its restart registers again with a new epoch; a SIGTERM goes through controlled
shutdown in heartbeats; and the brokers follow a new active controller after kill -9 of the old one."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import Spans, load_run
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import REPO, request_to, wait_until

# Short enough to see a fencing within seconds, with three heartbeats of slack so a busy machine fences no one.
SESSION_TIMEOUT_MS = 4000
HEARTBEAT_INTERVAL_MS = 1000
OVERRIDES = [f"broker.session.timeout.ms={SESSION_TIMEOUT_MS}", f"broker.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}"]
BROKERS = (4, 5)  # node ids after the three controllers'
_RECORD = re.compile(r"\| offset: (\d+) CreateTime: (\d+) .*payload: (\{.*\})$")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path / "traces", mode="kraft", controllers=3, timeout_s=90, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def metadata_records(runner: ClusterRunner, node_id: int) -> list[tuple[int, int, dict[str, Any]]]:
    """(offset, CreateTime, record) of every metadata record in a controller's log, as kafka-dump-log decodes them."""
    segments = sorted((runner.run.path / f"controller-{node_id}" / "logs" / "__cluster_metadata-0").glob("*.log"))
    done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "dump-log", "--cluster-metadata-decoder",
                           *map(str, segments)], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return [(int(m.group(1)), int(m.group(2)), json.loads(m.group(3)))
            for m in map(_RECORD.search, done.stdout.splitlines()) if m]


def of_type(records: list[tuple[int, int, dict[str, Any]]], record_type: str,
            **data: Any) -> list[tuple[int, int, dict[str, Any]]]:
    """(offset, CreateTime, data) of the records of one type whose data has the given values."""
    return [(offset, created, r["data"]) for offset, created, r in records
            if r["type"] == record_type and all(r["data"].get(k) == v for k, v in data.items())]


def state_changes(spans: Spans, instance: str) -> list[tuple[str, str]]:
    events = sorted((e.time_ns, e.attributes["kafka.broker.state.from"], e.attributes["kafka.broker.state.to"])
                    for s in spans if s.instance == instance for e in s.events if e.name == "broker.state.change")
    return [(frm, to) for _, frm, to in events]


def api_versions(port: int) -> Any:
    return request_to(port, ApiKeys.API_VERSIONS, 3, timeout_s=15, client_software_name="kafka-edu-test",
                      client_software_version="1")


def test_two_brokers_register_run_and_follow_a_new_active_controller(cluster: ClusterRunner) -> None:
    runner = cluster
    manifest = runner.run.read_manifest()
    brokers = [p for p in manifest["processes"] if p["role"] == "broker"]
    assert [(p["id"], p["state"]) for p in brokers] == [(4, "RUNNING"), (5, "RUNNING")]
    assert manifest["bootstrap_servers"] == ",".join(f"127.0.0.1:{p['port']}" for p in brokers)
    for p in brokers:  # the broker listener is open and answers ApiVersions
        response = api_versions(p["port"])
        assert response.error_code == Errors.NONE and any(k.api_key == ApiKeys.API_VERSIONS for k in response.api_keys)

    # Each broker's registration is in the metadata log, its offset the broker epoch, then its unfencing.
    leader = runner.wait_for_quorum(30)
    records = metadata_records(runner, leader)
    for broker_id in BROKERS:
        [(offset, _, registered)] = of_type(records, "REGISTER_BROKER_RECORD", brokerId=broker_id)
        assert registered["fenced"] is True and registered["brokerEpoch"] == offset
        assert registered["endPoints"][0]["port"] == runner.entry(broker_id)["port"]
        assert registered["features"] == [{"name": "metadata.version", "minSupportedVersion": 1,
                                           "maxSupportedVersion": 21}]
        assert of_type(records, "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=broker_id,
                       brokerEpoch=registered["brokerEpoch"], fenced=-1)

    # The broker's trace: STARTING -> RECOVERY -> RUNNING inside its startup, and the controller's handling of its
    # registration linked to the span that sent it (the traceparent in the request header).
    spans = load_run(runner.run.path)
    assert state_changes(spans, "broker-4") == [("NOT_RUNNING", "STARTING"), ("STARTING", "RECOVERY"),
                                                ("RECOVERY", "RUNNING")]
    startup = spans.where(step="KR.broker", instance="broker-4").first()
    assert startup.attributes["kafka.broker.state"] == "RUNNING"
    queued = spans.where(name="BrokerLifecycleManager.sendBrokerRegistration", instance="broker-4").first()
    # the registration runs on the lifecycle manager's queue: a trace of its own, linked to the startup that began it
    started = spans.where(trace_id=queued.trace_id, name="KafkaEventQueue.enqueue").first()
    assert started.attributes["kafka.queue.event"] == "StartupEvent"
    assert (startup.trace_id, startup.span_id) in started.links
    [sent] = [s for s in spans.children_of(queued) if s.name == "InterBrokerSendThread.sendRequests"]
    assert sent.attributes["kafka.api.name"] == "BrokerRegistration"
    assert list(sent.attributes["kafka.response.errors"]) == ["NONE"]
    handled = [s for s in spans.where(name="RequestChannel.Request") if (sent.trace_id, sent.span_id) in s.links]
    assert handled and handled[0].attributes["kafka.api.name"] == "BrokerRegistration"
    assert handled[0].instance == f"controller-{sent.attributes['kafka.controller.id']}"

    # kill -9 of the active controller: the brokers find the new one and keep heartbeating to it, unfenced.
    killed_at_ns = time.time_ns()
    runner.kill(leader)
    new_leader = runner.wait_for_quorum(60)
    assert new_leader != leader

    def heartbeats_to(node_id: int, broker_id: int, after_ns: int) -> list[Any]:
        return [s for s in load_run(runner.run.path).where(name="QuorumController.processBrokerHeartbeat",
                                                           instance=f"controller-{node_id}")
                if s.attributes.get("kafka.broker.id") == broker_id and s.start_ns > after_ns]

    # a heartbeat well past a session timeout after the kill, from each broker: had they stopped, they'd be fenced
    past_session_ns = killed_at_ns + (SESSION_TIMEOUT_MS + 3 * HEARTBEAT_INTERVAL_MS) * 1_000_000
    for broker_id in BROKERS:
        wait_until(lambda b=broker_id: heartbeats_to(new_leader, b, past_session_ns), 60,
                   f"broker {broker_id}'s heartbeats to the new active controller {new_leader}")
    records = metadata_records(runner, new_leader)
    for broker_id in BROKERS:
        assert not of_type(records, "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=broker_id, fenced=1)
        assert runner.broker_state(broker_id) == "RUNNING"


def test_a_killed_broker_is_fenced_its_restart_registers_anew_and_a_sigterm_shuts_down_through_heartbeats(
        cluster: ClusterRunner) -> None:
    runner = cluster
    leader = runner.wait_for_quorum(30)
    [(_, _, first)] = of_type(metadata_records(runner, leader), "REGISTER_BROKER_RECORD", brokerId=4)

    # kill -9: the active controller fences broker 4 once its session has run out
    killed_at_ms = time.time_ns() // 1_000_000
    runner.kill(4)
    fenced = wait_until(lambda: of_type(metadata_records(runner, leader), "BROKER_REGISTRATION_CHANGE_RECORD",
                                        brokerId=4, brokerEpoch=first["brokerEpoch"], fenced=1),
                        SESSION_TIMEOUT_MS / 1000 + 30, "broker 4 fenced")
    assert fenced[0][1] >= killed_at_ms
    # fenced because the controller had heard nothing from it for a whole session, by the controller's own clock
    # (measuring from the kill instead would assume the busy broker's last heartbeat left right on its interval)
    fence = wait_until(lambda: load_run(runner.run.path).where(step="KR.fence", instance=f"controller-{leader}",
                                                               **{"kafka.broker.id": 4}),
                       30, "the controller's KR.fence span for broker 4")
    silent_ms = fence.first().attributes["kafka.broker.silent.ms"]
    assert silent_ms >= SESSION_TIMEOUT_MS, silent_ms

    # restarted (as a learner would: `kafka-edu cluster start 4`, which returns once the broker runs): a new
    # incarnation registers with a new broker epoch and is unfenced again
    started = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "cluster", "start", "4", "--run",
                              str(runner.run.path)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert started.returncode == 0, started.stdout + started.stderr
    assert runner.broker_state(4) == "RUNNING"
    records = metadata_records(runner, leader)
    registrations = [r for _, _, r in of_type(records, "REGISTER_BROKER_RECORD", brokerId=4)]
    assert len(registrations) == 2
    second = registrations[1]
    assert second["brokerEpoch"] > first["brokerEpoch"] and second["incarnationId"] != first["incarnationId"]
    assert of_type(records, "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=4, brokerEpoch=second["brokerEpoch"],
                   fenced=-1)

    # SIGTERM: controlled shutdown through heartbeats (wantShutDown until shouldShutDown), then exit 0
    runner.stop(5)
    assert runner.run.exit_records()["broker-5"]["exit_code"] == 0
    spans = load_run(runner.run.path)
    assert state_changes(spans, "broker-5")[-2:] == [("RUNNING", "PENDING_CONTROLLED_SHUTDOWN"),
                                                     ("PENDING_CONTROLLED_SHUTDOWN", "SHUTTING_DOWN")]
    asked = spans.where(name="BrokerLifecycleManager.sendBrokerHeartbeat", instance="broker-5",
                        **{"kafka.broker.want_shut_down": True})
    assert asked, "no heartbeat asked to shut down"
    shutdown = spans.where(name="BrokerServer.shutdown", instance="broker-5").first()
    assert shutdown.start_ns <= asked.first().start_ns <= shutdown.end_ns
    # the controller answered by fencing it (the broker led nothing, so at once)
    assert of_type(metadata_records(runner, leader), "BROKER_REGISTRATION_CHANGE_RECORD", brokerId=5, fenced=1)
    # broker 4 went on untouched
    assert runner.broker_state(4) == "RUNNING"
