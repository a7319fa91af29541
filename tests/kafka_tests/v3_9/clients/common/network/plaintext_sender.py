"""Port of clients/src/test/java/org/apache/kafka/common/network/PlaintextSender.java (Kafka 3.9): a thread that
connects to an address, writes a payload and disconnects."""

from __future__ import annotations

import socket
import threading
import traceback


class PlaintextSender(threading.Thread):
    def __init__(self, server_address: tuple[str, int], payload: bytes) -> None:
        super().__init__(name=f"PlaintextSender - {len(payload)} bytes @ {server_address}", daemon=True)
        self.server_address = server_address
        self.payload = payload

    def run(self) -> None:
        try:
            with socket.create_connection(self.server_address) as connection:
                connection.sendall(self.payload)
        except Exception:
            traceback.print_exc()
