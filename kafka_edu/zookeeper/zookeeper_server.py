"""A real ZooKeeper 3.8 server (Debian's `zookeeper` package) run as a child process: the embedded default."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

ZOOKEEPER_JARS = ("/usr/share/java/zookeeper.jar", "/usr/share/java/zookeeper-jute.jar")
ZOOKEEPER_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain"


class ZooKeeperNotInstalled(RuntimeError):
    pass


def four_letter_word(host: str, port: int, word: str = "ruok", timeout: float = 1.0) -> str:
    """ZooKeeper's admin commands (`ruok` -> `imok`)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(word.encode())
        chunks = []
        while chunk := s.recv(4096):
            chunks.append(chunk)
    return b"".join(chunks).decode()


class ZooKeeperServer:
    """Writes a zoo.cfg, starts `java ... ZooKeeperServerMain`, and waits until it answers `ruok`."""

    def __init__(self, data_dir: Path, port: int, host: str = "127.0.0.1", tick_time_ms: int = 500,
                 log_file: Path | None = None) -> None:
        self.data_dir = data_dir.absolute()
        self.port = port
        self.host = host
        self.tick_time_ms = tick_time_ms
        self.log_file = log_file or self.data_dir / "zookeeper.log"
        self.process: subprocess.Popen | None = None

    @property
    def connect_string(self) -> str:
        return f"{self.host}:{self.port}"

    def write_config(self) -> Path:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        config = self.data_dir / "zoo.cfg"
        # A short tick lets tests use short session timeouts (ZooKeeper allows 2..20 ticks).
        config.write_text(
            f"tickTime={self.tick_time_ms}\n"
            f"dataDir={self.data_dir}\n"
            f"clientPort={self.port}\n"
            f"clientPortAddress={self.host}\n"
            "maxClientCnxns=0\n"
            "admin.enableServer=false\n"
            "4lw.commands.whitelist=ruok,stat,srvr,mntr,cons\n"
            f"minSessionTimeout={2 * self.tick_time_ms}\n"
            "maxSessionTimeout=60000\n")
        return config

    def command(self) -> list[str]:
        java = shutil.which("java")
        if java is None or not all(Path(j).exists() for j in ZOOKEEPER_JARS):
            raise ZooKeeperNotInstalled("ZooKeeper needs Debian's `zookeeper` package and a Java runtime "
                                        "(apt-get install zookeeper default-jre-headless)")
        classpath = ":".join(["/etc/zookeeper/conf", *ZOOKEEPER_JARS, "/usr/share/java/slf4j-api.jar",
                              "/usr/share/java/slf4j-simple.jar", "/usr/share/java/netty-all.jar",
                              "/usr/share/java/metrics-core.jar", "/usr/share/java/snappy-java.jar"])
        return [java, "-Xmx256m", "-XX:+UseSerialGC", f"-Dzookeeper.log.dir={self.data_dir}",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", classpath, ZOOKEEPER_MAIN,
                str(self.write_config())]

    def start(self, new_session: bool = False, wrapper: list[str] | None = None) -> int:
        """Start the server; returns its pid. `new_session` detaches it from our process group (runner use);
        `wrapper` goes before the command (`ip netns exec NS`: a command that execs the rest, keeping the pid)."""
        command = (wrapper or []) + self.command()  # writes the config, creating the data dir
        log = open(self.log_file, "ab")
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=new_session)
        log.close()
        return self.process.pid

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited with code {self.process.returncode}; see {self.log_file}")
            if is_ok(self.host, self.port):
                return
            time.sleep(0.1)
        raise TimeoutError(f"ZooKeeper on {self.connect_string} did not answer ruok within {timeout_s} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def is_ok(host: str, port: int) -> bool:
    try:
        return four_letter_word(host, port, "ruok") == "imok"
    except OSError:
        return False
