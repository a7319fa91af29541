"""The Cluster pane: ZooKeeper, then each broker with its BrokerState, ★ on the controller, partitions it leads."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style

from tui.cluster import NOT_RUNNING, ClusterModel
from tui.widgets.rows import RowsView

ZOOKEEPER = -1  # the row before the brokers
STATE_STYLES = {
    "RunningAsBroker": Style(color="green"), "Starting": Style(color="yellow"),
    "RecoveringFromUncleanShutdown": Style(color="yellow"), "PendingControlledShutdown": Style(color="dark_orange"),
    "BrokerShuttingDown": Style(color="dark_orange"), NOT_RUNNING: Style(dim=True),
}
DEAD = Style(color="red", bold=True)
STAR = Style(color="bright_yellow", bold=True)


class ClusterPane(RowsView[int]):
    """Rows are broker ids; the cursor picks the broker the action keys (x s r p) act on. Until the user moves it,
    the cursor stays on the first broker, so the action keys act on a broker from the start."""

    def __init__(self, model: ClusterModel, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model
        self._version = -1

    def rebuild(self) -> None:
        if self._version == self.model.version:
            return
        self._version = self.model.version
        brokers = sorted(self.model.brokers)
        keep = brokers[0] if brokers and not self.moved_by_user else self.current
        self.set_rows([ZOOKEEPER, *brokers], keep_cursor_on=keep)
        controller = self.model.controller_id
        self.border_title = (f"Cluster · ★ b{controller} · epoch {self.model.controller_epoch}"
                             if controller is not None else
                             f"Cluster · no controller · last epoch {self.model.controller_epoch}")

    @property
    def selected_broker(self) -> int | None:
        row = self.current
        return row if row is not None and row != ZOOKEEPER else None

    def render_row(self, row: int, width: int, base: Style) -> list[Segment]:
        if row == ZOOKEEPER:
            state = ("up", Style(color="green")) if self.model.zookeeper_alive else ("down", Style(dim=True))
            return [Segment("  zk "), Segment(f"{state[0]:<5}", state[1]),
                    Segment(f" {self.model.zookeeper or '(no manifest)'}", Style(dim=True))]
        broker = self.model.brokers[row]
        star = Segment("★ " if row == self.model.controller_id else "  ", STAR)
        if broker.paused:
            state, style = "paused (SIGSTOP)", Style(color="magenta")
        elif not broker.alive and broker.state != NOT_RUNNING:
            state, style = f"killed in {broker.state}", DEAD
        else:
            state, style = broker.state, STATE_STYLES.get(broker.state, Style())
        leads = self.model.leads(row)
        segments = [star, Segment(f"b{row} ", Style(bold=True)), Segment(f"{state:<16} ", style),
                    Segment(f"leads {leads} " if leads else "", Style())]
        used = sum(s.cell_length for s in segments)
        if broker.pid and width - used >= 10:  # the pid only where it fits whole
            segments.append(Segment(f"pid {broker.pid}", Style(dim=True)))
        return segments
