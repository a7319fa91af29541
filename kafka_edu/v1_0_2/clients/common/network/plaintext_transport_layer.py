"""Port of clients/src/main/java/org/apache/kafka/common/network/PlaintextTransportLayer.java (Kafka 1.0.2), the
part a Send writes with: gathering writes to the socket, and file regions handed to the kernel with sendfile(2)
(FileChannel.transferTo), so a log slice reaches the socket without passing through the broker's memory."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence

# writev takes at most IOV_MAX buffers (1024 on Linux); a send is written in several calls beyond that
_IOV_MAX = 1024


class PlaintextTransportLayer:
    """A connection's non-blocking socket, as the channel a Send writes to."""

    def __init__(self, sock: socket.socket) -> None:
        self.socket_channel = sock

    def write(self, srcs: Sequence[bytes | bytearray | memoryview]) -> int:
        """GatheringByteChannel.write(ByteBuffer[]): as much of `srcs`, in order, as the socket takes now; 0 when
        it takes nothing. The buffers are not consumed here: the caller moves past what was written."""
        if not srcs:
            return 0
        try:
            if len(srcs) == 1:
                return self.socket_channel.send(srcs[0])
            return self.socket_channel.sendmsg(srcs[:_IOV_MAX])
        except (BlockingIOError, InterruptedError):
            return 0

    def transfer_from(self, fd: int, position: int, count: int) -> int:
        """fileChannel.transferTo(position, count, socketChannel): up to `count` bytes of the file at `position`
        copied to the socket inside the kernel; 0 when the socket takes nothing now."""
        if count <= 0:
            return 0
        try:
            return os.sendfile(self.socket_channel.fileno(), fd, position, count)
        except (BlockingIOError, InterruptedError):
            return 0

    def has_pending_writes(self) -> bool:
        return False
