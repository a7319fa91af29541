"""Port of clients/src/test/java/org/apache/kafka/common/network/EchoServer.java (Kafka 3.9): a thread that accepts
connections on a free loopback port and echoes each size-prefixed frame back, one thread per connection. PLAINTEXT
only (the SSL server socket is not ported)."""

from __future__ import annotations

import socket
import struct
import threading
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol

_SIZE = struct.Struct(">i")


def _read_fully(sock: socket.socket, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return bytes(data)


def _close_socket(sock: socket.socket) -> None:
    # shutdown first: a close alone does not wake a thread blocked reading the socket
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


class EchoServer(threading.Thread):
    def __init__(self, security_protocol: SecurityProtocol, configs: dict[str, Any]) -> None:
        super().__init__(name="EchoServer", daemon=True)
        if security_protocol is not SecurityProtocol.PLAINTEXT:
            raise IllegalArgumentException(f"Unsupported securityProtocol {security_protocol.name}")
        self.server_socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server_socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server_socket.bind(("127.0.0.1", 0))
        self.server_socket.listen(50)
        self.port: int = self.server_socket.getsockname()[1]
        self.threads: list[threading.Thread] = []
        self.sockets: list[socket.socket] = []
        self._lock = threading.Lock()  # synchronized (sockets)
        self.closing = False

    def run(self) -> None:
        try:
            while not self.closing:
                sock, _ = self.server_socket.accept()
                with self._lock:
                    if self.closing:
                        sock.close()
                        break
                    self.sockets.append(sock)
                    thread = threading.Thread(target=self._echo, args=(sock,), daemon=True)
                    thread.start()
                    self.threads.append(thread)
        except OSError:
            pass

    @staticmethod
    def _echo(sock: socket.socket) -> None:
        try:
            while True:
                (size,) = _SIZE.unpack(_read_fully(sock, 4))
                payload = _read_fully(sock, size)
                sock.sendall(_SIZE.pack(size) + payload)
        except (OSError, EOFError):
            pass
        finally:
            sock.close()

    def close_connections(self) -> None:
        with self._lock:
            for sock in self.sockets:
                _close_socket(sock)

    def close(self) -> None:
        self.closing = True
        _close_socket(self.server_socket)
        self.close_connections()
        for thread in self.threads:
            thread.join(10)
        self.join(10)
