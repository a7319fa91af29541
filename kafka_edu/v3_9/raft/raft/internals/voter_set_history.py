"""Port of raft/src/main/java/org/apache/kafka/raft/internals/VoterSetHistory.java (Kafka 3.9): the voter sets found
in the latest snapshot and the log, by offset, over the statically configured one."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.raft.raft.internals.log_history import LogHistory
from kafka_edu.v3_9.raft.raft.internals.tree_map_log_history import TreeMapLogHistory
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet


class VoterSetHistory:
    def __init__(self, static_voter_set: VoterSet) -> None:
        self._static_voter_set = static_voter_set
        self._voters_history: LogHistory[VoterSet] = TreeMapLogHistory()

    def add_at(self, offset: int, voters: VoterSet) -> None:
        """IllegalArgumentException if the offset does not grow, or if the last voter set came from the log and
        the new one has no overlapping majority with it."""
        last_entry = self._voters_history.last_entry()
        # Only a voter set read from the log (offset >= 0) was agreed by a leader; the static and bootstrap (-1)
        # sets come from each replica's configuration, so a change from them is not checked.
        if last_entry is not None and last_entry.offset >= 0:
            last_voter_set = last_entry.value
            if not last_voter_set.has_overlapping_majority(voters):
                raise IllegalArgumentException(
                    f"Last voter set {last_voter_set} doesn't have an overlapping majority with the new voter set "
                    f"{voters}")
        self._voters_history.add_at(offset, voters)

    def value_at_or_before(self, offset: int) -> VoterSet | None:
        """The voter set at `offset` (inclusive) from what was added; never the static voter set."""
        return self._voters_history.value_at_or_before(offset)

    def last_value(self) -> VoterSet:
        last_entry = self._voters_history.last_entry()
        return last_entry.value if last_entry is not None else self._static_voter_set

    def last_entry(self) -> LogHistory.Entry[VoterSet] | None:
        return self._voters_history.last_entry()

    def last_voter_set_offset(self) -> int | None:
        """None when the last voter set is the static one."""
        last_entry = self._voters_history.last_entry()
        return last_entry.offset if last_entry is not None else None

    def truncate_new_entries(self, end_offset: int) -> None:
        self._voters_history.truncate_new_entries(end_offset)

    def truncate_old_entries(self, start_offset: int) -> None:
        self._voters_history.truncate_old_entries(start_offset)

    def clear(self) -> None:
        self._voters_history.clear()
