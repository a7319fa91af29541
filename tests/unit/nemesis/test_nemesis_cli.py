"""Our own tests: `kafka-edu nemesis` refuses bad options with one line naming the problem, before starting
anything, and exits 2."""

from __future__ import annotations

import pytest

from kafka_edu.cli import main


@pytest.mark.parametrize(("args", "says"), [
    (["--faults", "kill,reboot"], "unknown fault kind 'reboot'"),
    (["--acks", "1", "--idempotence"], "an idempotent producer needs --acks all"),
    (["--transactions", "--no-idempotence"], "--transactions needs idempotence"),
    (["--duration", "0"], "--duration and --rate must be positive"),
    (["--partitions", "0"], "--partitions, --interval and --fault-duration must be positive"),
    (["--run", "/nonexistent/run"], "no run directory there"),
])
def test_bad_options_are_refused_in_one_line(args: list[str], says: str, capsys: pytest.CaptureFixture[str]):
    assert main(["nemesis", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1 and err.startswith("kafka-edu nemesis: ")


def test_help_names_the_options_and_the_exit_codes(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["nemesis", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for option in ("--mode", "--duration", "--rate", "--acks", "--idempotence", "--transactions", "--faults",
                   "--seed", "--settings", "--run"):
        assert option in out
    assert "0: valid; 1: anomalies; 2: refused" in out
