"""The Quorum pane (each KRaft voter: role, epoch, log end offset, high watermark, a lag bar, ◇ on a controller that
only observes; below them each broker: fenced or not, broker epoch, BrokerState, pid), the Metadata log pane (the
committed metadata records, newest last, NoOps folded) and the Voters pane (KIP-853: the voter set now and each
change to it)."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.kraft_brokers import KRaftBrokerView
from tui.quorum import LEADER, MetadataEntry, QuorumModel, VoterKey, VotersChange, VoterView, describe_change
from tui.widgets.format import clock
from tui.widgets.rows import RowsView

ROLE_STYLES = {
    LEADER: Style(color="bright_yellow", bold=True), "Follower": Style(color="green"),
    "Candidate": Style(color="yellow"), "Unattached": Style(color="yellow"), "Resigned": Style(color="dark_orange"),
    "starting": Style(color="yellow"), "paused": Style(color="magenta", bold=True),
    "killed": Style(color="red", bold=True), "exited": Style(color="red", bold=True), "stopped": Style(dim=True),
}
# A broker's registration (as the controllers decided it) and its BrokerState (3.9's names) or what became of it
REGISTRATION_STYLES = {
    "unfenced": Style(color="green"), "fenced": Style(color="red", bold=True),
    "shutdown": Style(color="dark_orange"), "—": Style(dim=True),
}
BROKER_STYLES = {
    "RUNNING": Style(color="green"), "STARTING": Style(color="yellow"), "RECOVERY": Style(color="yellow"),
    "PENDING_CONTROLLED_SHUTDOWN": Style(color="dark_orange"), "SHUTTING_DOWN": Style(color="dark_orange"),
    "starting": Style(color="yellow"), "paused": Style(color="magenta", bold=True),
    "killed": Style(color="red", bold=True), "exited": Style(color="red", bold=True), "stopped": Style(dim=True),
}
STAR = Style(color="bright_yellow", bold=True)
OBSERVER = Style(color="bright_blue", bold=True)
DIM = Style(dim=True)
LAG_SCALE_MIN = 20  # records: below this the bars do not stretch, so a lag of one is a sliver, not a full bar
EIGHTHS = " ▏▎▍▌▋▊▉"
KIND_STYLES = {
    "LeaderChange": Style(color="bright_yellow"), "KRaftVoters": Style(color="bright_yellow"),
    "KRaftVersion": Style(color="bright_yellow"), "NO_OP_RECORD": DIM,
    "TOPIC_RECORD": Style(color="bright_cyan"), "PARTITION_RECORD": Style(color="cyan"),
    "PARTITION_CHANGE_RECORD": Style(color="cyan"), "REMOVE_TOPIC_RECORD": Style(color="bright_cyan"),
    "REGISTER_BROKER_RECORD": Style(color="bright_green"), "UNFENCE_BROKER_RECORD": Style(color="green"),
    "FENCE_BROKER_RECORD": Style(color="red"), "UNREGISTER_BROKER_RECORD": Style(color="red"),
    "BROKER_REGISTRATION_CHANGE_RECORD": Style(color="green"), "FEATURE_LEVEL_RECORD": Style(color="blue"),
    "BEGIN_TRANSACTION_RECORD": Style(color="magenta"), "END_TRANSACTION_RECORD": Style(color="magenta"),
    "ABORT_TRANSACTION_RECORD": Style(color="red"), "?": Style(color="red"),
}


def lag_bar(lag: int, scale: int, width: int) -> str:
    """`lag` of `scale` as a bar `width` cells long, to the eighth of a cell; a lag of one or more shows at least
    a sliver."""
    if width <= 0:
        return ""
    eighths = min(round(lag / max(scale, 1) * width * 8), width * 8)
    if lag > 0:
        eighths = max(eighths, 1)
    full, part = divmod(eighths, 8)
    bar = "█" * full + (EIGHTHS[part] if part else "")
    return bar.ljust(width)


def _number(value: int | None) -> str:
    return f"{value:,}" if value is not None else "—"


class QuorumPane(RowsView[int]):
    """Rows are node ids: the voters', then the brokers' (one id space on a KRaft cluster); the cursor picks the node,
    controller or broker, the action keys (x s r p) act on."""

    def __init__(self, model: QuorumModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self._version = -1

    def rebuild(self) -> None:
        if self._version == self.model.version:
            return
        self._version = self.model.version
        voters = sorted(self.model.voters)
        nodes = voters + sorted(n for n in self.model.brokers.brokers if n not in self.model.voters)
        keep = nodes[0] if nodes and not self.moved_by_user else self.current
        self.set_rows(nodes, keep_cursor_on=keep)
        self.border_title = self.title_text()
        self.border_subtitle = self.subtitle_text()
        self.refresh()

    def on_resize(self) -> None:
        super().on_resize()
        self.border_subtitle = self.subtitle_text()  # what fits depends on the width

    def subtitle_text(self) -> str:
        """The brokers' fencing in a few words, and what the lag bar measures where there is room."""
        parts = []
        brokers = self.model.brokers
        if brokers.brokers:
            fenced, unfenced = brokers.fenced, brokers.unfenced
            counts = [f"{len(unfenced)} unfenced"] * bool(unfenced) + [
                "fenced " + ",".join(f"b{n}" for n in fenced)] * bool(fenced)
            parts.append("brokers: " + (", ".join(counts) or "none registered"))
        if any(self.model.membership.is_observer(n) for n in self.model.voters):
            parts.append("◇ observer")
        lag = "lag: records behind the leader"
        if self.model.voters and (not parts or len(parts[0]) + len(lag) + 7 <= self.size.width):
            parts.append(lag)
        return " · ".join(parts)

    def title_text(self) -> str:
        model = self.model
        leader = model.leader_id
        if leader is not None:
            text = f"Quorum · ★ c{leader} · epoch {model.epoch}"
        elif model.live:
            text = f"Quorum · no leader · epoch {model.epoch}" if model.epoch >= 0 else "Quorum · no leader yet"
        elif model.last_leader is not None:
            text = f"Quorum · finished · last ★ c{model.last_leader[0]}, epoch {model.last_leader[1]}"
        else:
            text = "Quorum"
        replication = model.replication
        if replication is not None:
            text += f" · HW {replication.high_watermark:,}"
            if model.replication_state == "last known":
                text += f" (last known, {time.strftime('%H:%M:%S', time.localtime(replication.at))})"
        elif any(v.disk_end_offset is not None for v in model.voters.values()):
            text += " · LEO on disk"
        return text

    @property
    def selected_node(self) -> int | None:
        """The controller or broker under the cursor."""
        return self.current

    @property
    def selected_voter(self) -> int | None:
        return self.current if self.current in self.model.voters else None

    def is_broker(self, node_id: int | None) -> bool:
        return node_id is not None and node_id not in self.model.voters and node_id in self.model.brokers.brokers

    def _scale(self) -> int:
        lags = [self.model.lag(n) or 0 for n in self.model.voters]
        return max([LAG_SCALE_MIN, *lags])

    def render_row(self, row: int, width: int, base: Style) -> list[Segment]:
        if row not in self.model.voters:
            return self._broker_row(self.model.brokers.brokers[row], width)
        model = self.model
        voter = model.voters[row]
        running = voter.running or not model.live  # a finished run: every voter as it last was
        star = Segment("★ " if row == (model.leader_id if model.live else (model.last_leader or (None,))[0])
                       else "  ", STAR)
        if star.text == "  " and model.membership.is_observer(row):
            star = Segment("◇ ", OBSERVER)  # outside the voter set: it fetches, but neither votes nor counts
        # A finished run: what each voter last was (one that never took a role: how it ended).
        status = voter.status if model.live or voter.change is None else voter.role
        epoch = voter.epoch
        superseded = not model.live and (epoch or -1) < model.epoch  # it last knew an older epoch than the others
        segments = [star, Segment(f"c{row} ", Style(bold=True)),
                    Segment(f"{status:<10} ", DIM if superseded else ROLE_STYLES.get(status, Style())),
                    Segment(f"e{epoch if epoch is not None else '?':<3} ", Style() if running else DIM)]
        stale = DIM if model.replication_state != "fresh" else Style()
        end_offset, lag, high_watermark = model.end_offset(row), model.lag(row), model.high_watermark(row)
        if width >= 50:  # labelled, with each voter's high watermark; the numbers narrower below 72 columns
            digits = 6 if width >= 72 else 5
            segments += [Segment(f"LEO {_number(end_offset):>{digits}} ", stale),
                         Segment(f"HW {_number(high_watermark):>{digits}} ", stale)]
        else:
            segments.append(Segment(f"{_number(end_offset):>6} ", stale))
        if lag is None:
            lag_text = ""
        elif width >= 56:
            lag_text = "caught up" if lag == 0 else f"{lag:,} behind"
        else:
            lag_text = f"{lag:,}"
        tail = self._tail(voter, width)
        used = sum(s.cell_length for s in segments)
        bar_width = max(width - used - len(lag_text) - 3 - len(tail), 0)
        if lag is not None and bar_width >= 3:
            scale = self._scale()
            color = ("red" if not running or lag > scale // 2 else "yellow" if lag > 2 else "green")
            segments += [Segment("▕", DIM), Segment(lag_bar(lag, scale, bar_width), Style(color=color)),
                         Segment("▏", DIM)]
        segments.append(Segment(f" {lag_text}", Style(color="green") if lag == 0 and running else stale))
        if tail:
            segments.append(Segment(tail, DIM))
        return segments

    def _broker_row(self, broker: KRaftBrokerView, width: int) -> list[Segment]:
        """b4, then what the controllers make of it (fenced, unfenced, in controlled shutdown), its broker epoch, its
        BrokerState (or how its process ended), the state it was in when it ended, its pid: each where it fits."""
        live = self.model.live
        registration = broker.registration
        epoch = broker.epoch if broker.epoch is not None else "?"
        # A finished run: each broker as its trace last told it (one that never told: how it ended).
        status = broker.status if live or not broker.state else broker.state
        segments = [Segment("  "), Segment(f"b{broker.node_id} ", Style(bold=True)),
                     Segment(f"{registration:<10} ", REGISTRATION_STYLES.get(registration, Style())),
                     Segment(f"e{epoch:<4} ", Style() if broker.running or not live else DIM),
                     Segment(f"{status:<10}", BROKER_STYLES.get(status, Style()))]
        used = sum(s.cell_length for s in segments)
        tail = []
        if live and broker.in_run and not broker.running and broker.state and width - used >= 20:
            tail.append(f"{'in' if broker.paused else 'was'} {broker.state}")  # a paused one is still in it
        if broker.pid and width - used - sum(len(t) + 2 for t in tail) >= 11:
            tail.append(f"pid {broker.pid}")
        if tail:
            segments.append(Segment("  " + "  ".join(tail), DIM))
        return segments

    def _tail(self, voter: VoterView, width: int) -> str:
        """After the bar, where there is room: what a voter no longer running last was, or when it last fetched."""
        if width < 72:
            return ""
        if self.model.live and not voter.running and voter.change is not None:
            return f"  was {voter.role}"
        replication = self.model.replication
        if width < 96 or replication is None or voter.node_id == replication.leader_id \
                or self.model.replication_state != "fresh":
            return ""
        progress = replication.voters.get(voter.node_id)
        if progress is None or progress.last_fetch_ms < 0:
            return ""
        age = replication.at - progress.last_fetch_ms / 1000
        return f"  fetched {age:.1f}s ago" if age < 100 else f"  fetched {age:.0f}s ago"


class MetadataPane(RowsView[MetadataEntry]):
    """The committed metadata records, newest last; follows the newest unless the cursor was moved up. Enter asks
    for the trace that wrote the record under the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "open", "Its trace")]

    class Opened(Message):
        """Enter on a record: show the trace that wrote it."""

        def __init__(self, entry: MetadataEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, model: QuorumModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self._version = -1
        self._title_key: tuple[object, ...] = ()

    def rebuild(self) -> None:
        key = (self.model.records_source, self.model.noops, self.model.high_watermark_limit, len(self.model.records),
               self.model.live)
        if key != self._title_key:
            self._title_key = key
            self.border_title = self.title_text()
        if self._version == self.model.records_version:
            return
        self._version = self.model.records_version
        following = not self.rows or self.cursor >= len(self.rows) - 1
        self.set_rows(list(self.model.records), keep_cursor_on=None if following else self.current)
        if following:
            self.action_jump(-1)
        self.refresh()

    def action_open(self) -> None:
        if self.current is not None:
            self.post_message(self.Opened(self.current))

    def title_text(self) -> str:
        model = self.model
        if model.records_source is None or not model.records:
            return "Metadata log · no records yet" if model.live else "Metadata log · no records"
        records = sum(entry.count for entry in model.records)
        text = f"Metadata log (c{model.records_source}) · {records:,} records"
        if model.noops:
            text += f" · {model.noops:,} NoOps folded"
        if model.high_watermark_limit is not None:
            text += f" · committed: below HW {model.high_watermark_limit:,}"
        else:
            text += " · the whole log (HW unknown)"
        return text

    def render_row(self, row: MetadataEntry, width: int, base: Style) -> list[Segment]:
        segments = []
        if width >= 70:
            segments.append(Segment(clock(row.timestamp_ms * 1_000_000) + " ", DIM))
        column = 9 if width >= 70 else 7
        if row.folded and row.count > 1:
            offsets = f"{row.offset}–{row.last_offset}"
            kind = row.kind if width >= 50 else row.kind.removesuffix("_RECORD")
            segments += [Segment(f"{offsets:>{column}} ", DIM), Segment(f"e{row.epoch:<2} ", DIM),
                         Segment(f"{kind} × {row.count}", DIM)]
            return segments
        segments += [Segment(f"{row.offset:>{column}} "), Segment(f"e{row.epoch:<2} ", DIM)]
        # Narrow, or a record that says too much for the row: the type without its `_RECORD` suffix, so that what the
        # record says (`broker 4 unfenced, epoch 12`) keeps the room
        used = sum(s.cell_length for s in segments)
        long = used + len(row.kind) + 1 + len(row.summary) > width
        kind = row.kind if width >= 50 and not long else row.kind.removesuffix("_RECORD")
        segments.append(Segment(kind + " ", KIND_STYLES.get(row.kind, Style())))
        if row.summary:
            segments.append(Segment(row.summary))
        return segments


VoterRow = tuple[str, object]  # ("voter", VoterKey) | ("head", text) | ("change", VotersChange)


class VotersPane(RowsView[VoterRow]):
    """KIP-853's voter set: first the newest set (each voter's id, directory id, endpoint, role), then every change to
    it, oldest first: the bootstrap set, each VotersRecord (who was added or removed, at which offset, when it took
    effect on the first node and when the high watermark passed it), each refused AddRaftVoter / RemoveRaftVoter."""

    def __init__(self, model: QuorumModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self._version = (-1, -1)

    def rebuild(self) -> None:
        version = (self.model.membership.version, self.model.version)
        if self._version == version:
            return
        self._version = version
        membership = self.model.membership
        rows: list[VoterRow] = [("voter", key) for key in membership.voters or ()]
        observers = sorted(n for n in self.model.voters if membership.is_observer(n))
        rows += [("observer", membership.key(n)) for n in observers]
        history = membership.history()
        if history:
            rows.append(("head", f"changes ({len(history)})"))
            rows += [("change", change) for change in history]
        following = not self.rows or self.cursor >= len(self.rows) - 1
        self.set_rows(rows, keep_cursor_on=None if following else self.current)
        if following:
            self.action_jump(-1)
        self.border_title = self.title_text()
        self.refresh()

    def title_text(self) -> str:
        membership = self.model.membership
        ids = membership.voter_ids
        if ids is None:
            return "Voters · no voter set traced (a static quorum: controller.quorum.voters)"
        where = f"offset {membership.offset}" if membership.offset >= 0 else "bootstrap checkpoint"
        return f"Voters · [{','.join(map(str, ids))}] since {where}"

    def render_row(self, row: VoterRow, width: int, base: Style) -> list[Segment]:
        kind, item = row
        if kind == "head":
            return [Segment(f"── {item} ", DIM)]
        if kind in ("voter", "observer"):
            return self._voter_row(item, kind == "observer", width)
        return self._change_row(item, width)

    def _voter_row(self, key: VoterKey, observer: bool, width: int) -> list[Segment]:
        model = self.model
        voter = model.voters.get(key.node_id)
        leader = key.node_id == (model.leader_id if model.live else (model.last_leader or (None,))[0])
        mark = Segment("★ ", STAR) if leader else Segment("◇ ", OBSERVER) if observer else Segment("  ")
        segments = [mark, Segment(f"c{key.node_id} ", Style(bold=True))]
        if width >= 50:
            segments.append(Segment(f"dir {key.short_directory:<8} ", DIM))
        segments.append(Segment(f"{key.endpoint or '—':<16} "))
        if observer:
            status = "observer"
        elif voter is None:
            status = "not in this run"
        else:  # as the Quorum pane says it: a finished run's voters as they last were
            status = voter.status if model.live or voter.change is None else voter.role
        superseded = voter is not None and not model.live and (voter.epoch or -1) < model.epoch
        segments.append(Segment(status, DIM if superseded else ROLE_STYLES.get(status, OBSERVER if observer else DIM)))
        return segments

    def _change_row(self, change: VotersChange, width: int) -> list[Segment]:
        segments = []
        if width >= 60:
            segments.append(Segment(clock(change.time_ns) + " ", DIM))
        if change.offset is None:  # a refused request
            name = "AddRaftVoter" if change.request == "add" else "RemoveRaftVoter"
            return [*segments, Segment(f"{name} {change.voter} refused: {change.error}", Style(color="red"))]
        text = describe_change(change) if change.offset >= 0 else f"bootstrap {_ids_text(change.after)}"
        style = Style(color="bright_green") if change.added else Style(color="red") if change.removed else Style()
        segments.append(Segment(text, style))
        if change.offset >= 0:
            if change.committed_ns is not None:
                segments += [Segment(" "), Segment(f"committed {clock(change.committed_ns)}", Style(color="green"))]
            elif change.request:
                segments += [Segment(" "), Segment("not committed yet", Style(color="yellow"))]
            if change.request and width >= 90:
                segments += [Segment(" "), Segment(f"· {change.request} request", DIM)]
        return segments


def _ids_text(ids: tuple[int, ...]) -> str:
    return "[" + ",".join(map(str, ids)) + "]"
