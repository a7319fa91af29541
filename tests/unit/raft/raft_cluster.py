"""Test-only harness: KafkaRaftManagers in one process, each behind a tiny CONTROLLER server on 127.0.0.1.

The server stands in for SocketServer + ControllerApis: it reads a request frame, decodes it with the port's codec,
hands it to `KafkaRaftManager.handle_request` and writes the response back when the future completes, one request
at a time per connection (as Kafka mutes a connection until its response is sent).
"""

from __future__ import annotations

import io
import socket
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.processes import free_port
from kafka_edu.v3_9.clients.common.protocol.codec import encode_response
from kafka_edu.v3_9.core.raft.raft_manager import KafkaRaftManager
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient

_SIZE = struct.Struct(">i")
CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qk"


class StringSerde:
    """RecordSerde for str records: UTF-8 values."""

    def record_size(self, data: str, serialization_cache: Any) -> int:
        return len(data.encode())

    def write(self, data: str, serialization_cache: Any, out: Any) -> None:
        out.write(data.encode())

    def read(self, input: bytes | memoryview, size: int) -> str:
        return bytes(input[:size]).decode()


class Config:
    """The parts of a KafkaConfig the raft manager reads."""

    def __init__(self, node_id: int, voters: str, log_dir: Path, process_roles: list[str] | None = None,
                 **overrides: Any) -> None:
        self.node_id = node_id
        self.metadata_log_dir = str(log_dir)
        self.log_dirs = [str(log_dir)]
        self.process_roles = process_roles or ["controller"]
        self.controller_listener_names = ["CONTROLLER"]
        self.values: dict[str, Any] = {
            "controller.quorum.voters": voters.split(","), "controller.quorum.bootstrap.servers": [],
            "controller.quorum.election.timeout.ms": 300, "controller.quorum.fetch.timeout.ms": 600,
            "controller.quorum.election.backoff.max.ms": 300, "controller.quorum.append.linger.ms": 10,
            "controller.quorum.request.timeout.ms": 1000, "controller.quorum.retry.backoff.ms": 20}
        self.values.update(overrides)

    def get(self, key: str) -> Any:
        return self.values.get(key)

    get_int = get_list = get_string = get


class RecordingListener(RaftClient.Listener):
    """Keeps what it is told; on each leader change it reads `quorum-state` (to show it was written first)."""

    def __init__(self, quorum_state_file: Path) -> None:
        self.quorum_state_file = quorum_state_file
        self.committed: list[tuple[int, str]] = []  # (offset, record)
        self.control_batches: list[tuple[int, int]] = []  # (base offset, epoch)
        self.leader_changes: list[tuple[LeaderAndEpoch, str]] = []
        self.snapshots_loaded: list[Any] = []  # snapshot ids
        self.lock = threading.Lock()

    def handle_commit(self, reader: Any) -> None:
        try:
            for batch in reader:
                with self.lock:
                    if batch.control_records:
                        self.control_batches.append((batch.base_offset, batch.epoch))
                    for i, record in enumerate(batch.records):
                        self.committed.append((batch.base_offset + i, record))
        finally:
            reader.close()

    def handle_load_snapshot(self, reader: Any) -> None:
        """Everything read before is replaced by the snapshot's records."""
        try:
            records = [record for batch in reader for record in batch.records]
            with self.lock:
                self.snapshots_loaded.append(reader.snapshot_id())
                self.committed = [(-1, record) for record in records]
        finally:
            reader.close()

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        content = self.quorum_state_file.read_text() if self.quorum_state_file.exists() else ""
        with self.lock:
            self.leader_changes.append((leader, content))

    def records(self) -> list[str]:
        with self.lock:
            return [record for _, record in self.committed]


