"""What a kafka-edu process loads at start: kio without hypothesis's strategies outside pytest, and tracing that
wraps a module's methods only once the module is imported (tracing/instrument.py)."""

from __future__ import annotations

import subprocess
import sys

from tests.integration.helpers import REPO


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_outside_pytest_kio_loads_without_hypothesis_and_hypothesis_stays_importable():
    out = run_python("import kafka_edu.cli, kio.static._phantom as p, sys; print(p.hypothesis is None, "
                     "'hypothesis' in sys.modules); import hypothesis; print('importable')")
    assert out.splitlines() == ["True False", "importable"]


def test_tracing_set_up_loads_no_module_of_the_port_and_wraps_one_when_it_is_imported():
    out = run_python(
        "import sys, tempfile, pathlib\n"
        "from kafka_edu.tracing import setup_tracing\n"
        "from kafka_edu.tracing.instrument import instrumented_symbols, is_instrumented\n"
        "t = setup_tracing('storage-1', 'run', 'kraft', pathlib.Path(tempfile.mkdtemp()))\n"
        "ports = {s.port.partition(':')[0] for s in instrumented_symbols()}\n"
        "print(sorted(m for m in ports if m in sys.modules))\n"
        "print(all(is_instrumented(s.port) for s in instrumented_symbols()))\n"
        "t.shutdown()\n")
    loaded, wrapped = out.splitlines()
    assert loaded == "[]"  # a storage format or a ZooKeeper-mode broker no longer imports the whole port
    assert wrapped == "True"  # is_instrumented imports each module: the hook wraps it on the way in
