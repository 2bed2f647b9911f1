"""Chapter 1's tables (profiling/report.py) for its lesson (README.md: the bound, the results at a
glance, each step's small result table, the two GPUs side by side) and its record (NOTES.md: the
transposes, the k-pass consumers with the flagged matrix's cost model from the benchmark's times
and from the profile's kernel times, the size sweep, bytes in flight by Little's law, the traffic
profile, the experiments). A table whose measurements the committed run lacks says so instead of
failing.

The lesson's tables are one table for every GPU recorded, the lesson's GPU (the H200) first: they
are made once, in the call for the lesson's GPU, from every GPU's results, because report.py's
merge of per-GPU tables would repeat the steps' ideas and predictions for each GPU."""

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
    "00": ("transpose: a thread per element; its writes land a row apart", "~1/8 of copy (miscounted: bytes give 0.22)"),
    "01": ("transpose with the threads turned: writes coalesced, reads strided", "no better than 00"),
    "02": ("transpose through a padded 32 × 33 shared tile: both sides coalesced", "no number (\"held back by its barrier\")"),
    "04": ("the padded tile moved by 32 × 8 threads, four rows each", "~0.85 of copy (recalled, not derived)"),
    "05": ("a 64 × 64 tile moved in 16-byte float4 loads and stores", "5–10% over 04"),
    "06": ("blocks walk down the input, so their writes form long runs", "a few % over 05"),
}
GLANCE_CONSUMER = {
    "00": ("Aᵀx: a warp per column, its lanes walking down the rows", "~1/8 of copy, unless the caches keep shared sectors"),
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
    "transpose_write_coalesced_kernel": ("01 transpose: one 4 B load, no barrier", 4, 2),
    "transpose_tile_kernel<0>": ("02 unpadded tile: one 4 B load", 4, 2),
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
    model, best = cost_model(res), transpose_case(res, BEST_TRANSPOSE)
    if model and best:
        lines += ["", f"Not run as one case: {THEN_READ} would take {best.median_ms:.3f} ms ({BEST_TRANSPOSE}'s transpose) "
                  f"+ k x {model[1]:.3f} ms (t_copy, the cost model's): "
                  + "; ".join(f"k = {k}: {best.median_ms + k * model[1]:.3f} ms (the flagged matrix's time "
                              f"{by_k[k][FLAGGED].median_ms / (best.median_ms + k * model[1]):.2f}x that)"
                              for k in sorted(by_k)) + "."]
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


# The profile's kernels for each consumer's pass and for the flagged matrix's two kinds of pass
# (results/GPU/traffic.csv, one run each under Nsight Compute): the cost model from kernel times,
# without what the benchmark adds around them (NOTES.md, "The first pass's two timings").
CONSUMER_KERNELS = {"00_naive": ("multiply_transposed_naive_kernel",),
                    "01_coalesced": ("multiply_transposed_coalesced_kernel",),
                    "07_split_rows": ("multiply_transposed_split_rows_kernel", "sum_splits_kernel")}
FIRST_PASS_KERNEL = "transpose_while_consuming_kernel"
COPY_PASS_KERNEL = "multiply_rows_kernel"
# The strongest alternative to the fused first pass: transpose A with the best taught transpose,
# then read the copy with the same row consumer every pass (T(k) = t_transpose + k t_copy).
BEST_TRANSPOSE, BEST_TRANSPOSE_KERNEL = "06_block_order", "transpose_block_order_kernel<16>"
THEN_READ = "06's transpose, then passes over the copy"


def traffic_rows(res) -> dict:
    path = res.folder / "traffic.csv"
    return {row["kernel"]: row for row in results.read_csv(path)} if path.exists() else {}


def kernel_ms(res, *kernels) -> float | None:
    """The profile's time of these kernels together, None when the profile lacks one."""
    rows = traffic_rows(res)
    return sum(float(rows[k]["time ms"]) for k in kernels) if all(k in rows for k in kernels) else None


def transpose_case(res, name: str):
    return next((c for c in res.cases if c.group.startswith("transpose") and c.name == name), None)


def kernel_cost_model(res) -> tuple | None:
    """(T_first, t_copy) from the profile's kernel times, None when the profile lacks them."""
    t_first, t_copy = kernel_ms(res, FIRST_PASS_KERNEL), kernel_ms(res, COPY_PASS_KERNEL)
    return (t_first, t_copy) if t_first is not None and t_copy is not None else None


def then_read_first_pass(res, kernels: bool) -> float | None:
    """The first pass of the transpose-then-read consumer: the best transpose, then one pass over
    the copy, by the benchmark's times (t_copy from the cost model) or by the profile's kernels."""
    if kernels:
        model, t_transpose = kernel_cost_model(res), kernel_ms(res, BEST_TRANSPOSE_KERNEL)
    else:
        model, case = cost_model(res), transpose_case(res, BEST_TRANSPOSE)
        t_transpose = case.median_ms if case else None
    return t_transpose + model[1] if model and t_transpose is not None else None


def flag_faster_from(k_even: float | None, last_k: int) -> str:
    """The first whole pass at which the flagged matrix is faster: the one after the break-even k."""
    if k_even is None:
        return "never"
    first = int(k_even) + 1
    return f"pass {first}" + (f", extrapolated past k = {last_k}" if first > last_k else "")


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
        even = f"{k:.1f}: from {flag_faster_from(k, last_k)}" if k is not None else "never (t ≤ t_copy)"
        faster = "yes" if by_k[last_k][FLAGGED].median_ms < by_k[last_k][name].median_ms else "no"
        lines.append(f"| {name} | {per_pass:.3f} | {even} | {faster} |")
    then_read = then_read_first_pass(res, kernels=False)
    if then_read is not None:
        wins = t_first < then_read
        lines.append(f"| {THEN_READ} (computed) | {t_copy:.3f} after {transpose_case(res, BEST_TRANSPOSE).median_ms:.3f} "
                     f"once | {'from pass 1' if wins else 'never'}: its first pass {then_read:.3f} ms, "
                     f"the flag's {t_first:.3f} | {'yes' if wins else 'no'} |")
    return "\n".join(lines)


def kernel_cost_model_table(res) -> str:
    """The same cost model from the profile's kernel times (one run of each kernel under Nsight
    Compute), which leave out what the benchmark's timed runs add around the kernels."""
    model, by_k = kernel_cost_model(res), passes_by_k(res)
    if model is None or not by_k:
        return "The committed profile lacks the flagged matrix's kernels."
    t_first, t_copy = model
    last_k = max(by_k)
    lines = [f"Flagged matrix from the profile: T_first = {t_first:.3f} ms (`{FIRST_PASS_KERNEL}`), t_copy = "
             f"{t_copy:.3f} ms (`{COPY_PASS_KERNEL}` over the copy).", "",
             "| consumer | kernel ms per pass | break-even k | the flag faster from |", "|---|---:|---:|---|"]
    for name, kernels in CONSUMER_KERNELS.items():
        per_pass = kernel_ms(res, *kernels)
        if per_pass is None:
            continue
        k = break_even(t_first, t_copy, per_pass)
        lines.append(f"| {name} | {per_pass:.3f} | {f'{k:.1f}' if k is not None else 'never (t ≤ t_copy)'} | "
                     f"{flag_faster_from(k, last_k)} |")
    then_read = then_read_first_pass(res, kernels=True)
    if then_read is not None:
        lines.append(f"| {THEN_READ} | {t_copy:.3f} after a first pass of {then_read:.3f} | — | "
                     f"{'pass 1' if t_first < then_read else 'never'} |")
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
             "measured / predicted | latency that explains it, ns |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for kernel, (what, per_thread, moved) in IN_FLIGHT.items():
        if kernel not in rows:
            continue
        threads = float(rows[kernel]["occupancy %"]) / 100 * 2048
        kb = threads * per_thread / 1e3
        predicted = min(copy, moved * sms * kb * 1e3 / latency_ns)
        measured = float(rows[kernel]["achieved GB/s"])
        implied_ns = moved * sms * kb * 1e3 / measured  # Little's law solved for the latency
        lines.append(f"| `{kernel}` | {what} | {threads:.0f} | {kb:.1f} | {predicted:.0f} | {measured:.0f} | "
                     f"{measured / predicted:.2f} | {implied_ns:.0f} |")
    lines += ["", "The last column is the latency at which the kernel's bytes in flight would give its measured rate; "
              "for a kernel at the copy's rate it is only an upper bound."]
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
              "only reads, while the copy reads and writes, so it can pass 1."]
    lines += ["", headline(runs)]
    return "\n".join(lines)


