"""Our own code, not a Kafka port: `kafka-edu gallery list` and `kafka-edu gallery run NAME [--keep] [--record]`
(exit code 0: the moment was found; 1: the story did not happen; 2: refused; 3: the run failed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    ga = sub.add_parser("gallery", help="Kafka's famous failures, each replayed on a fresh cluster whose processes "
                                        "run in network namespaces (root): list | run NAME (docs/gallery.md)",
                        description="Each scenario starts a fresh cluster with `cluster up --netns` (needs root, ip "
                                    "and nft; a scenario that compares 1.0.2 with 3.9 starts one of each, one after "
                                    "the other), drives its story with network cuts (and broker restarts, elections "
                                    "or a workload where the story needs them), finds the moment "
                                    "in the run's traces and prints it with the run's numbers and trace ids. "
                                    "Exit code 0: the moment was found; 1: it was not; 2: refused; 3: the run "
                                    "failed.")
    verbs = ga.add_subparsers(dest="gallery_command", required=True)
    verbs.add_parser("list", help="the scenarios, one a line: name and title")
    run = verbs.add_parser("run", help="replay one scenario on a fresh cluster (or two)")
    run.add_argument("name", help="a scenario of `kafka-edu gallery list`")
    run.add_argument("--keep", action="store_true",
                     help="leave the cluster (each cluster) running afterwards (end it with `kafka-edu cluster down "
                          "--run DIR`)")
    run.add_argument("--traces", default="traces", help="where the run directory goes (default traces)")
    run.add_argument("--record", action="store_true",
                     help="also copy the run, gzipped, to traces/samples/gallery-NAME/ (the site's recorded sample); "
                          "a second cluster's run to gallery-NAME-kraft/")


def run(options: argparse.Namespace) -> int:
    from kafka_edu.cluster_runner.network import NetworkError
    from kafka_edu.cluster_runner.runner import ClusterError
    from kafka_edu.gallery.catalog import scenarios
    from kafka_edu.gallery.common import GalleryError, netns_missing, record_sample

    catalog = scenarios()
    if options.gallery_command == "list":
        for name, module in catalog.items():
            print(f"{name:<20} {module.TITLE}")
        return 0
    if options.name not in catalog:
        print(f"kafka-edu gallery: no scenario {options.name!r}: choose one of {', '.join(catalog)}")
        return 2
    missing = netns_missing()
    if missing:
        print(f"kafka-edu gallery: {missing}")
        return 2
    try:
        report = catalog[options.name].run(Path(options.traces), keep=options.keep)
    except (GalleryError, ClusterError, NetworkError) as e:
        print(f"kafka-edu gallery: {options.name}: {e}", file=sys.stderr)
        return 3
    print(report.text())
    if options.keep:
        for run_dir in (report.run_dir, *report.runs.values()):
            print(f"the cluster is still running: kafka-edu tui --run {run_dir}; "
                  f"kafka-edu cluster down --run {run_dir} ends it")
    if options.record:
        print(f"recorded: {record_sample(report.run_dir, options.name, report)}")
        for suffix, run_dir in report.runs.items():
            print(f"recorded: {record_sample(run_dir, f'{options.name}-{suffix}', report)}")
    return 0 if report.ok else 1
