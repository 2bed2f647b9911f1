"""Chapter 6's README tables (profiling/report.py), from one GPU model's results/GPU/:

  scaling   per group (strong, weak) and step: ms per time step on 1, 2, 4 ... GPUs, and the
            parallel efficiency T1 / (N TN), T1 being step 00 on one GPU (weak scaling: the problem
            grows with N, so that is T1 / TN);
  exchange  per group and GPU count from 2 (on one GPU the exchange is a rank's copy to itself,
            no link): the exchange alone (step 03's, no compute), its bytes sent and
            received per GPU per second against the peer copy both ways (ceilings.json), the
            compute alone, steps 03 to 05, and the share of the exchange that steps 04 and 05
            hide: (compute + exchange - step) / exchange;
  small     the scaling table of bench-small.json (strong 256^3, weak 128^3), where launches cost;
  targets   the issue's three targets against the best of steps 04 and 05, each "not measured"
            until the counts it names ran (the strong one 8 GPUs, the others 2 or more); a figure
            names the counts it comes from, and a row's label is the same whatever ran, since
            report.py matches the GPU models' rows by it;
  traffic   profile.sh's traffic per kernel (step 00 at 512^3), when it was recorded;
  between   the lesson's "Between GPUs", every GPU model side by side: its ceilings, the kernel on
            one GPU, and on COMPARED_GPUS GPUs the exchange's weight, the weak efficiency's two
            factors, step 04's efficiencies and hidden shares, and the copy-engine experiment's
            efficiencies;
  anchor_by_gpu
            the anchor's strong-scaling efficiencies (results/GPU/anchor-DATE/anchor.csv, its own
            -csv output) beside the step of this chapter that does the same, its ranks run the
            same way (threads or processes), where the anchor ran;
  hidden_by_gpu, copy_engines_by_gpu, processes_by_gpu
            the lesson's hidden, copy_engines and processes tables below, for every GPU model that
            ran on several GPUs (NOTES.md), side by side (report.py names the model of a lone one).
The lesson's tables (README.md), from the lesson's GPU only (LESSON_GPU; the other model is in
`between` and NOTES.md's tables):
  bound     the bytes a GPU moves a step and the time the measured ceilings allow for them;
  glance    each taught step: its idea, its prediction, its time on 1 and 2 GPUs and its
            parallel efficiency, weak and strong;
  result_NN the small table of step NN's section;
  headline  one sentence: the best weak and strong efficiency on the most GPUs recorded;
  hidden    the share of the exchange that steps 04 and 05 hide, against `split compute only`
            (step 04's launches without the exchange), so that the split's own cost is not counted
            as exchange: (exchange + split compute - step) / exchange, with its spread: one
            standard deviation from the three cases' spreads over their repetitions (bench.json's
            stddev aggregates), taken as independent;
  processes the steps with their ranks as threads of one process (bench.json) and as MPI processes
            (bench-mpi-N.json), side by side;
  nodes     a prediction, not a measurement: the efficiency on 2 and 4 nodes of one GPU each, the
            measured exchange's bytes over two assumed network rates (NETWORK_GBPS).
"""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/06_multi_gpu")

import re
import statistics

import report_tables
import results

CASE = re.compile(r"^(?P<step>.+) x(?P<gpus>\d+)$")
BASELINE = "00_one_gpu"
COMPUTE, EXCHANGE = "compute only", "exchange only (NCCL)"
OVERLAPPED = ("04_", "05_")


def headline_case(res):
    """The course README's chapter table (profiling/course_table.py): the best taught step of the
    weak-scaling group on the most GPUs recorded, against the copy ceiling of one GPU."""
    weak = [c for c in res.taught if c.group.startswith("weak") and c.is_step and CASE.match(c.name)]
    most = max(int(CASE.match(c.name)["gpus"]) for c in weak)
    return max((c for c in weak if int(CASE.match(c.name)["gpus"]) == most), key=lambda c: c.gbps)
TARGETS = {"weak": 0.95, "strong": 0.85, "hidden": 0.9}  # issue 29
STRONG_TARGET_GPUS = 8


def by_step(cases: list, group: str) -> dict:
    """{step: {gpus: case}} for one group, steps in the order they ran."""
    found = {}
    for c in cases:
        match = CASE.match(c.name)
        if c.group == group and match:
            found.setdefault(match["step"], {})[int(match["gpus"])] = c
    return found


def per_step_ms(case, steps: int) -> float:
    return case.median_ms / steps


def efficiency(group: str, t1: float, tn: float, gpus: int) -> float:
    return t1 / tn / (1 if group.startswith("weak") else gpus)


