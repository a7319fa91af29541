"""Our own test: a marker in the 3.9 tree on a row both versions perform (TX.init, CL.clean, NW.processor.*) makes
a span that says Kafka 3.9 with the row's origin file, so that file must exist at the same path in Kafka 3.9.
Checked against Kafka's repository where it is mirrored (developers' machines); skipped elsewhere."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from kafka_edu.tracing.steps import KAFKA_3_9, STEPS, SYMBOLS

REPO = Path(__file__).resolve().parents[2]
MIRROR = Path("/work/.mirror/apache+kafka/repo")
TAG = "3.9.0-rc3"


def shared_rows_marked_in_the_3_9_tree() -> dict[str, str]:
    """span or step name -> the 1.0.2 origin file of each 1.0.2 row a module of kafka_edu/v3_9 marks."""
    found = {}
    for path in (REPO / "kafka_edu" / "v3_9").rglob("*.py"):
        for kind, name in re.findall(r'\b(step|span)\("([^"]+)"', path.read_text()):
            row = STEPS.get(name) if kind == "step" else SYMBOLS.get(name)
            if row is not None and row.version != KAFKA_3_9:
                found[name] = row.origin_file
    return found


def test_the_3_9_tree_marks_some_rows_it_shares_with_1_0_2() -> None:
    assert {"TX.init", "CL.clean"} <= set(shared_rows_marked_in_the_3_9_tree())


@pytest.mark.skipif(not MIRROR.exists(), reason="Kafka's repository is not mirrored on this machine")
def test_each_shared_rows_origin_file_is_at_the_same_path_in_kafka_3_9() -> None:
    listed = set(subprocess.run(["git", "--git-dir", str(MIRROR), "ls-tree", "-r", "--name-only", TAG],
                                capture_output=True, text=True, check=True).stdout.split())
    missing = {name: file for name, file in shared_rows_marked_in_the_3_9_tree().items() if file not in listed}
    assert not missing, f"these rows' files moved in 3.9, so a 3.9 span would name a file 3.9 has not got: {missing}"


def test_a_span_of_either_tree_on_a_shared_row_says_its_own_version() -> None:
    from kafka_edu.tracing.step import _marker, _static
    from kafka_edu.v1_0_2.core.coordinator.transaction import transaction_metadata as metadata_1_0_2
    from kafka_edu.v3_9.core.coordinator.transaction import transaction_metadata as metadata_3_9

    marker = _marker(STEPS["TX.init"].span_name, "TX.init", False)
    in_3_9 = _static(marker, metadata_3_9.TransactionMetadata.__init__.__code__)
    in_1_0_2 = _static(marker, metadata_1_0_2.TransactionMetadata.__init__.__code__)
    assert (in_3_9["kafka.origin.version"], in_1_0_2["kafka.origin.version"]) == ("3.9", "1.0.2")
    assert in_3_9["kafka.origin.file"] == in_1_0_2["kafka.origin.file"] == STEPS["TX.init"].origin_file
