"""Port of core/src/main/scala/kafka/server/ActionQueue.scala (Kafka 3.9): actions (completing delayed requests)
queued while locks are held, run later by a request handler thread without them."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

log = logging.getLogger("kafka.server.DelayedActionQueue")


class ActionQueue:
    def add(self, action: Callable[[], None]) -> None:
        raise NotImplementedError

    def try_complete_actions(self) -> None:
        raise NotImplementedError


class DelayedActionQueue(ActionQueue):
    def __init__(self) -> None:
        self._queue: deque[Callable[[], None]] = deque()

    def add(self, action: Callable[[], None]) -> None:
        self._queue.append(action)

    def try_complete_actions(self) -> None:
        # only the actions queued when we started: others may keep adding while we run
        max_to_complete = len(self._queue)
        count = 0
        done = False
        while not done and count < max_to_complete:
            try:
                try:
                    action = self._queue.popleft()
                except IndexError:
                    done = True
                    continue
                action()
            except Exception:
                log.warning("Failed to complete the delayed action", exc_info=True)
            finally:
                count += 1
