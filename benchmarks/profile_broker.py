"""Where does one kafka-edu broker spend its time under a 1 KiB workload? Starts a one-broker cluster (ZooKeeper
mode or KRaft), runs one produce or consume phase of benchmarks/throughput.py against it, and, when py-spy is
installed, samples the broker process meanwhile and prints the functions holding the interpreter lock the most.

    python benchmarks/profile_broker.py kraft produce              # 400,000 x 1 KiB, acks=1
    python benchmarks/profile_broker.py zk consume --records 600000
    python benchmarks/profile_broker.py kraft produce --tracing off

py-spy is not a dependency of the project (`pip install py-spy`); without it the script prints the phase's rate only.
The raw samples stay in the file named at the end (py-spy's `raw` format: one stack and its count per line); the
cluster's run directory is deleted when the script ends.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parent))
import throughput  # noqa: E402  (the benchmark's own produce and consume phases)

from kafka_edu.cluster_runner.runner import ClusterRunner  # noqa: E402

TOPIC = "profiled"
SIZE = 1024


def hottest(raw: Path, top: int) -> list[tuple[float, str]]:
    """The functions that were innermost in the most samples, as (share of samples, function)."""
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue  # the rest of a frame name that spans lines (py-spy prints some docstrings as names)
        total += int(n)
        counts[stack.split(";")[-1]] += int(n)
    return [(n / total, name) for name, n in counts.most_common(top)] if total else []


def process_cpu_s(pid: int) -> float:
    """User and system CPU seconds a process has used so far, from /proc (fields 14 and 15 of its stat line)."""
    return _cpu_of(Path(f"/proc/{pid}/stat").read_text())


def thread_cpu_s(pid: int) -> dict[int, tuple[float, float]]:
    """User and system CPU seconds used so far by each thread of a process, by its kernel thread id
    (/proc/PID/task). System time is the kernel's work for the thread: its socket sends and file reads, made
    without the interpreter lock."""
    cpu = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            cpu[int(task.name)] = _user_and_system_of((task / "stat").read_text())
        except (OSError, ValueError):
            pass  # a thread that ended meanwhile
    return cpu


def thread_switches(pid: int) -> dict[int, int]:
    """Context switches so far of each thread of a process, voluntary (it blocked: a lock, the GIL, a select) and
    not (the kernel took the CPU away), by kernel thread id."""
    switches = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
        except OSError:
            continue  # a thread that ended meanwhile
        switches[int(task.name)] = sum(int(n) for n in re.findall(r"^(?:non)?voluntary_ctxt_switches:\s+(\d+)$",
                                                                   status, re.M))
    return switches


def _cpu_of(stat_line: str) -> float:
    return sum(_user_and_system_of(stat_line))


def _user_and_system_of(stat_line: str) -> tuple[float, float]:
    fields = stat_line.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def thread_names(spy: str, pid: int) -> dict[int, str]:
    """Each Python thread's name by its kernel thread id, from `py-spy dump` (the kernel knows them all as python)."""
    dump = subprocess.run([spy, "dump", "-p", str(pid)], capture_output=True, text=True, timeout=60).stdout
    return {int(m.group(1)): m.group(2) for m in re.finditer(r'^Thread (\d+) \(\w+\): "(.*)"$', dump, re.M)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["zk", "kraft"], help="the broker: ZooKeeper mode (1.0.2) or KRaft (3.9)")
    parser.add_argument("direction", choices=["produce", "consume"])
    parser.add_argument("--records", type=int, default=400_000, help="records of the phase (default 400,000)")
    parser.add_argument("--tracing", choices=["on", "off"], default="on", help="request-path tracing (default on)")
    parser.add_argument("--top", type=int, default=30, help="functions to list (default 30)")
    parser.add_argument("--threads", action="store_true",
                        help="instead of sampling, list the CPU each of the broker's threads used in the phase "
                             "(from /proc, named by py-spy dump), in microseconds a record, with the part spent "
                             "in the kernel and the thread's context switches")
    args = parser.parse_args(argv)

    if args.tracing == "off":
        os.environ[throughput.TRACING_ENV] = "off"
    beside = Path(sys.executable).parent / "py-spy"  # installed in this virtualenv, not on PATH
    spy = shutil.which("py-spy") or (str(beside) if beside.exists() else None)
    root = Path(tempfile.mkdtemp(prefix="kafka-edu-profile-"))
    extra = {"mode": "kraft", "controllers": 1} if args.mode == "kraft" else {}
    runner = ClusterRunner.up(1, root / "traces", overrides=throughput.KAFKA_EDU_OVERRIDES, timeout_s=120, **extra)
    try:
        manifest = runner.run.read_manifest()
        bootstrap = manifest["bootstrap_servers"]
        pid = next(p["pid"] for p in manifest["processes"] if p["role"] == "broker")
        admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until its future is done
        admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(30)
        # the topic to read, and a warm broker (imports, first requests of each kind) before sampling starts
        throughput.produce(bootstrap, TOPIC, 20_000 if args.direction == "produce" else args.records, SIZE, "1", 300)
        throughput.warm_up_group_coordinator(bootstrap)
        raw = root / f"{args.mode}-{args.direction}-{args.tracing}.txt"
        sampler = subprocess.Popen([spy, "record", "-p", str(pid), "-o", str(raw), "-f", "raw", "-r", "1000",
                                    "--nonblocking", "--gil"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL) if spy and not args.threads else None
        broker_cpu_before, client_cpu_before = process_cpu_s(pid), sum(os.times()[:4])
        threads_before, switches_before = thread_cpu_s(pid), thread_switches(pid)
        if args.direction == "produce":
            seconds, missing, error = throughput.produce(bootstrap, TOPIC, args.records, SIZE, "1", 300)
            records = args.records
        else:
            seconds, missing, error = throughput.consume(bootstrap, TOPIC, args.records, 1, 300)
            records = args.records
        print(f"{args.mode} {args.direction}, tracing {args.tracing}: {records:,} x {SIZE} B in {seconds:.2f} s, "
              f"{records / seconds:,.0f} records/s" + (f" ({missing} missing: {error})" if missing else ""))
        threads_after, switches_after = thread_cpu_s(pid), thread_switches(pid)
        broker_cpu, client_cpu = process_cpu_s(pid) - broker_cpu_before, sum(os.times()[:4]) - client_cpu_before
        print(f"CPU in the phase: broker {broker_cpu:.2f} s ({broker_cpu / seconds:.0%} of a core, "
              f"{broker_cpu * 1e6 / records:.1f} us a record), this client {client_cpu:.2f} s "
              f"({client_cpu / seconds:.0%} of a core)")
        if args.threads:
            names = thread_names(spy, pid) if spy else {}
            used = sorted(((user + system - sum(threads_before.get(tid, (0.0, 0.0))),
                            system - threads_before.get(tid, (0.0, 0.0))[1], tid)
                           for tid, (user, system) in threads_after.items()), reverse=True)
            for cpu, system, tid in used[:args.top]:
                if cpu > 0:
                    switched = switches_after.get(tid, 0) - switches_before.get(tid, 0)
                    print(f"{cpu * 1e6 / records:7.2f} us a record ({system * 1e6 / records:4.2f} of it in the kernel)"
                          f"  {cpu:6.2f} s  {switched:8,} switches  {names.get(tid, f'thread {tid}')}")
            return 0
        if sampler is None:
            print("py-spy is not installed: no profile (pip install py-spy)")
            return 0
        sampler.send_signal(2)
        sampler.wait(60)
        for share, name in hottest(raw, args.top):
            print(f"{share:6.1%}  {name}")
        print(f"raw samples: {raw}")
        return 0
    finally:
        runner.down()
        # the cluster's logs and span files are a gigabyte or more a run; only the samples stay
        shutil.rmtree(root / "traces", ignore_errors=True)
        if not any(root.iterdir()):
            root.rmdir()


if __name__ == "__main__":
    sys.exit(main())
