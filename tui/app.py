"""`kafka-edu tui`: a live (or replayed) view of one cluster run, drawn from its run directory's files only.

A worker thread tails the span files (tui.reader) and hands each batch to the UI thread, which files it into the
bounded store (tui.store) and the cluster model (tui.cluster); a timer redraws whatever changed, at most 20 times a
second. Actions on a live cluster go through `tui.control.ClusterControl`, on worker threads, never on the UI thread.
"""

from __future__ import annotations

import gc
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.markup import MarkupError, escape
from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from kafka_edu.tracing.query import SpanRecord
from tui.cluster import ClusterModel
from tui.groups import GroupsBatch, GroupsModel, GroupsPoller
from tui.launch import ClusterLaunch
from tui.lesson_pane import LessonPane, find_ref, newest_about
from tui.quorum import QuorumBatch, QuorumModel, QuorumPoller, is_kraft
from tui.reader import ReadBatch, RunReader
from tui.store import DEFAULT_MAX_SPANS, ORPHANS, SpanStore
from tui.widgets.cluster_pane import ClusterPane
from tui.widgets.detail import DetailPane, links_found
from tui.widgets.dialogs import CreateTopicScreen, HelpScreen
from tui.widgets.footer import KeyBar
from tui.widgets.groups_pane import GroupsPane
from tui.widgets.log_pane import LogPane
from tui.widgets.quorum_pane import MetadataPane, QuorumPane, VotersPane
from tui.widgets.trace_list import TRACE, TraceList
from tui.widgets.waterfall import Waterfall

if TYPE_CHECKING:
    from kafka_edu.lessons.model import Lesson
    from tui.control import ClusterControl, Paused

POLL_S = 0.03  # file polling: with the exporter's 100 ms and one frame, a span shows well within 250 ms
FRAME_S = 0.05
BIG_LIST = 10_000  # trace lists longer than this are rebuilt at most every BIG_LIST_S while spans stream in
BIG_LIST_S = 0.25
PAUSE_POLL_S = 0.15
QUORUM_POLL_S = 0.5  # DescribeQuorum and the metadata logs, on a live KRaft run
QUORUM_POLL_FINISHED_S = 2.0  # a finished run's logs do not change, but may still be read from
GROUPS_POLL_S = 1.0  # ListGroups and the describes, on a live KRaft run while the Groups view is shown
# What `v` cycles through in the left column's lower pane on a KRaft run
VIEWS = ("records", "groups", "voters")
GC_FREEZE_BATCH = 1000
BURST = 1000
JUMP_TRIES_S = 5.0  # how long a span a lesson's check quoted may take to reach the TUI's store
JUMP_EVERY_S = 0.25
# Keys that act on a live cluster: without one (a replay) they are hidden, and pressing one says why it did nothing.
CONTROL_ACTIONS = {"kill", "stop", "restart", "pause", "isolate", "create_topic", "produce", "breakpoint",
                   "next_step", "continue_paused"}
# on the broker (or controller) under the pane's cursor
BROKER_ACTIONS = {"kill", "stop", "restart", "pause", "isolate"}
# How a refusal names the key the user pressed.
ACTION_KEYS = {"kill": "x (kill -9)", "stop": "s (controlled stop)", "restart": "r (restart)",
               "pause": "p (pause / resume)", "isolate": "i (isolate / heal)", "create_topic": "c (create a topic)",
               "produce": "P (produce)",
               "breakpoint": "b (breakpoint)", "next_step": "n (next step)", "continue_paused": "c (continue)"}


@dataclass
class SpansRead(Message):
    """A batch from the reader thread; the reader waits until the UI has taken it (flow control)."""

    batch: ReadBatch


@dataclass
class PausedChanged(Message):
    paused: list[Paused]


@dataclass
class GroupsPolled(Message):
    """What the groups poller found (tui.groups.GroupsPoller.poll)."""

    batch: GroupsBatch


@dataclass
class QuorumPolled(Message):
    """What the quorum poller found (tui.quorum.QuorumPoller.poll)."""

    batch: QuorumBatch


