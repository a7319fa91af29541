"""The run manifest under concurrent writers: the runner, the TUI's control thread and `kafka-edu cluster` commands
change it at once (a kill -9 from the TUI while `cluster up` records broker states)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from kafka_edu.cluster_runner.run_directory import RunDirectory

WRITES = 200


def new_run(tmp_path: Path) -> RunDirectory:
    run = RunDirectory(tmp_path, "run")
    run.write_manifest({"run_id": "run", "processes": [], "counts": {}})
    return run


def test_writers_in_two_threads_never_publish_a_broken_manifest(tmp_path: Path) -> None:
    run = new_run(tmp_path)
    broken: list[str] = []
    failed: list[Exception] = []
    done = threading.Event()

    def write(size: int) -> None:
        for i in range(WRITES):
            try:
                run.write_manifest({"run_id": "run", "writer": size, "i": i, "padding": "x" * size})
            except OSError as e:  # a temporary file renamed by the other writer
                failed.append(e)

    def read() -> None:
        while not done.is_set():
            text = run.manifest_path.read_text()
            try:
                json.loads(text)
            except ValueError:
                broken.append(text)

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(size,)) for size in (10, 3000)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    done.set()
    reader.join()
    assert failed == []
    assert broken == []
    assert json.loads(run.manifest_path.read_text())["i"] == WRITES - 1
    assert list(tmp_path.glob("*.tmp")) == []


def test_changes_from_two_threads_are_all_kept(tmp_path: Path) -> None:
    run = new_run(tmp_path)

    def count(name: str) -> None:
        for _ in range(WRITES):
            with run.changing_manifest() as manifest:
                manifest["counts"][name] = manifest["counts"].get(name, 0) + 1

    threads = [threading.Thread(target=count, args=(name,)) for name in ("kill", "state")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert run.read_manifest()["counts"] == {"kill": WRITES, "state": WRITES}


def test_changes_from_two_processes_are_all_kept(tmp_path: Path) -> None:
    run = new_run(tmp_path)
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from kafka_edu.cluster_runner.run_directory import RunDirectory\n"
        "run = RunDirectory(Path(sys.argv[1]), 'run')\n"
        f"for _ in range({WRITES}):\n"
        "    with run.changing_manifest() as manifest:\n"
        "        manifest['counts'][sys.argv[2]] = manifest['counts'].get(sys.argv[2], 0) + 1\n")
    processes = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path), name]) for name in ("cli", "tui")]
    assert [p.wait(timeout=120) for p in processes] == [0, 0]
    assert run.read_manifest()["counts"] == {"cli": WRITES, "tui": WRITES}


def test_a_change_that_fails_is_not_written(tmp_path: Path) -> None:
    run = new_run(tmp_path)
    try:
        with run.changing_manifest() as manifest:
            manifest["counts"]["half"] = 1
            raise RuntimeError("refused half way")
    except RuntimeError:
        pass
    assert run.read_manifest()["counts"] == {}
