"""The documentation site builds cleanly and its startup/shutdown page covers every lifecycle step the port emits."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from kafka_edu.tracing.steps import STEPS

REPO_ROOT = Path(__file__).resolve().parents[1]
STARTUP_PAGE = REPO_ROOT / "docs" / "startup-and-shutdown.md"


def test_mkdocs_build_is_strict_clean(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    assert (tmp_path / "site" / "startup-and-shutdown" / "index.html").exists()


def test_every_lifecycle_step_is_documented() -> None:
    page = STARTUP_PAGE.read_text(encoding="utf-8")
    documented = set(re.findall(r"\bLC\.[a-z]+\.[0-9a-z]+\b", page))
    missing = sorted(step_id for step_id in STEPS if step_id.startswith("LC.") and step_id not in documented)
    assert not missing, f"steps emitted by the port but missing from {STARTUP_PAGE.name}: {missing}"
