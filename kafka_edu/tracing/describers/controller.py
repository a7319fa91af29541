"""Describers for controller spans (see kafka_edu/tracing/attributes.py)."""

from __future__ import annotations

