"""The Groups pane (`v` on a KRaft run): each consumer group the run's coordinators served, a row for the group
(protocol, state, group epoch or generation, its coordinator, live or traced) and a row per member (short member id,
client id, member epoch, assigned partitions, and for a KIP-848 member what it still has to give up and what its
target adds)."""

from __future__ import annotations

import time

from rich.segment import Segment
from rich.style import Style

from tui.groups import CLASSIC, GroupsModel, GroupView, MemberView, compact_partitions
from tui.widgets.rows import RowsView

DIM = Style(dim=True)
GROUP = Style(bold=True, color="bright_cyan")
STATE_STYLES = {
    "Stable": Style(color="green"), "STABLE": Style(color="green"), "Empty": DIM, "EMPTY": DIM,
    "Assigning": Style(color="yellow"), "ASSIGNING": Style(color="yellow"), "Reconciling": Style(color="yellow"),
    "RECONCILING": Style(color="yellow"), "PreparingRebalance": Style(color="yellow"),
    "CompletingRebalance": Style(color="yellow"), "Dead": Style(color="red"), "DEAD": Style(color="red"),
}
REVOKE = Style(color="dark_orange")
PENDING = Style(color="yellow")

Row = tuple[str, str | None]  # (group id, member id or None for the group's own row)


class GroupsPane(RowsView[Row]):
    """Rows: each group, then its members (by member id); the cursor stays on the row it was on as groups change."""

    def __init__(self, model: GroupsModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self._version = -1
        self._views: dict[str, GroupView] = {}

    def rebuild(self) -> None:
        if self._version == self.model.version:
            return
        self._version = self.model.version
        rows: list[Row] = []
        self._views = {}
        for group in self.model.groups():
            self._views[group.group_id] = group
            rows.append((group.group_id, None))
            rows += [(group.group_id, member_id) for member_id in sorted(group.members)]
        self.set_rows(rows, keep_cursor_on=self.current)
        self.border_title = self.title_text()
        self.refresh()

    def title_text(self) -> str:
        model = self.model
        groups = model.groups()
        text = f"Groups · {len(groups)}" if groups else "Groups · none yet"
        if model.live_at is not None:
            live = sum(1 for g in groups if g.live_at is not None)
            text += f" · {live} live ({time.strftime('%H:%M:%S', time.localtime(model.live_at))})"
            if model.live_errors:
                text += " · no answer from " + ",".join(f"b{b}" for b in sorted(model.live_errors))
        elif groups:
            text += " · from the trace"
        return text

    def render_row(self, row: Row, width: int, base: Style) -> list[Segment]:
        group = self._views.get(row[0])
        if group is None:
            return []
        if row[1] is None:
            return self._group_row(group, width)
        member = group.members.get(row[1])
        return self._member_row(group, member, width) if member is not None else []

    def _group_row(self, group: GroupView, width: int) -> list[Segment]:
        segments = [Segment(group.group_id + " ", GROUP), Segment(f"{group.protocol} ", DIM)]
        if group.state:
            segments.append(Segment(group.state + " ", STATE_STYLES.get(group.state, Style())))
        epoch = "—" if group.epoch is None else str(group.epoch)
        if group.protocol == CLASSIC:
            segments.append(Segment(f"gen {epoch} " if width < 70 else f"generation {epoch} "))
        else:
            segments.append(Segment(f"epoch {epoch} "))
            if group.members and group.assignment_epoch is not None and group.epoch is not None \
                    and group.assignment_epoch < group.epoch:
                # ASSIGNING: the group moved on and its target assignment has not caught up yet
                segments.append(Segment(f"(target {group.assignment_epoch}) ", PENDING))
        tail = [f"{len(group.members)} member{'s' * (len(group.members) != 1)}"]
        if group.coordinator is not None:
            tail.append(f"on b{group.coordinator}")
        tail.append("live" if group.live_at is not None else "trace")
        segments.append(Segment("· " + " · ".join(tail), DIM))
        return segments

    def _member_row(self, group: GroupView, member: MemberView, width: int) -> list[Segment]:
        segments = [Segment("  "), Segment(member.short_id + " ", Style(bold=True))]
        if width >= 70:
            segments.append(Segment(f"{(member.client_id or '—')[:16]:<16} ", DIM))
        elif member.client_id:
            segments.append(Segment(member.client_id[:8] + " ", DIM))
        if group.protocol != CLASSIC:
            epoch = "?" if member.epoch is None else member.epoch
            behind = member.epoch is not None and group.epoch is not None and member.epoch < group.epoch
            segments.append(Segment(f"e{epoch:<3} ", PENDING if behind else Style()))
        if member.assigned is None:
            segments.append(Segment("assignment not traced", DIM))
        else:
            segments.append(Segment(compact_partitions(member.assigned) or "no partitions",
                                    Style() if member.assigned else DIM))
        revoke, pending = member.to_revoke, member.pending
        if revoke:  # it still owns them and must give them up before its epoch moves on
            segments += [Segment(" "), Segment("· revoking " + compact_partitions(revoke), REVOKE)]
        if pending:  # in its target, not yet its own: another member still holds them
            segments += [Segment(" "), Segment("· pending " + compact_partitions(pending), PENDING)]
        return segments
