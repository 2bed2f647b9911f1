"""Chapter 1's tables (profiling/report.py) for its lesson (README.md: the bound and the results at
a glance) and its record (NOTES.md: the transposes, the k-pass consumers with the flagged matrix's
cost model, the size sweep, bytes in flight by Little's law, the traffic profile, the experiments).
A table whose measurements the committed run lacks says so instead of failing.

The bound and the glance are one table for every GPU recorded, a pair of columns per GPU: they
are made once, in the call for the lesson's GPU (the H200), from every GPU's results, because
report.py's merge of per-GPU tables would repeat the steps' ideas and predictions for each GPU."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/01_transpose")

# The groups the course README's chapter table takes this chapter's best taught step from
# (profiling/course_table.py): the transpose at its largest size (the A^T x passes and the sweep are in the lesson).
HEADLINE_GROUPS = r"^transpose"

import csv
import re

import report_tables
import results

CONSUMERS = ("00_naive", "01_coalesced", "07_split_rows")
FLAGGED = "03_flagged"
LESSON_GPU = "h200"  # the GPU whose figures the lesson's prose quotes; its columns come first

# The lesson's results at a glance: each taught step's idea in about a dozen words and its
# prediction, in the words of its section of README.md. The transposes at their largest size; the
# consumers of A^T x over the most passes recorded, where the flagged matrix has paid its first pass.
GLANCE_TRANSPOSE = {
    "00": ("transpose: a thread per element; its writes land a row apart", "~1/8 of copy"),
    "01": ("transpose with the threads turned: writes coalesced, reads strided", "no better than 00"),
    "02": ("transpose through a padded 32 × 33 shared tile: both sides coalesced", "held back by its barrier"),
    "04": ("the padded tile moved by 32 × 8 threads, four rows each", "~0.85 of copy"),
    "05": ("a 64 × 64 tile moved in 16-byte float4 loads and stores", "5–10% over 04"),
    "06": ("blocks walk down the input, so their writes form long runs", "a few % over 05"),
}
GLANCE_CONSUMER = {
    "00": ("Aᵀx: a warp per column, its lanes walking down the rows", "~1/8 of copy"),
    "01": ("Aᵀx: a thread per column, so a warp reads along a row", "the copy"),
    "03": ("Aᵀx: the flagged matrix transposes A once, then reads the copy", "faster than 00 from k = 1 or 2"),
    "07": ("Aᵀx with no copy: float4 columns, the rows split over thousands of blocks", "the copy"),
}

# Bytes each thread has in flight while it waits for memory, read off each kernel's code (the
# loads it issues before the first one is needed), and how many bytes the kernel moves per byte
# it loads (2 for a transpose, which writes what it reads; 1 for a consumer).
IN_FLIGHT = {
    "multiply_transposed_coalesced_kernel": ("01 consumer: 4 unrolled loads of 4 B", 16, 1),
    "multiply_transposed_split_rows_kernel": ("07 consumer: 8 unrolled float4 loads", 128, 1),
    "transpose_tile_kernel<1>": ("02 padded tile: one 4 B load", 4, 2),
    "transpose_rows_per_thread_kernel": ("04: 4 loads of 4 B", 16, 2),
    "transpose_vector_tile_kernel<0>": ("05: 4 float4 loads", 64, 2),
    "transpose_block_order_kernel<16>": ("06: 4 float4 loads", 64, 2),
    "transpose_while_consuming_kernel": ("03 first pass: 4 prefetched loads of 4 B", 16, 2),
}


def transpose_table(res) -> str:
    group = next(c.group for c in res.cases if c.group.startswith("transpose"))
    rows = [c for c in res.taught if c.group == group]
    memcpy = next(c for c in rows if c.name.startswith("device copy"))
    baseline = next(c for c in rows if c.name.startswith("00_"))
    lines = [f"{group} floats on the {res.context['gpu']}, median of {memcpy.repetitions} runs, L2 flushed before each; "
             f"GB/s = 2 x {memcpy.bytes_per_run / 2 / 1e6:.1f} MB / time.", "",
             "| step | median ms | min–max ms | GB/s | of memcpy | of ceiling | vs 00 |", "|---|---:|---:|---:|---:|---:|---:|"]
    for c in rows:
        name = f"*{c.name}* (peer)" if c in (memcpy,) or not c.is_step else f"`{c.name}`"
        lines.append(f"| {name} | {c.median_ms:.4f} | {c.min_ms:.4f}–{c.max_ms:.4f} | {c.gbps:.0f} | "
                     f"{c.gbps / memcpy.gbps:.3f} | {c.gbps / res.ceilings['copy_GBps']:.3f} | "
                     f"{baseline.median_ms / c.median_ms:.2f}x |")
    lines.append("")
    lines.append(f"Ceiling: {res.ceilings['copy_GBps']:.0f} GB/s, the best device-to-device copy `course_ceilings` measured "
                 f"(memcpy {res.ceilings['memcpy_GBps']:.0f}, copy kernel {res.ceilings['copy_kernel_GBps']:.0f}); "
                 f"'of memcpy' compares with the copy measured in the same run.")
    return "\n".join(lines)


def passes_by_k(res) -> dict:
    by_k = {}
    for c in res.cases:
        match = re.match(r"A\^T x, (\d+) passes", c.group)
        if match:
            by_k.setdefault(int(match.group(1)), {})[c.name] = c
    return by_k


def peer_name(by_k: dict) -> str | None:
    return next((n for cases in by_k.values() for n, c in cases.items() if not c.is_step), None)


def passes_table(res) -> str:
    by_k = passes_by_k(res)
    gemv = peer_name(by_k)
    columns = [n for n in CONSUMERS + ((gemv,) if gemv else ()) if any(n in cases for cases in by_k.values())]
    lines = ["| passes k | " + " | ".join(f"{n} ms" for n in columns) + f" | {FLAGGED} ms | " +
             " | ".join(f"flagged vs {n}" for n in columns) + " |",
             "|---:|" + "---:|" * (2 * len(columns) + 1)]
    for k in sorted(by_k):
        cases = by_k[k]
        flagged = cases[FLAGGED]
        times = [f"{cases[n].median_ms:.3f}" if n in cases else "—" for n in columns]
        ratios = [f"{cases[n].median_ms / flagged.median_ms:.2f}x" if n in cases else "—" for n in columns]
        lines.append(f"| {k} | " + " | ".join(times) + f" | {flagged.median_ms:.3f} | " + " | ".join(ratios) + " |")
    lines.append("")
    lines.append("Ratios above 1 mean the flagged matrix, its first (transposing) pass included, is faster.")
    return "\n".join(lines)


def cost_model(res) -> tuple | None:
    """(T_first, t_copy, last k): the flagged matrix's T(k) = T_first + (k - 1) t_copy, fitted to
    its smallest k (1) and its largest; None when the run lacks them."""
    by_k = passes_by_k(res)
    if not by_k:
        return None
    first_k, last_k = min(by_k), max(by_k)
    if first_k != 1 or last_k == first_k:
        return None
    t_first = by_k[first_k][FLAGGED].median_ms
    return t_first, (by_k[last_k][FLAGGED].median_ms - t_first) / (last_k - 1), last_k


def break_even(t_first: float, t_copy: float, per_pass: float) -> float | None:
    """The k from which the flagged matrix is faster than a consumer costing per_pass a pass:
    k t > T_first + (k - 1) t_copy; None when it never is (t <= t_copy)."""
    return (t_first - t_copy) / (per_pass - t_copy) if per_pass > t_copy else None


def cost_model_table(res) -> str:
    """T(k) = T_first + (k - 1) t_copy, from the flagged matrix's smallest and largest k, against
    each consumer's time per pass (at the largest k): the break-even k where they cross."""
    by_k = passes_by_k(res)
    model = cost_model(res)
    if model is None:
        return "The committed run has no 1-pass and many-pass flagged timings to fit the cost model to."
    t_first, t_copy, last_k = model
    lines = [f"Flagged matrix: T_first = {t_first:.3f} ms (the k = 1 row: the transposing pass), "
             f"t_copy = {t_copy:.3f} ms per later pass (from k = 1 and k = {last_k}).", "",
             "| consumer | ms per pass | break-even k = (T_first − t_copy) / (t − t_copy) | flagged faster at k = "
             f"{last_k}? |", "|---|---:|---:|---|"]
    gemv = peer_name(by_k)
    for name in CONSUMERS + ((gemv,) if gemv else ()):
        if name not in by_k[last_k]:
            continue
        per_pass = by_k[last_k][name].median_ms / last_k
        k = break_even(t_first, t_copy, per_pass)
        even = f"{k:.1f}" if k is not None else "never (t ≤ t_copy)"
        faster = "yes" if by_k[last_k][FLAGGED].median_ms < by_k[last_k][name].median_ms else "no"
        lines.append(f"| {name} | {per_pass:.3f} | {even} | {faster} |")
    return "\n".join(lines)


