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
NOT_BUILT: set[str] = set()  # FIDELITY areas with no code yet: they emit nothing, so the table has no rows


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
        elif marker == "span" and SYMBOLS[name].port:
            problems.append(f"{where}: span {name!r} is put on by instrument.py (its row has a port): "
                            "a marker would make it twice")
        elif marker == "step" and name not in STEPS:
            problems.append(f"{where}: step {name!r} is not in STEPS")
        elif marker == "event" and name not in EVENTS and not (name in STEPS and STEPS[name].event):
            problems.append(f"{where}: event {name!r} is neither an event row of STEPS nor in EVENTS")
        elif marker == "event" and len(node.args) > 2:
            problems.append(f"{where}: event(name, owner, **values) takes one object; hand the rest over by name")
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
        assert symbol.origin_file.startswith(("core/", "clients/", "raft/", "metadata/", "server-common/",
                                              "storage/", "group-coordinator/")), name
    for name, step_id in EVENTS.items():
        assert step_id is None or STEPS[step_id].event == name


@pytest.mark.skipif(not FIDELITY.exists(), reason="needs ../shared/FIDELITY.md beside the repository")
def test_every_fidelity_row_maps_to_the_table():
    rows = re.findall(r"^\| ((?:LC|NW|CT|LE|TX39|TX|KR|CL|RQ|KV|GC)\.[A-Za-z0-9_.]+) \| (`[^|]*`|\*event\* `[^`]*`)",
                      FIDELITY.read_text(), re.M)
    assert len(rows) > 80
    assert any(row_id.startswith("TX39.") for row_id, _ in rows)
    fidelity_ids = {row_id for row_id, _ in rows}
    for row_id, span_cell in rows:
        if row_id.split(".")[0] in NOT_BUILT and row_id not in STEPS:
            continue  # an area still being built (by more than one hand): the rows it has so far are checked
        assert row_id in STEPS, f"FIDELITY row {row_id} has no row in kafka_edu/tracing/steps.py"
        row = STEPS[row_id]
        if row.event:
            assert re.findall(r"`([^`]*)`", span_cell)[0] == row.event, row_id
        elif row_id.startswith(("TX39.", "KV.")):
            # a cell naming a call chain (`A.f` → `g` / `B.h`): the span is one of the calls it names
            assert row.span_name in _named_symbols(span_cell), row_id
        else:
            assert re.findall(r"`([^`]*)`", span_cell)[0] == row.span_name, row_id
    for step_id in STEPS:  # shutdown steps are numbered in FIDELITY's prose, not in a table
        assert step_id in fidelity_ids or step_id.startswith("LC.shutdown."), f"{step_id} is in no FIDELITY row"


def _named_symbols(span_cell: str) -> set[str]:
    """`Class.method` for every call a FIDELITY span cell names; a bare `method` is of the class named before it."""
    named, owner = set(), ""
    for symbol in re.findall(r"`([^`]*)`", span_cell):
        if "." in symbol:
            owner = symbol.rsplit(".", 1)[0]
            named.add(symbol)
        elif owner:
            named.add(f"{owner}.{symbol}")
    return named


def test_a_chain_cell_names_each_of_its_calls():
    cell = "`ReplicaManager.handleProduceAppend` → `maybeStartTransactionVerificationForPartitions` / `Log.append`"
    assert _named_symbols(cell) == {"ReplicaManager.handleProduceAppend",
                                    "ReplicaManager.maybeStartTransactionVerificationForPartitions", "Log.append"}


def test_every_instrumented_symbol_names_a_method_of_the_port_and_is_wrapped_once_tracing_is_set_up():
    from kafka_edu.tracing import setup_tracing
    from kafka_edu.tracing.instrument import instrumented_symbols, is_instrumented, resolve

    symbols = instrumented_symbols()
    assert len(symbols) > 20
    for symbol in symbols:
        assert symbol.step is None, f"{symbol.name} is a FIDELITY step: mark it in the code, where a reader sees it"
        owner, method, func = resolve(symbol.port)
        assert callable(func), symbol.port
    tracing = setup_tracing("broker-0", "run-1")
    try:
        setup_tracing("broker-0", "run-1").shutdown()  # twice: still one wrapper per method
        for symbol in symbols:
            assert is_instrumented(symbol.port), symbol.port
            wrapped = resolve(symbol.port)[2]
            assert not getattr(wrapped.__wrapped__, "__kafka_edu_instrumented__", False), symbol.port
    finally:
        tracing.shutdown()


def test_an_instrumented_method_is_traced_under_its_kafka_name():
    from kafka_edu.tracing import setup_tracing
    from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils

    tracing = setup_tracing("broker-0", "run-1")
    try:
        class FakeZk(ZkUtils):
            def __init__(self) -> None:
                self.created: list[str] = []

            def make_sure_persistent_path_exists(self, path: str, *args: object, **kwargs: object) -> None:
                self.created.append(path)
        zk = FakeZk()
        zk.setup_common_paths()
        assert "/brokers/ids" in zk.created
        names = [s.name for s in tracing.memory.get_finished_spans()]
        assert "ZkUtils.setupCommonPaths" in names
    finally:
        tracing.shutdown()


# Issue 11's measure: the modules the ZooKeeper-era port is judged by carry one marker per step they implement and
# nothing else (CT.failover.04 is seven steps, one per listener, as FIDELITY counts it). A `note(...)` inside a
# `with` marker is that marker's hand-over of a value the block computed: at most one per block, counted apart.
MARKER = re.compile(r"\b(step|span|event|current_traceparent|"
                    r"remote_span_context|current_span_context|link_to_writer)\(")


@pytest.mark.parametrize("module", ["kafka_edu/v1_0_2/core/controller/kafka_controller.py",
                                    "kafka_edu/v1_0_2/core/network/socket_server.py",
                                    "kafka_edu/v1_0_2/core/server/kafka_server.py"])
def test_a_module_carries_at_most_one_tracing_call_per_step(module: str):
    source = (REPO / module).read_text()
    lines = [line for line in source.splitlines() if MARKER.search(line)]
    named = set()
    for line in lines:
        name = re.search(r'\((["\'])([^"\']+)\1', line)
        assert name, f"a tracing call that names no table row: {line.strip()}"
        named.add(name.group(2))
    row_of_span = {row.span_name: step_id for step_id, row in STEPS.items()}  # onPreferredReplicaElection
    steps = ({n for n in named if n in STEPS} | {SYMBOLS[n].step for n in named if SYMBOLS.get(n) and SYMBOLS[n].step}
             | {row_of_span[n] for n in named if n in row_of_span})
    family_members = sum(1 for line in lines if re.search(r'step\("CT.failover.04"\)', line))
    implemented = len(steps) - ("CT.failover.04" in steps) + family_members
    assert len(lines) <= implemented, f"{module}: {len(lines)} tracing calls for {implemented} steps"
    notes = sum(1 for line in source.splitlines() if re.search(r"\bnote\(", line))
    blocks = sum(1 for line in lines if re.search(r"\bwith .*\b(step|span)\(", line))
    assert notes <= blocks, f"{module}: {notes} note() calls for {blocks} with-markers"
