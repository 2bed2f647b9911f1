"""Reads the benchmark JSON that Google Benchmark writes (--benchmark_out) into plain records:
the one place that knows its layout, for report.py and plot.py."""
import json
import pathlib
from dataclasses import dataclass


@dataclass
class Case:
    group: str
    name: str
    median_ms: float
    min_ms: float
    max_ms: float
    bytes_per_run: float
    repetitions: int
    gflop_per_run: float = 0.0  # for cases that count operations in GFLOP

    @property
    def gbps(self) -> float:
        return self.bytes_per_run / 1e9 / (self.median_ms / 1e3)


def load(path) -> tuple[dict, list]:
    """(context, cases in the order they ran) from a --benchmark_out JSON file."""
    data = json.loads(pathlib.Path(path).read_text())
    cases, seen = [], {}
    for run in data["benchmarks"]:
        if run.get("run_type") != "aggregate" or run.get("aggregate_name") not in ("median", "min", "max"):
            continue
        if run.get("time_unit") != "ms":
            raise ValueError(f"{path}: expected times in ms, got {run.get('time_unit')}")
        group, name = run["run_name"].split("/")[:2]
        if (group, name) not in seen:
            seen[(group, name)] = Case(group, name, 0.0, 0.0, 0.0, 0.0, run["repetitions"])
            cases.append(seen[(group, name)])
        case = seen[(group, name)]
        setattr(case, run["aggregate_name"] + "_ms", run["real_time"])
        if run["aggregate_name"] == "median":  # rate counters = amount / time: recover the amounts
            case.bytes_per_run = run["GB/s"] * 1e9 * run["real_time"] / 1e3
            case.gflop_per_run = run.get("GFLOP/s", 0.0) * run["real_time"] / 1e3
    return data["context"], cases