def sweep_table(res) -> str:
    """The size sweep with a two-term model for the copy: t(n) = t0 + bytes / B, B the copy's
    bandwidth at the largest size and t0 what is left of its time at the smallest."""
    points = {}
    for c in res.cases:
        match = re.match(r"size sweep, (\d+) MiB", c.group)
        if match:
            points.setdefault(int(match.group(1)), {})["copy" if not c.is_step else "step"] = c
    if not points:
        return "The committed run predates the size sweep (bench_transpose's 'size sweep' groups)."
    sizes = sorted(points)
    largest, smallest = points[sizes[-1]]["copy"], points[sizes[0]]["copy"]
    bandwidth = largest.gbps  # GB/s = bytes per ns
    t0_us = (smallest.median_ms * 1e6 - smallest.bytes_per_run / bandwidth) / 1e3
    step_name = points[sizes[0]]["step"].name
    lines = [f"Copy model: t = {t0_us:.1f} µs + bytes / {bandwidth:.0f} GB/s (the fixed cost from the "
             f"{sizes[0]} MiB copy, the bandwidth from the {sizes[-1]} MiB one). L2 flushed before each run.", "",
             f"| matrix MiB | copy µs | model µs | copy / model | copy GB/s | `{step_name}` µs | `{step_name}` GB/s | "
             f"{step_name} of copy |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size in sizes:
        copy, step = points[size]["copy"], points[size]["step"]
        model_us = t0_us + copy.bytes_per_run / bandwidth / 1e3
        lines.append(f"| {size} | {copy.median_ms * 1e3:.1f} | {model_us:.1f} | {copy.median_ms * 1e3 / model_us:.2f} | "
                     f"{copy.gbps:.0f} | {step.median_ms * 1e3:.1f} | {step.gbps:.0f} | {step.gbps / copy.gbps:.3f} |")
    return "\n".join(lines)


def device_attribute(res, name: str) -> float | None:
    """A device attribute from Nsight Compute's raw output (results/h200/ncu.csv), if it is there."""
    path = res.folder / "ncu.csv"
    if not path.exists():
        return None
    lines = path.read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return None
    for row in csv.DictReader(lines[start:]):
        try:
            return float(row[name])
        except (KeyError, ValueError):
            continue
    return None


def in_flight_table(res) -> str:
    """Little's law: bandwidth <= bytes in flight / latency. Bytes in flight per multiprocessor =
    threads resident (achieved occupancy x 2048, from the profile) x bytes per thread (the code);
    the latency is the benchmark's pointer chase, an idle memory system's."""
    latency_ns = float(res.context.get("memory_latency_ns", 0) or 0)
    sms = device_attribute(res, "device__attribute_multiprocessor_count")
    if not latency_ns or not sms:
        return ("The committed run predates the latency measurement (bench_transpose's context "
                "'memory_latency_ns'): re-record to fill this table.")
    copy = res.ceilings["copy_GBps"]
    needed_kb = copy * latency_ns / sms / 1e3  # GB/s x ns = bytes
    rows = {r["kernel"]: r for r in results.read_csv(res.folder / "traffic.csv")}
    lines = [f"Memory latency {latency_ns:.0f} ns (one thread chasing pointers 8 KiB apart, caches missed), "
             f"{sms:.0f} multiprocessors: the copy's {copy:.0f} GB/s needs {needed_kb:.1f} KB in flight per "
             "multiprocessor. Predicted = min(copy, bytes moved per byte loaded x multiprocessors x bytes in flight / "
             "latency); measured = the profile's HBM GB/s.", "",
             "| kernel | in flight per thread | threads per SM | KB in flight per SM | predicted GB/s | measured GB/s | "
             "measured / predicted |", "|---|---|---:|---:|---:|---:|---:|"]
    for kernel, (what, per_thread, moved) in IN_FLIGHT.items():
        if kernel not in rows:
            continue
        threads = float(rows[kernel]["occupancy %"]) / 100 * 2048
        kb = threads * per_thread / 1e3
        predicted = min(copy, moved * sms * kb * 1e3 / latency_ns)
        measured = float(rows[kernel]["achieved GB/s"])
        lines.append(f"| `{kernel}` | {what} | {threads:.0f} | {kb:.1f} | {predicted:.0f} | {measured:.0f} | "
                     f"{measured / predicted:.2f} |")
    return "\n".join(lines)


def lesson_runs(res) -> list | None:
    """Every GPU's results, the lesson's GPU first, when `res` is the lesson's GPU's (else None:
    the combined tables are made once)."""
    runs = results.load_chapter(res.folder.parent.parent)
    lesson = next((r for r in runs if r.folder.name == LESSON_GPU), runs[0])
    if res.folder.resolve() != lesson.folder.resolve():
        return None
    return [lesson] + [r for r in runs if r is not lesson]


def short_label(res) -> str:
    return res.label.split()[0]


def glance_rows(res, group: str, lesson: dict) -> dict:
    """{step: (idea, predicted, median ms, fraction of the binding ceiling)} from
    report_tables.glance_table's rows for one group."""
    rows = {}
    for line in report_tables.glance_table(res, group, lesson).splitlines()[2:]:
        step, idea, predicted, ms, fraction = [cell.strip() for cell in line.strip().strip("|").split("|")]
        rows[step] = (idea, predicted, ms, fraction)
    return rows


def glance_table(res) -> str | None:
    """The taught steps at a glance: each step's idea and prediction, its median time and its
    fraction of the ceiling that binds it on each GPU ("not recorded" where a GPU lacks it)."""
    runs = lesson_runs(res)
    if runs is None:
        return None
    def groups(r):
        transpose = next(c.group for c in r.cases if c.group.startswith("transpose"))
        passes = max(tables_k for tables_k in passes_by_k(r)) if passes_by_k(r) else None
        return transpose, (f"A^T x, {passes} passes" if passes else None)
    per_gpu = []
    for r in runs:
        transpose, consumer = groups(r)
        rows = {("transpose", s): v for s, v in glance_rows(r, transpose, GLANCE_TRANSPOSE).items()}
        if consumer:
            rows |= {("A^T x", s): v for s, v in glance_rows(r, consumer, GLANCE_CONSUMER).items()}
        per_gpu.append(rows)
    keys = sorted({key for rows in per_gpu for key in rows}, key=lambda key: (key[1], key[0] != "transpose"))
    header = "| step | idea | predicted | " + " | ".join(f"{short_label(r)} ms | {short_label(r)} of ceiling" for r in runs) + " |"
    lines = [header, "|---|---|---|" + "---:|---:|" * len(runs)]
    for key in keys:
        idea, predicted = next(rows[key][:2] for rows in per_gpu if key in rows)
        cells = []
        for rows in per_gpu:
            ms, fraction = rows[key][2:] if key in rows else ("not recorded yet", "")
            cells += [ms if ms != "not recorded" else "not recorded yet", fraction]
        lines.append(f"| {key[1]} | {idea} | {predicted} | " + " | ".join(cells) + " |")
    transpose, consumer = groups(runs[0])
    k = consumer.split(", ")[1] if consumer else "the"
    repetitions = max(c.repetitions for c in runs[0].cases)
    lines += ["", f"Transposes: one {transpose.split()[1]} float matrix, read once and written once. Aᵀx: {k} over the same "
              f"matrix, timed together. Each time is the median of {repetitions} runs. 'Of ceiling' is the step's effective "
              "bandwidth (the bytes it must move over its time) as a fraction of the device-to-device copy's; a pass of Aᵀx "
              "only reads, so it can pass 1."]
    return "\n".join(lines)


def bound_table(res) -> str | None:
    """What each problem must move, and the time that takes at the copy's bandwidth, per GPU."""
    runs = lesson_runs(res)
    if runs is None:
        return None
    transpose = next(c for c in runs[0].cases if c.group.startswith("transpose") and c.name.startswith("00_"))
    one_pass = passes_by_k(runs[0]).get(1, {}).get("00_naive")
    rows = [(f"transpose {transpose.group.split()[1]}: read A once, write Aᵀ once",
             f"2 × {transpose.bytes_per_run / 2e6:.1f} MB", transpose.bytes_per_run)]
    if one_pass:
        rows += [("Aᵀx, one pass: read A once (x and y are a row's worth)", f"{one_pass.bytes_per_run / 1e6:.1f} MB",
                  one_pass.bytes_per_run),
                 ("the flagged matrix's first pass: read A, write its transposed copy",
                  f"2 × {one_pass.bytes_per_run / 1e6:.1f} MB", 2 * one_pass.bytes_per_run)]
    header = "| what must move | bytes | " + " | ".join(f"{short_label(r)} copy GB/s | {short_label(r)} ms" for r in runs) + " |"
    lines = [header, "|---|---:|" + "---:|---:|" * len(runs)]
    for what, shown, amount in rows:
        cells = [f"{r.ceilings['copy_GBps']:.0f} | {amount / r.ceilings['copy_GBps'] / 1e6:.3f}" for r in runs]
        lines.append(f"| {what} | {shown} | " + " | ".join(cells) + " |")
    lines += ["", "Copy GB/s: the best device-to-device copy `course_ceilings` measured on the GPU (`ceilings.json`), "
              "counting the bytes read and written; ms = bytes / that bandwidth."]
    return "\n".join(lines)


def tables(res) -> dict:
    combined = {name: table for name, table in (("bound", bound_table(res)), ("glance", glance_table(res)))
                if table is not None}
    return combined | {
        "transpose": transpose_table(res),
        "passes": passes_table(res),
        "cost_model": cost_model_table(res),
        "sweep": sweep_table(res),
        "in_flight": in_flight_table(res),
        "traffic": report_tables.traffic_table(res.folder / "traffic.csv", "matrix size (1073.7 MB)"),
        "experiments": report_tables.experiments_table(res),
    }
