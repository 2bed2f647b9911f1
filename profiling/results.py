"""Reads what a chapter's benchmark recorded: the JSON that Google Benchmark writes
(--benchmark_out), and the results a chapter commits, one folder per GPU
(chapters/NN_name/results/h200/, results/h100-80gb-hbm3/: gpu_folder() names it from the GPU). The
one place that knows the JSON's layout and the folders', for report.py, plot.py and
validate_gpu.sh.

Every rate the benchmark counted is kept, as an amount of work per run: "GB" (bytes / 1e9, the
effective bandwidth's), and each of the case's other units ("GFLOP", "Grsqrt", "MLUP",
"passes", ...). Some units are measured against one of this machine's ceilings, by the same
convention as the C++ harness (common/include/course/benchmark.hpp): GB against the copy
bandwidth, GFLOP against the FMA rate, Grsqrt against the reciprocal-square-root rate.

What it reads is checked as it is read: a file missing, empty, not JSON or not of its kind, or a
time, rate or ceiling that is not a finite number above zero, is a cli.ToolError that names the
file and the entry. Run as a script, it prints what a run recorded:

    profiling/results.py chapters/NN_name | BENCH.json | PEERS.json
    profiling/results.py --gpu-folder "NVIDIA H100 80GB HBM3"    prints h100-80gb-hbm3
"""
import csv
import io
import json
import math
import pathlib
import re
from dataclasses import dataclass, field

import cli
import registry

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
    experiment: bool = False  # a variant its step file does not teach (registry.py); marked by load_gpu

    @property
    def is_step(self) -> bool:
        """Steps are named after their files (NN_...); anything else is a peer."""
        return self.name[:2].isdigit()

    @property
    def is_taught(self) -> bool:
        """A step its lesson teaches: a step that is not an experiment."""
        return self.is_step and not self.experiment

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


def read_json(path, what: str):
    """The JSON in `path`, or a ToolError saying why there is none; `what` names what it should hold."""
    text = cli.read_text(path, what)
    try:
        return json.loads(text)
    except ValueError as error:
        raise cli.ToolError(f"not valid JSON ({error})", path) from None


def number(value, path, where: str, positive: bool = True) -> float:
    """A finite number (above zero, unless `positive` is False) read from a JSON file."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or (value <= 0 if positive else value < 0):
        wanted = "a finite number above zero" if positive else "a finite number, zero or more"
        raise cli.ToolError(f"{where} needs {wanted}, not {json.dumps(value)}", path)
    return float(value)


CONTEXT = ("gpu", "backend", "commit", "date")  # what the tables and plots say a run came from


def bench_program(chapter) -> str | None:
    """The name of a chapter's benchmark program (its bench_*.cpp), None where it has none."""
    return next((source.stem for source in pathlib.Path(chapter).glob("bench_*.cpp")), None)


def load(path, program: str | None = None) -> tuple[dict, list]:
    """(context, cases in the order they ran) from a --benchmark_out JSON file; with `program`
    ("bench_transpose"), a file some other program wrote is a ToolError."""
    data = read_json(path, "a benchmark's --benchmark_out JSON")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise cli.ToolError("has no \"benchmarks\" list: not a benchmark's --benchmark_out JSON", path)
    context = data.get("context")
    missing = [key for key in CONTEXT if not isinstance(context, dict) or not isinstance(context.get(key), str)]
    if missing:
        raise cli.ToolError(f"its \"context\" lacks {', '.join(missing)}: not written by the course's benchmark", path)
    executable = context.get("executable")
    if program is not None and (not isinstance(executable, str) or pathlib.PurePath(executable).name != program):
        raise cli.ToolError(f"was written by {json.dumps(executable)}, not by {program}: another chapter's results?", path)
    cases, seen = [], {}
    for index, run in enumerate(data["benchmarks"]):
        if not isinstance(run, dict) or run.get("run_type") != "aggregate" \
                or run.get("aggregate_name") not in ("median", "min", "max"):
            continue
        where = f"benchmarks[{index}]"
        if run.get("time_unit") != "ms":
            raise cli.ToolError(f"{where}: expected times in ms, got {run.get('time_unit')}", path)
        parts = run.get("run_name", "").split("/") if isinstance(run.get("run_name"), str) else []
        if len(parts) < 2 or not all(parts[:2]):
            raise cli.ToolError(f"{where}: its run_name is not GROUP/STEP/...: {json.dumps(run.get('run_name'))}", path)
        group, name = parts[:2]
        if (group, name) not in seen:
            repetitions = run.get("repetitions")
            if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
                raise cli.ToolError(f"{where}: repetitions needs a whole number above zero, not "
                                    f"{json.dumps(repetitions)}", path)
            seen[(group, name)] = Case(group, name, 0.0, 0.0, 0.0, repetitions)
            cases.append(seen[(group, name)])
        case = seen[(group, name)]
        real_time = number(run.get("real_time"), path, f"{where}: real_time")
        setattr(case, run["aggregate_name"] + "_ms", real_time)
        if run["aggregate_name"] == "median":  # rate counters = amount / time: recover the amounts
            case.amounts = {key[:-2]: number(value, path, f"{where}: {key}", positive=False) * real_time / 1e3
                            for key, value in run.items() if key.endswith("/s")}
    if not cases:
        raise cli.ToolError("holds no median, min and max of any case (the benchmark writes them when it runs "
                            "2 or more repetitions)", path)
    for case in cases:
        lacking = [statistic for statistic in ("median", "min", "max") if getattr(case, statistic + "_ms") == 0.0]
        if lacking:
            raise cli.ToolError(f"{case.group}/{case.name} has no {', '.join(lacking)} time", path)
        if not case.amounts.get("GB"):
            raise cli.ToolError(f"{case.group}/{case.name} has no GB/s above zero (every case counts its bytes)", path)
    return context, cases


