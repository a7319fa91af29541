"""Our own code, not a Kafka port: which lessons this user has finished, kept from one day to the next.

The file lives in the user's state directory, never in the repository: `$KAFKA_EDU_STATE_DIR/progress.json` when
that is set (tests), else `$XDG_STATE_HOME/kafka-edu/progress.json`, else `~/.local/state/kafka-edu/progress.json`.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

STATE_DIR_ENV = "KAFKA_EDU_STATE_DIR"


def state_dir() -> Path:
    if os.environ.get(STATE_DIR_ENV):
        return Path(os.environ[STATE_DIR_ENV])
    xdg = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(xdg) / "kafka-edu"


class Progress:
    """`{"lessons": {"controller": {"finished_at": "2026-11-24T10:02:11+0000", "times": 2}}}`"""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "progress.json"

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {"lessons": {}}  # no file yet, or one we cannot read: start again rather than fail a lesson
        return data if isinstance(data.get("lessons"), dict) else {"lessons": {}}

    def finished(self) -> dict[str, str]:
        """Lesson name -> when it was last finished."""
        return {name: entry["finished_at"] for name, entry in self.read()["lessons"].items()
                if isinstance(entry, dict) and entry.get("finished_at")}

    def mark_finished(self, name: str) -> None:
        data = self.read()
        entry = data["lessons"].setdefault(name, {})
        entry["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        entry["times"] = int(entry.get("times", 0)) + 1
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_suffix(".tmp")
        temp.write_text(json.dumps(data, indent=2) + "\n")
        os.replace(temp, self.path)
