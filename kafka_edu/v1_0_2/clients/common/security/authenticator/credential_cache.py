"""Port of clients/src/main/java/org/apache/kafka/common/security/authenticator/CredentialCache.java (Kafka 1.0.2)."""

from __future__ import annotations

import threading
from typing import Any


class Cache:
    """One mechanism's credentials by user name, read by network threads while ZooKeeper's watcher writes."""

    def __init__(self) -> None:
        self._credentials: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, username: str) -> Any:
        with self._lock:
            return self._credentials.get(username)

    def put(self, username: str, credential: Any) -> None:
        with self._lock:
            self._credentials[username] = credential

    def remove(self, username: str) -> None:
        with self._lock:
            self._credentials.pop(username, None)


class CredentialCache:
    def __init__(self) -> None:
        self._cache_map: dict[str, Cache] = {}

    def create_cache(self, mechanism: str) -> Cache:
        return self._cache_map.setdefault(mechanism, Cache())

    def cache(self, mechanism: str) -> Cache | None:
        return self._cache_map.get(mechanism)