class RaftTestServer:
    """A listening socket serving one node's raft RPCs through `handle_request`."""

    def __init__(self, port: int, handler: Callable[[], KafkaRaftManager | None]) -> None:
        self.handler = handler
        self.sock = socket.create_server(("127.0.0.1", port), reuse_port=False)
        self.sock.settimeout(0.2)
        self.running = True
        self.connections: list[socket.socket] = []
        self.received: list[Any] = []  # (api key, traceparent) of each request
        self.thread = threading.Thread(target=self._accept, name=f"raft-test-server-{port}", daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            while self.running:
                size = _SIZE.unpack(_read(conn, 4))[0]
                decoded = decode_raft_request(_read(conn, size))
                self.received.append((int(decoded.api_key), decoded.traceparent))
                manager = self.handler()
                if manager is None:
                    return
                future = manager.handle_request(decoded, decoded.body, int(time.time() * 1000))
                body = future.result(timeout=10)
                payload = encode_response(decoded.api_key, decoded.api_version, decoded.correlation_id, body)
                conn.sendall(_SIZE.pack(len(payload)) + payload)
        except (OSError, ConnectionError, TimeoutError):
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.running = False
        self.sock.close()
        for conn in self.connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        self.thread.join(5)


def decode_raft_request(frame: bytes) -> Any:
    """decode_request, at any version kio has: the CONTROLLER listener serves Fetch v17 even when the ZooKeeper
    broker's KafkaApis (imported by tracing's instrumentation) has narrowed what ApiKeys advertises to (4, 12)."""
    from kafka_edu.v3_9.clients.common.protocol import codec
    try:
        return codec.decode_request(frame)
    except codec.UnsupportedVersionError as e:
        buf = memoryview(bytes(frame))
        api = e.api_key
        header_version = api.request_header_version(e.api_version)
        correlation_id, client_id, tagged, pos = codec._read_request_header(buf, header_version)
        body, _ = codec._entity_reader(api.request_schema(e.api_version))(buf, pos)
        return codec.DecodedRequest(api, e.api_version, correlation_id, client_id, body, tagged,
                                    codec._traceparent(tagged.get(codec.TRACEPARENT_TAG)), header_version, len(buf))


def _read(conn: socket.socket, n: int) -> bytes:
    data = io.BytesIO()
    while data.tell() < n:
        chunk = conn.recv(n - data.tell())
        if not chunk:
            raise ConnectionError("closed")
        data.write(chunk)
    return data.getvalue()


class RaftNode:
    def __init__(self, node_id: int, voters: str, port: int, log_dir: Path, **overrides: Any) -> None:
        self.node_id = node_id
        self.voters = voters
        self.port = port
        self.log_dir = log_dir
        self.overrides = overrides
        self.manager: KafkaRaftManager | None = None
        self.server: RaftTestServer | None = None
        self.listener: RecordingListener | None = None

    @property
    def quorum_state_file(self) -> Path:
        return self.log_dir / "__cluster_metadata-0" / "quorum-state"

    def start(self) -> RaftNode:
        self.manager = KafkaRaftManager(CLUSTER_ID, Config(self.node_id, self.voters, self.log_dir, **self.overrides),
                                        StringSerde(), thread_name_prefix=f"raft-{self.node_id}")
        self.listener = RecordingListener(self.quorum_state_file)
        self.manager.register(self.listener)
        self.server = RaftTestServer(self.port, lambda: self.manager)
        try:
            self.manager.startup()
        except BaseException:
            self.server.close()
            raise
        return self

    @property
    def client(self) -> Any:
        return self.manager.client

    def role(self) -> str:
        return self.client.quorum.state.name()

    def is_leader(self) -> bool:
        return self.manager is not None and self.client.quorum.is_leader()

    def stop(self) -> None:
        """A clean stop: the raft manager shuts down (a leader resigns first, and the server still answers while it
        hands over), then the server goes."""
        if self.manager is None:
            return
        self.manager.shutdown()
        self.server.close()
        self.manager = None

    def kill(self) -> None:
        """Stop as a crash would: cut off, then the raft thread ends at once, with no graceful resignation."""
        if self.manager is None:
            return
        from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
        from kafka_edu.v3_9.raft.raft.kafka_raft_client import _GracefulShutdown
        self.isolate()
        self.manager.client_driver.initiate_shutdown()
        finished: CompletableFuture = CompletableFuture()
        finished.complete(None)
        self.client._shutdown = _GracefulShutdown(self.client.time_ms(), 0, finished)  # is_running is now False
        self.client._wakeup()
        self.manager.shutdown()
        self.manager = None

    def isolate(self) -> None:
        """Cut the node off both ways, as a crash looks from outside: no requests in, none out."""
        self.server.close()
        self.manager.net_channel.close()

    def append(self, records: list[str]) -> int:
        client = self.client
        epoch = client.leader_and_epoch().epoch
        offset = client.prepare_append(epoch, records)
        client.schedule_prepared_append()
        return offset


class RaftCluster:
    def __init__(self, tmp_path: Path, size: int = 3, **overrides: Any) -> None:
        ports = [free_port() for _ in range(size)]
        voters = ",".join(f"{i}@127.0.0.1:{port}" for i, port in enumerate(ports))
        self.nodes = [RaftNode(i, voters, port, tmp_path / f"node-{i}", **overrides) for i, port in enumerate(ports)]

    def start(self) -> RaftCluster:
        for node in self.nodes:
            node.start()
        return self

    def live(self) -> list[RaftNode]:
        return [n for n in self.nodes if n.manager is not None]

    def leaders(self) -> list[RaftNode]:
        return [n for n in self.live() if n.is_leader()]

    def stable_leader(self) -> RaftNode | None:
        """The one leader, once every live node follows it in its epoch and its high watermark is known."""
        leaders = self.leaders()
        if len(leaders) != 1:
            return None
        leader = leaders[0]
        epoch = leader.client.quorum.epoch()
        for node in self.live():
            if node.client.leader_and_epoch() != LeaderAndEpoch(leader.node_id, epoch):
                return None
        return leader if leader.client.high_watermark() is not None else None

    def stop(self) -> None:
        for node in self.nodes:
            try:
                node.kill()
            except Exception:
                pass


def send_raw(port: int, api: Any, version: int, body: Any, correlation_id: int = 7,
             traceparent: str | None = None) -> Any:
    """One request from outside the quorum, answered on a fresh connection."""
    from kafka_edu.v3_9.clients.common.protocol.codec import decode_response, encode_request
    payload = encode_request(api, version, correlation_id, "test-client", body, traceparent=traceparent)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(_SIZE.pack(len(payload)) + payload)
        size = _SIZE.unpack(_read(conn, 4))[0]
        return decode_response(api, version, _read(conn, size)).body


def leaders_by_epoch(nodes: list[RaftNode]) -> dict[int, set[int]]:
    """Every (epoch, leader) any node's listener was told."""
    seen: dict[int, set[int]] = {}
    for node in nodes:
        if node.listener is None:
            continue
        with node.listener.lock:
            for leader, _ in node.listener.leader_changes:
                if leader.leader_id is not None:
                    seen.setdefault(leader.epoch, set()).add(leader.leader_id)
    return seen
