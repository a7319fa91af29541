"""Our own code, not a Kafka port: real network partitions between a run's processes (issue 26).

With `cluster up --netns` every process of a run (ZooKeeper, each broker, each controller) runs in a network
namespace of its own, `kedu-<tag>-<node>`, with one address on a /24 of its own: a veth pair joins the namespace
to a bridge of the run in the host's namespace, where the bridge holds the subnet's `.1` and the clients, the
runner and the TUI live. Nodes reach each other through the bridge; the host reaches every node.

A cut is a set of directed links (from node A to node B: A's packets to B are dropped). The rules live in an
nftables table of ours, `inet kafka_edu`, inside the namespaces at the two ends of each link (A's output, B's
input); the table of a namespace is rewritten whole, in one nft transaction, from the cuts still in force, so a heal
leaves exactly the rules of the other cuts. Nothing outside the run's own namespaces and bridge is touched.

Everything that is created is first written down (the run manifest's `network`), so that `cluster down`, or a
later runner after a crash, removes whatever of it exists; removing something already gone is not an error.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import shutil
import signal
import subprocess
from typing import Any

from kafka_edu.cluster_runner.processes import signal_process, wait_exit

TABLE = "kafka_edu"  # the nftables table (family inet) in each namespace
ZOOKEEPER = "zk"  # ZooKeeper's node name; brokers and controllers are named by their node id
NETNS_PREFIX = "kedu-"


class NetworkError(RuntimeError):
    """A network request the runner refuses, or a command of `ip`/`nft` that failed; one line."""


# -- preconditions --------------------------------------------------------------------------------------------------

def check_netns_support() -> None:
    """Whether this process can make namespaces and filter rules: root, `ip` with netns support, and `nft`."""
    if os.geteuid() != 0:
        raise NetworkError("--netns needs root (network namespaces and nftables rules are the kernel's): "
                           "run it as root, e.g. `sudo -E kafka-edu cluster up --netns`")
    for tool, package in (("ip", "iproute2"), ("nft", "nftables")):
        if shutil.which(tool) is None:
            raise NetworkError(f"--netns needs `{tool}` ({package}), which is not installed: "
                               f"apt-get install {package}")
    _run(["ip", "netns", "list"])


# -- names and addresses ---------------------------------------------------------------------------------------------

def node_name(role: str, node_id: int) -> str:
    """How a cut names a node: `zk`, or a broker's or controller's node id."""
    return ZOOKEEPER if role == "zookeeper" else str(node_id)


def _suffix(role: str, node_id: int) -> str:
    return ZOOKEEPER if role == "zookeeper" else f"{role[0]}{node_id}"


def plan(run_id: str) -> dict[str, Any]:
    """The run's network before anything exists: a tag from the run id, a bridge name and a free /24."""
    tag = hashlib.sha1(run_id.encode()).hexdigest()[:6]
    subnet = _free_subnet(int(tag, 16))
    return {"tag": tag, "bridge": f"kb{tag}", "subnet": str(subnet), "gateway": str(subnet.network_address + 1),
            "bridge_created": False, "nodes": {}, "cuts": [], "next_cut": 1}


def _free_subnet(seed: int) -> ipaddress.IPv4Network:
    """A 10.k.m.0/24 that no address or route of the host overlaps, starting from the run's own seed."""
    used = [ipaddress.ip_network(f"{a['local']}/{a['prefixlen']}", strict=False)
            for link in json.loads(_run(["ip", "-j", "-4", "addr"]) or "[]") for a in link.get("addr_info", [])]
    for route in json.loads(_run(["ip", "-j", "-4", "route", "show", "table", "all"]) or "[]"):
        dst = route.get("dst", "")
        if dst and dst != "default":
            try:
                used.append(ipaddress.ip_network(dst, strict=False))
            except ValueError:
                pass
    for i in range(1 << 16):
        n = (seed + i) % (1 << 16)
        candidate = ipaddress.ip_network(f"10.{n >> 8}.{n & 0xFF}.0/24")
        if n >> 8 not in (0, 255) and not any(candidate.overlaps(u) for u in used):
            return candidate
    raise NetworkError("no free 10.x.y.0/24 for the run's bridge")


def plan_node(network: dict[str, Any], role: str, node_id: int) -> dict[str, Any]:
    """A node's namespace, veth and address, recorded in `network` (the caller writes the manifest before
    `create_node` makes them)."""
    name = node_name(role, node_id)
    if name in network["nodes"]:
        return network["nodes"][name]
    subnet = ipaddress.ip_network(network["subnet"])
    taken = {n["address"] for n in network["nodes"].values()}
    address = next(str(a) for a in list(subnet.hosts())[1:] if str(a) not in taken)  # .1 is the bridge's
    suffix = _suffix(role, node_id)
    node = {"role": role, "id": node_id, "netns": f"{NETNS_PREFIX}{network['tag']}-{suffix}",
            "veth": f"kv{network['tag']}{suffix}"[:15], "address": address, "created": False}
    network["nodes"][name] = node
    return node


# -- making and removing ----------------------------------------------------------------------------------------------

def create_bridge(network: dict[str, Any]) -> None:
    bridge = network["bridge"]
    _run(["ip", "link", "add", bridge, "type", "bridge"])
    prefix = ipaddress.ip_network(network["subnet"]).prefixlen
    _run(["ip", "addr", "add", f"{network['gateway']}/{prefix}", "dev", bridge])
    _run(["ip", "link", "set", bridge, "up"])


