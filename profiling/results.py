"""Reads what a chapter's benchmark recorded: the JSON that Google Benchmark writes
(--benchmark_out), and the folder of results a chapter commits. The one place that knows the
JSON's layout, for report.py and plot.py.

Every rate the benchmark counted is kept, as an amount of work per run: "GB" (bytes / 1e9, the
effective bandwidth's), and each of the case's other units ("GFLOP", "Grsqrt", "MLUP",
"passes", ...). Some units are measured against one of this machine's ceilings, by the same
convention as the C++ harness (common/include/course/benchmark.hpp): GB against the copy
bandwidth, GFLOP against the FMA rate, Grsqrt against the reciprocal-square-root rate.
"""
import json
import pathlib
from dataclasses import dataclass, field

# unit -> (key in ceilings.json, how tables name the fraction)
CEILINGS = {
    "GB": ("copy_GBps", "of copy"),
    "GFLOP": ("fma_GFLOPs", "of FMA"),
    "Grsqrt": ("rsqrt_Gops", "of rsqrt"),
}


@dataclass
class Case:
    group: str
    name: str
    median_ms: float
    min_ms: float
    max_ms: float
    repetitions: int
    amounts: dict = field(default_factory=dict)  # unit -> amount per run

    @property
    def is_step(self) -> bool:
        """Steps are named after their files (NN_...); anything else is a peer."""
        return self.name[:2].isdigit()

    @property
    def bytes_per_run(self) -> float:
        return self.amounts["GB"] * 1e9

    @property
    def gbps(self) -> float:
        return self.rate("GB")

    @property
    def gflop_per_run(self) -> float:
        return self.amounts.get("GFLOP", 0.0)

    def rate(self, unit: str) -> float:
        """Units per second at the median time."""
        return self.amounts[unit] / (self.median_ms / 1e3)

    def of_ceiling(self, unit: str, ceilings: dict) -> float | None:
        """The rate as a fraction of its ceiling, or None when the unit has none."""
        if unit not in CEILINGS or unit not in self.amounts:
            return None
        return self.rate(unit) / ceilings[CEILINGS[unit][0]]

    def roofline_ms(self, ceilings: dict) -> tuple[float, str]:
        """The roofline bound: the longest time any ceiling allows for this case's work, and the
        unit whose ceiling sets it."""
        bounds = [(amount / ceilings[CEILINGS[unit][0]] * 1e3, unit) for unit, amount in self.amounts.items()
                  if unit in CEILINGS and amount > 0]
        return max(bounds)


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
            seen[(group, name)] = Case(group, name, 0.0, 0.0, 0.0, run["repetitions"])
            cases.append(seen[(group, name)])
        case = seen[(group, name)]
        setattr(case, run["aggregate_name"] + "_ms", run["real_time"])
        if run["aggregate_name"] == "median":  # rate counters = amount / time: recover the amounts
            case.amounts = {key[:-2]: value * run["real_time"] / 1e3 for key, value in run.items()
                            if key.endswith("/s") and isinstance(value, (int, float))}
    return data["context"], cases


def load_peers(path) -> tuple[dict, list]:
    """(context, cases) of a peer measured apart (a chapter's peer_*.py): JSON with the peer's
    context and "cases": [{"group", "name", "median_ms", "min_ms", "max_ms", "amounts": {unit: per run}}].
    A case is drawn and tabled with the benchmark groups whose name starts with its "group"."""
    data = json.loads(pathlib.Path(path).read_text())
    cases = [Case(c["group"], c["name"], c["median_ms"], c["min_ms"], c["max_ms"], c.get("repetitions", 0), c["amounts"])
             for c in data["cases"]]
    return {k: v for k, v in data.items() if k != "cases"}, cases


@dataclass
class ChapterResults:
    """What a chapter commits in chapters/NN_name/results/: bench.json, ceilings.json, and
    whatever else its tables read (traffic.csv, peers' JSON)."""
    folder: pathlib.Path
    context: dict
    cases: list
    ceilings: dict

    def groups(self) -> list:
        return list(dict.fromkeys(c.group for c in self.cases))


def load_chapter(chapter: pathlib.Path) -> ChapterResults:
    folder = chapter / "results"
    context, cases = load(folder / "bench.json")
    return ChapterResults(folder, context, cases, json.loads((folder / "ceilings.json").read_text()))
