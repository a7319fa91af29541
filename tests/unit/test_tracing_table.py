"""The table in kafka_edu/tracing/steps.py is the only source of span names, origins and FIDELITY ids.

Every marker in the port (`step`, `span`, `event`) must name a row of it, and every FIDELITY.md row of a built area
must map to it. The scan is static, so a marker on a path no other test runs is checked too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from kafka_edu.tracing import attributes
from kafka_edu.tracing.step import kafka_symbol
from kafka_edu.tracing.steps import EVENTS, STEPS, SYMBOLS

REPO = Path(__file__).resolve().parents[2]
FIDELITY = REPO.parent / "shared" / "FIDELITY.md"
NOT_BUILT = {"LE", "TX"}  # FIDELITY areas with no code yet: they emit nothing, so the table has no rows


def table_violations(source: str, path: str) -> list[str]:
    """Markers in `source` that name nothing in the table, or whose name the scan cannot read."""
    problems = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            problems += _decorated_family_steps(node, path)
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        marker = func.id if isinstance(func, ast.Name) else None
        if marker not in ("step", "span", "event") or not node.args:
            continue
        first = node.args[0]
        where = f"{path}:{node.lineno}"
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            problems.append(f"{where}: {marker}() with a name computed at run time; name a table row")
            continue
        name = first.value
        if marker == "span" and name not in SYMBOLS:
            problems.append(f"{where}: span {name!r} is not in SYMBOLS")
        elif marker == "step" and name not in STEPS:
            problems.append(f"{where}: step {name!r} is not in STEPS")
        elif marker == "event" and len(node.args) == 1 and name not in EVENTS and not (
                name in STEPS and STEPS[name].event):
            problems.append(f"{where}: event {name!r} is neither an event row of STEPS nor in EVENTS")
        elif marker == "event" and len(node.args) >= 2:
            second = node.args[1]
            if not (isinstance(second, ast.Constant) and second.value in EVENTS):
                problems.append(f"{where}: event name not in EVENTS")
    return problems


def _decorated_family_steps(cls: ast.ClassDef, path: str) -> list[str]:
    """`@step("CT.failover.04")` on a method names its span after the method: that name must be a member row."""
    problems = []
    for item in cls.body:
        if not isinstance(item, ast.FunctionDef):
            continue
        for decorator in item.decorator_list:
            if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name) and decorator.func.id == "step"
                    and decorator.args and isinstance(decorator.args[0], ast.Constant)):
                step_id = decorator.args[0].value
                if step_id in STEPS and STEPS[step_id].is_family:
                    fake = type("f", (), {"__qualname__": f"{cls.name}.{item.name}"})
                    name = kafka_symbol(fake)
                    if SYMBOLS.get(name) is None or SYMBOLS[name].step != step_id:
                        problems.append(f"{path}:{item.lineno}: {name!r} is not a member of {step_id} in SYMBOLS")
    return problems


def ported_sources() -> list[Path]:
    return [p for p in sorted((REPO / "kafka_edu").rglob("*.py")) if "tracing" not in p.relative_to(REPO).parts]


def test_every_marker_in_the_port_names_a_row_of_the_table():
    problems = []
    for path in ported_sources():
        problems += table_violations(path.read_text(), str(path.relative_to(REPO)))
    assert not problems, "\n".join(problems)


def test_the_check_fails_on_a_span_name_added_without_a_row():
    source = '''
class Log:
    @span("Log.appendAsFollower")
    def append_as_follower(self): ...

    def roll(self):
        with step("NW.log.append"):
            with span(f"Log.{name}"):
                event("log.rolled")
'''
    problems = table_violations(source, "log.py")
    assert any("'Log.appendAsFollower' is not in SYMBOLS" in p for p in problems)
    assert any("computed at run time" in p for p in problems)
    assert any("'log.rolled'" in p for p in problems)
    assert not any("NW.log.append" in p for p in problems)


def test_a_family_step_on_a_method_that_is_not_a_member_fails():
    source = '''
class KafkaController:
    @step("CT.failover.04")
    def register_topic_change_listener(self): ...

    @step("CT.failover.04")
    def register_everything_listener(self): ...
'''
    problems = table_violations(source, "kafka_controller.py")
    assert problems == ["kafka_controller.py:7: 'KafkaController.registerEverythingListener' is not a member of "
                        "CT.failover.04 in SYMBOLS"]


def test_markers_refuse_names_outside_the_table_at_run_time():
    from kafka_edu.tracing import span, step
    from kafka_edu.tracing.step import UnknownSpanName
    with pytest.raises(UnknownSpanName):
        span("Log.appendAsFollower")
    with pytest.raises(UnknownSpanName):
        step("NW.log.roll")
    with pytest.raises(KeyError):
        attributes.end("Log.appendAsFollower")


def test_every_step_span_is_a_symbol_and_every_symbol_names_a_real_row():
    for step_id, row in STEPS.items():
        if row.event is None and not row.is_family:
            assert row.span_name in SYMBOLS, step_id
    for name, symbol in SYMBOLS.items():
        assert symbol.step is None or symbol.step in STEPS, name
        assert symbol.origin_file.startswith(("core/", "clients/", "raft/", "metadata/", "server-common/")), name
    for name, step_id in EVENTS.items():
        assert step_id is None or STEPS[step_id].event == name


@pytest.mark.skipif(not FIDELITY.exists(), reason="needs ../shared/FIDELITY.md beside the repository")
def test_every_fidelity_row_maps_to_the_table():
    rows = re.findall(r"^\| ((?:LC|NW|CT|LE|TX|KR)\.[A-Za-z0-9_.]+) \| (`[^|]*`|\*event\* `[^`]*`)",
                      FIDELITY.read_text(), re.M)
    assert len(rows) > 80
    fidelity_ids = {row_id for row_id, _ in rows}
    for row_id, span_cell in rows:
        if row_id.split(".")[0] in NOT_BUILT:
            assert row_id not in STEPS, f"{row_id} is in the table but its area is listed as not built"
            continue
        assert row_id in STEPS, f"FIDELITY row {row_id} has no row in kafka_edu/tracing/steps.py"
        named = re.findall(r"`([^`]*)`", span_cell)[0]
        row = STEPS[row_id]
        assert named == (row.event if row.event else row.span_name), row_id
    for step_id in STEPS:  # shutdown steps are numbered in FIDELITY's prose, not in a table
        assert step_id in fidelity_ids or step_id.startswith("LC.shutdown."), f"{step_id} is in no FIDELITY row"
