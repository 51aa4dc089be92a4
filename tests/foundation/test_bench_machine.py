"""The machine probe each load run records beside its figures (bench/machine.py, docs/performance.md)."""

from __future__ import annotations

from bench.machine import describe, probe


def test_the_probe_times_the_cores_and_the_disk_and_leaves_nothing_behind(tmp_path):
    found = probe(tmp_path)
    assert 0 < found["python_ms"]["median"] <= found["python_ms"]["max"]
    assert 0 < found["fdatasync_us"]["p50"] <= found["fdatasync_us"]["p99"]
    assert list(tmp_path.iterdir()) == [], "the probe's file removed"
    line = describe(found)
    assert line.startswith("machine: python loop ") and "fdatasync p50" in line