def headline(runs: list) -> str:
    """The best taught transpose on each GPU, and the largest gain of one taught step over the one
    before it (the lesson's GPU): the glance table's two headlines, in words."""
    parts = []
    for r in runs:
        group = next(c.group for c in r.cases if c.group.startswith("transpose"))
        best = max((c for c in r.taught if c.group == group and c.is_step), key=lambda c: c.gbps)
        parts.append(f"{best.name[:2]} at {best.gbps / r.ceilings['copy_GBps']:.2f} of the copy on the {short_label(r)}")
    lesson = runs[0]
    gains = []
    transpose = next(c.group for c in lesson.cases if c.group.startswith("transpose"))
    chains = [(transpose, [c for c in lesson.taught if c.group == transpose and c.is_step], "the transpose")]
    by_k = passes_by_k(lesson)
    if by_k:
        last = by_k[max(by_k)]
        chains.append((None, [last[n] for n in CONSUMERS if n in last], "Aᵀx"))
    for _, chain, what in chains:
        gain, after, before = max((b.median_ms / a.median_ms, a.name[:2], b.name[:2]) for b, a in zip(chain, chain[1:]))
        gains.append(f"on {what}, step {after} over step {before}, {gain:.2f}x")
    return (f"The best transpose is step {parts[0]}" + "".join(f" and {p.split(' at ', 1)[1].replace('of the copy ', '')}"
                                                               for p in parts[1:]) +
            f". The largest gain of one step over the one before it: " + "; ".join(gains) + f" ({short_label(lesson)}).")


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


