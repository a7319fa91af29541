"""A broker starting and stopping against a real ZooKeeper, as Kafka 1.0.2's KafkaServer does it."""

from __future__ import annotations

import json
import os
import signal

from kafka_edu.v1_0_2.clients.common.record.file_records import build_batch
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from tests.integration.helpers import meta_broker_id, wait_until

# CL.startup is LogCleaner.startup, inside LC.startup.08 (log.cleaner.enable is true by default); CT.startup.1 is
# KafkaController.startup itself, inside LC.startup.12; the Startup event runs in its own trace.
STARTUP_ORDER = ["LC.startup.01", "LC.startup.02", "LC.startup.03", "LC.startup.04", "LC.startup.05",
                 "LC.startup.06", "LC.startup.07", "LC.startup.08", "CL.startup", "LC.startup.09", "LC.startup.10",
                 "LC.startup.11", "LC.startup.12", "CT.startup.1", "LC.startup.13", "LC.startup.14",
                 "LC.startup.15", "LC.startup.16", "LC.startup.17", "LC.startup.18", "LC.startup.19",
                 "LC.startup.20", "LC.startup.21", "LC.startup.22", "LC.startup.23", "LC.startup.24"]


def test_startup_runs_kafkas_steps_in_order_and_registers_the_broker(brokers, zookeeper, tmp_path):
    broker = brokers("b0", broker_id="0", broker_rack="rack-a").start().wait_running()

    registration = json.loads(zookeeper.client.get("/brokers/ids/0")[0])
    port = int(broker.props["listeners"].rsplit(":", 1)[1])
    assert registration["version"] == 4 and registration["host"] == "127.0.0.1" and registration["port"] == port
    assert registration["endpoints"] == [f"PLAINTEXT://127.0.0.1:{port}"]
    assert registration["jmx_port"] == -1 and int(registration["timestamp"]) > 0
    assert registration["rack"] == "rack-a"
    assert registration["listener_security_protocol_map"] == {"PLAINTEXT": "PLAINTEXT"}
    for path in ("/brokers/ids", "/brokers/topics", "/brokers/seqid", "/config/changes", "/config/topics",
                 "/admin/delete_topics", "/isr_change_notification", "/latest_producer_id_block", "/cluster/id"):
        assert zookeeper.exists(path), path

    spans = broker.spans()
    startup = spans.where(step="LC.main.4").first()
    assert spans.where(trace_id=startup.trace_id).steps() == ["LC.main.4", *STARTUP_ORDER]
    for s in spans.where(step="LC.startup"):
        assert s.attributes["kafka.origin.version"] == "1.0.2"
        assert s.attributes["code.file.path"].startswith("kafka_edu/")
    # A brand-new log dir has no clean-shutdown marker, so 1.0.2 passes through recovery even on a first start.
    assert [s.attributes["kafka.broker.state.to"] for s in spans.where(name="BrokerState.newState")] == [
        "Starting", "RecoveringFromUncleanShutdown", "RunningAsBroker"]
    cluster_id = json.loads(zookeeper.client.get("/cluster/id")[0])["id"]
    assert spans.where(step="LC.startup.05").first().attributes["kafka.cluster.id"] == cluster_id


