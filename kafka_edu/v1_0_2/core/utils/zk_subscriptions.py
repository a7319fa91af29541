"""ZkClient's listener subscriptions (org.I0Itec.zkclient, which Kafka 1.0.2's ZkUtils wraps) over kazoo watches.

Not a Kafka class: ZkClient calls a listener on every change after `subscribe*` and never for the state at the time
of subscribing, and `unsubscribe*` stops the calls. kazoo's ChildrenWatch / DataWatch call once at once and can only
be stopped from inside their callback, so each subscription skips that first call and ends itself when cancelled.
Like ZkClient after a session expiry, kazoo re-reads a watched znode on reconnecting and reports a change then.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from kazoo.client import KazooClient
from kazoo.protocol.states import EventType
from kazoo.recipe.watchers import ChildrenWatch, DataWatch


class IZkChildListener(Protocol):
    def handle_child_change(self, parent_path: str, current_childs: list[str]) -> None: ...


class IZkDataListener(Protocol):
    def handle_data_change(self, data_path: str, data: str) -> None: ...

    def handle_data_deleted(self, data_path: str) -> None: ...


class _Subscription:
    def __init__(self) -> None:
        self.active = True
        self.first_call = True


class ZkSubscriptions:
    """`subscribe_child_changes` / `subscribe_data_changes` and their `unsubscribe_*`, one listener per path once."""

    def __init__(self, zk_client: KazooClient) -> None:
        self.zk_client = zk_client
        self._lock = threading.Lock()
        self._subscriptions: dict[tuple[str, str, int], _Subscription] = {}

    def subscribe_child_changes(self, path: str, listener: IZkChildListener) -> None:
        subscription = self._add("child", path, listener)
        if subscription is None:
            return

        def on_children(children: list[str]) -> bool:
            if not subscription.active:
                return False
            if subscription.first_call:
                subscription.first_call = False
            else:
                listener.handle_child_change(path, list(children))
            return True

        ChildrenWatch(self.zk_client, path, on_children)

    def unsubscribe_child_changes(self, path: str, listener: IZkChildListener) -> None:
        self._remove("child", path, listener)

    def subscribe_data_changes(self, path: str, listener: IZkDataListener) -> None:
        subscription = self._add("data", path, listener)
        if subscription is None:
            return

        def on_data(data: bytes | None, stat: Any, event: Any = None) -> bool:
            if not subscription.active:
                return False
            if subscription.first_call:
                subscription.first_call = False
            elif stat is None or (event is not None and event.type == EventType.DELETED):
                listener.handle_data_deleted(path)
            else:
                listener.handle_data_change(path, (data or b"").decode())
            return True

        DataWatch(self.zk_client, path, on_data)

    def unsubscribe_data_changes(self, path: str, listener: IZkDataListener) -> None:
        self._remove("data", path, listener)

    def _add(self, kind: str, path: str, listener: object) -> _Subscription | None:
        with self._lock:
            key = (kind, path, id(listener))
            if key in self._subscriptions:
                return None
            subscription = self._subscriptions[key] = _Subscription()
            return subscription

    def _remove(self, kind: str, path: str, listener: object) -> None:
        with self._lock:
            subscription = self._subscriptions.pop((kind, path, id(listener)), None)
        if subscription is not None:
            subscription.active = False