# --- the lesson's small tables, one per step: every GPU recorded, the lesson's first ---------------

def of_copy(r, case) -> float:
    return case.gbps / r.ceilings["copy_GBps"]


def profile(r, kernel: str, column: str) -> float | None:
    row = traffic_rows(r).get(kernel)
    return float(row[column]) if row is not None and row[column] != "" else None


def kb_in_flight(r, kernel: str) -> float | None:
    occupancy = profile(r, kernel, "occupancy %")
    return occupancy / 100 * 2048 * IN_FLIGHT[kernel][1] / 1e3 if occupancy is not None and kernel in IN_FLIGHT else None


def consumer_case(r, name: str):
    by_k = passes_by_k(r)
    return by_k[max(by_k)].get(name) if by_k else None


def per_pass_ms(r, name: str) -> float | None:
    by_k = passes_by_k(r)
    case = by_k[max(by_k)].get(name) if by_k else None
    return case.median_ms / max(by_k) if case else None


def number(value, fmt: str) -> str:
    return "—" if value is None else format(value, fmt)


def millions(value) -> str:
    return "—" if value is None else "0" if value == 0 else f"{value / 1e6:.1f} million"


def lesson_table(res, first: str, rows: list, columns: list, note: str = "") -> str | None:
    """A table for the lesson: `rows` are (label, key), `columns` (header, fn(results, key) -> str,
    every GPU or only the lesson's), a column per GPU and header, the lesson's GPU first."""
    runs = lesson_runs(res)
    if runs is None:
        return None
    heads, cells = [first], []
    for r in runs:
        heads += [f"{short_label(r)} {head}" for head, _, every in columns if every or r is runs[0]]
    lines = ["| " + " | ".join(heads) + " |", "|---|" + "---:|" * (len(heads) - 1)]
    for label, key in rows:
        cells = [fn(r, key) for r in runs for _, fn, every in columns if every or r is runs[0]]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines + (["", note] if note else []))