def scaling_tables(cases: list, steps: int) -> str:
    parts = []
    for group in dict.fromkeys(c.group for c in cases):
        rows = by_step(cases, group)
        counts = sorted({n for by_count in rows.values() for n in by_count})
        t1 = per_step_ms(rows[BASELINE][1], steps) if 1 in rows.get(BASELINE, {}) else None
        formula = "T1 / TN" if group.startswith("weak") else "T1 / (N TN)"
        lines = [f"**{group}**, {steps} steps a run: ms per time step (parallel efficiency {formula})", "",
                 "| step | " + " | ".join(f"{n} GPU{'s' if n > 1 else ''}" for n in counts) + " |",
                 "|---|" + "---:|" * len(counts)]
        for step, by_count in rows.items():
            cells = []
            for n in counts:
                if n not in by_count:
                    cells.append("")
                    continue
                ms = per_step_ms(by_count[n], steps)
                shown = t1 is not None and not step.startswith("exchange only")  # no update: no efficiency
                cells.append(f"{ms:.4f}" + (f" ({efficiency(group, t1, ms, n):.2f})" if shown else ""))
            label = f"`{step}`" if step[:2].isdigit() else f"*{step}* (peer)"
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def hidden(rows: dict, prefix: str, n: int, steps: int):
    """The share of the exchange that the step named by `prefix` hides on n GPUs, or None."""
    step = next((rows[s][n] for s in rows if s.startswith(prefix) and n in rows[s]), None)
    compute, exchange = rows.get(COMPUTE, {}).get(n), rows.get(EXCHANGE, {}).get(n)
    if step is None or compute is None or exchange is None:
        return None
    c, x, t = (per_step_ms(case, steps) for case in (compute, exchange, step))
    return (c + x - t) / x


