"""Our own code, not a Kafka port: the runner's own span file (TRACING.md, NF rows of FIDELITY.md).

What the cluster runner does to a run from outside Kafka (a network namespace set up, a link cut, a cut healed) is
an event on a span of the runner's, and the nemesis checker's verdict is a span of its own (`Nemesis.check`), both in
`<run dir>/runner.jsonl` under service instance `runner`, so that the TUI, the lessons and the mining jobs put them
on the same time line as the nodes' spans. Each runner action is one span (`Runner.<action>`); its event is added
only once the action is done, with the row id as `kafka.step`.

Not a marker of the port: these rows are the runner's, so they are not in steps.py's table, and a span here is
written and flushed before the action returns (the runner is often a short-lived `kafka-edu cluster ...` process).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from opentelemetry.trace import Span, Status, StatusCode

from kafka_edu.tracing.provider import Tracing, node_tracing

RUNNER_INSTANCE = "runner"
# FIDELITY NF rows: the event each one is
NF_EVENTS = {"NF.netns": "netns.created", "NF.cut": "network.partition", "NF.heal": "network.heal"}


class RunnerTracer:
    """The runner's spans of one run, made lazily (a runner that only reads a run writes nothing)."""

    def __init__(self, run_dir: Path, run_id: str, mode: str) -> None:
        self.run_dir = run_dir
        self.run_id = run_id
        self.mode = mode
        self._tracing: Tracing | None = None

    @property
    def tracing(self) -> Tracing:
        if self._tracing is None:
            self._tracing = node_tracing(RUNNER_INSTANCE, self.run_id, self.mode, self.run_dir)
        return self._tracing

    @contextmanager
    def action(self, name: str, attributes: Mapping[str, object] | None = None) -> Iterator[Span]:
        """A span `Runner.<name>` around one action; on disk when the block ends, with an error status if it
        raised."""
        span = self.tracing.start_span(f"Runner.{name}", attributes=dict(attributes or {}))
        try:
            yield span
        except BaseException as e:
            span.set_status(Status(StatusCode.ERROR, f"{type(e).__name__}: {e}"))
            raise
        finally:
            span.end()
            self.tracing.provider.force_flush(5_000)

    @staticmethod
    def done(span: Span, row: str, attributes: Mapping[str, object]) -> None:
        """The NF row's event on the action's span: call it only after the action took effect."""
        span.add_event(NF_EVENTS[row], {"kafka.step": row, **attributes})

    def close(self) -> None:
        if self._tracing is not None:
            self._tracing.shutdown()
            self._tracing = None


# -- the nemesis checker's verdict (NF.check) ----------------------------------------------------------------------

NEMESIS_CHECK = "Nemesis.check"
NEMESIS_CHECK_STEP = "NF.check"
ANOMALY_EVENT = "nemesis.anomaly"

AttributeValue = str | int | float | bool | Sequence[str] | Sequence[int]


def runner_tracing(run_dir: Path, run_id: str, mode: str) -> Tracing:
    """A tracer whose spans go to `<run_dir>/runner.jsonl`, under the `runner` resource."""
    return RunnerTracer(run_dir, run_id, mode).tracing


def record_nemesis_check(tracing: Tracing, start_ns: int, counts: Mapping[str, AttributeValue],
                         anomalies: Sequence[Mapping[str, AttributeValue]]) -> str:
    """One `Nemesis.check` span from `start_ns` to now: `counts` become its attributes (prefixed `kafka.nemesis.`),
    each anomaly's fields a `nemesis.anomaly` event (stamped when the check found it; when the client saw it is one of
    its fields). Written to disk before this returns; the span's trace id is returned."""
    attributes: dict[str, AttributeValue] = {"kafka.step": NEMESIS_CHECK_STEP}
    attributes.update({f"kafka.nemesis.{key}": value for key, value in counts.items()})
    span = tracing.start_span(NEMESIS_CHECK, attributes=attributes, start_time=start_ns)
    for fields in anomalies:
        span.add_event(ANOMALY_EVENT, attributes={f"kafka.nemesis.{key}": value for key, value in fields.items()})
    span.end()
    tracing.provider.force_flush()
    return format(span.get_span_context().trace_id, "032x")