# Every measurement course_ceilings writes (common/bench/ceilings.cu); the host copies since
# 2026-11-27 (older recordings lack them); the peer copies with two GPUs or more.
MEASURED_CEILINGS = ("copy_bytes", "memcpy_GBps", "copy_kernel_GBps", "copy_GBps", "fma_GFLOPs", "rsqrt_Gops",
                     "host_to_device_GBps", "device_to_host_GBps", "peer_GBps", "peer_both_ways_GBps")


def load_ceilings(path, cases: list = ()) -> dict:
    """A machine's ceilings (course_ceilings --out): every measurement the file holds, and every
    ceiling that `cases` are measured against, must be a finite number above zero."""
    ceilings = read_json(path, "a ceilings JSON (course_ceilings --out)")
    if not isinstance(ceilings, dict):
        raise cli.ToolError("is not a JSON object of ceilings (course_ceilings --out)", path)
    needed = {"copy_GBps"} | {CEILINGS[unit][0] for case in cases for unit in case.amounts if unit in CEILINGS}
    for key in sorted(needed | (set(MEASURED_CEILINGS) & set(ceilings))):
        if key not in ceilings:
            raise cli.ToolError(f"has no \"{key}\", which the results are measured against", path)
        number(ceilings[key], path, f"\"{key}\"")
    return ceilings


def context_number(context: dict, key: str, path, whole: bool = False) -> float:
    """A number the benchmark recorded in its JSON's context (as text, "20"): a ToolError naming
    the file and the key unless it is there and a finite number above zero (whole, with `whole`)."""
    text = context.get(key)
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and value > 0 and (not whole or value == int(value))):
        wanted = "a whole number above zero" if whole else "a finite number above zero"
        raise cli.ToolError(f"its context's \"{key}\" needs {wanted}, not {json.dumps(text)}", path)
    return int(value) if whole else value


def load_peers(path) -> tuple[dict, list]:
    """(context, cases) of a peer measured apart (a chapter's peer_*.py): JSON with the peer's
    context and "cases": [{"group", "name", "median_ms", "min_ms", "max_ms", "amounts": {unit: per run}}].
    A case is drawn and tabled with the benchmark groups whose name starts with its "group"."""
    data = read_json(path, "a peer's results JSON")
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list) or not data["cases"]:
        raise cli.ToolError("has no \"cases\" list: not a peer's results (peer_timing.write_results)", path)
    cases = []
    for index, c in enumerate(data["cases"]):
        where = f"cases[{index}]"
        if not isinstance(c, dict) or not all(isinstance(c.get(key), str) and c[key] for key in ("group", "name")):
            raise cli.ToolError(f"{where} needs a \"group\" and a \"name\"", path)
        if not isinstance(c.get("amounts"), dict) or "GB" not in c["amounts"]:
            raise cli.ToolError(f"{where} needs \"amounts\" with at least \"GB\"", path)
        times = [number(c.get(key), path, f"{where}: {key}") for key in ("median_ms", "min_ms", "max_ms")]
        amounts = {unit: number(value, path, f"{where}: amounts.{unit}", positive=unit == "GB")
                   for unit, value in c["amounts"].items()}
        cases.append(Case(c["group"], c["name"], *times, c.get("repetitions", 0), amounts))
    return {k: v for k, v in data.items() if k != "cases"}, cases


def gpu_folder(gpu: str) -> str:
    """The folder a GPU's results are kept in, from its name as the runtime gives it: "NVIDIA H200"
    -> "h200", "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3" (the vendor dropped, the rest in lower
    case, runs of anything else than letters and digits as one "-")."""
    name = re.sub(r"^(NVIDIA|AMD)\s+", "", gpu.strip(), flags=re.I)
    folder = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not folder:
        raise cli.ToolError(f"cannot name a results folder after the GPU {json.dumps(gpu)}")
    return folder


class CsvRow(dict):
    """A row of a results CSV: a column it lacks is a ToolError naming the file, not a KeyError."""

    def __init__(self, values: dict, path):
        super().__init__(values)
        self.path = path

    def __missing__(self, column):
        raise cli.ToolError(f"has no column '{column}'", self.path)

    def number(self, column) -> float:
        try:
            return float(self[column])
        except (TypeError, ValueError):  # not a number, or None: the row is shorter than the header
            raise cli.ToolError(f"column '{column}' holds {json.dumps(self[column])}, not a number", self.path) from None