def exchange_tables(res, steps: int) -> str:
    peer = res.ceilings.get("peer_both_ways_GBps")
    parts = []
    for group in res.groups():
        rows = by_step(res.cases, group)
        counts = sorted({n for by_count in rows.values() for n in by_count if n > 1})
        if not counts:
            continue
        lines = [f"**{group}**: ms per time step; the exchange's GB/s counts the bytes each GPU sends and receives"
                 + (f"; peer copy both ways {peer:.0f} GB/s (course_ceilings)" if peer else ""), "",
                 "| GPUs | exchange | GB/s per GPU | of peer copy | compute | `03` | `04` | hidden by 04 | `05` | hidden by 05 |",
                 "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for n in counts:
            cells = [str(n)]
            exchange = rows.get(EXCHANGE, {}).get(n)
            cells += [f"{per_step_ms(exchange, steps):.4f}", f"{exchange.rate('GB'):.1f}",
                      f"{exchange.rate('GB') / peer:.2f}" if peer else ""] if exchange else ["", "", ""]
            compute = rows.get(COMPUTE, {}).get(n)
            cells.append(f"{per_step_ms(compute, steps):.4f}" if compute else "")
            for prefix in ("03_",) + OVERLAPPED:
                step = next((rows[s][n] for s in rows if s.startswith(prefix) and n in rows[s]), None)
                cells.append(f"{per_step_ms(step, steps):.4f}" if step else "")
                if prefix in OVERLAPPED:
                    share = hidden(rows, prefix, n, steps)
                    cells.append(f"{share:.2f}" if share is not None else "")
            lines.append("| " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) or "*Not measured: the exchange crosses a link from 2 GPUs on; this GPU model has run on one.*"


def targets_table(res, steps: int) -> str:
    lines = ["| target | wanted | best of steps 04 and 05 | met |", "|---|---:|---|---|"]
    for group in res.groups():
        rows = by_step(res.cases, group)
        if 1 not in rows.get(BASELINE, {}):
            continue
        t1 = per_step_ms(rows[BASELINE][1], steps)
        counts = sorted({n for s, by_count in rows.items() if s.startswith(OVERLAPPED) for n in by_count})
        best = {n: max(efficiency(group, t1, per_step_ms(rows[s][n], steps), n)
                       for s in rows if s.startswith(OVERLAPPED) and n in rows[s]) for n in counts}
        if not best:
            continue
        most = max(counts)
        unmeasured = f"not measured: {most} GPU{'s' if most > 1 else ''} here"
        if group.startswith("weak"):
            several = {n: e for n, e in best.items() if n > 1}
            if several:
                worst = min(several, key=several.get)
                ran = ", ".join(str(n) for n in several)
                lines.append(f"| {group}: efficiency at every count | {TARGETS['weak']} | {several[worst]:.3f} ({worst} "
                             f"GPUs, the lowest of {ran}) | {'yes' if several[worst] >= TARGETS['weak'] else 'no'} |")
            else:
                lines.append(f"| {group}: efficiency at every count | {TARGETS['weak']} | {unmeasured} | - |")
        elif STRONG_TARGET_GPUS in best:
            e = best[STRONG_TARGET_GPUS]
            lines.append(f"| {group}: efficiency on {STRONG_TARGET_GPUS} GPUs | {TARGETS['strong']} | {e:.3f} | "
                         f"{'yes' if e >= TARGETS['strong'] else 'no'} |")
        else:
            lines.append(f"| {group}: efficiency on {STRONG_TARGET_GPUS} GPUs | {TARGETS['strong']} | {unmeasured} | - |")
        shares = [s for s in (hidden(rows, prefix, most, steps) for prefix in OVERLAPPED) if s is not None]
        if most > 1 and shares:
            lines.append(f"| {group}: exchange hidden | {TARGETS['hidden']} | {max(shares):.2f} (on {most} GPUs) | "
                         f"{'yes' if max(shares) >= TARGETS['hidden'] else 'no'} |")
        else:
            lines.append(f"| {group}: exchange hidden | {TARGETS['hidden']} | {unmeasured} | - |")
    if len(lines) == 2:  # steps 04 and 05 never ran: a build without NCCL leaves them out
        return "*Not measured: steps 04 and 05, which the targets are for, did not run (they need NCCL and step 00 beside them).*"
    return "\n".join(lines)


# --- the lesson's tables ---------------------------------------------------------------------------

LESSON_GPU = "h200"  # the GPU model whose figures the lesson's steps quote
SPLIT = "split compute only"
PEER_COPY_OVERLAP = "overlap by peer copies"  # the experiment peer: step 04 with step 02's copies
PEER_COPY_EXCHANGE = "exchange only (peer copies)"  # its exchange alone (recorded since 800529d)
# Each taught step's idea and its prediction, in the lesson's words (README.md's step sections);
# the predictions were written before the runs, from the bounds (NOTES.md).
LESSON = {
    "00": ("the whole grid on one GPU: leapfrog, images and z halos on one stream",
           "the update at 0.80 of copy or better (chapter 3's step 10)"),
    "01": ("a z slab a GPU; the halos through pinned host memory",
           "the host round trip, not hidden: about 0.6"),
    "02": ("each GPU pulls its halos from its neighbours' memory",
           "the halos at the peer rate, not hidden: about 0.95"),
    "03": ("the four halo messages as NCCL calls in one group", "as step 02, without the barrier: about 0.95"),
    "04": ("boundary planes first; their exchange under the interior, on two streams",
           "90% of the exchange hidden or more: 0.97-0.99"),
    "05": ("step 04's time step captured once, launched as one graph", "as step 04, with fewer launches"),
}
# Assumed, not measured: one 400 Gb/s network card a GPU, each way: its line rate, and about what
# NCCL's own tests are reported to reach on such a card for messages of a few MB.
NETWORK_GBPS = (50.0, 40.0)
PREDICTED_NODES = (2, 4)


def group_of(res_or_cases, kind: str) -> str:
    """The group whose name starts with `kind` ("weak", "strong")."""
    cases = res_or_cases.cases if hasattr(res_or_cases, "cases") else res_or_cases
    return next(c.group for c in cases if c.group.startswith(kind))


def step_ms(rows: dict, prefix: str, n: int, steps: int):
    """ms a time step of the step or peer named by `prefix` on n GPUs, or None."""
    name = next((s for s in rows if (s.startswith(prefix) if prefix[:2].isdigit() else s == prefix) and n in rows[s]), None)
    return per_step_ms(rows[name][n], steps) if name else None


def most_gpus(rows: dict) -> int:
    return max(n for by_count in rows.values() for n in by_count)


def split_hidden(rows: dict, prefix: str, n: int, steps: int, exchange_name: str = EXCHANGE):
    """The share of the exchange that the step hides, against step 04's split work without it."""
    step, split, exchange = (step_ms(rows, name, n, steps) for name in (prefix, SPLIT, exchange_name))
    if None in (step, split, exchange):
        return None
    return (exchange + split - step) / exchange


def spreads(path) -> dict:
    """{(group, case name): standard deviation in ms of a run} from a --benchmark_out JSON file's
    stddev aggregates (results.load keeps the median, min and max only)."""
    data = results.read_json(path, "a benchmark's --benchmark_out JSON")
    return {tuple(run["run_name"].split("/")[:2]): results.number(run["real_time"], path, "stddev", positive=False)
            for run in data["benchmarks"] if run.get("run_type") == "aggregate" and run.get("aggregate_name") == "stddev"}


def hidden_spread(path, group: str, rows: dict, prefix: str, n: int, steps: int):
    """One standard deviation of split_hidden, propagated from the three cases' spreads in the
    benchmark's JSON file `path`, or None."""
    names = [next(s for s in rows if (s.startswith(name) if name[:2].isdigit() else s == name) and n in rows[s])
             for name in (prefix, SPLIT, EXCHANGE)]
    found = spreads(path)
    sigma = [found.get((group, f"{name} x{n}")) for name in names]
    if None in sigma:
        return None
    step, split, exchange = (s / steps for s in sigma)
    e = step_ms(rows, EXCHANGE, n, steps)
    slope = (step_ms(rows, prefix, n, steps) - step_ms(rows, SPLIT, n, steps)) / e  # d share / d exchange, times e
    return (step ** 2 + split ** 2 + (slope * exchange) ** 2) ** 0.5 / e


def headline(res, steps: int) -> str:
    """One sentence: the best taught step's weak and strong efficiency on the most GPUs recorded."""
    parts = []
    for kind in ("weak", "strong"):
        group = group_of(res, kind)
        rows = by_step(res.cases, group)
        n = most_gpus(rows)
        t1 = step_ms(rows, BASELINE, 1, steps)
        best = max((efficiency(group, t1, step_ms(rows, s, n, steps), n), s[:2]) for s in rows
                   if s[:2] in LESSON and n in rows[s] and s != BASELINE)
        parts.append(f"a {kind} efficiency of {best[0]:.2f} (step {best[1]})")
    return f"On {n} GPUs the best steps reach {parts[0]} and {parts[1]}."


def lesson_bound(res, steps: int) -> str:
    """The bytes a GPU moves a time step, from the recording's counts, and the time the measured
    ceilings allow for them: the update at the copy rate, the halos at the peer copy's, and (where
    the ceilings have the host copies) step 01's halos down to the host and then up."""
    lines = ["| what a GPU moves a time step | problem | bytes | ceiling (course_ceilings) | ms at the ceiling |",
             "|---|---|---:|---:|---:|"]
    copy, peer = res.ceilings["copy_GBps"], res.ceilings["peer_both_ways_GBps"]
    for kind in ("weak", "strong"):
        group = group_of(res, kind)
        rows = by_step(res.cases, group)
        n = most_gpus(rows)
        update = rows[BASELINE][1].bytes_per_run / steps
        for gpus, problem in ((1, group), (n, f"{group}, {n} GPUs")):
            if gpus == 1 or kind == "strong":
                share = update if kind == "weak" else update / gpus
                lines.append(f"| the update: read u(n) and u(n-1), write u(n+1), 12 B a point | {problem} | {share / 1e9:.2f} GB | "
                             f"copy {copy / 1e3:.2f} TB/s | {share / copy / 1e6:.3f} |")
        halo = rows[EXCHANGE][n].bytes_per_run / steps
        lines.append(f"| the halos: R = 4 planes sent up and down, 4 received from each side | {group}, {n} GPUs | "
                     f"{halo / 1e6:.1f} MB | peer copy both ways {peer:.0f} GB/s | {halo / peer / 1e6:.4f} |")
        if kind == "weak" and "host_to_device_GBps" in res.ceilings:
            down, up = res.ceilings["device_to_host_GBps"], res.ceilings["host_to_device_GBps"]
            lines.append(f"| step 01's halos: the planes sent down to the host, then those received up | {group} | "
                         f"{halo / 1e6:.1f} MB | host copy {down:.0f} down, {up:.0f} up GB/s | "
                         f"{(halo / 2 / down + halo / 2 / up) / 1e6:.4f} |")
    return "\n".join(lines)


def efficiency_cell(group: str, t1, ms, n: int) -> str:
    return f"{efficiency(group, t1, ms, n):.2f}" if t1 and ms else "—"


def glance_table(res, steps: int) -> str:
    weak, strong = (by_step(res.cases, group_of(res, kind)) for kind in ("weak", "strong"))
    weak_group, strong_group = group_of(res, "weak"), group_of(res, "strong")
    n = most_gpus(weak)
    t1_weak, t1_strong = step_ms(weak, BASELINE, 1, steps), step_ms(strong, BASELINE, 1, steps)
    lines = [f"| step | idea | predicted ({n} GPUs, weak) | 1 GPU, 512^3: ms | of copy | {n} GPUs, weak 512^3 each: ms | "
             f"weak efficiency | {n} GPUs, strong 1024^3: ms | strong efficiency |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for number, (idea, predicted) in LESSON.items():
        one = next((rows[1] for s, rows in weak.items() if s.startswith(number) and 1 in rows), None)
        w, s = step_ms(weak, number, n, steps), step_ms(strong, number, n, steps)
        cells = [number, idea, predicted, f"{per_step_ms(one, steps):.4f}" if one else "—",
                 f"{one.of_ceiling('GB', res.ceilings):.2f}" if one else "—",
                 f"{w:.4f}" if w else "—", efficiency_cell(weak_group, t1_weak, w, n),
                 f"{s:.4f}" if s else "—", efficiency_cell(strong_group, t1_strong, s, n)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def label(step: str) -> str:
    return f"*{step}* (reference)" if not step[:2].isdigit() else f"`{step}`"


def steps_table(res, names: list, steps: int) -> str:
    """A step section's result: the named steps and peers, weak on 1 and n GPUs, strong on n, with
    the parallel efficiency of each step."""
    weak_group, strong_group = group_of(res, "weak"), group_of(res, "strong")
    weak, strong = by_step(res.cases, weak_group), by_step(res.cases, strong_group)
    n = most_gpus(weak)
    t1_weak, t1_strong = step_ms(weak, BASELINE, 1, steps), step_ms(strong, BASELINE, 1, steps)
    lines = [f"| ms a time step (efficiency) | weak 512^3, 1 GPU | weak, {n} GPUs | strong 1024^3, {n} GPUs |",
             "|---|---:|---:|---:|"]
    for name in names:
        cells = []
        for rows, group, t1, gpus in ((weak, weak_group, t1_weak, 1), (weak, weak_group, t1_weak, n),
                                      (strong, strong_group, t1_strong, n)):
            ms = step_ms(rows, name, gpus, steps)
            shown = ms is not None and not name.startswith("exchange only")
            cells.append("—" if ms is None else f"{ms:.4f}" + (f" ({efficiency(group, t1, ms, gpus):.2f})" if shown else ""))
        lines.append(f"| {label(next((s for s in weak if s.startswith(name)), name))} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def kernel_table(res, steps: int) -> str:
    """Step 00's result: the time loop and its compute alone against the copy, both sizes."""
    groups = [group_of(res, "weak"), group_of(res, "strong")]
    lines = ["| on 1 GPU | " + " | ".join(f"{g.split()[1]}: ms a step | of copy" for g in groups) + " |", "|---|" + "---:|---:|" * 2]
    for name in (BASELINE, COMPUTE):
        cells = []
        for group in groups:
            case = by_step(res.cases, group)[name][1]
            cells += [f"{per_step_ms(case, steps):.4f}", f"{case.of_ceiling('GB', res.ceilings):.2f}"]
        lines.append(f"| {label(name)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def process_runs(res) -> dict:
    """{GPUs: (cases, steps a run)} of the ranks as MPI processes, one a GPU (bench-mpi-N.json)."""
    found = {}
    for path in sorted(res.folder.glob("bench-mpi-*.json")):
        context, cases = results.load(path, "bench_multi_gpu")
        found[int(path.stem.rsplit("-", 1)[1])] = (cases, results.context_number(context, "steps", path, whole=True))
    return found


COMPARED_GPUS = 4  # the count "Between GPUs" compares at: both models ran it; fixed, so that rows line up


def between_table(res, steps: int) -> str:
    """One GPU model's figures for the lesson's "Between GPUs", a row each, so that report.py sets
    the models' columns side by side: what bounds a step (the copy and peer rates), the kernel on
    one GPU, and on COMPARED_GPUS GPUs the exchange against the split work, the weak efficiency's
    two factors, step 04's and the copy-engine experiment's efficiencies, and step 04's hidden
    share."""
    weak_group, strong_group = group_of(res, "weak"), group_of(res, "strong")
    weak, strong = by_step(res.cases, weak_group), by_step(res.cases, strong_group)
    n = COMPARED_GPUS
    lines = ["| quantity | measured |", "|---|---:|",
             f"| copy rate (course_ceilings): GB/s | {res.ceilings['copy_GBps']:.1f} |"]
    if "peer_GBps" in res.ceilings:
        lines.append(f"| peer copy, each way: GB/s | {res.ceilings['peer_GBps']:.1f} |")
    for group, rows in ((weak_group, weak), (strong_group, strong)):
        one = rows[BASELINE][1]
        lines.append(f"| `{BASELINE}` on 1 GPU, {group.split()[1]}: ms a step (of copy) | "
                     f"{per_step_ms(one, steps):.4f} ({one.of_ceiling('GB', res.ceilings):.2f}) |")
    t1 = step_ms(weak, BASELINE, 1, steps)
    for group, rows in ((weak_group, weak), (strong_group, strong)):
        exchange, split = step_ms(rows, EXCHANGE, n, steps), step_ms(rows, SPLIT, n, steps)
        if None not in (exchange, split):
            lines.append(f"| exchange alone on {n} GPUs, {group.split()[0]}: ms (over the split compute) | "
                         f"{exchange:.4f} ({exchange / split:.2f}) |")
    split, overlapped = step_ms(weak, SPLIT, n, steps), step_ms(weak, "04", n, steps)
    if None not in (split, overlapped):
        lines += [f"| weak on {n} GPUs, the baseline's factor: `{BASELINE}` on 1 GPU over the split compute | {t1 / split:.3f} |",
                  f"| weak on {n} GPUs, the overlap's factor: the split compute over `04_overlap` | {split / overlapped:.3f} |"]
    for name, label_of in (("04", "`04_overlap`"), (PEER_COPY_OVERLAP, f"copy engines (*{PEER_COPY_OVERLAP}*)")):
        for group, rows in ((weak_group, weak), (strong_group, strong)):
            ms = step_ms(rows, name, n, steps)
            if ms is not None:
                lines.append(f"| {label_of} on {n} GPUs, {group.split()[0]}: efficiency | "
                             f"{efficiency(group, step_ms(rows, BASELINE, 1, steps), ms, n):.3f} |")
    runs = [("threads", res.folder / "bench.json", res.cases, steps)]
    mpi = process_runs(res)
    if n in mpi:
        runs.append(("processes", res.folder / f"bench-mpi-{n}.json", *mpi[n]))
    for ranks, path, cases, run_steps in runs:
        for group in (weak_group, strong_group):
            rows = by_step(cases, group)
            share = split_hidden(rows, "04", n, run_steps)
            if share is not None:
                spread = hidden_spread(path, group, rows, "04", n, run_steps)
                lines.append(f"| exchange hidden by `04_overlap` on {n} GPUs, {group.split()[0]}, ranks as {ranks} "
                             f"(± 1 sd) | {share:.2f}" + (f" ± {spread:.2f}" if spread is not None else "") + " |")
    return "\n".join(lines)


# The anchor's variants (its CSV's first column), what this chapter runs in their place, and how
# its ranks run there: its copy variants are OpenMP threads of one process, its NCCL ones MPI processes.
ANCHOR_MATCH = {"multi_threaded_copy": ("02", "threads"), "multi_threaded_copy_overlap": (PEER_COPY_OVERLAP, "threads"),
                "nccl": ("03", "processes"), "nccl_overlap": ("04", "processes"), "nccl_graphs": ("05", "processes"),
                "nccl_user_buffer_reg": (None, "processes")}


def anchor_runs(path) -> dict:
    """{(variant, GPUs): parallel efficiency} from the anchor's -csv lines: one GPU's time (the
    median of every line's runtime_serial, each run's own single-GPU reference, so that its noise
    does not reorder the variants) over N times the lowest runtime of the case (its bench.sh's rule)."""
    runtimes, serials = {}, []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if number == 1 or not line.strip():
            continue  # its header
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != 9:
            raise ValueError(f"{path}:{number}: not a line of the anchor's -csv output (9 fields): {line!r}")
        case, runtime = (cells[0], int(cells[5])), float(cells[7])
        runtimes[case] = min(runtime, runtimes.get(case, runtime))
        serials.append(float(cells[8]))
    if not serials:
        raise ValueError(f"{path}: no runs of the anchor")
    serial = statistics.median(serials)
    return {case: serial / (case[1] * runtime) for case, runtime in runtimes.items()}


def anchor_table(res, steps: int, path) -> str:
    """The anchor's strong-scaling efficiencies (its own problem, 2D) beside this chapter's step
    that does the same on its strong problem, its ranks run as the anchor's are (threads from
    bench.json, processes from bench-mpi-N.json, each against step 00 run the same way), on each
    count the anchor ran past one GPU."""
    anchor = anchor_runs(path)
    group = group_of(res, "strong")
    counts = sorted({n for _, n in anchor if n > 1})
    mpi = process_runs(res)
    runs = {"threads": {n: (res.cases, steps) for n in [1] + counts}, "processes": mpi}

    def ours(name, form, n):
        """This chapter's efficiency of `name` on n GPUs, its ranks as `form`, or None."""
        if name is None or n not in runs[form] or 1 not in runs[form]:
            return None
        t1 = step_ms(by_step(runs[form][1][0], group), BASELINE, 1, runs[form][1][1])
        ms = step_ms(by_step(runs[form][n][0], group), name, n, runs[form][n][1])
        return efficiency(group, t1, ms, n) if t1 and ms else None

    lines = ["| the anchor's variant | " + " | ".join(f"{n} GPUs" for n in counts) + " | this chapter's, ranks as | "
             + " | ".join(f"{n} GPUs, {group}" for n in counts) + " |",
             "|---|" + "---:|" * len(counts) + "---|" + "---:|" * len(counts)]
    ran = dict.fromkeys(variant for variant, _ in anchor)
    for variant in [v for v in ANCHOR_MATCH if v in ran] + [v for v in ran if v not in ANCHOR_MATCH]:
        match, form = ANCHOR_MATCH.get(variant, (None, None))
        named = f"copy engines (*{match}*), {form}" if match == PEER_COPY_OVERLAP else f"step {match}, {form}" if match else "—"
        cells = [f"{anchor[(variant, n)]:.3f}" if (variant, n) in anchor else "—" for n in counts] + [named]
        cells += [f"{e:.3f}" if (e := ours(match, form, n)) is not None else "—" for n in counts]
        lines.append(f"| `{variant}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def exchange_rate_table(res, steps: int) -> str:
    """Step 03's result: the exchange alone on n GPUs, its bytes and its rate against the peer copy."""
    peer = res.ceilings["peer_GBps"]
    lines = [f"| on {{n}} GPUs | bytes a GPU sends and receives a step | exchange alone: ms | GB/s each way | "
             f"of the peer copy ({peer:.0f} GB/s each way) | `03_nccl`: ms | compute alone: ms |", "|---|---:|---:|---:|---:|---:|---:|"]
    n = None
    for kind in ("weak", "strong"):
        group = group_of(res, kind)
        rows = by_step(res.cases, group)
        n = most_gpus(rows)
        exchange = rows[EXCHANGE][n]
        each_way = exchange.rate("GB") / 2
        lines.append(f"| {group} | {exchange.bytes_per_run / steps / 1e6:.1f} MB | {per_step_ms(exchange, steps):.4f} | "
                     f"{each_way:.0f} | {each_way / peer:.2f} | {step_ms(rows, '03', n, steps):.4f} | "
                     f"{step_ms(rows, COMPUTE, n, steps):.4f} |")
    lines[0] = lines[0].replace("{n}", str(n))
    return "\n".join(lines)


def hidden_table(res, steps: int) -> str:
    """Step 04's result: the share of the exchange hidden, against step 04's split work alone."""
    lines = ["| on {n} GPUs | exchange alone | split compute only | `04_overlap` | hidden by 04 (± 1 sd) | `05_graph` | "
             "hidden by 05 (± 1 sd) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    n = None
    for kind in ("weak", "strong"):
        group = group_of(res, kind)
        rows = by_step(res.cases, group)
        n = most_gpus(rows)
        cells = [group] + [f"{step_ms(rows, name, n, steps):.4f}" for name in (EXCHANGE, SPLIT, "04")]
        for prefix in ("04", "05"):
            spread = hidden_spread(res.folder / "bench.json", group, rows, prefix, n, steps)
            if prefix == "05":
                cells.append(f"{step_ms(rows, '05', n, steps):.4f}")
            cells.append(f"{split_hidden(rows, prefix, n, steps):.2f}" + (f" ± {spread:.2f}" if spread is not None else ""))
        lines.append("| " + " | ".join(cells) + " |")
    lines[0] = lines[0].replace("{n}", str(n))
    return "\n".join(lines)


def copy_engines_table(res, steps: int) -> str:
    """Step 04's exchange by NCCL's kernels beside the experiment that moves it with peer copies
    (copy engines): each against the split work alone, the time it leaves showing, and the
    efficiency, on the most GPUs recorded; and the share of each one's own exchange hidden, where
    the recording has the copies' exchange alone."""
    n = most_gpus(by_step(res.cases, group_of(res, "weak")))
    measured = any(c.name == f"{PEER_COPY_EXCHANGE} x{n}" for c in res.cases)
    hidden = " hidden: 04 | hidden: copy engines |" if measured else ""
    lines = [f"| on {n} GPUs, ms a time step | split compute only | `04_overlap` (NCCL's kernels) | showing | "
             f"*{PEER_COPY_OVERLAP}* (copy engines) | showing | efficiency: 04 | efficiency: copy engines |" + hidden,
             "|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * (2 if measured else 0)]
    for kind in ("weak", "strong"):
        group = group_of(res, kind)
        rows = by_step(res.cases, group)
        split, nccl, copies = (step_ms(rows, name, n, steps) for name in (SPLIT, "04", PEER_COPY_OVERLAP))
        if None in (split, nccl, copies):
            return f"*Not measured: step 04, *{SPLIT}* or *{PEER_COPY_OVERLAP}* (bench_multi_gpu --all) on {n} GPUs is missing.*"
        t1 = step_ms(rows, BASELINE, 1, steps)
        line = (f"| {group} | {split:.4f} | {nccl:.4f} | {nccl - split:.4f} | {copies:.4f} | {copies - split:.4f} | "
                f"{efficiency(group, t1, nccl, n):.3f} | {efficiency(group, t1, copies, n):.3f} |")
        if measured:
            shares = (split_hidden(rows, "04", n, steps), split_hidden(rows, PEER_COPY_OVERLAP, n, steps, PEER_COPY_EXCHANGE))
            line += "".join(f" {share:.2f} |" if share is not None else " — |" for share in shares)
        lines.append(line)
    return "\n".join(lines)


def graph_table(res, steps: int) -> str:
    """Step 05's result: steps 03-05 on n GPUs at the two sizes and at weak 128^3, where launches cost."""
    columns = [(res.cases, steps, group_of(res, "weak")), (res.cases, steps, group_of(res, "strong"))]
    small = res.folder / "bench-small.json"
    if small.exists():
        context, cases = results.load(small, "bench_multi_gpu")
        columns.append((cases, results.context_number(context, "steps", small, whole=True), group_of(cases, "weak")))
    n = most_gpus(by_step(res.cases, group_of(res, "weak")))
    lines = [f"| ms a time step, {n} GPUs | " + " | ".join(f"{group} ({run_steps}-step runs)" for _, run_steps, group in columns)
             + " |", "|---|" + "---:|" * len(columns)]
    for number in ("03", "04", "05"):
        cells = []
        for cases, run_steps, group in columns:
            ms = step_ms(by_step(cases, group), number, n, run_steps)
            cells.append(f"{ms:.4f}" if ms else "—")
        name = next(s for s in by_step(res.cases, columns[0][2]) if s.startswith(number))
        lines.append(f"| {label(name)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def processes_table(res, steps: int) -> str:
    """Every step with its ranks as threads of one process (bench.json) beside the same case as MPI
    processes, one a GPU (bench-mpi-N.json), on each count recorded both ways."""
    mpi = process_runs(res)
    if not mpi:
        return "*Not measured: no bench-mpi-N.json (the ranks as MPI processes) in this GPU's results.*"
    parts = []
    for kind in ("weak", "strong"):
        group = group_of(res, kind)
        threads = by_step(res.cases, group)
        counts = [n for n in sorted(mpi) if any(n in by_count for by_count in threads.values())]
        lines = [f"**{group}**: ms a time step", "",
                 "| step | " + " | ".join(f"{n} GPU{'s' if n > 1 else ''}: threads | {n}: processes" for n in counts) + " |",
                 "|---|" + "---:|---:|" * len(counts)]
        for name, by_count in threads.items():
            cells = []
            for n in counts:
                cases, mpi_steps = mpi[n]
                process = by_step(cases, group).get(name, {}).get(n)
                cells += [f"{per_step_ms(by_count[n], steps):.4f}" if n in by_count else "—",
                          f"{per_step_ms(process, mpi_steps):.4f}" if process else "—"]
            lines.append(f"| {label(name)} | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def nodes_table(res, steps: int) -> str:
    """A prediction from the measured exchange: nodes of one GPU each, every halo message on the
    network at each of NETWORK_GBPS each way, so the exchange takes (X / 2) / B, X the bytes a GPU
    sends and receives a step; a step takes the split compute + (1 - h) of that, h the share that
    step 04 hid on NVLink. Each cell shows one figure a rate, in NETWORK_GBPS's order."""
    rates = " / ".join(f"{rate:.0f}" for rate in NETWORK_GBPS)
    lines = [f"| problem | nodes, a GPU each | network time a step: ms, at {rates} GB/s | compute a step: ms | "
             f"efficiency, nothing hidden | hidden as by step 04 on NVLink (h) | all hidden |", "|---|---:|---:|---:|---:|---:|---:|"]
    for kind in ("weak", "strong"):
        group = group_of(res, kind)
        rows = by_step(res.cases, group)
        n = most_gpus(rows)
        t1 = step_ms(rows, BASELINE, 1, steps)
        networks = [rows[EXCHANGE][n].bytes_per_run / steps / 2 / rate / 1e6 for rate in NETWORK_GBPS]
        shown = split_hidden(rows, "04", n, steps)
        for nodes in PREDICTED_NODES:
            measured = step_ms(rows, SPLIT, nodes, steps)
            if measured:
                compute, how = measured, ""
            elif kind == "weak":  # a GPU's slab is the same size on any count
                compute, how = step_ms(rows, SPLIT, n, steps), f" (as on {n})"
            else:  # a slab of 1/nodes of the planes: assumed to take 1/nodes of one GPU's time
                compute, how = step_ms(rows, SPLIT, 1, steps) / nodes, f" (1 GPU's / {nodes})"
            cells = [group, str(nodes), " / ".join(f"{network:.3f}" for network in networks), f"{compute:.4f}{how}"]
            for h in (0.0, shown, 1.0):
                shares = " / ".join(f"{efficiency(group, t1, compute + (1 - h) * network, nodes):.2f}" for network in networks)
                cells.append(shares + (f" (h = {h:.2f})" if 0 < h < 1 else ""))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def lesson_tables(res, steps: int) -> dict:
    """The lesson's tables, from the lesson's GPU only: the other's recording is of an older kernel."""
    if res.folder.name != LESSON_GPU:
        return {}
    return {"bound": lesson_bound(res, steps), "glance": glance_table(res, steps), "headline": headline(res, steps),
            "result_00": kernel_table(res, steps), "result_01": steps_table(res, [BASELINE, "01"], steps),
            "result_02": steps_table(res, ["02", COMPUTE], steps), "result_03": exchange_rate_table(res, steps),
            "hidden": hidden_table(res, steps), "copy_engines": copy_engines_table(res, steps),
            "result_05": graph_table(res, steps),
            "processes": processes_table(res, steps), "nodes": nodes_table(res, steps)}

def tables(res) -> dict:
    steps = res.number("steps", whole=True)
    found = {"scaling": scaling_tables(res.cases, steps), "exchange": exchange_tables(res, steps),
             "targets": targets_table(res, steps)}
    small = res.folder / "bench-small.json"
    if small.exists():
        context, cases = results.load(small, "bench_multi_gpu")
        found["small"] = scaling_tables(cases, results.context_number(context, "steps", small, whole=True))
    if (res.folder / "traffic.csv").exists():
        found["traffic"] = report_tables.traffic_table(res.folder / "traffic.csv", "512^3 field (the update moves 3)")
    found["between"] = between_table(res, steps)  # the lesson's "Between GPUs": every model, side by side
    anchors = sorted(res.folder.glob("anchor-*/anchor.csv"))
    if anchors:  # the latest run of the anchor on this model
        found["anchor_by_gpu"] = anchor_table(res, steps, anchors[-1])
    if most_gpus(by_step(res.cases, group_of(res, "weak"))) > 1:  # the lesson's overlap tables, every model
        found |= {"hidden_by_gpu": hidden_table(res, steps), "copy_engines_by_gpu": copy_engines_table(res, steps),
                  "processes_by_gpu": processes_table(res, steps)}
    return found | lesson_tables(res, steps)
