"""Our own code, not a Kafka port: `kafka-edu nemesis`, its options and its exit code (0 valid, 1 anomalies,
2 refused, 3 no verdict)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kafka_edu.nemesis.schedule import parse_faults


def add_parser(sub: argparse._SubParsersAction) -> None:
    ne = sub.add_parser(
        "nemesis", help="a workload under a seeded fault schedule, then a verdict on its history: acknowledged "
                        "records lost, duplicated or reordered, reads of unacknowledged or aborted records, committed "
                        "offsets going back (docs/nemesis.md)",
        description="Runs producers and a consumer group against a cluster while killing, pausing or isolating "
                    "brokers, undoes every fault, reads every partition back and checks the client-side history. "
                    "Writes history.jsonl, verdict.json and timeline.png to <run dir>/nemesis-<time>/ and a "
                    "Nemesis.check span to the run's runner.jsonl. Exit code 0: valid; 1: anomalies; 2: refused; "
                    "3: no verdict (the cluster or the workload failed).")
    ne.add_argument("--mode", choices=["zk", "kraft"], default=None,
                    help="a new cluster's mode (default zk); with --run, must match the run's")
    ne.add_argument("--duration", type=float, default=60.0, metavar="SECONDS",
                    help="how long the workload runs (default 60); faults stop 5 s before its end")
    ne.add_argument("--rate", type=float, default=100.0, metavar="RECORDS_PER_S",
                    help="records a second, all producers together (default 100)")
    ne.add_argument("--acks", choices=["all", "1", "0"], default=None,
                    help="the producers' acks (default: the preset's: safe all, unsafe 1)")
    ne.add_argument("--idempotence", action=argparse.BooleanOptionalAction, default=None,
                    help="idempotent producers (default: the preset's: safe on, unsafe off; needs --acks all)")
    ne.add_argument("--transactions", action="store_true",
                    help="send in transactions of 5 records, about one in 4 aborted on purpose (needs idempotence)")
    ne.add_argument("--faults", default="kill,pause", metavar="KINDS",
                    help="comma-separated fault kinds among kill, pause, partition, or 'none' (default kill,pause); "
                         "partition needs a cluster with network namespaces (cluster up --netns)")
    ne.add_argument("--seed", type=int, default=1, help="the fault schedule's seed (default 1): same seed, "
                                                        "same schedule")
    ne.add_argument("--settings", choices=["safe", "unsafe"], default="safe",
                    help="safe: acks=all, idempotence, min.insync.replicas=2, clean elections; unsafe: acks=1, no "
                         "idempotence, min.insync.replicas=1, unclean.leader.election.enable=true (for the cluster "
                         "it starts and the topic it creates)")
    ne.add_argument("--partitions", type=int, default=3, help="the topic's partitions (default 3; 3 replicas each)")
    ne.add_argument("--interval", type=float, default=8.0, metavar="SECONDS",
                    help="about how long between faults (default 8)")
    ne.add_argument("--fault-duration", type=float, default=6.0, metavar="SECONDS",
                    help="about how long a fault lasts (default 6)")
    ne.add_argument("--run", help="use this running cluster's run directory (default: start a cluster of 3 brokers "
                                  "with the settings' overrides, and stop it at the end)")
    ne.add_argument("--traces", default="traces", help="where a new cluster's run directory goes (default traces)")


def run(options: argparse.Namespace) -> int:
    from kafka_edu.nemesis.nemesis import NemesisError, NemesisOptions, check_options, run_nemesis

    def refuse(message: str) -> int:
        print(f"kafka-edu nemesis: {message}", file=sys.stderr)
        return 2
    try:
        faults = [] if options.faults.strip() == "none" else parse_faults(options.faults)
    except ValueError as e:
        return refuse(str(e))
    if options.partitions < 1 or options.interval <= 0 or options.fault_duration <= 0:
        return refuse("--partitions, --interval and --fault-duration must be positive")
    if options.run and not Path(options.run, "manifest.json").exists():
        return refuse(f"--run {options.run}: no run directory there (no manifest.json)")
    nemesis_options = NemesisOptions(
        mode=options.mode, duration_s=options.duration, rate=options.rate, acks=options.acks,
        idempotence=options.idempotence, transactions=options.transactions, faults=faults, seed=options.seed,
        settings=options.settings, run_dir=Path(options.run) if options.run else None, traces_dir=Path(options.traces),
        partitions=options.partitions, interval_s=options.interval, fault_s=options.fault_duration)
    try:
        check_options(nemesis_options)
        result = run_nemesis(nemesis_options, out=lambda line: print(line, flush=True))
    except NemesisError as e:
        return refuse(str(e))
    except Exception as e:  # a cluster that would not start or recover: no verdict to give
        print(f"kafka-edu nemesis: no verdict: {type(e).__name__}: {e}", file=sys.stderr)
        return 3
    if not result.verdict.valid:
        return 1
    if result.workload_errors or result.verdict.acknowledged == 0:  # valid, but about too little to mean anything
        print("kafka-edu nemesis: no verdict: the workload did not run as asked (see the notes above)",
              file=sys.stderr)
        return 3
    return 0
