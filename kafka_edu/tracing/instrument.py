"""Spans for Kafka symbols that are not FIDELITY steps, put on the port from the table.

A ported module carries a marker for each FIDELITY step and nothing else. The other methods worth a span (a
controller's `onBrokerStartup`, a coordinator's `handleJoinGroup`) are named in `steps.py` with the port's method
(`Symbol.port`), and `instrument()` wraps them when a process sets up tracing, the way OpenTelemetry's
instrumentation packages wrap a library's functions from outside it: each module's methods as the module is imported
(at once, if it already is), so a process loads no part of the port it does not run. A process that never traces runs
the methods unwrapped.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import Any

import wrapt

from kafka_edu.tracing.step import span
from kafka_edu.tracing.steps import SYMBOLS, Symbol

_MARK = "__kafka_edu_instrumented__"


def instrumented_symbols() -> list[Symbol]:
    return [symbol for symbol in SYMBOLS.values() if symbol.port]


def resolve(port: str) -> tuple[Any, str, Any]:
    """`package.module:Class.method` -> (the class, the method's name, the function as the class holds it)."""
    module_name, _, path = port.partition(":")
    owner: Any = importlib.import_module(module_name)
    *classes, method = path.split(".")
    for name in classes:
        owner = getattr(owner, name)
    return owner, method, owner.__dict__[method]


def instrument() -> None:
    """Wrap every table symbol's method in its span, once per process: now for a module already imported, and for
    any other as soon as it is (a storage format or a ZooKeeper-mode broker never imports most of the port)."""
    by_module: dict[str, list[Symbol]] = {}
    for symbol in instrumented_symbols():
        by_module.setdefault((symbol.port or "").partition(":")[0], []).append(symbol)
    for module_name, symbols in by_module.items():
        wrapt.register_post_import_hook(functools.partial(_wrap, symbols), module_name)


def _wrap(symbols: list[Symbol], module: ModuleType) -> None:
    """Wrap the symbols of one module, just imported (the hook runs before its importer reads a name from it)."""
    for symbol in symbols:
        owner, method, func = resolve(symbol.port or "")
        if getattr(func, _MARK, False):
            continue
        wrapped = span(symbol.name, root=symbol.root)(func)
        setattr(wrapped, _MARK, True)
        setattr(owner, method, wrapped)


def is_instrumented(port: str) -> bool:
    return bool(getattr(resolve(port)[2], _MARK, False))
