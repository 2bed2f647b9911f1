"""The speed verdict: a student's step timed beside the solution's same step, on the same GPU and
the same inputs, judged against a stated threshold; and a step's memory traffic beside the
solution's. exercises/grade.py --bench and --profile print what this module decides.

A verdict line says the median time, the fraction of the ceiling that binds (the roofline's:
bytes against the copy bandwidth, flops against the FMA rate, reciprocal square roots against
the rsqrt rate), the fraction of the solution's speed, and one word:
    ok      at least OK_FRACTION of the solution's speed
    slow    below it: the step's lesson says what the solution does
    broken  faster than the hardware allows (a measurement to distrust, not a score)
"""
import csv
import math
from dataclasses import dataclass

import results

OK_FRACTION = 0.8  # of the solution's speed: below it a step is "slow"
# How far past each measured ceiling a time may go before it is a broken measurement rather than
# a fast kernel. Copy: a kernel that only reads can beat the copy ceiling a little (it measures
# reads and writes together). FMA: the measured peak is the peak. Rsqrt: chapter 4 computes part of
# its roots on the FMA pipe, whose bound (two pipes) is about 1.4 times the rsqrt ceiling.
PHYSICAL_MARGIN = {"GB": 1.25, "GFLOP": 1.1, "Grsqrt": 1.5}


@dataclass
class Verdict:
    name: str           # the step's case, "04_shared_y"
    group: str          # where it was timed, "laplacian8 512^3"
    median_ms: float
    solution_ms: float
    binding: str        # "of copy", "of FMA", "of rsqrt", or "" without ceilings for its work
    of_ceiling: float   # the fraction of that ceiling, 0 when there is none
    word: str           # ok, slow, broken

    @property
    def of_solution(self) -> float:
        return self.solution_ms / self.median_ms

    def line(self) -> str:
        ceiling = f", {self.of_ceiling:.2f} {self.binding}" if self.binding else ""
        if self.word == "broken":
            return (f"broken measurement: {self.median_ms:.4f} ms is faster than this GPU can move or compute the step's "
                    f"work ({self.of_ceiling:.2f} {self.binding}); is work running outside the timed launches?")
        text = f"{self.word}, {self.of_solution:.2f} of the solution{ceiling} ({self.median_ms:.4f} ms, solution {self.solution_ms:.4f} ms)"
        return text + (" - see the step's lesson" if self.word == "slow" else "")


def binding_ceiling(case: results.Case, ceilings: dict) -> tuple:
    """(unit, fraction of its ceiling) of the ceiling that binds the case's work, or ("", 0)."""
    measured = [unit for unit in case.amounts if unit in results.CEILINGS and case.amounts[unit] > 0]
    if not measured or not ceilings:
        return "", 0.0
    bound_ms, unit = case.roofline_ms(ceilings)
    return unit, bound_ms / case.median_ms


def judge(student: results.Case, solution: results.Case, ceilings: dict) -> Verdict:
    unit, fraction = binding_ceiling(student, ceilings)
    if unit and fraction > PHYSICAL_MARGIN[unit]:
        word = "broken"
    elif solution.median_ms / student.median_ms >= OK_FRACTION:
        word = "ok"
    else:
        word = "slow"
    binding = results.CEILINGS[unit][1] if unit else ""
    return Verdict(student.name, student.group, student.median_ms, solution.median_ms, binding, fraction, word)


def verdicts(student_cases: list, solution_cases: list, ceilings: dict) -> list:
    """One verdict per step case the student's run timed, against the solution's same case."""
    solution = {(c.group, c.name): c for c in solution_cases}
    found = []
    for case in student_cases:
        if not case.is_step:
            continue
        peer = solution.get((case.group, case.name))
        if peer is None:
            raise results.cli.ToolError(f"the solution's run has no {case.group}/{case.name} to compare with")
        found.append(judge(case, peer, ceilings))
    return found


def traffic_rows(path) -> dict:
    """{kernel: {column: value}} from profiling/traffic.py's traffic.csv."""
    text = results.cli.read_text(path, "a traffic table (profiling/traffic.py --out)")
    rows = list(csv.DictReader(text.splitlines()))
    if not rows or "kernel" not in rows[0]:
        raise results.cli.ToolError("has no kernels: not profiling/traffic.py's traffic.csv", path)
    return {row["kernel"]: row for row in rows}


# traffic.csv's columns, each with its unit's scale: bytes in MB, shared-memory bank conflicts in millions
TRAFFIC_COLUMNS = {"L1 MB": 1, "L2 read MB": 1, "L2 write MB": 1, "HBM MB": 1, "bank conflicts": 1e6}


def traffic_table(student: dict, solution: dict, fewest_bytes: float) -> list:
    """Lines of a table: each kernel's traffic at every level and its shared-memory bank conflicts,
    the student's beside the solution's."""
    names = [name if scale == 1 else f"{name} (M)" for name, scale in TRAFFIC_COLUMNS.items()]
    header = f"  {'kernel':<34}" + "".join(f" {name:>22}" for name in names)
    lines = [header, f"  {'':<34}" + "".join(f" {'yours / solution':>22}" for _ in names)]
    for kernel in dict.fromkeys(list(student) + list(solution)):
        cells = []
        for column, scale in TRAFFIC_COLUMNS.items():
            mine = _scaled(student.get(kernel, {}).get(column), scale)
            theirs = _scaled(solution.get(kernel, {}).get(column), scale)
            cells.append(f" {mine + ' / ' + theirs:>22}")
        lines.append(f"  {kernel[:34]:<34}" + "".join(cells))
    lines.append(f"  the fewest bytes the step must move: {fewest_bytes / 1e6:.1f} MB (each input read once, each output "
                 "written once)")
    return lines


def _scaled(value, scale: float) -> str:
    try:
        number = float(value) / scale
    except (TypeError, ValueError):
        return "-"
    return f"{number:.1f}" if math.isfinite(number) else "-"