def test_clean_shutdown_writes_the_marker_and_removes_the_registration_at_once(brokers, zookeeper, tmp_path):
    log_dirs = [tmp_path / "d1", tmp_path / "d2"]
    broker = brokers("b0", log_dirs=log_dirs, broker_id="3").start().wait_running()
    assert zookeeper.exists("/brokers/ids/3")

    assert broker.terminate() == 0
    # The session closed with the process: no waiting for a session timeout.
    assert not zookeeper.exists("/brokers/ids/3")
    for d in log_dirs:
        assert (d / ".kafka_cleanshutdown").exists()
        assert meta_broker_id(d) == 3
    spans = broker.spans()
    shutdown = spans.where(name="KafkaServer.shutdown").first()
    steps = spans.where(trace_id=shutdown.trace_id).steps()
    # KafkaController.shutdown resigns whether or not this broker was the controller, as 1.0.2 does.
    # controlled.shutdown.enable is true by default: LC.shutdown.02 asks the controller (itself) first.
    assert steps == ["LC.shutdown.01", "LC.shutdown.02", "LC.shutdown.03", "LC.shutdown.04", "LC.shutdown.05",
                     "LC.shutdown.06", "LC.shutdown.07", "LC.shutdown.08", "LC.shutdown.10", "LC.shutdown.11",
                     "LC.shutdown.12", "LC.shutdown.13", "LC.shutdown.14", "LC.shutdown.15", "CT.resign",
                     "LC.shutdown.16", "LC.shutdown.18", "LC.shutdown.19", "LC.shutdown.20", "LC.shutdown.21"]
    assert spans.where(step="LC.main.5").first().end_ns >= spans.where(step="LC.shutdown.21").first().end_ns
    exit_record = json.loads((broker.run_dir / "broker-3.exit.json").read_text())
    assert exit_record == {**exit_record, "exit_code": 0, "dropped_spans": 0}


def test_broker_id_generated_from_zookeeper_is_kept_across_restarts(brokers, zookeeper, tmp_path):
    log_dir = tmp_path / "gen"
    first = brokers("gen", log_dirs=[log_dir]).start().wait_running()
    # /brokers/seqid's version counts generated ids; reserved.broker.max.id (1000) is added to it.
    assert meta_broker_id(log_dir) == 1001
    assert zookeeper.exists("/brokers/ids/1001")
    step6 = first.spans().where(step="LC.startup.06").first()
    assert step6.attributes["kafka.broker.id"] == 1001 and step6.attributes["kafka.broker.id.source"] == "zookeeper"
    assert first.terminate() == 0

    second = brokers("gen-again", log_dirs=[log_dir]).start().wait_running()
    step6 = second.spans().where(step="LC.startup.06").first()
    assert step6.attributes["kafka.broker.id"] == 1001
    assert step6.attributes["kafka.broker.id.source"] == "meta.properties"
    # After a clean shutdown the marker is there: no recovery this time.
    assert [s.attributes["kafka.broker.state.to"] for s in second.spans().where(name="BrokerState.newState")] == [
        "Starting", "RunningAsBroker"]
    assert zookeeper.exists("/brokers/ids/1001") and not zookeeper.exists("/brokers/ids/1002")


def test_configured_broker_id_is_checkpointed_into_every_log_dir(brokers, tmp_path):
    log_dirs = [tmp_path / "a", tmp_path / "b"]
    broker = brokers("cfg", log_dirs=log_dirs, broker_id="7").start().wait_running()
    assert [meta_broker_id(d) for d in log_dirs] == [7, 7]
    assert broker.spans().where(step="LC.startup.21").first().attributes["kafka.log.dirs.checkpointed"] == [
        str(d) for d in log_dirs]


def test_broker_id_mismatching_meta_properties_is_refused(brokers, zookeeper, tmp_path):
    log_dir = tmp_path / "owned"
    log_dir.mkdir()
    (log_dir / "meta.properties").write_text("version=0\nbroker.id=5\n")
    broker = brokers("mismatch", log_dirs=[log_dir], broker_id="6").start()

    assert broker.wait_exit() == 1
    err = broker.stderr()
    assert "InconsistentBrokerIdException: Configured broker.id 6 doesn't match stored broker.id 5" in err
    assert len(err.strip().splitlines()) == 1
    assert zookeeper.client.get_children("/brokers/ids") == []
    assert meta_broker_id(log_dir) == 5  # nothing on disk was touched
    startup = broker.spans().where(step="LC.main.4").first()
    assert startup.is_error and any(e.name == "startup.fatal" for e in startup.events)


