"""Port of clients/src/main/java/org/apache/kafka/common/requests/FetchMetadata.java (Kafka 3.9): the session id and
epoch a fetch request carries (KIP-227 incremental fetch sessions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

INVALID_SESSION_ID = 0  # the session id of a fetch with no session
INITIAL_EPOCH = 0  # a request with this epoch asks to create (or recreate) a session
FINAL_EPOCH = -1  # a request with this epoch asks to close any session and not create one

INT_MAX = 2**31 - 1


def next_epoch(prev_epoch: int) -> int:
    """The epoch after `prev_epoch`: FINAL_EPOCH stays final, and the epoch wraps to 1, never back to INITIAL."""
    if prev_epoch < 0:
        return FINAL_EPOCH
    if prev_epoch == INT_MAX:
        return 1
    return prev_epoch + 1


@dataclass(frozen=True)
class FetchMetadata:
    """Equal, and hashed, by session id and epoch."""

    INITIAL: ClassVar[FetchMetadata]  # what a new FetchSessionHandler starts with
    LEGACY: ClassVar[FetchMetadata]  # what a fetch request from before KIP-227 implicitly carries

    session_id: int
    epoch: int

    INVALID_SESSION_ID: ClassVar[int] = INVALID_SESSION_ID
    INITIAL_EPOCH: ClassVar[int] = INITIAL_EPOCH
    FINAL_EPOCH: ClassVar[int] = FINAL_EPOCH
    next_epoch = staticmethod(next_epoch)

    def is_full(self) -> bool:
        """A full fetch request lists every partition it wants; an incremental one only the changes."""
        return self.epoch in (INITIAL_EPOCH, FINAL_EPOCH)

    def next_close_existing(self) -> FetchMetadata:
        """The next request closes this session."""
        return FetchMetadata(self.session_id, FINAL_EPOCH)

    def next_close_existing_attempt_new(self) -> FetchMetadata:
        """The next request closes this session and asks for a new one."""
        return FetchMetadata(self.session_id, INITIAL_EPOCH)

    @staticmethod
    def new_incremental(session_id: int) -> FetchMetadata:
        """The first incremental request of a session the broker just created."""
        return FetchMetadata(session_id, next_epoch(INITIAL_EPOCH))

    def next_incremental(self) -> FetchMetadata:
        return FetchMetadata(self.session_id, next_epoch(self.epoch))

    def __str__(self) -> str:
        session = "INVALID" if self.session_id == INVALID_SESSION_ID else str(self.session_id)
        epoch = {INITIAL_EPOCH: "INITIAL", FINAL_EPOCH: "FINAL"}.get(self.epoch, str(self.epoch))
        return f"(sessionId={session}, epoch={epoch})"


FetchMetadata.INITIAL = FetchMetadata(INVALID_SESSION_ID, INITIAL_EPOCH)
FetchMetadata.LEGACY = FetchMetadata(INVALID_SESSION_ID, FINAL_EPOCH)
