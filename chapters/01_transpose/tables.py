"""Chapter 1's README tables (profiling/report.py): the transposes, the k-pass consumers, and
the traffic profile."""
import re

import report_tables


def transpose_table(res) -> str:
    group = next(c.group for c in res.cases if c.group.startswith("transpose"))
    rows = [c for c in res.cases if c.group == group]
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


def passes_table(res) -> str:
    by_k = {}
    for c in res.cases:
        match = re.match(r"A\^T x, (\d+) passes", c.group)
        if match:
            by_k.setdefault(int(match.group(1)), {})[c.name] = c
    lines = ["| passes k | 00_naive ms | 01_coalesced ms | 03_flagged ms | flagged vs naive | flagged vs coalesced |",
             "|---:|---:|---:|---:|---:|---:|"]
    break_even = None
    for k in sorted(by_k):
        naive, coalesced, flagged = (by_k[k][n] for n in ("00_naive", "01_coalesced", "03_flagged"))
        if break_even is None and flagged.median_ms < naive.median_ms:
            break_even = k
        lines.append(f"| {k} | {naive.median_ms:.3f} | {coalesced.median_ms:.3f} | {flagged.median_ms:.3f} | "
                     f"{naive.median_ms / flagged.median_ms:.2f}x | {coalesced.median_ms / flagged.median_ms:.2f}x |")
    lines.append("")
    lines.append(f"Break-even against the naive consumer: k = {break_even} (the smallest k measured at which the "
                 f"flagged matrix, its transpose included, is faster)." if break_even else
                 "The flagged matrix was never faster than the naive consumer at the k measured.")
    return "\n".join(lines)


def tables(res) -> dict:
    return {
        "transpose": transpose_table(res),
        "passes": passes_table(res),
        "traffic": report_tables.traffic_table(res.folder / "traffic.csv", "matrix size (1073.7 MB)"),
    }