def step00_table(res) -> str | None:
    rows = [("00 transpose: writes a row apart", ("transpose", "00_naive", "transpose_naive_kernel")),
            ("00 Aᵀx: a warp per column", ("A^T x", "00_naive", "multiply_transposed_naive_kernel"))]
    case = lambda r, key: transpose_case(r, key[1]) if key[0] == "transpose" else consumer_case(r, key[1])  # noqa: E731
    return lesson_table(res, "step", rows, [
        ("of copy", lambda r, key: f"{of_copy(r, case(r, key)):.2f}", True),
        ("L2 reads ÷ A", lambda r, key: number(profile(r, key[2], "L2 read ratio"), ".2f"), False),
        ("L2 writes ÷ A", lambda r, key: number(profile(r, key[2], "L2 write ratio"), ".2f"), False),
        ("HBM ÷ A", lambda r, key: number(profile(r, key[2], "HBM ratio"), ".2f"), True)],
        "A: the matrix's bytes. L2 reads and writes: the sectors the multiprocessors ask of the L2; HBM: the bytes "
        "DRAM moved (Nsight Compute, one run).")


def step01_table(res) -> str | None:
    rows = [("01 transpose: reads strided, writes coalesced", ("transpose", "01_write_coalesced", "transpose_write_coalesced_kernel")),
            ("01 Aᵀx: a thread per column", ("A^T x", "01_coalesced", "multiply_transposed_coalesced_kernel"))]
    case = lambda r, key: transpose_case(r, key[1]) if key[0] == "transpose" else consumer_case(r, key[1])  # noqa: E731
    return lesson_table(res, "step", rows, [
        ("of copy", lambda r, key: f"{of_copy(r, case(r, key)):.2f}", True),
        ("L1 ÷ A", lambda r, key: number(profile(r, key[2], "L1 ratio"), ".2f"), False),
        ("L2 reads ÷ A", lambda r, key: number(profile(r, key[2], "L2 read ratio"), ".2f"), False),
        ("occupancy %", lambda r, key: number(profile(r, key[2], "occupancy %"), ".0f"), False),
        ("KB in flight per SM", lambda r, key: number(kb_in_flight(r, key[2]), ".1f"), False)],
        "L1: the global load and store sectors through the L1. Occupancy: the share of a multiprocessor's 2048 "
        "thread slots in use. KB in flight: those threads times the bytes each has loading before it needs the first.")


def step02_table(res) -> str | None:
    rows = [("01 transpose: no shared memory, no barrier", ("01_write_coalesced", "transpose_write_coalesced_kernel")),
            ("02 tile, unpadded (an experiment)", ("02_tile_unpadded", "transpose_tile_kernel<0>")),
            ("02 tile, padded", ("02_tile_padded", "transpose_tile_kernel<1>"))]
    return lesson_table(res, "kernel", rows, [
        ("ms", lambda r, key: f"{transpose_case(r, key[0]).median_ms:.3f}", True),
        ("of copy", lambda r, key: f"{of_copy(r, transpose_case(r, key[0])):.2f}", True),
        ("bank conflicts", lambda r, key: millions(profile(r, key[1], "bank conflicts")), False),
        ("KB in flight per SM", lambda r, key: number(kb_in_flight(r, key[1]), ".1f"), False)])


def step03_flag_pays_table(res) -> str | None:
    """From which pass the flagged matrix is faster than each alternative, by the benchmark's times
    and by the profile's kernel times (the cost models of NOTES.md)."""
    def bench(r, name):
        by_k, model = passes_by_k(r), cost_model(r)
        if model is None:
            return "—"
        t_first, t_copy, last_k = model
        if name == THEN_READ:
            then = then_read_first_pass(r, kernels=False)
            return "—" if then is None else "pass 1" if t_first < then else "never"
        return flag_faster_from(break_even(t_first, t_copy, by_k[last_k][name].median_ms / last_k), last_k)

    def kernels(r, name):
        model, by_k = kernel_cost_model(r), passes_by_k(r)
        if model is None or not by_k:
            return "—"
        t_first, t_copy = model
        if name == THEN_READ:
            then = then_read_first_pass(r, kernels=True)
            return "—" if then is None else "pass 1" if t_first < then else "never"
        return flag_faster_from(break_even(t_first, t_copy, kernel_ms(r, *CONSUMER_KERNELS[name])), max(by_k))
    rows = [("00_naive: a warp per column, the fixed mapping", "00_naive"),
            ("01_coalesced: a thread per column", "01_coalesced"),
            (THEN_READ, THEN_READ)]
    return lesson_table(res, "the flag is faster than", rows, [
        ("benchmark", bench, True), ("kernel times", kernels, True)],
        "Benchmark: the medians of whole timed runs, a fresh flagged matrix allocated before each. Kernel times: "
        "the profile's, one run each. \"Extrapolated\": the cost model beyond the 16 passes recorded.")


