"""How many CPUs this process may use: its CPU affinity, lowered by a cgroup CPU quota.

A container limited to 2 CPUs on a 64-core node sees 64 cores in ``os.cpu_count()``; the limit
is the quota of its cgroup: ``cpu.max`` (``"<quota> <period>"`` or ``"max <period>"``) in
cgroup v2, ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (quota ``-1``: none) in cgroup v1.
Quotas nest, so every cgroup from the process's own up to the hierarchy's root counts and the
smallest wins. A quota of 1.5 CPUs gives 2: a fractional CPU is still worth a process.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path

CGROUP_ROOT = "/sys/fs/cgroup"
PROC_CGROUP = "/proc/self/cgroup"
V1_CPU_DIRS = ("cpu,cpuacct", "cpuacct,cpu", "cpu")


def available_cpus(root: str = CGROUP_ROOT, proc_cgroup: str = PROC_CGROUP) -> int:
    """CPUs this process may use: the CPUs it may run on, at most its cgroup CPU quota rounded up, at least 1."""
    count = affinity_cpus()
    quota = cgroup_cpu_quota(root, proc_cgroup)
    if quota is not None:
        count = min(count, math.ceil(quota))
    return max(1, count)


def affinity_cpus() -> int:
    """The number of CPUs the scheduler lets this process run on (all CPUs where affinity is unknown)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cgroup_cpu_quota(root: str = CGROUP_ROOT, proc_cgroup: str = PROC_CGROUP) -> float | None:
    """The smallest CPU quota (quota / period, in CPUs) over this process's cgroups under ``root``,
    cgroup v2 first, then v1; None when no cgroup sets one.

    >>> cgroup_cpu_quota("/nonexistent", "/nonexistent") is None
    True
    """
    base = Path(root)
    own = _own_cgroups(proc_cgroup)
    if (base / "cgroup.controllers").exists():  # cgroup v2: one unified hierarchy
        return _smallest(_v2_quota(d / "cpu.max") for d in _lineage(base, own.get("", "/")))
    for name in V1_CPU_DIRS:
        hierarchy = base / name
        if hierarchy.is_dir():
            path = own.get("cpu", own.get("cpuacct", "/"))
            return _smallest(_v1_quota(d) for d in _lineage(hierarchy, path))
    return None


def _own_cgroups(proc_cgroup: str) -> dict[str, str]:
    """Controller name → this process's cgroup path, from /proc/self/cgroup ("" for cgroup v2)."""
    try:
        lines = Path(proc_cgroup).read_text().splitlines()
    except OSError:
        return {}
    paths: dict[str, str] = {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(","):
            paths[controller] = parts[2]
    return paths


def _lineage(hierarchy: Path, path: str) -> Iterator[Path]:
    """The directories of cgroup ``path`` and of each ancestor up to ``hierarchy``, which is
    always included. Inside a container's cgroup namespace ``path`` is "/" and the hierarchy's
    root is the container's own cgroup; a host path that is not mounted here is skipped."""
    current = hierarchy / path.strip("/") if path.strip("/") else hierarchy
    while current != hierarchy and hierarchy in current.parents:
        if current.is_dir():
            yield current
        current = current.parent
    yield hierarchy


def _v2_quota(cpu_max: Path) -> float | None:
    """CPUs a cgroup v2 ``cpu.max`` allows; None for "max" or a missing or unreadable file."""
    try:
        fields = cpu_max.read_text().split()
    except OSError:
        return None
    if len(fields) != 2 or fields[0] == "max":
        return None
    return _ratio(fields[0], fields[1])


def _v1_quota(cgroup: Path) -> float | None:
    """CPUs a cgroup v1 CFS quota allows; None for -1 or missing or unreadable files."""
    try:
        quota = (cgroup / "cpu.cfs_quota_us").read_text().strip()
        period = (cgroup / "cpu.cfs_period_us").read_text().strip()
    except OSError:
        return None
    return _ratio(quota, period)


def _ratio(quota: str, period: str) -> float | None:
    """quota / period when both are positive integers, else None."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def _smallest(quotas: Iterator[float | None]) -> float | None:
    """The smallest of the quotas that are set, or None."""
    found = [q for q in quotas if q is not None]
    return min(found) if found else None