def test_log_dirs_disagreeing_on_the_broker_id_are_refused(brokers, zookeeper, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d, broker_id in ((a, 1), (b, 2)):
        d.mkdir()
        (d / "meta.properties").write_text(f"version=0\nbroker.id={broker_id}\n")
    broker = brokers("split", log_dirs=[a, b]).start()
    assert broker.wait_exit() == 1
    assert "InconsistentBrokerIdException: Failed to match broker.id across log.dirs" in broker.stderr()
    assert zookeeper.client.get_children("/brokers/ids") == []


def test_two_brokers_cannot_share_a_log_dir(brokers, zookeeper, tmp_path):
    shared = tmp_path / "shared"
    first = brokers("first", log_dirs=[shared], broker_id="1").start().wait_running()
    # No broker.id: the second broker adopts id 1 from meta.properties, then fails to lock the directory.
    second = brokers("second", log_dirs=[shared]).start()

    assert second.wait_exit() == 1
    assert "KafkaException: Failed to acquire lock on file .lock in" in second.stderr()
    assert zookeeper.client.get_children("/brokers/ids") == ["1"]
    # The first broker is untouched and still registered.
    first_port = int(first.props["listeners"].rsplit(":", 1)[1])
    assert json.loads(zookeeper.client.get("/brokers/ids/1")[0])["port"] == first_port
    assert first.process.poll() is None


def test_kill_9_then_restart_recovers_the_log(brokers, zookeeper, tmp_path):
    log_dir = tmp_path / "logs"
    partition_dir = log_dir / "recovery-demo-0"
    config = LogConfig.from_props({"segment.bytes": "4096"})
    log = Log(partition_dir, config)
    for i in range(30):
        log.append(build_batch([f"record-{i}-{'x' * 100}".encode()]))
    log.flush()
    log.close()
    (log_dir / ".kafka_cleanshutdown").touch()
    segments = sorted(partition_dir.glob("*.log"))
    assert len(segments) >= 2

    broker = brokers("crash", log_dirs=[log_dir], broker_id="4").start().wait_running()
    broker.kill()
    assert not (log_dir / ".kafka_cleanshutdown").exists()  # taken at startup, never rewritten
    # What a crash mid-write leaves: a torn batch at the tail and an index that no longer matches.
    with open(segments[-1], "ab") as f:
        f.write(build_batch([b"torn"])[:-7])
    (segments[-1].with_suffix(".index")).unlink()

    wait_until(lambda: not zookeeper.exists("/brokers/ids/4"), 20, "the killed broker's session to expire")
    restarted = brokers("crash-restart", log_dirs=[log_dir], broker_id="4").start().wait_running()
    assert [s.attributes["kafka.broker.state.to"] for s in restarted.spans().where(name="BrokerState.newState")] == [
        "Starting", "RecoveringFromUncleanShutdown", "RunningAsBroker"]
    assert restarted.terminate() == 0

    recovered = Log(partition_dir, config)
    assert recovered.log_end_offset == 30
    assert segments[-1].with_suffix(".index").exists()
    recovered.close()


def test_session_expiry_re_registers_the_broker(brokers, zookeeper):
    broker = brokers("paused", broker_id="9", zookeeper_session_timeout_ms="2000").start().wait_running()
    _, stat = zookeeper.client.get("/brokers/ids/9")
    first_session = stat.ephemeralOwner

    os.kill(broker.pid, signal.SIGSTOP)  # no heartbeats: ZooKeeper expires the session
    try:
        wait_until(lambda: not zookeeper.exists("/brokers/ids/9"), 30, "the session to expire")
    finally:
        os.kill(broker.pid, signal.SIGCONT)

    def registered_again() -> bool:
        stat = zookeeper.client.exists("/brokers/ids/9")
        return stat is not None and stat.ephemeralOwner != first_session
    wait_until(registered_again, 30, "the broker to register with a new session")
    wait_until(lambda: broker.spans().where(name="KafkaHealthcheck.SessionExpireListener.handleNewSession"), 10,
               "the re-registration span")
    assert broker.terminate() == 0