class KafkaEduApp(App[None]):
    TITLE = "kafka-edu"
    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("slash", "search", "Search"),
        Binding("f", "toggle_background", "Background", show=False),
        Binding("z", "zoom", "Zoom", show=False),
        Binding("S", "screenshot", "Screenshot", show=False),
        Binding("x", "kill", "Kill -9"),
        Binding("s", "stop", "Stop"),
        Binding("r", "restart", "Restart"),
        Binding("p", "pause", "Pause"),
        Binding("i", "isolate", "Isolate", show=False),  # a run up with --netns only; the help and status bar say
        Binding("c", "continue_paused", "Continue"),
        Binding("c", "create_topic", "Topic"),
        Binding("P", "produce", "Produce"),
        Binding("v", "next_view", "View"),
        Binding("o", "follow_link", "Link"),  # in the key bar while it has a link to follow (_next_link)
        Binding("b", "breakpoint", "Break"),
        Binding("n", "next_step", "Next step"),
        Binding("l", "lesson_focus", "Lesson"),
        Binding("d", "lesson_do", "Lesson does it"),
        Binding("enter", "lesson_enter", "Check", show=False),
    ]

    def __init__(self, run_dir: Path | None = None, launch: ClusterLaunch | None = None,
                 max_spans: int = DEFAULT_MAX_SPANS, watch: bool = True, lesson: Lesson | None = None) -> None:
        """Args:
            run_dir: the run to attach to; or None with `launch`, whose new run is attached when it appears.
            lesson: a guided lesson to run on this cluster, in a pane of its own (tui.lesson_pane).
            max_spans: spans held in memory; the oldest whole traces go first.
            watch: poll the files for more after the first read (tests of a finished run turn it off).
        """
        super().__init__()
        self.run_dir = run_dir
        self.launch = launch
        self.watch = watch
        self.store = SpanStore(max_spans)
        self.model = ClusterModel()
        self.reader: RunReader | None = None
        self.control: ClusterControl | None = None
        self.paused: list[Paused] = []
        self.breakpoints: set[str] = set()
        self.problems: list[str] = []
        self.exits: dict[str, dict[str, object]] = {}  # instance -> its exit record (exit code, dropped spans)
        self.span_stats: dict[str, dict[str, object]] = {}  # instance -> its span files' policy and counts
        self.loaded = threading.Event()  # the files as they were when attached have been read
        self._consumed = threading.Event()
        self._last_list_rebuild = 0.0
        self._status = ""
        self._waiting_since = time.monotonic()
        # The panes, kept rather than queried: a modal screen on top must not hide them from the redraw timer.
        self.cluster_pane = ClusterPane(self.model, id="cluster")
        # A KRaft run (--mode kraft, or a manifest saying so) shows its quorum and metadata log instead.
        self.quorum = QuorumModel(add_log=self.model.add_log)
        self.quorum_pane = QuorumPane(self.quorum, id="quorum")
        self.records_pane = MetadataPane(self.quorum, id="records")
        # `v` puts the Groups or the Voters pane in the Metadata log pane's place (VIEWS)
        self.groups = GroupsModel(add_log=self.model.add_log)
        self.groups_pane = GroupsPane(self.groups, id="groups")
        self.voters_pane = VotersPane(self.quorum, id="voters")
        self.view = VIEWS[0]
        self.kraft = False
        self._quorum_polled = False
        self._reader_dead: set[str] = set()
        self._quorum_dead: set[str] = set()
        self.traces = TraceList(self.store, id="traces")
        self.waterfall = Waterfall(self.store, live=False, id="waterfall")
        self.detail = DetailPane(id="detail", find=self.store.find_span)
        # `o`: the span whose links it follows, the link it followed last, and the span that took it there (pressed
        # again there, it follows the next link)
        self._following: tuple[SpanRecord, int, str] | None = None
        self._links_checked = -1  # the store's version when the Detail pane last looked for its links' spans
        self.log_pane = LogPane(self.model, id="log")
        self.search = Input(placeholder="search traces: span name, step, instance, API, event…", id="search")
        self.status = Static(id="status")
        self.lesson_pane = LessonPane(lesson, id="lesson") if lesson is not None else None
        self._jump: tuple[list, tuple[str, ...], float] | None = None  # refs, about, give up at (monotonic)
        self._jump_tried = 0.0

    # -- layout -----------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield self.cluster_pane
                yield self.quorum_pane
                yield self.records_pane
                yield self.groups_pane
                yield self.voters_pane
                yield self.traces
            with Vertical(id="right"):
                yield self.waterfall
                yield self.detail
        if self.lesson_pane is not None:
            yield self.lesson_pane  # in place of the Log pane: the lesson says what happened
        else:
            yield self.log_pane
        yield self.search
        yield self.status
        yield KeyBar(compact=True)  # Textual's Footer, its keys fitted to the width (tui.widgets.footer)

    def on_mount(self) -> None:
        for pane, title in ((self.cluster_pane, "Cluster"), (self.detail, "Detail"), (self.log_pane, "Log"),
                            (self.waterfall, "Waterfall"), (self.quorum_pane, "Quorum"),
                            (self.records_pane, "Metadata log"), (self.groups_pane, "Groups"),
                            (self.voters_pane, "Voters")):  # the trace list titles itself
            pane.border_title = title
        self.cluster_pane.focus()  # where the action keys act: its cursor starts on the first broker
        if self.launch is not None and self.launch.mode == "kraft":
            self._show_kraft()
        self.set_interval(FRAME_S, self._redraw)
        if self.lesson_pane is not None:
            self.lesson_pane.start(self.launch if self.run_dir is None else None, self.run_dir)
        if self.run_dir is not None:
            self._attach(self.run_dir)
        else:
            self.set_interval(0.1, self._await_launch, name="await-launch")

    def _await_launch(self) -> None:
        if self.reader is not None or self.launch is None:
            return
        if self.launch.error is not None:
            self.problems = [f"the cluster did not start: {self.launch.error}"]
        elif self.launch.run_dir is not None:
            self._attach(self.launch.run_dir)

    def _attach(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.reader = RunReader(run_dir)
        self.tail_run(self.reader)

    @property
    def live(self) -> bool:
        """A run still going (its manifest not stopped); a replay has no action keys."""
        return self.reader is not None and bool(self.reader.manifest) and not self.reader.finished

    # -- ingestion --------------------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="reader")
    def tail_run(self, reader: RunReader) -> None:
        worker = get_current_worker()
        while not worker.is_cancelled:
            batch = reader.poll()
            caught_up = not (batch.ended or batch.started)
            if batch:
                self._consumed.clear()
                self.post_message(SpansRead(batch))
                while not self._consumed.wait(0.1):  # flow control: the UI files one batch at a time
                    if worker.is_cancelled:
                        return
            if caught_up:
                self.loaded.set()
                if not self.watch:
                    return
                time.sleep(POLL_S)  # nothing new: poll again shortly

    def on_spans_read(self, message: SpansRead) -> None:
        batch = message.batch
        try:
            if batch.manifest is not None:
                self.model.observe_manifest(batch.manifest)
                if is_kraft(batch.manifest):
                    self._show_kraft()
                    self.quorum.observe_manifest(batch.manifest)  # its brokers, before their spans
            self.store.add_ended(batch.ended)
            self.store.add_started(batch.started)
            self.model.observe_ended(batch.ended)
            if self.kraft:
                self.quorum.observe_ended(batch.ended)
            self.groups.observe_ended(batch.ended)  # only a KRaft broker's group coordinator traces GC spans
            if batch.dead is not None:
                self._reader_dead = batch.dead
                self.store.set_dead(self._reader_dead | self._quorum_dead)
                self.model.observe_dead(batch.dead)
                if self.kraft:
                    self.quorum.observe_dead(batch.dead)  # a KRaft run's brokers
            if batch.problems is not None:
                self.problems = batch.problems
            self.exits.update(batch.exits)
            self.span_stats.update(batch.span_stats)
            if len(batch.ended) + len(batch.started) >= GC_FREEZE_BATCH:
                # Held spans are long-lived and acyclic: keep the cyclic GC from rescanning 100,000 of them (a
                # full collection would otherwise stall frames for hundreds of ms). Refcounting still frees them.
                gc.freeze()
            if self.live != self.waterfall.live:
                self._live_changed()
        finally:
            self._consumed.set()

    def _live_changed(self) -> None:
        """A run seen running gets its action keys; once its manifest says stopped, it is a replay."""
        self.waterfall.live = self.live
        if self.live and self.control is None and self.run_dir is not None:
            from tui.control import ClusterControl  # only a live run has anything to control
            self.control = ClusterControl(self.run_dir)
            self.breakpoints = self.control.breakpoints()
            self.watch_paused(self.control)
        elif not self.live:
            self.control, self.paused = None, []
            self.workers.cancel_group(self, "paused")
        self.refresh_bindings()

    # -- a KRaft quorum ----------------------------------------------------------------------------------------------

    def _show_kraft(self) -> None:
        """The Quorum and Metadata log panes in place of the Cluster pane, and their poller started (once)."""
        if not self.kraft:
            self.kraft = True
            focused = self.focused is self.cluster_pane
            self.cluster_pane.display = False
            self.quorum_pane.display = self.records_pane.display = True
            self.query_one("#left").add_class("kraft")
            if focused:
                self.quorum_pane.focus()
        if self.run_dir is not None and not self._quorum_polled:
            self._quorum_polled = True
            self.poll_quorum(QuorumPoller(self.run_dir))

    @property
    def view_pane(self) -> MetadataPane | GroupsPane | VotersPane:
        """The pane under the Quorum pane on a KRaft run: the one `v` last chose."""
        return {"records": self.records_pane, "groups": self.groups_pane, "voters": self.voters_pane}[self.view]

    def action_next_view(self) -> None:
        """`v`: Metadata log → Groups → Voters → Metadata log, in the same place; the Groups view asks the brokers
        while the run is live."""
        if not self.kraft:
            return
        had_focus = self.focused is self.view_pane
        self.view_pane.display = False
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]
        pane = self.view_pane
        pane.display = True
        pane.rebuild()
        if had_focus:
            pane.focus()
        if self.view == "groups" and self.live and self.run_dir is not None:
            self.poll_groups(GroupsPoller(self.run_dir))
        else:
            self.workers.cancel_group(self, "groups")
            self.groups.clear_live()

    @work(thread=True, exclusive=True, group="groups")
    def poll_groups(self, poller: GroupsPoller) -> None:
        worker = get_current_worker()
        while not worker.is_cancelled:
            try:
                batch = poller.poll()
            except Exception as e:  # news for the user, not a crash; the trace's picture stays
                batch = GroupsBatch(errors={-1: f"{type(e).__name__}: {e}"}, at=time.time())
            if not worker.is_cancelled:
                self.post_message(GroupsPolled(batch))
            if poller.manifest.get("stopped_at"):
                return
            deadline = time.monotonic() + GROUPS_POLL_S
            while time.monotonic() < deadline and not worker.is_cancelled:
                time.sleep(0.05)

    def on_groups_polled(self, message: GroupsPolled) -> None:
        if self.view == "groups":
            if message.batch.at and not message.batch.groups and not message.batch.asked:
                self.groups.clear_live()  # no broker to ask (the run stopped): the trace's picture
            else:
                self.groups.observe_poll(message.batch)

    @work(thread=True, exclusive=True, group="quorum")
    def poll_quorum(self, poller: QuorumPoller) -> None:
        worker = get_current_worker()
        failed = ""
        while not worker.is_cancelled:
            try:
                self.post_message(QuorumPolled(poller.poll(self.quorum.leader_id)))
            except Exception as e:  # a file or answer it cannot read is news for the user, not a crash; it tries again
                if str(e) != failed:
                    failed = str(e)
                    self.call_from_thread(self.notify, f"reading the quorum failed: {type(e).__name__}: {e}",
                                          severity="error")
            if not self.watch:
                return
            finished = bool(poller.manifest.get("stopped_at"))
            deadline = time.monotonic() + (QUORUM_POLL_FINISHED_S if finished else QUORUM_POLL_S)
            while time.monotonic() < deadline and not worker.is_cancelled:
                time.sleep(0.05)

    def on_quorum_polled(self, message: QuorumPolled) -> None:
        self.quorum.observe_poll(message.batch)
        dead = {f"controller-{node}" for node, alive in message.batch.alive.items() if not alive}
        if dead != self._quorum_dead:  # a killed controller's running spans are lost, as a broker's
            self._quorum_dead = dead
            self.store.set_dead(self._reader_dead | self._quorum_dead)
        self.refresh_bindings()

    @on(MetadataPane.Opened)
    def _record_opened(self, message: MetadataPane.Opened) -> None:
        """The trace that wrote a metadata record: the first span, by start, whose `kafka.raft.offset.first/last`
        (a controller's write event, commit or replay) covers its offset; the active controller's write comes first."""
        entry = message.entry
        found = [span for trace in self.store for span in trace.spans.values()
                 if isinstance(span.attributes.get("kafka.raft.offset.first"), int)
                 and span.attributes["kafka.raft.offset.first"] <= entry.offset
                 <= span.attributes.get("kafka.raft.offset.last", -1)]
        if found:
            self.show_span(min(found, key=lambda span: span.start_ns))
            self.waterfall.focus()
        else:
            self.notify(f"no span held names offset {entry.offset}: NoOps and the raft's own control records are "
                        f"not traced, and the oldest traces may have been evicted", severity="warning", timeout=6)

    @work(thread=True, exclusive=True, group="paused")
    def watch_paused(self, control: ClusterControl) -> None:
        worker = get_current_worker()
        last: list[Paused] = []
        while not worker.is_cancelled:
            paused = control.paused()
            if paused != last:
                last = paused
                self.post_message(PausedChanged(paused))
            time.sleep(PAUSE_POLL_S)

    def on_paused_changed(self, message: PausedChanged) -> None:
        self.paused = message.paused
        self.refresh_bindings()
        if self.paused:
            first = self.paused[0]
            self.notify(f"paused at {first.step} {first.span_name} on {_who(first)}", timeout=4)

    # -- drawing ----------------------------------------------------------------------------------------------------

    def _redraw(self) -> None:
        now = time.monotonic()
        if len(self.traces.rows) < BIG_LIST or now - self._last_list_rebuild >= BIG_LIST_S:
            self._last_list_rebuild = now
            self.traces.rebuild()
            self._select_first_trace()
        self.waterfall.rebuild()
        self.waterfall.tick()
        if self.waterfall.current_span is not self.detail.span:  # the selected span ended, or was evicted
            self._show_span(self.waterfall.current_span)
        elif self.detail.span is not None and self.detail.span.links and self.store.version != self._links_checked:
            self._links_checked = self.store.version  # a linked trace may have arrived, or been evicted
            if links_found(self.detail.span, self.store.find_span) != self.detail.links_found:
                self._show_span(self.detail.span)
        if self.kraft:
            self.quorum_pane.rebuild()
            self.view_pane.rebuild()
        else:
            self.cluster_pane.rebuild()
        self.log_pane.rebuild()
        if self._jump is not None and now - self._jump_tried >= JUMP_EVERY_S:
            self._try_jump(now)
        status = self._status_text()
        if status != self._status:  # an unchanged status must not cost a layout every frame
            self._status = status
            self.status.update(status)

    def _select_first_trace(self) -> None:
        """Until the user picks one, show the newest trace of the first group (a broker's startup)."""
        row = self.traces.current
        if self.waterfall.trace_id is None and row is not None and row[0] != TRACE and len(self.traces.rows) > 1:
            self.traces.action_cursor(1)

    def _status_text(self) -> str:
        if self.reader is None:
            waited = time.monotonic() - self._waiting_since
            if self.launch is not None and self.launch.mode == "kraft":
                what = "the KRaft controllers" + " and brokers" * bool(self.launch.brokers)
            else:
                what = "ZooKeeper and brokers"
            return "; ".join(self.problems) or f"starting {what}… {waited:.0f}s"
        parts: list[StatusPart] = []
        if self.paused:
            p = self.paused[0]
            parts.append(StatusPart(f"[reverse bold yellow] paused at {p.step} {p.span_name} on {_who(p)} [/] n: next "
                                    f"step, c: continue",
                                    f"[reverse bold yellow] paused at {p.step} on {_who(p)} [/] n, c", keep=True))
        mode = "live" if self.live else "replay"
        parts.append(StatusPart(f"{self.reader.manifest.get('run_id', self.run_dir.name if self.run_dir else '?')} · "
                                f"{mode} · {len(self.store):,} spans", keep=True))
        if self.launch is not None and self.launch.error is not None:  # the run attached, then its start failed
            error = " ".join(str(self.launch.error).split())
            parts.append(StatusPart(f"[red]the cluster did not start: {escape(error)}[/]", keep=True))
        if self.store.evicted_traces:
            parts.append(StatusPart(f"{self.store.evicted_traces:,} old traces evicted",
                                    f"{self.store.evicted_traces:,} evicted"))
        if self.breakpoints:
            parts.append(StatusPart("breakpoints: " + ", ".join(sorted(self.breakpoints)),
                                    f"{len(self.breakpoints)} breakpoint(s)", keep=True))
        dropped = {name: record.get("dropped_spans") for name, record in self.exits.items()
                   if record.get("dropped_spans")}
        if dropped:  # TRACING.md: no span is dropped silently
            parts.append(StatusPart("[red]dropped spans: " + ", ".join(f"{n} {c}" for n, c in sorted(dropped.items()))
                                    + "[/]", f"[red]{sum(int(c) for c in dropped.values()):,} spans dropped[/]",
                                    keep=True))
        parts.extend(request_policy_parts(self.span_stats))
        cuts = (self.reader.manifest.get("network") or {}).get("cuts") or []
        if cuts:  # the links cut now (cluster partition, or i on a node)
            links = [f"{','.join(c['from'])}{'->' if c['kind'] == 'one-way' else '<->'}{','.join(c['to'])}"
                     for c in cuts]
            parts.append(StatusPart("[reverse bold red] cut [/] " + "; ".join(links) + " (i or cluster heal)",
                                    f"[reverse bold red] {len(cuts)} cut(s) [/]", keep=True))
        if self.problems:
            parts.append(StatusPart("[red]" + "; ".join(self.problems) + "[/]", keep=True))
        width = (self.status.size.width or self.size.width) - 2  # its padding
        return fit_status(parts, width)

    @on(TraceList.Selected)
    def _trace_selected(self, message: TraceList.Selected) -> None:
        if message.trace_id is not None:
            self.waterfall.show(message.trace_id)

    @on(Waterfall.SpanSelected)
    def _span_selected(self, message: Waterfall.SpanSelected) -> None:
        following = self._following
        if (following is not None and message.span is self.waterfall.current_span
                and (message.span is None or message.span.span_id != following[2])):
            self._following = None  # the user moved on: `o` follows the links of what they select now
            self.refresh_bindings()
        self._show_span(message.span)

    def _show_span(self, span: SpanRecord | None) -> None:
        could_follow = self._next_link() is not None
        self.detail.show(span, self.store.is_lost(span) if span else False, self.waterfall.t0)
        if could_follow != (self._next_link() is not None):
            self.refresh_bindings()  # `o` is in the key bar while it has a link to follow

    def action_follow_link(self) -> None:
        """`o`: to the span the selected one links to, in its own trace; pressed again on that span, to the next link
        of the same span (in turn), so a span's links can be visited one after another."""
        span, follow = self.detail.span, self._next_link()
        if span is None or follow is None:
            return
        source, index = follow
        trace_id, span_id = source.links[index]
        which = f"link {index + 1}/{len(source.links)}" if len(source.links) > 1 else "link"
        target = self.store.find_span(trace_id, span_id)
        if target is None:
            self._following = (source, index, span.span_id)
            self.notify(f"{which}: span {span_id[:8]}… of trace {trace_id[:8]}… is not loaded (evicted, or not "
                        f"recorded)", severity="warning", timeout=4)
            return
        self._following = (source, index, target.span_id)
        self._reveal(target)
        self.refresh_bindings()
        self.notify(f"{which} of {source.name}: {target.name} on {target.instance}", timeout=3)

    def _next_link(self) -> tuple[SpanRecord, int] | None:
        """The span whose links `o` follows now and the link it takes: on a span `o` led to, the next link of the span
        it came from (in turn); else the selected span's first link. None: `o` has nowhere to go."""
        span, following = self.detail.span, self._following
        if span is None:
            return None
        if following is not None and following[2] == span.span_id and len(following[0].links) > 1:
            return following[0], (following[1] + 1) % len(following[0].links)
        return (span, 0) if span.links else None

    def _reveal(self, span: SpanRecord) -> None:
        """show_span, unfolding the spans that hide it in the waterfall (a trace already shown keeps its folds)."""
        self.show_span(span)
        current = self.waterfall.current_span
        if current is not None and current.span_id == span.span_id:
            return
        trace = self.store.traces.get(span.trace_id)
        parent = span
        while trace is not None and parent.parent_id:
            self.waterfall.collapsed.discard(parent.parent_id)
            if parent.parent_id not in trace.spans:
                self.waterfall.collapsed.discard(ORPHANS)
                break
            parent = trace.spans[parent.parent_id]
        self.waterfall.rebuild(force=True)
        self.show_span(span)

    # -- a lesson -----------------------------------------------------------------------------------------------------

    def on_lesson_pane_jump(self, message: LessonPane.Jump) -> None:
        """Show the span a lesson's check quoted (once it has reached the store), else the step's newest."""
        self._jump = (message.refs, message.about, time.monotonic() + JUMP_TRIES_S)
        self._try_jump(time.monotonic())

    def _try_jump(self, now: float) -> None:
        refs, about, until = self._jump
        self._jump_tried = now
        span = next((found for ref in refs if (found := find_ref(self.store, ref)) is not None), None)
        if span is None and (not refs or now >= until) and about:
            span = newest_about(self.store, about)
        if span is not None or now >= until:
            self._jump = None
        if span is not None:
            self.show_span(span)

    def show_span(self, span: SpanRecord) -> None:
        """The span's trace in the waterfall, its row under the cursor, its detail below."""
        self.traces.rebuild()  # spans filed since the last frame: the trace may not be listed yet
        self.traces.select_trace(span.trace_id)
        self.waterfall.show(span.trace_id)
        row = next((i for i, (_, span_id) in enumerate(self.waterfall.rows) if span_id == span.span_id), None)
        if row is not None:
            self.waterfall._move(row)

    def on_lesson_pane_waiting(self, message: LessonPane.Waiting) -> None:
        # d and Enter answer the lesson only while it waits; a lesson thread may still say so as the app quits,
        # when there is no screen left to refresh
        if self.is_running and self.screen_stack:
            self.refresh_bindings()

    def action_lesson_focus(self) -> None:
        if self.lesson_pane.asking is not None:
            self.lesson_pane.input.focus()
        else:
            self.lesson_pane.text.focus()

    def action_lesson_do(self) -> None:
        self.lesson_pane.answer("d")

    def action_lesson_enter(self) -> None:
        self.lesson_pane.answer("")

    # -- search -----------------------------------------------------------------------------------------------------

    def action_search(self) -> None:
        self.search.display = True
        self.search.focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.traces.set_filter(event.value)
        self.waterfall.needle = event.value.lower().strip()
        self.waterfall.refresh()

    @on(Input.Submitted, "#search")
    def _search_done(self) -> None:
        self.search.display = bool(self.search.value)
        self.traces.focus()

    def action_toggle_background(self) -> None:
        """`f`: show or fold the background traffic in the trace list (tui.store.is_background says what it is)."""
        self.traces.toggle_background()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.search.has_focus:
            self.search.value = ""
            self.search.display = False
            self.traces.focus()
            event.stop()
            return
        # A key whose every action is switched off right now (a replay, nothing paused) did nothing: say why.
        actions = [binding.action for binding in self.BINDINGS if isinstance(binding, Binding)
                   and event.key in binding.key.split(",") and binding.action in CONTROL_ACTIONS]
        if actions and self.screen is self.screen_stack[0] and not any(self.check_action(a, ()) for a in actions):
            self._refused(actions[-1])
        elif (event.key == "o" and self.screen is self.screen_stack[0] and not isinstance(self.focused, Input)
              and not self.check_action("follow_link", ())):
            self.notify("o follows a span's links: select a span that has some (the Detail pane lists them)",
                        severity="warning", timeout=4)

    # -- keys -------------------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action.startswith("lesson_"):
            pane = self.lesson_pane
            if pane is None:
                return False
            if action == "lesson_do":
                return pane.waits_for_action
            if action == "lesson_enter":
                return pane.asking is not None and not pane.asking[2]
            return True
        if action == "next_view":
            return self.kraft
        if action == "follow_link":
            return self._next_link() is not None
        if action in CONTROL_ACTIONS and self.control is None:
            return False
        if action in ("next_step", "continue_paused"):
            return bool(self.paused)
        if action == "create_topic":
            return not self.paused
        return True

    def refusal(self, action: str) -> str | None:
        """Why an action key cannot act now, in words for the user; None when it can."""
        key = ACTION_KEYS[action]
        if self.control is None:
            if self.reader is None:
                return f"{key}: the cluster is still starting"
            return f"{key} acts on a live cluster; this run has finished, and a replay only shows what happened"
        if action in BROKER_ACTIONS and self.kraft:
            node = self.quorum_pane.selected_node
            if node is None:
                return f"{key}: no controller or broker has started yet"
            view = self.quorum.voters.get(node) or self.quorum.brokers.brokers.get(node)
            if getattr(view, "in_run", True) is False:
                return f"{key}: broker {node} is not one of this run's processes (only the metadata records name it)"
            if action != "restart" and view is not None and not view.alive:
                return f"{key}: {self._node(node)} is not running ({view.status}); r starts it"
        elif action in BROKER_ACTIONS:
            broker = self.cluster_pane.selected_broker
            if broker is None:
                if self.cluster_pane.current is None:
                    return f"{key}: no broker has started yet"
                return (f"{key} acts on a broker, and the Cluster pane's cursor is on ZooKeeper: move it to a broker "
                        f"(j/k in the Cluster pane)")
            view = self.model.brokers.get(broker)
            if action != "restart" and view is not None and not view.alive:
                return f"{key}: broker {broker} is not running; r starts it"
        if action == "isolate" and not self.control.has_network():
            return (f"{key}: this run's processes share the host's network; start one with "
                    f"`kafka-edu cluster up --netns` (as root) to cut links")
        if action in ("create_topic", "produce") and self.kraft and not self._kraft_brokers():
            return (f"{key}: this KRaft run has controllers only, and topics live on brokers (start one with "
                    f"`kafka-edu tui --mode kraft --brokers N`)")
        if action in ("next_step", "continue_paused") and not self.paused:
            return f"{key}: no broker is paused at a breakpoint (b on a span's step sets one, then r a broker)"
        if action == "produce" and not self._topics():
            return f"{key}: no topic yet; create one with c"
        if action == "breakpoint":
            span = self.waterfall.current_span
            if span is None or not span.step:
                return f"{key}: select a span with a FIDELITY step in the Waterfall first"
        return None

    def _refused(self, action: str) -> bool:
        """Say why `action` cannot act now, if it cannot: a warning toast, over the panes the user is looking at."""
        reason = self.refusal(action)
        if reason is not None:
            self.notify(reason, severity="warning", timeout=6)
        return reason is not None

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_zoom(self) -> None:
        if self.screen.maximized is not None:
            self.screen.minimize()
        elif self.lesson_pane is not None and self.lesson_pane in getattr(self.focused, "ancestors", ()):
            self.screen.maximize(self.lesson_pane, container=False)  # its input or text: the whole pane
        elif self.focused is not None:
            self.screen.maximize(self.focused)

    def action_screenshot(self) -> None:
        if self.run_dir is not None and self.run_dir.is_dir():
            path = self.save_screenshot(path=str(self.run_dir))
            self.notify(f"screenshot saved: {path}")

    def _broker_for(self, action: str) -> int | None:
        """The broker under the Cluster pane's cursor (the controller or broker under the Quorum pane's, on a KRaft
        run), or None (and the user is told why) if `action` cannot act."""
        if self._refused(action):
            return None
        return self.quorum_pane.selected_node if self.kraft else self.cluster_pane.selected_broker

    def _node(self, node_id: int) -> str:
        return f"controller {node_id}" if self.kraft and node_id in self.quorum.voters else f"broker {node_id}"

    def _kraft_brokers(self) -> list[int]:
        """A KRaft run's brokers, as its manifest and trace name them (not those only the records name)."""
        return sorted(n for n, broker in self.quorum.brokers.brokers.items() if broker.in_run)

    def _topics(self) -> list[str]:
        """The topics, oldest first: a KRaft run's from its committed TopicRecords, else from the controller's trace."""
        return self.quorum.brokers.topics if self.kraft else self.model.topics

    def action_kill(self) -> None:
        if (broker := self._broker_for("kill")) is not None:
            self._control(f"kill -9 {self._node(broker)}", "kill", broker)

    def action_stop(self) -> None:
        if (broker := self._broker_for("stop")) is not None:
            self._control(f"controlled stop of {self._node(broker)}", "stop", broker)

    def action_restart(self) -> None:
        if (broker := self._broker_for("restart")) is not None:
            if self.kraft:
                node = self.quorum.voters.get(broker) or self.quorum.brokers.brokers.get(broker)
                running = node is not None and node.alive
            else:
                view = self.model.brokers.get(broker)
                running = view is not None and view.alive and view.state != "NotRunning"
            self._control(f"restart of {self._node(broker)}", "restart" if running else "start", broker)

    def action_pause(self) -> None:
        if (broker := self._broker_for("pause")) is not None:
            if self.kraft:
                node = self.quorum.voters.get(broker) or self.quorum.brokers.brokers.get(broker)
                paused = node is not None and node.paused
            else:
                paused = self.model.brokers[broker].paused if broker in self.model.brokers else False
            self._control(f"{'resume' if paused else 'pause'} {self._node(broker)}", "resume" if paused else "pause",
                          broker)

    def action_isolate(self) -> None:
        if (node := self._broker_for("isolate")) is not None:
            self._control(f"isolate / heal {self._node(node)}", "isolate_or_heal", node)

    def action_create_topic(self) -> None:
        if self.kraft and self._refused("create_topic"):
            return
        def create(answer: tuple[str, int, int] | None) -> None:
            if answer is not None:
                self._control(f"create topic {answer[0]}", "create_topic", *answer)
        brokers = len(self._kraft_brokers()) if self.kraft else len(self.model.brokers)
        self.push_screen(CreateTopicScreen(brokers), create)

    def action_produce(self) -> None:
        if self._refused("produce"):
            return
        topic = self._topics()[-1]
        self._control(f"produce {BURST} messages to {topic}", "produce_burst", topic, BURST)

    def action_breakpoint(self) -> None:
        if self._refused("breakpoint"):
            return
        span = self.waterfall.current_span
        if span.step in self.breakpoints:
            self.breakpoints.discard(span.step)
            self._control(f"breakpoint cleared on {span.step}", "clear_breakpoint", span.step)
        else:
            self.breakpoints.add(span.step)
            self._control(f"breakpoint set on {span.step} {span.name}", "set_breakpoint", span.step)

    def _paused_target(self) -> Paused:
        if self.kraft:
            node = self.quorum_pane.selected_node
            instance = f"controller-{node}" if node in self.quorum.voters else f"broker-{node}"
            return next((p for p in self.paused if p.instance == instance), self.paused[0])
        broker = self.cluster_pane.selected_broker
        return next((p for p in self.paused if p.broker_id == broker), self.paused[0])

    def action_next_step(self) -> None:
        target = self._paused_target()
        self._control(f"{_who(target)}: next step", "step_next", target.instance)

    def action_continue_paused(self) -> None:
        target = self._paused_target()
        self._control(f"{_who(target)}: continue", "continue_", target.instance)

    def _control(self, what: str, verb: str, *args: object) -> None:
        self.notify(what + "…", timeout=2)
        self._run_control(what, verb, args)

    @work(thread=True, group="control")
    def _run_control(self, what: str, verb: str, args: tuple[object, ...]) -> None:
        """Control calls block (a controlled stop takes seconds): they run here, and say how they ended."""
        try:
            result = self._restart(*args) if verb == "restart" else getattr(self.control, verb)(*args)
        except Exception as e:  # a failed action is news for the user, not a crash
            self.call_from_thread(self.notify, f"{what} failed: {type(e).__name__}: {e}", severity="error")
            return
        done = f"{what}: done" + (f" ({result})" if result is not None else "")
        self.call_from_thread(self.notify, done, timeout=3)
        if self.lesson_pane is not None:  # the lesson was waiting for the learner to act: it checks now
            while verb == "stop" and self.control is not None and self.control.stopping(*args):
                time.sleep(0.1)  # as `kafka-edu cluster stop` does, once the broker has shut down
            self.call_from_thread(self.lesson_pane.acted, verb)


    def _restart(self, broker_id: int) -> None:
        """A controlled stop returns at once; the new process starts once the old one has exited."""
        self.control.stop(broker_id)
        while self.control.stopping(broker_id):
            time.sleep(0.1)
        self.control.start(broker_id)


