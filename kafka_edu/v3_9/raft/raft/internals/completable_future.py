"""The part of java.util.concurrent.CompletableFuture the raft client uses, over concurrent.futures.Future.

Kafka's raft code completes futures from several threads (the raft thread, the expiration thread, the network
thread) and chains work on them; `complete` returns False instead of failing when another thread got there first.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from typing import Any, Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")


class CompletableFuture(Future, Generic[T]):  # type: ignore[type-arg]
    def complete(self, value: T) -> bool:
        try:
            self.set_result(value)
            return True
        except InvalidStateError:
            return False

    def complete_exceptionally(self, exception: BaseException) -> bool:
        try:
            self.set_exception(exception)
            return True
        except InvalidStateError:
            return False

    def is_completed_exceptionally(self) -> bool:
        return self.done() and not self.cancelled() and self.exception() is not None

    def when_complete(self, action: Callable[[T | None, BaseException | None], Any]) -> CompletableFuture[T]:
        """Run `action(value, exception)` once done (at once, on this thread, if already done)."""
        def done(f: Future) -> None:
            exception = f.exception()
            action(None if exception is not None else f.result(), exception)
        self.add_done_callback(done)
        return self

    def handle(self, fn: Callable[[T | None, BaseException | None], U]) -> CompletableFuture[U]:
        """A future of `fn(value, exception)`, computed when this one is done."""
        result: CompletableFuture[U] = CompletableFuture()

        def done(f: Future) -> None:
            exception = f.exception()
            try:
                result.complete(fn(None if exception is not None else f.result(), exception))
            except BaseException as e:
                result.complete_exceptionally(e)
        self.add_done_callback(done)
        return result

    def then_apply(self, fn: Callable[[T], U]) -> CompletableFuture[U]:
        result: CompletableFuture[U] = CompletableFuture()

        def done(f: Future) -> None:
            exception = f.exception()
            if exception is not None:
                result.complete_exceptionally(exception)
                return
            try:
                result.complete(fn(f.result()))
            except BaseException as e:
                result.complete_exceptionally(e)
        self.add_done_callback(done)
        return result

    @staticmethod
    def completed_future(value: T) -> CompletableFuture[T]:
        future: CompletableFuture[T] = CompletableFuture()
        future.complete(value)
        return future