def create_node(network: dict[str, Any], node: dict[str, Any]) -> None:
    """The namespace with its loopback up and `eth0` on the node's address, the veth's other end on the bridge."""
    netns, veth = node["netns"], node["veth"]
    prefix = ipaddress.ip_network(network["subnet"]).prefixlen
    _run(["ip", "netns", "add", netns])
    _run(["ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", netns])
    _run(["ip", "link", "set", veth, "master", network["bridge"], "up"])
    _run(["ip", "-n", netns, "link", "set", "lo", "up"])
    _run(["ip", "-n", netns, "addr", "add", f"{node['address']}/{prefix}", "dev", "eth0"])
    _run(["ip", "-n", netns, "link", "set", "eth0", "up"])


def exec_prefix(netns: str) -> list[str]:
    """What runs a command inside the namespace; `ip netns exec` execs it, so its pid is the command's."""
    return ["ip", "netns", "exec", netns]


def teardown(network: dict[str, Any]) -> list[str]:
    """Remove every namespace, veth and the bridge the manifest names, whatever of them still exists (the filter
    tables go with their namespaces), and any process still in one of those namespaces. Returns what was
    removed."""
    removed = []
    existing = set(list_namespaces())
    links = _link_names()
    for node in network["nodes"].values():
        if node["netns"] in existing:
            # a process the manifest does not name (a runner killed between starting it and writing its pid)
            # would keep the namespace alive after `ip netns del`: it goes first
            for pid in _run(["ip", "netns", "pids", node["netns"]]).split():
                if signal_process(int(pid), signal.SIGKILL):
                    wait_exit(int(pid), 5)
            _run(["ip", "netns", "del", node["netns"]])
            removed.append(node["netns"])
        if node["veth"] in links:  # normally gone with its peer's namespace
            _run(["ip", "link", "del", node["veth"]], missing_ok=True)
            removed.append(node["veth"])
    if network["bridge"] in _link_names():
        _run(["ip", "link", "del", network["bridge"]], missing_ok=True)
        removed.append(network["bridge"])
    return removed


def leftovers(network: dict[str, Any]) -> list[str]:
    """What of the run's network still exists: namespaces, veths, the bridge."""
    names = [n["netns"] for n in network["nodes"].values()] + [n["veth"] for n in network["nodes"].values()]
    present = set(list_namespaces()) | _link_names()
    return [n for n in names + [network["bridge"]] if n in present]


def list_namespaces() -> list[str]:
    return [line.split()[0] for line in _run(["ip", "netns", "list"]).splitlines() if line.strip()]


def _link_names() -> set[str]:
    return {link["ifname"] for link in json.loads(_run(["ip", "-j", "link"]) or "[]")}


# -- cuts --------------------------------------------------------------------------------------------------------------

def links_between(side_a: list[str], side_b: list[str], both_ways: bool = True) -> list[tuple[str, str]]:
    """The directed links from every node of `side_a` to every node of `side_b` (and back, `both_ways`)."""
    links = [(a, b) for a in side_a for b in side_b if a != b]
    if both_ways:
        links += [(b, a) for a, b in links]
    return links


def cut_links(network: dict[str, Any]) -> dict[tuple[str, str], int]:
    """Every link cut now, with the cut it belongs to."""
    return {(a, b): cut["id"] for cut in network["cuts"] for a, b in cut["links"]}


def check_nodes(network: dict[str, Any], names: list[str], run_id: str) -> None:
    unknown = [n for n in names if n not in network["nodes"]]
    if unknown:
        raise NetworkError(f"no node {', '.join(unknown)} in run {run_id} (its nodes: "
                           f"{', '.join(network['nodes'])})")


def apply_rules(network: dict[str, Any], names: set[str]) -> None:
    """Rewrite the filter table of each named node's namespace from the cuts in force (none: the table goes)."""
    addresses = {name: node["address"] for name, node in network["nodes"].items()}
    for name in sorted(names):
        node = network["nodes"][name]
        inbound: dict[int, list[str]] = {}
        outbound: dict[int, list[str]] = {}
        for cut in network["cuts"]:
            for a, b in cut["links"]:
                if a == name:
                    outbound.setdefault(cut["id"], []).append(addresses[b])
                if b == name:
                    inbound.setdefault(cut["id"], []).append(addresses[a])
        # declaring the table first makes the delete valid when it does not exist yet; all in one transaction
        script = f"table inet {TABLE}\ndelete table inet {TABLE}\n"
        if inbound or outbound:
            chains = "".join(_chain(hook, field, rules) for hook, field, rules in
                             (("input", "saddr", inbound), ("output", "daddr", outbound)))
            script += f"table inet {TABLE} {{\n{chains}}}\n"
        _run(exec_prefix(node["netns"]) + ["nft", "-f", "-"], stdin=script)


def _chain(hook: str, field: str, rules: dict[int, list[str]]) -> str:
    """One base chain of the table: a drop rule per cut, over the addresses of the other ends of its links."""
    lines = [f"    ip {field} {{ {', '.join(sorted(set(addresses)))} }} drop comment \"cut {cut}\"\n"
             for cut, addresses in sorted(rules.items())]
    return (f"  chain {hook} {{\n    type filter hook {hook} priority filter; policy accept;\n"
            + "".join(lines) + "  }\n")


def ruleset(node: dict[str, Any]) -> str:
    """The namespace's whole nftables ruleset, as `nft list ruleset` prints it ("" when there is none)."""
    return _run(exec_prefix(node["netns"]) + ["nft", "list", "ruleset"])


def _run(command: list[str], stdin: str | None = None, missing_ok: bool = False) -> str:
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        if missing_ok and any("Cannot find" in m or "No such" in m or "does not exist" in m for m in message):
            return ""
        raise NetworkError(f"`{' '.join(command)}` failed: {message[-1] if message else done.returncode}")
    return done.stdout
