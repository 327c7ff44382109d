"""service.ops.cpus against fake cgroup trees (v2 and v1) in temporary directories, and its use by config."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.ops import config, cpus


@pytest.fixture
def eight_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process may run on 8 CPUs."""
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def v2_tree(tmp_path: Path, own: str, limits: dict[str, str]) -> tuple[str, str]:
    """A cgroup v2 hierarchy with ``cpu.max`` files (relative directory → content) and a
    /proc/self/cgroup naming ``own``; returns (root, proc file)."""
    root = tmp_path / "cgroup"
    write(root / "cgroup.controllers", "cpuset cpu io memory pids\n")
    for directory, text in limits.items():
        write(root / directory / "cpu.max", text)
    proc = tmp_path / "proc-self-cgroup"
    write(proc, f"0::{own}\n")
    return str(root), str(proc)


def v1_tree(tmp_path: Path, hierarchy: str, own: str, limits: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """A cgroup v1 ``cpu`` hierarchy mounted at ``<root>/<hierarchy>`` with CFS quota and period
    files (relative directory → (quota, period)); returns (root, proc file)."""
    root = tmp_path / "cgroup"
    (root / "memory").mkdir(parents=True)
    for directory, (quota, period) in limits.items():
        write(root / hierarchy / directory / "cpu.cfs_quota_us", quota + "\n")
        write(root / hierarchy / directory / "cpu.cfs_period_us", period + "\n")
    (root / hierarchy).mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "proc-self-cgroup"
    write(proc, f"12:memory:{own}\n4:cpu,cpuacct:{own}\n1:name=systemd:{own}\n")
    return str(root), str(proc)


def test_v2_quota_of_the_containers_own_cgroup(tmp_path: Path, eight_cpus: None) -> None:
    root, proc = v2_tree(tmp_path, "/", {".": "200000 100000\n"})
    assert cpus.cgroup_cpu_quota(root, proc) == 2.0
    assert cpus.available_cpus(root, proc) == 2


def test_v2_fraction_rounds_up(tmp_path: Path, eight_cpus: None) -> None:
    root, proc = v2_tree(tmp_path, "/", {".": "150000 100000\n"})
    assert cpus.available_cpus(root, proc) == 2
    root, proc = v2_tree(tmp_path / "small", "/", {".": "10000 100000\n"})
    assert cpus.available_cpus(root, proc) == 1


def test_v2_without_a_quota_is_the_affinity(tmp_path: Path, eight_cpus: None) -> None:
    root, proc = v2_tree(tmp_path, "/", {".": "max 100000\n"})
    assert cpus.cgroup_cpu_quota(root, proc) is None
    assert cpus.available_cpus(root, proc) == 8


def test_v2_nested_quotas_the_smallest_wins(tmp_path: Path, eight_cpus: None) -> None:
    root, proc = v2_tree(tmp_path, "/kubepods/pod1/ctr", {
        "kubepods": "600000 100000", "kubepods/pod1": "300000 100000", "kubepods/pod1/ctr": "max 100000"})
    assert cpus.cgroup_cpu_quota(root, proc) == 3.0
    assert cpus.available_cpus(root, proc) == 3


def test_v2_host_path_not_mounted_falls_back_to_the_root(tmp_path: Path, eight_cpus: None) -> None:
    root, proc = v2_tree(tmp_path, "/system.slice/docker-abc.scope", {".": "100000 100000"})
    assert cpus.available_cpus(root, proc) == 1


def test_v1_cfs_quota(tmp_path: Path, eight_cpus: None) -> None:
    root, proc = v1_tree(tmp_path, "cpu,cpuacct", "/", {".": ("250000", "100000")})
    assert cpus.cgroup_cpu_quota(root, proc) == 2.5
    assert cpus.available_cpus(root, proc) == 3


def test_v1_unlimited_and_nested(tmp_path: Path, eight_cpus: None) -> None:
    root, proc = v1_tree(tmp_path, "cpu", "/docker/abc", {".": ("-1", "100000"), "docker/abc": ("50000", "100000")})
    assert cpus.cgroup_cpu_quota(root, proc) == 0.5
    assert cpus.available_cpus(root, proc) == 1
    root, proc = v1_tree(tmp_path / "free", "cpu,cpuacct", "/", {".": ("-1", "100000")})
    assert cpus.available_cpus(root, proc) == 8


def test_affinity_below_the_quota_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    root, proc = v2_tree(tmp_path, "/", {".": "400000 100000"})
    assert cpus.available_cpus(root, proc) == 2


def test_no_cgroup_or_unreadable_files(tmp_path: Path, eight_cpus: None) -> None:
    assert cpus.available_cpus(str(tmp_path / "none"), str(tmp_path / "none")) == 8
    root, proc = v2_tree(tmp_path, "/", {".": "garbage\n"})
    assert cpus.available_cpus(root, proc) == 8
    root, proc = v2_tree(tmp_path / "zero", "/", {".": "0 100000\n"})
    assert cpus.available_cpus(root, proc) == 8


def test_this_machine_gives_at_least_one() -> None:
    assert 1 <= cpus.available_cpus() <= cpus.affinity_cpus()


def test_config_workers_follow_available_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "available_cpus", lambda: 3)
    monkeypatch.delenv("WORKERS", raising=False)
    assert config.parse(["--redis-url", "redis://127.0.0.1:6379/0"]).workers == 3
    assert config.parse(["--redis-url", "redis://127.0.0.1:6379/0", "--workers", "5"]).workers == 5
    assert config.parse([]).workers == 1  # the in-memory store is one process


def test_help_shows_defaults_but_no_secret(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    secret, previous, keys = "s3cret-" * 6, "0ld-s3cret-" * 4, "ops:" + "ab" * 32
    monkeypatch.setenv("CARDGAME_TOKEN_SECRET", secret)
    monkeypatch.setenv("CARDGAME_TOKEN_SECRET_PREVIOUS", previous)
    monkeypatch.setenv("CARDGAME_API_KEYS", keys)
    monkeypatch.setenv("MAX_REQUESTS", "77")
    monkeypatch.delenv("PORT", raising=False)
    with pytest.raises(SystemExit) as stop:
        config.parse(["--help"])
    assert stop.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 50051)" in text and "(default: 77)" in text
    assert secret not in text and previous not in text and keys not in text   # every SecretFlag's
