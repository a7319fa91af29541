"""`kafka-edu tui` without `--run`: start a cluster in the background and tell the TUI where its run directory is
as soon as it exists, so the brokers' startup is watched live rather than waited for."""

from __future__ import annotations

import threading
from pathlib import Path

from kafka_edu.cluster_runner.runner import ClusterRunner


class ClusterLaunch:
    """`ClusterRunner.up` on a thread; the run directory is the one that appears under `traces_dir` after start."""

    def __init__(self, traces_dir: Path, brokers: int = 3, zookeeper: str | None = None,
                 overrides: list[str] | None = None, *, mode: str = "zk", controllers: int = 3) -> None:
        self.traces_dir = traces_dir.absolute()
        self.mode = mode  # "kraft": a quorum of `controllers` KRaft controllers, then `brokers` KRaft brokers
        self.controllers = controllers
        self.brokers = brokers
        self.zookeeper = zookeeper
        self.overrides = overrides or []
        self.runner: ClusterRunner | None = None
        self.error: BaseException | None = None
        self._before: set[str] = set()
        self._thread = threading.Thread(target=self._up, name="cluster-launch", daemon=True)

    def start(self) -> None:
        self.traces_dir.mkdir(parents=True, exist_ok=True)
        self._before = {p.name for p in self.traces_dir.iterdir()}
        self._thread.start()

    def _up(self) -> None:
        try:
            self.runner = ClusterRunner.up(self.brokers, self.traces_dir, self.zookeeper, self.overrides,
                                           mode=self.mode, controllers=self.controllers)
        except BaseException as e:  # shown in the TUI's status line; `up` has already stopped what it started
            self.error = e

    @property
    def run_dir(self) -> Path | None:
        """The new run's directory once its manifest is written (before the brokers are up)."""
        if self.runner is not None:
            return self.runner.run.path
        fresh = [p for p in self.traces_dir.iterdir() if p.name not in self._before and (p / "manifest.json").exists()]
        return fresh[0] if fresh else None

    def wait(self) -> None:
        """Until `ClusterRunner.up` has returned (every broker RunningAsBroker, the quorum led) or failed."""
        self._thread.join()

    def stop(self) -> None:
        """Wait for a startup still in progress, then bring the whole cluster down."""
        self._thread.join()
        if self.runner is not None:
            self.runner.down()