def step03_first_pass_table(res) -> str | None:
    def predicted(r, _):
        one = passes_by_k(r).get(1, {}).get("00_naive")
        return number(2 * one.bytes_per_run / r.ceilings["copy_GBps"] / 1e6 if one else None, ".3f")

    def fused(r, kernels):
        model = kernel_cost_model(r) if kernels else cost_model(r)
        return number(model[0] if model else None, ".3f")
    rows = [("predicted: twice a pass's bytes at the copy's bandwidth", "predicted"),
            ("03's fused pass: transpose while consuming", "fused"),
            ("06's transpose, then one pass over the copy", "then_read")]
    cell = {"predicted": lambda r, kernels: predicted(r, kernels), "fused": fused,
            "then_read": lambda r, kernels: number(then_read_first_pass(r, kernels), ".3f")}
    return lesson_table(res, "the first column pass", rows, [
        ("benchmark ms", lambda r, key: cell[key](r, False), True),
        ("kernel ms", lambda r, key: cell[key](r, True), True)])


def step04_table(res) -> str | None:
    rows = [("02 padded tile", ("02_tile_padded", "transpose_tile_kernel<1>")),
            ("04 four rows a thread", ("04_rows_per_thread", "transpose_rows_per_thread_kernel"))]
    return lesson_table(res, "kernel", rows, [
        ("of copy", lambda r, key: f"{of_copy(r, transpose_case(r, key[0])):.2f}", True),
        ("issue %", lambda r, key: number(profile(r, key[1], "issue %"), ".0f"), True),
        ("DRAM %", lambda r, key: number(profile(r, key[1], "DRAM %"), ".0f"), True),
        ("KB in flight per SM", lambda r, key: number(kb_in_flight(r, key[1]), ".1f"), False)],
        "Issue %: the cycles in which the multiprocessors issued an instruction; DRAM %: the memory's throughput, "
        "both as a share of their peak (Nsight Compute).")


def step05_table(res) -> str | None:
    rows = [("04 four rows a thread, 4-byte accesses", ("04_rows_per_thread", "transpose_rows_per_thread_kernel")),
            ("05 float4 accesses, 64 × 64 tile", ("05_vector_tile", "transpose_vector_tile_kernel<0>"))]
    return lesson_table(res, "kernel", rows, [
        ("ms", lambda r, key: f"{transpose_case(r, key[0]).median_ms:.3f}", True),
        ("of copy", lambda r, key: f"{of_copy(r, transpose_case(r, key[0])):.2f}", True),
        ("issue %", lambda r, key: number(profile(r, key[1], "issue %"), ".0f"), False),
        ("KB in flight per SM", lambda r, key: number(kb_in_flight(r, key[1]), ".1f"), False),
        ("bank conflicts", lambda r, key: millions(profile(r, key[1], "bank conflicts")), False)])


def step06_table(res) -> str | None:
    def peer(r, _):
        group = next(c.group for c in r.cases if c.group.startswith("transpose"))
        return next(c for c in r.cases if c.group == group and not c.is_step and "copy" not in c.name)
    case = lambda r, key: peer(r, key) if key == "peer" else transpose_case(r, key)  # noqa: E731
    runs = lesson_runs(res)
    name = peer(runs[0], None).name if runs else "peer"
    rows = [("05 blocks along the input", "05_vector_tile"), ("06 blocks down the input", "06_block_order"),
            (f"{name}, the library's transpose", "peer")]
    return lesson_table(res, "transpose", rows, [
        ("ms", lambda r, key: f"{case(r, key).median_ms:.4f}", True),
        ("of copy", lambda r, key: f"{of_copy(r, case(r, key)):.3f}", True)])