def _who(paused: Paused) -> str:
    return f"broker {paused.broker_id}" if paused.broker_id is not None else paused.instance


def run(run_dir: Path | None, launch: ClusterLaunch | None = None, lesson: Lesson | None = None) -> None:
    KafkaEduApp(run_dir, launch, lesson=lesson).run()


@dataclass(frozen=True)
class StatusPart:
    """One part of the status line; `short` is what it says where the line has no room for `text`, and a part that
    is not `keep` is left out where there is no room for it at all (the least needed are last)."""

    text: str
    short: str | None = None
    keep: bool = False


def fit_status(parts: list[StatusPart], width: int) -> str:
    """The parts joined by ` · `, each one whole, in `width` columns if they can be: the short forms first, from the
    line's end, then the parts that may go, from its end. Only the parts that must stay may run past the edge."""
    chosen: list[str | None] = [part.text for part in parts]

    def too_long() -> bool:
        line = " · ".join(c for c in chosen if c)
        try:
            return Text.from_markup(line).cell_len > width
        except MarkupError:  # shown as it is
            return len(line) > width

    for i in reversed(range(len(parts))):
        if not too_long():
            break
        if parts[i].short is not None:
            chosen[i] = parts[i].short
    for i in reversed(range(len(parts))):
        if not too_long():
            break
        if not parts[i].keep:
            chosen[i] = None
    return " · ".join(c for c in chosen if c)


def request_policy_parts(span_stats: dict[str, dict[str, object]]) -> list[StatusPart]:
    """The request-path sampling policy and what it and the budget left out, once the brokers have reported."""
    if not span_stats:
        return []
    settings = next(iter(span_stats.values())).get("settings") or {}
    if settings.get("sampling"):
        parts = [StatusPart(f"request traces: all up to {settings['rate']:g}/s per kind, then 1 in "
                            f"{settings['one_in']}, slow ≥ {settings['slow_ms']:g} ms and failed always",
                            "request traces sampled")]
    else:
        parts = [StatusPart("request traces: all")]
    sampled = sum(int(s.get("sampled_out_spans", 0) or 0) for s in span_stats.values())
    budget = sum(int(s.get("budget_dropped_spans", 0) or 0) for s in span_stats.values())
    if sampled:
        parts.append(StatusPart(f"{sampled:,} request spans sampled out", f"{sampled:,} sampled out"))
    if budget:
        parts.append(StatusPart(f"[yellow]{budget:,} oldest request spans dropped for the "
                                f"{int(settings.get('budget_bytes', 0)) >> 20} MB budget[/]",
                                f"[yellow]{budget:,} dropped (budget)[/]", keep=True))
    return parts
