"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/AppendOrigin.java (Kafka 3.9): where an
append to the log comes from, which decides how much of it is validated."""

from __future__ import annotations

import enum


class AppendOrigin(enum.Enum):
    # from the leader: offsets and sequences were checked there, so the follower checks little
    REPLICATION = enum.auto()
    # from the group or transaction coordinator: producer epochs and coordinator epochs are checked
    COORDINATOR = enum.auto()
    # from a client: everything is checked
    CLIENT = enum.auto()
    # from the raft leader, which has assigned the offsets already
    RAFT_LEADER = enum.auto()
