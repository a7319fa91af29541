"""MkDocs hook: the page "Kafka's own tests as referee", drawn from a run of those tests at build time.

The build runs `pytest tests/kafka_tests` (Kafka's own test classes ported to pytest; several minutes,
unless a test session that has just run them hands over its figures) with
KAFKA_EDU_KAFKA_TESTS_JSON set, and renders what it counted: per Kafka test class, its cases in Kafka, those that
cannot apply (with why), ported, passing, failing, and kept apart as a deliberate difference. The figures are the
run's, so they cannot drift from the code; a build on a checkout whose referee fails still builds, and says so.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[2]
PAGE = "kafka-tests.md"
TITLE = "Kafka's own tests as referee"
FIGURES_ENV = "KAFKA_EDU_KAFKA_TESTS_FIGURES"  # set by tests/kafka_tests/conftest.py once a session ran every case


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    nav = [item for item in config.nav or [] if not (isinstance(item, dict) and TITLE in item)]
    at = next((i + 1 for i, item in enumerate(nav) if isinstance(item, dict) and "architecture.md" in item.values()),
              len(nav))
    nav.insert(at, {TITLE: PAGE})
    config.nav = nav
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, PAGE, content=render(*_run())))
    return files


def _run() -> tuple[list[dict], str]:
    ready = os.environ.get(FIGURES_ENV)
    if ready and Path(ready).is_file():
        # a test session that ran every Kafka case already and is building the docs now (tests/test_docs.py)
        rows = json.loads(Path(ready).read_text())
        return rows, "the test session that built it had just run them all"
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "figures.json"
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/kafka_tests"],
                              cwd=REPO, capture_output=True, text=True, timeout=900,
                              env={**os.environ, "KAFKA_EDU_KAFKA_TESTS_JSON": str(target)})
        rows = json.loads(target.read_text()) if target.exists() else []
    summary = next((line for line in reversed(done.stdout.splitlines())
                    if re.search(r"\d+ (passed|failed|error)", line)), "no test ran")
    return rows, "pytest said: " + summary.strip("= ").strip()


FINDINGS = [
    ("3.9 `ClusterControlManager.registerBroker` had no amend path: a broker registering again with the same "
     "incarnation id got a new epoch and was fenced again", "fixed: the epoch and the fenced and controlled-shutdown "
     "flags are kept", "`ClusterControlManagerTest.testReRegistrationAndBrokerEpoch`"),
    ("a registration without a `metadata.version` range was not given 3.9's default one; no log-directory checks",
     "fixed", "`ClusterControlManagerTest.testRegistrationWithUnsupportedMetadataVersion`, "
     "`testRegisterWithDuplicateDirectoryId`, `testHasOnlineDir`, `testDefaultDir`"),
    ("KRaft CreateTopics answered a topic named twice twice (librdkafka rejects that answer), let `__cluster_metadata` "
     "be created and filtered nothing by authorization", "fixed: `INVALID_REQUEST` \"Duplicate topic name.\", the "
     "internal topic refused, describe and create filters", "`ControllerApisTest.testCreateTopics`"),
    ("KRaft CreateTopics took null config values and `cleanup.policy=nonsense`, and returned no effective configs",
     "fixed: `INVALID_CONFIG`, the configs validated as 3.9 does, effective configs returned",
     "`ReplicationControlManagerTest.testCreateTopicsWithConfigs`, `testInvalidCreateTopicsWithValidateOnlyFlag`"),
    ("a per-batch partition limit marked 3.9, where 3.9 bounds the records of one user operation",
     "fixed: `MAX_RECORDS_PER_USER_OP` in QuorumController (3.9's tests do not cover it)",
     "`QuorumControllerTest` covers the controller around it"),
    ("1.0.2's `Processor`: one failing connection left the rest of the round unprocessed and was never closed",
     "fixed: each receive, send, response and disconnection in its own try; `processChannelException` closes "
     "only that channel", "`SocketServerTest.processCompletedReceiveException`, `processCompletedSendException`, "
     "`processNewResponseException`, `sendCancelledKeyException`, `closingChannelException`, `pollException`, "
     "`processDisconnectedException`, `configureNewConnectionException`"),
    ("1.0.2's `Selector` dropped the requests a client had sent before closing its connection",
     "fixed: staged receives and closing channels, as 1.0.2 has them",
     "`SocketServerTest.testGracefulClose`, `testClientDisconnectionWithStagedReceivesFullyProcessed`, "
     "`testIdleConnection`, `testConnectionIdReuse`"),
    ("1.0.2's `ReplicaManager.becomeLeaderOrFollower` has no OfflinePartition branch",
     "written down: the port does not take a failed log directory's partitions offline (leader-epochs page)", "–"),
]


def render(rows: list[dict], summary: str) -> str:
    lines = [f"# {TITLE}", "",
             "Kafka ships unit tests that pin down what each class does. kafka-edu ports them, class by class, to "
             "pytest under `tests/kafka_tests/` (the path names the Kafka version and the test file) and lets them "
             "judge the port: a test keeps Kafka's name (in snake_case) and what it asserts. A case that cannot apply "
             "here is listed with the reason; a case where the port keeps a deliberate difference runs, is expected to "
             "fail, and says why.", "",
             f"The figures below come from a run of those tests made for this build of the site ({summary}). "
             "`./run tests` prints the same table at its end. *n/a*: cases that cannot apply here; *to port*: "
             "applicable, not ported yet; *differs*: deliberate differences; *pass*: passing cases of the applicable "
             "ones.", "",
             "| Kafka | test class | cases | n/a | to port | ported | passing | failing | differs | pass |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        share = f"{100 * r['passed'] / r['applicable']:.0f} %" if r["applicable"] else "–"
        lines.append(f"| {r['version']} | [`{r['class']}`](#{r['class'].lower()}) | {r['cases']} | "
                     f"{r['not_applicable']} | {r['not_ported']} | {r['ported']} | {r['passed']} | {r['failed']} | "
                     f"{r['differs']} | "
                     f"{share} |")
    if not rows:
        lines.append("| | the referee did not run | | | | | | | | |")
    lines += ["", "## What the referee found", "",
              "Before Kafka's tests judged the port, a reading of ten ported methods against Kafka's source found the "
              "differences below. Each is now fixed or written down, and the Kafka test named beside it fails if the "
              "port drifts back.", "",
              "| what differed | now | pinned by |", "|---|---|---|"]
    lines += [f"| {what} | {now} | {tests} |" for what, now, tests in FINDINGS]
    for r in rows:
        lines += ["", f"## {r['class']}", "",
                  f"Kafka {r['version']}'s `{r['kafka_path']}`, ported as `{r['port_path']}`."]
        if r["not_applicable_reasons"]:
            lines += ["", "Not applicable:", ""]
            lines += [f"- `{case}`: {reason}" for case, reason in r["not_applicable_reasons"].items()]
        if r["not_ported_reasons"]:
            lines += ["", "Still to port (counted against the pass share):", ""]
            lines += [f"- `{case}`: {reason}" for case, reason in r["not_ported_reasons"].items()]
    return "\n".join(lines) + "\n"
