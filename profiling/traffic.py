#!/usr/bin/env python3
"""Runs a chapter's benchmark under Nsight Compute and reports, per kernel, the memory traffic
at each level: L1 (global loads + stores), L2 reads, L2 writes, HBM reads + writes, the duration,
the achieved HBM bandwidth, shared-memory bank conflicts, and each traffic figure as a ratio to
the problem's array size (the seismic blog's "memory / cube ratio").

    profiling/traffic.py --kernels REGEX --array-bytes N --out DIR -- BENCHMARK [ARGS...]
    profiling/traffic.py --parse ncu.csv --array-bytes N --out DIR     (re-report a saved run)

Writes DIR/traffic.md, DIR/traffic.csv and DIR/ncu.csv, and prints the table. NVIDIA only for
now; the AMD (rocprofv3) path is not written yet.
"""
import argparse
import csv
import io
import pathlib
import re
import shutil
import subprocess
import sys

SECTOR = 32  # bytes per L1/L2 sector on NVIDIA GPUs
METRICS = {
    "l1_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    # srcunit_tex: requests from the SMs only (the all-source lts__t_bytes counts L2 fabric traffic twice)
    "l2_read_sectors": "lts__t_sectors_srcunit_tex_op_read.sum",
    "l2_write_sectors": "lts__t_sectors_srcunit_tex_op_write.sum",
    "hbm_read_bytes": "dram__bytes_read.sum",
    "hbm_write_bytes": "dram__bytes_write.sum",
    "duration_ns": "gpu__time_duration.sum",
    "bank_conflicts_load": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "bank_conflicts_store": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}
PERMISSION_HELP = """Nsight Compute was refused the GPU's performance counters (ERR_NVGPUCTRPERM).
Run as root, or allow profiling for all users: on the host, add
    options nvidia NVreg_RestrictProfilingToAdminUsers=0
to a file in /etc/modprobe.d/ and reload the driver (or reboot)."""


def short_name(kernel: str) -> str:
    """'void ch01::(anonymous namespace)::transpose_tile_kernel<1>(const float *, ...)' -> 'transpose_tile_kernel<1>'"""
    name = re.sub(r"^void\s+", "", kernel)
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):  # drop the parameter list: the first '(' outside template brackets
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "(" and depth == 0 and not name.startswith("(anonymous", i):
            cut = i
            break
    name = name[:cut]
    name = re.sub(r"\(anonymous namespace\)::|<unnamed>::", "", name)
    return re.sub(r"^[\w:]*::", "", name.split("<")[0]) + ("<" + name.split("<", 1)[1] if "<" in name else "")


def number(text: str) -> float:
    text = text.replace(",", "").strip()
    return float(text) if text not in ("", "n/a") else 0.0


def parse(ncu_csv: str) -> dict:
    """Rows of `ncu --csv --page raw --print-units base`; the last launch of each kernel wins."""
    rows = list(csv.reader(io.StringIO(ncu_csv)))
    header_at = next((i for i, row in enumerate(rows) if "Kernel Name" in row), None)
    if header_at is None:
        raise SystemExit("error: no kernels in the Nsight Compute output (did the kernel regex match?)")
    header = rows[header_at]
    column = {name: header.index(metric) for name, metric in METRICS.items() if metric in header}
    missing = sorted(set(METRICS) - set(column))
    if missing:
        raise SystemExit(f"error: Nsight Compute did not report {', '.join(METRICS[m] for m in missing)}")
    kernels = {}
    for row in rows[header_at + 1:]:
        if len(row) != len(header) or not row[header.index("ID")].strip().isdigit():
            continue  # the units row, and anything the application printed
        values = {name: number(row[i]) for name, i in column.items()}
        kernels[short_name(row[header.index("Kernel Name")])] = values
    return kernels


def report(kernels: dict, array_bytes: float) -> list:
    table = []
    for kernel, v in kernels.items():
        l1 = (v["l1_load_sectors"] + v["l1_store_sectors"]) * SECTOR
        l2_read = v["l2_read_sectors"] * SECTOR
        l2_write = v["l2_write_sectors"] * SECTOR
        hbm = v["hbm_read_bytes"] + v["hbm_write_bytes"]
        seconds = v["duration_ns"] * 1e-9
        table.append({
            "kernel": kernel,
            "L1 MB": l1 / 1e6, "L2 read MB": l2_read / 1e6, "L2 write MB": l2_write / 1e6, "HBM MB": hbm / 1e6,
            "L1 ratio": l1 / array_bytes, "L2 read ratio": l2_read / array_bytes,
            "L2 write ratio": l2_write / array_bytes, "HBM ratio": hbm / array_bytes,
            "time ms": seconds * 1e3, "achieved GB/s": hbm / seconds / 1e9 if seconds else 0.0,
            "bank conflicts": v["bank_conflicts_load"] + v["bank_conflicts_store"],
        })
    return table


def markdown(table: list, array_bytes: float) -> str:
    columns = list(table[0])
    lines = [f"Array size: {array_bytes / 1e6:.1f} MB; ratios are traffic / array size.", "",
             "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in table:
        cells = [row["kernel"]] + [f"{row[c]:.0f}" if c.endswith("MB") or c == "bank conflicts" else f"{row[c]:.2f}"
                                   for c in columns[1:]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", help="regex of the kernel names to profile")
    parser.add_argument("--array-bytes", type=float, required=True, help="bytes of the problem's array")
    parser.add_argument("--out", required=True, help="folder for traffic.md, traffic.csv and ncu.csv")
    parser.add_argument("--parse", help="report a saved ncu.csv instead of running Nsight Compute")
    parser.add_argument("command", nargs="*", help="the benchmark and its arguments, after --")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    if args.parse:
        ncu_csv = pathlib.Path(args.parse).read_text()
    else:
        if not args.command or not args.kernels:
            parser.error("give --kernels and the benchmark command after --")
        ncu = shutil.which("ncu")
        if ncu is None:
            raise SystemExit("error: ncu (Nsight Compute) is not on the PATH")
        log = out / "ncu.csv"
        result = subprocess.run(
            [ncu, "--clock-control", "none", "--metrics", ",".join(METRICS.values()),
             "--kernel-name", f"regex:{args.kernels}", "--csv", "--page", "raw", "--print-units", "base",
             "--log-file", str(log)] + args.command, capture_output=True, text=True)
        if "ERR_NVGPUCTRPERM" in result.stdout + result.stderr + (log.read_text() if log.exists() else ""):
            raise SystemExit(PERMISSION_HELP)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            raise SystemExit(f"error: the profiled command failed (exit {result.returncode})")
        ncu_csv = log.read_text()

    table = report(parse(ncu_csv), args.array_bytes)
    with open(out / "traffic.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    text = markdown(table, args.array_bytes)
    (out / "traffic.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