def step07_table(res) -> str | None:
    runs = lesson_runs(res)
    gemv = peer_name(passes_by_k(runs[0])) if runs else None
    rows = [("01 a thread per column, 4-byte loads", ("01_coalesced", "multiply_transposed_coalesced_kernel")),
            ("07 float4 columns, rows split over many blocks", ("07_split_rows", "multiply_transposed_split_rows_kernel"))]
    if gemv:
        rows.append((f"{gemv}, the library's Aᵀx", (gemv, None)))
    return lesson_table(res, "consumer", rows, [
        ("ms a pass", lambda r, key: number(per_pass_ms(r, key[0]), ".3f"), True),
        ("of copy", lambda r, key: f"{of_copy(r, consumer_case(r, key[0])):.2f}", True),
        ("occupancy %", lambda r, key: number(profile(r, key[1], "occupancy %") if key[1] else None, ".0f"), False)],
        "Of copy: a pass only reads, while the copy reads and writes, so a pass can exceed 1.")


BETWEEN_GPUS = [("00 transpose", "transpose", "00_naive"), ("01 transpose", "transpose", "01_write_coalesced"),
                ("02 padded tile", "transpose", "02_tile_padded"), ("04 four rows a thread", "transpose", "04_rows_per_thread"),
                ("05 float4s", "transpose", "05_vector_tile"), ("06 block order", "transpose", "06_block_order"),
                ("00 Aᵀx", "A^T x", "00_naive"), ("01 Aᵀx", "A^T x", "01_coalesced"), ("07 Aᵀx", "A^T x", "07_split_rows")]


def between_gpus_table(res) -> str | None:
    """Each taught step's rate on every other GPU over its rate on the lesson's, and its fraction of
    each GPU's own copy."""
    runs = lesson_runs(res)
    if runs is None:
        return None
    if len(runs) < 2:
        return "One GPU recorded: nothing to set beside it."
    case = lambda r, what, name: transpose_case(r, name) if what == "transpose" else consumer_case(r, name)  # noqa: E731
    lesson = runs[0]
    heads = ["step"] + [f"{short_label(r)} rate ÷ {short_label(lesson)} rate" for r in runs[1:]] + \
            [f"{short_label(r)} of copy" for r in runs]
    lines = ["| " + " | ".join(heads) + " |", "|---|" + "---:|" * (len(heads) - 1)]
    for label, what, name in BETWEEN_GPUS:
        cases = [case(r, what, name) for r in runs]
        if any(c is None for c in cases):
            continue
        lines.append(f"| {label} | " + " | ".join(f"{c.gbps / cases[0].gbps:.2f}" for c in cases[1:]) + " | " +
                     " | ".join(f"{of_copy(r, c):.2f}" for r, c in zip(runs, cases)) + " |")
    return "\n".join(lines)


def tables(res) -> dict:
    lesson = (("bound", bound_table), ("glance", glance_table), ("step00", step00_table), ("step01", step01_table),
              ("step02", step02_table), ("step03_flag_pays", step03_flag_pays_table),
              ("step03_first_pass", step03_first_pass_table), ("step04", step04_table), ("step05", step05_table),
              ("step06", step06_table), ("step07", step07_table), ("between_gpus", between_gpus_table))
    combined = {name: table for name, table in ((name, make(res)) for name, make in lesson) if table is not None}
    return combined | {
        "transpose": transpose_table(res),
        "passes": passes_table(res),
        "cost_model": cost_model_table(res),
        "kernel_cost_model": kernel_cost_model_table(res),
        "sweep": sweep_table(res),
        "in_flight": in_flight_table(res),
        "traffic": report_tables.traffic_table(res.folder / "traffic.csv", "matrix size (1073.7 MB)"),
        "experiments": report_tables.experiments_table(res),
    }
