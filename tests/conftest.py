"""Fixtures for integration tests: a real ZooKeeper and real broker processes on loopback, always cleaned up."""

from __future__ import annotations

import os

# The brokers the tests start, and the ported code they run in-process, fail loudly when a describer no longer
# matches the code it reads (kafka_edu/tracing/attributes.py): set before kafka_edu is imported.
os.environ.setdefault("KAFKA_EDU_TRACING_STRICT", "1")

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest  # noqa: E402

from kafka_edu.cluster_runner.processes import free_port  # noqa: E402
from kafka_edu.zookeeper.zookeeper_server import ZooKeeperServer  # noqa: E402
from tests.integration.helpers import Broker, ZooKeeper  # noqa: E402


@pytest.fixture
def zookeeper(tmp_path: Path) -> Iterator[ZooKeeper]:
    server = ZooKeeperServer(tmp_path / "zookeeper", free_port())
    server.start()
    try:
        server.wait_ready()
        zk = ZooKeeper(server)
        yield zk
        zk.client.stop()
        zk.client.close()
    finally:
        server.stop()


@pytest.fixture
def brokers(tmp_path: Path, zookeeper: ZooKeeper) -> Iterator[Callable[..., Broker]]:
    """Factory: `brokers(name, **props)` builds a broker whose properties default to a small loopback config."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    made: list[Broker] = []

    def make(name: str = "broker", log_dirs: list[Path] | None = None, **props: str) -> Broker:
        base = {
            "listeners": f"PLAINTEXT://127.0.0.1:{free_port()}",
            "log.dirs": ",".join(str(d) for d in (log_dirs or [tmp_path / f"{name}-logs"])),
            "zookeeper.connect": zookeeper.connect,
            "zookeeper.session.timeout.ms": "6000",
            "num.network.threads": "1",
            "background.threads": "2",
            "offsets.topic.replication.factor": "1",  # as config/server.properties ships it: one broker suffices
            "offsets.topic.num.partitions": "6",
            # Kafka's 5 s backoff makes the last broker of a replicated cluster wait 3 × 5 s at teardown: its
            # partitions have nowhere to go, so every ControlledShutdown attempt answers them as remaining.
            "controlled.shutdown.retry.backoff.ms": "200",
        }
        base.update({k.replace("_", "."): v for k, v in props.items()})
        broker = Broker(run_dir, name, {k: v for k, v in base.items() if v is not None})
        made.append(broker)
        return broker

    yield make
    for broker in made:
        broker.cleanup()


# Two lanes for `./run tests` with no arguments (`-n 2 --dist loadscope`): the tests that start no Kafka cluster
# (Kafka's ported tests, the unit tests, the docs build, the site in a browser, the Spark jobs, the TUI on recorded or
# fabricated runs, the lessons' checks on samples) on one worker, beside every test that starts brokers, controllers
# or ZooKeeper, which keep to the other worker in their usual order, so no two clusters ever share the machine. The
# docs build follows Kafka's tests on their worker: it draws the referee's page from their figures
# (tests/kafka_tests/conftest.py).
NO_CLUSTER = ("tests/kafka_tests/", "tests/unit/", "tests/test_docs.py", "tests/test_site", "tests/test_preferred_",
              "tests/test_reassign_", "tests/mining/", "tests/tui/test_app.py", "tests/tui/test_groups.py",
              "tests/tui/test_kraft_brokers.py", "tests/tui/test_links.py", "tests/tui/test_model.py",
              "tests/tui/test_network_keys.py", "tests/tui/test_quorum.py", "tests/tui/test_rq_detail.py",
              "tests/tui/test_snapshots.py", *(f"tests/lessons/{p.name}" for p in (Path(__file__).parent / "lessons")
                                                .glob("test_*_checks.py")))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class TwoLanes(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "no-cluster" if nodeid.startswith(NO_CLUSTER) else "clusters"

    return TwoLanes(config, log)


def _descendant_pids(root: int) -> list[int]:
    """Every live process below `root`, read from /proc (the test run's brokers, controllers, ZooKeepers, tmux...)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leftovers of the run are named, and the run still ends: a process a test failed to stop would hold CI's output
    pipe open, and a thread that is not a daemon would keep the interpreter from exiting."""
    import faulthandler
    import signal
    import sys
    import threading

    leftovers = _descendant_pids(os.getpid())
    for pid in leftovers:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:160]
            print(f"\n[kafka-edu tests] process {pid} still running after the last test, killed: {cmdline}",
                  file=sys.stderr)
            os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass
    stuck = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    for thread in stuck:
        print(f"[kafka-edu tests] thread {thread.name!r} is still running after the last test", file=sys.stderr)
    if stuck or leftovers:
        # If those keep the interpreter from exiting, print every thread's stack and end it, keeping pytest's status.
        status = int(getattr(config, "_kafka_edu_exitstatus", 1))

        def end_after_grace() -> None:
            faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
            os._exit(status)

        watchdog = threading.Timer(60.0, end_after_grace)
        watchdog.daemon = True
        watchdog.start()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config._kafka_edu_exitstatus = exitstatus  # read by pytest_unconfigure's guard
