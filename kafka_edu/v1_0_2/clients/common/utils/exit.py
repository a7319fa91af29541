"""Port of clients/src/main/java/org/apache/kafka/common/utils/Exit.java (Kafka 1.0.2): exit and halt through
procedures a test can replace."""

from __future__ import annotations

import os
from collections.abc import Callable

# Procedure.execute(statusCode, message)
Procedure = Callable[[int, "str | None"], None]


def _default_halt_procedure(status_code: int, message: str | None) -> None:
    os._exit(status_code)  # Runtime.halt: no shutdown hooks


def _default_exit_procedure(status_code: int, message: str | None) -> None:
    # System.exit ends the JVM from any thread; a Python thread can end the process only outright.
    os._exit(status_code)


class Exit:
    """Kafka's code calls Exit.exit / Exit.halt, never the runtime's own, so that tests can change what they do."""

    _exit_procedure: Procedure = _default_exit_procedure
    _halt_procedure: Procedure = _default_halt_procedure

    @staticmethod
    def exit(status_code: int, message: str | None = None) -> None:
        Exit._exit_procedure(status_code, message)

    @staticmethod
    def halt(status_code: int, message: str | None = None) -> None:
        Exit._halt_procedure(status_code, message)

    @staticmethod
    def set_exit_procedure(procedure: Procedure) -> None:
        Exit._exit_procedure = procedure

    @staticmethod
    def set_halt_procedure(procedure: Procedure) -> None:
        Exit._halt_procedure = procedure

    @staticmethod
    def reset_exit_procedure() -> None:
        Exit._exit_procedure = _default_exit_procedure

    @staticmethod
    def reset_halt_procedure() -> None:
        Exit._halt_procedure = _default_halt_procedure
