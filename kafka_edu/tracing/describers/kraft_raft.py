"""Describers for KRaft raft spans (Kafka 3.9; see kafka_edu/tracing/attributes.py)."""

from __future__ import annotations
