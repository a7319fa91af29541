"""The Spark session every mining job runs in: local by default, any standalone cluster with `--master`, quiet.

Quiet means no Spark UI; log level ERROR from the JVM's first line on (a log4j2 file, since `setLogLevel` comes
too late for the start-up chatter, with the logger of `PythonGatewayServer`, the "shell" PySpark runs as, at the
root's level so Spark prints no "default log level" banner); Spark's console progress replaced by a rich bar fed by
the status tracker; Java failures turned into one readable line (`MiningError`) instead of a stack trace.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

DEFAULT_MASTER = "local[*]"

_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.repl.name = org.apache.spark.api.python.PythonGatewayServer
logger.repl.level = error
"""


class MiningError(Exception):
    """A failure the user can act on; `exit_code` 2 means the input was unusable."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _log4j2_file() -> Path:
    path = Path(tempfile.gettempdir()) / "kafka-edu-mining-log4j2.properties"
    if not path.exists() or path.read_text() != _LOG4J2:
        path.write_text(_LOG4J2)
    return path


def spark_session(master: str | None = None, app_name: str = "kafka-edu-mine"):  # -> SparkSession
    """A SparkSession on `master` (default local[*]); the same code runs on `spark://host:port`."""
    from pyspark.sql import SparkSession

    # Executors run Python with this interpreter (the venv's), not whatever `python3` is first on PATH.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    log_option = f"-Dlog4j.configurationFile=file:{_log4j2_file()}"
    builder = (SparkSession.builder.appName(app_name).master(master or DEFAULT_MASTER)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.extraJavaOptions", log_option)
               .config("spark.executor.extraJavaOptions", log_option)
               .config("spark.driver.memory", os.environ.get("KAFKA_EDU_SPARK_DRIVER_MEMORY", "2g"))
               .config("spark.sql.session.timeZone", "UTC")
               # Trace sets are small next to what Spark's 200 default shuffle partitions are sized for.
               .config("spark.sql.shuffle.partitions", os.environ.get("KAFKA_EDU_SPARK_PARTITIONS", "8")))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    # PySpark logs each failed query with its whole Java stack; `spark_errors` reports it in one line instead.
    logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL)
    return spark


@contextmanager
def spark_errors() -> Iterator[None]:
    """Turn a Java or analysis failure into a `MiningError` carrying its first meaningful line."""
    from py4j.protocol import Py4JError, Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        yield
    except Py4JJavaError as e:
        raise MiningError(f"Spark failed: {_first_line(str(e.java_exception))}") from e
    except (PySparkException, Py4JError) as e:
        raise MiningError(f"Spark failed: {_first_line(str(e))}") from e


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), text)


@contextmanager
def spark_progress(spark, description: str, console: Console | None = None) -> Iterator[None]:
    """A transient rich bar of the tasks of the stages Spark is running, while the block runs."""
    console = console or Console(stderr=True)
    tracker = spark.sparkContext.statusTracker()
    done = threading.Event()
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TaskProgressColumn(),
                  TextColumn("{task.fields[stages]}"), TimeElapsedColumn(), console=console,
                  transient=True) as progress:
        task = progress.add_task(description, total=None, stages="")

        def poll() -> None:
            while not done.wait(0.25):
                try:
                    stages = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
                except Exception:  # the gateway is going away: stop drawing
                    return
                stages = [s for s in stages if s is not None]
                if stages:
                    total = sum(s.numTasks for s in stages)
                    finished = sum(s.numCompletedTasks for s in stages)
                    progress.update(task, total=total, completed=finished,
                                    stages="stage " + ",".join(str(s.stageId) for s in stages))

        poller = threading.Thread(target=poll, name="spark-progress", daemon=True)
        poller.start()
        try:
            yield
        finally:
            done.set()
            poller.join(timeout=2)