def read_csv(path) -> list:
    """The rows of a results CSV (a header, then rows), each a CsvRow; a file missing, empty, or
    with a header and no rows is a ToolError naming it."""
    rows = [CsvRow(row, path) for row in csv.DictReader(io.StringIO(cli.read_text(path, "a CSV of results")))]
    if not rows:
        raise cli.ToolError("has a header but no rows (an unfinished profile?)", path)
    return rows


@dataclass
class ChapterResults:
    """What a chapter commits for one GPU, in chapters/NN_name/results/GPU/: bench.json,
    ceilings.json, and whatever else its tables read (traffic.csv, peers' JSON)."""
    folder: pathlib.Path
    context: dict
    cases: list
    ceilings: dict

    def groups(self) -> list:
        return list(dict.fromkeys(c.group for c in self.cases))

    @property
    def taught(self) -> list:
        """The cases of taught steps and peers: what the lesson's tables show."""
        return [c for c in self.cases if not c.experiment]

    @property
    def experiments(self) -> list:
        return [c for c in self.cases if c.experiment]

    @property
    def gpu(self) -> str:
        return self.context["gpu"]

    def number(self, key: str, whole: bool = False) -> float:
        """A number of bench.json's context (context_number)."""
        return context_number(self.context, key, self.folder / "bench.json", whole)

    @property
    def label(self) -> str:
        """The GPU's short name, for columns and headings: "H200", "H100 80GB HBM3"."""
        return re.sub(r"^(NVIDIA|AMD)\s+", "", self.gpu.strip(), flags=re.I)



def load_gpu(folder: pathlib.Path) -> ChapterResults:
    """One GPU's results: FOLDER/bench.json and FOLDER/ceilings.json, the cases of experiments
    marked from the chapter's registry (FOLDER is chapters/NN_name/results/GPU/)."""
    folder = pathlib.Path(folder)
    chapter = folder.parent.parent
    context, cases = load(folder / "bench.json", bench_program(chapter))
    if (chapter / "steps.hpp").exists():
        experiments = registry.experiments(chapter)
        for case in cases:
            case.experiment = case.name in experiments
    return ChapterResults(folder, context, cases, load_ceilings(folder / "ceilings.json", cases))


def load_chapter(chapter: pathlib.Path) -> list:
    """Every GPU's results of a chapter (chapters/NN_name/results/*/), in the order of their
    folders' names; each folder must be named after the GPU its bench.json recorded."""
    chapter = pathlib.Path(chapter)
    if not chapter.is_dir():
        raise cli.ToolError(("is not a folder" if chapter.exists() else "no such chapter folder")
                            + ": give a chapter's folder, such as chapters/01_transpose", chapter)
    folder = chapter / "results"
    if (folder / "bench.json").exists():
        raise cli.ToolError("results are kept per GPU, in results/GPU/ (results.py --gpu-folder names it): "
                            "move this run's files there", folder / "bench.json")
    gpus = sorted(path.parent for path in folder.glob("*/bench.json"))
    if not gpus:
        raise cli.ToolError("no GPU's results: the chapter has no results/GPU/bench.json", folder)
    runs = [load_gpu(gpu) for gpu in gpus]
    for run in runs:
        if run.folder.name != gpu_folder(run.gpu):
            raise cli.ToolError(f"holds a run on the {run.gpu}, whose folder is {gpu_folder(run.gpu)}/", run.folder)
    return runs


def main() -> int:
    parser = cli.ArgumentParser(description="Prints what a benchmark recorded, one line per case: its median "
                                "time and every rate, against the ceilings when a chapter folder is given.")
    parser.add_argument("path", type=pathlib.Path, nargs="?",
                        help="a chapter folder (its results/), a --benchmark_out JSON, or a peer's JSON")
    parser.add_argument("--gpu-folder", metavar="GPU", help="print the results folder of the GPU named GPU, and exit")
    args = parser.parse_args()
    if args.gpu_folder is not None:
        print(gpu_folder(args.gpu_folder))
        return 0
    if args.path is None:
        parser.error("the following arguments are required: path")
    if not args.path.exists():
        raise cli.ToolError("no such file or folder", args.path)
    if args.path.is_dir():
        runs = [(run.context, run.cases, run.ceilings) for run in load_chapter(args.path)]
    elif isinstance(data := read_json(args.path, "benchmark or peer results"), dict) and "cases" in data:
        runs = [(*load_peers(args.path), {})]
    else:
        runs = [(*load(args.path), {})]
    for context, cases, ceilings in runs:
        print(", ".join(f"{key} {context[key]}" for key in CONTEXT if key in context))
        for c in cases:
            rates = [f"{c.rate(unit):.1f} {unit}/s" + (f" ({c.of_ceiling(unit, ceilings):.3f} {CEILINGS[unit][1]})"
                                                       if ceilings and unit in CEILINGS else "") for unit in c.amounts]
            print(f"{c.group} | {c.name} | {c.median_ms:.4f} ms | " + ", ".join(rates))
    return 0


if __name__ == "__main__":
    cli.run(main)
