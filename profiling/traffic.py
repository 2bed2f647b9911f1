#!/usr/bin/env python3
"""Runs a chapter's benchmark under a GPU profiler and reports, per kernel, the memory traffic at
each level: L1 (global loads + stores), L2 reads, L2 writes, HBM reads + writes, the duration,
the achieved HBM bandwidth, shared-memory bank conflicts (NVIDIA) or LDS instructions per wave
(AMD), and each traffic figure as a ratio to the problem's array size (the seismic blog's
"memory / cube ratio").

    profiling/traffic.py --kernels REGEX --array-bytes N --out DIR -- BENCHMARK [ARGS...]
    profiling/traffic.py --parse FILE --array-bytes N --out DIR     (re-report a saved run)

NVIDIA: Nsight Compute (ncu); the raw CSV is kept as DIR/ncu.csv. AMD: rocprofv3, one run per
counter group; the raw CSVs are kept under DIR/rocprof/. `--vendor` defaults to whichever
profiler is on the PATH. Writes DIR/traffic.md and DIR/traffic.csv and prints the table.
The AMD path follows ROCm's documentation and has been tested on a fixture only, not on an AMD GPU.
"""
import argparse
import csv
import io
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cli  # noqa: E402

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
# What limits a kernel, as % of each unit's peak; optional (older saved profiles lack them).
UTILISATION = {
    "DRAM %": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "shared %": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
    "FMA pipe %": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "XU pipe %": "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    "issue %": "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "occupancy %": "sm__warps_active.avg.pct_of_peak_sustained_active",
}
# Counts kept as they are (optional too): instructions, and the constant cache's requests and hits.
COUNTS = {
    "warp instructions": "smsp__inst_executed.sum",
    "constant requests": "idc__requests.sum",
    "constant hits": "idc__requests_lookup_hit.sum",
}
# AMD: one rocprofv3 run per group (counters that fit one hardware pass together).
AMD_COUNTER_GROUPS = [
    ["TCP_TOTAL_CACHE_ACCESSES_sum", "TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum"],
    ["FETCH_SIZE", "WRITE_SIZE"],
    ["SQ_INSTS_LDS", "SQ_WAVES"],
]
PROFILERS = {"nvidia": "ncu", "amd": "rocprofv3"}
AMD_PERMISSION_HELP = ("rocprofv3 could not collect counters: if it warned about a lock, another profiler (or a stale "
                       "lock file) holds them, so wait or remove the stale lock it names; otherwise this user may lack "
                       "access to them: run as root or add the user to the render and video groups")


def amd_request_bytes(gfx: str) -> tuple[int, int]:
    """Bytes per L1 (TCP) access and TCP->L2 read request, and per L2 write request: reads are
    128-byte lines on MI300 (gfx94x), 64 bytes on MI200 (gfx90a); writes are 64 bytes on both."""
    return (128 if gfx.startswith("gfx94") else 64), 64


PERMISSION_HELP = ("Nsight Compute was refused the GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or "
                   "allow profiling for all users with the line `options nvidia NVreg_RestrictProfilingToAdminUsers=0` "
                   "in a file in /etc/modprobe.d/ on the host, then reload the driver (or reboot)")


def short_name(kernel: str) -> str:
    """'void ch01::(anonymous namespace)::transpose_tile_kernel<1>(const float *, ...)' -> 'transpose_tile_kernel<1>'.
    Nsight Compute also writes the anonymous namespace as '<unnamed>' and, in some versions, as 'unnamed>'
    (then 'kernel<unnamed>::Fp16>' is the template 'kernel<Fp16>': a '<' after a name opens its arguments)."""
    name = re.sub(r"^void\s+", "", kernel)
    name = re.sub(r"\(anonymous namespace\)::|(?<!\w)<unnamed>::|unnamed>::", "", name)
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):  # drop the parameter list: the first '(' outside template brackets
        depth += (ch == "<") - (ch == ">")
        if ch == "(" and depth == 0:
            cut = i
            break
    name = name[:cut]
    function, _, arguments = name.partition("<")
    function = re.sub(r"^[\w:]*::", "", function)
    return function + ("<" + re.sub(r"\b\w+::", "", arguments) if arguments else "")


def number(text: str) -> float:
    cleaned = text.replace(",", "").strip()
    try:
        return float(cleaned) if cleaned not in ("", "n/a") else 0.0
    except ValueError:
        raise ValueError(f"'{text}' is not a number") from None


def parse_ncu(ncu_csv: str, source="the Nsight Compute output") -> dict:
    """Rows of `ncu --csv --page raw --print-units base`; the last launch of each kernel wins.
    `source` names the file in errors. A file cut short (a kernel's row with fewer fields than
    the header, or a last line without its end) is an error, not a kernel less."""
    if not ncu_csv.endswith("\n"):
        raise cli.ToolError(f"line {ncu_csv.count(chr(10)) + 1} ends in the middle: a profile cut short?", source)
    rows = list(csv.reader(io.StringIO(ncu_csv)))
    header_at = next((i for i, row in enumerate(rows) if "Kernel Name" in row and "ID" in row), None)
    if header_at is None:
        raise cli.ToolError("has no kernels: no Nsight Compute CSV header (ID, Kernel Name, ...) in it; did the "
                            "kernel regex match?", source)
    header = rows[header_at]
    column = {name: header.index(metric) for name, metric in METRICS.items() if metric in header}
    missing = sorted(set(METRICS) - set(column))
    if missing:
        raise cli.ToolError(f"Nsight Compute did not report {', '.join(METRICS[m] for m in missing)}", source)
    kernels = {}
    id_at = header.index("ID")
    for line, row in enumerate(rows[header_at + 1:], start=header_at + 2):
        if len(row) <= id_at or not row[id_at].strip().isdigit():
            continue  # the units row, and anything the application printed
        if len(row) != len(header):
            raise cli.ToolError(f"row {line}: {len(row)} fields where the header has {len(header)}: a profile cut short?",
                                source)
        try:
            v = {name: number(row[i]) for name, i in column.items()}
            utilisation = {name: number(row[header.index(metric)]) for name, metric in (UTILISATION | COUNTS).items()
                           if metric in header}
        except ValueError as error:
            raise cli.ToolError(f"row {line}: {error}", source) from None
        kernels[short_name(row[header.index("Kernel Name")])] = utilisation | {
            "l1": (v["l1_load_sectors"] + v["l1_store_sectors"]) * SECTOR,
            "l2_read": v["l2_read_sectors"] * SECTOR,
            "l2_write": v["l2_write_sectors"] * SECTOR,
            "hbm": v["hbm_read_bytes"] + v["hbm_write_bytes"],
            "duration_ns": v["duration_ns"],
            "bank conflicts": v["bank_conflicts_load"] + v["bank_conflicts_store"],
        }
    if not kernels:
        raise cli.ToolError("has the Nsight Compute header but no kernel's row: did the kernel regex match?", source)
    return kernels


ROCPROF_COLUMNS = ("Kernel_Name", "Dispatch_Id", "Counter_Name", "Counter_Value", "Start_Timestamp", "End_Timestamp")


def parse_rocprof(csv_texts: list, request_bytes: tuple[int, int], sources=None) -> dict:
    """rocprofv3 counter_collection.csv files (one row per counter per dispatch); the last
    dispatch of each kernel wins. FETCH_SIZE and WRITE_SIZE are in KiB. `sources` name the
    files in errors."""
    counters = {}  # kernel -> counter -> value of its last dispatch
    duration = {}
    for text, source in zip(csv_texts, sources or [f"rocprofv3 CSV {i + 1}" for i in range(len(csv_texts))]):
        last_dispatch = {}
        reader = csv.DictReader(io.StringIO(text))
        missing = [column for column in ROCPROF_COLUMNS if column not in (reader.fieldnames or [])]
        if missing:
            raise cli.ToolError(f"has no {', '.join(missing)} column: not a rocprofv3 counter_collection.csv", source)
        for row in reader:
            try:
                kernel = short_name(row["Kernel_Name"])
                dispatch = int(number(row["Dispatch_Id"]))
                value, start, end = (number(row[c]) for c in ("Counter_Value", "Start_Timestamp", "End_Timestamp"))
            except (ValueError, AttributeError) as error:  # AttributeError: a short row's None
                raise cli.ToolError(f"row {reader.line_num}: {error}", source) from None
            if dispatch < last_dispatch.get((kernel, row["Counter_Name"]), -1):
                continue
            last_dispatch[(kernel, row["Counter_Name"])] = dispatch
            counters.setdefault(kernel, {})[row["Counter_Name"]] = value
            duration[kernel] = end - start
    wanted = {c for group in AMD_COUNTER_GROUPS for c in group}
    kernels = {}
    for kernel, v in counters.items():
        missing = sorted(wanted - set(v))
        if missing:
            raise cli.ToolError(f"rocprofv3 reported no {', '.join(missing)} for {kernel}")
        kernels[kernel] = {
            "l1": v["TCP_TOTAL_CACHE_ACCESSES_sum"] * request_bytes[0],
            "l2_read": v["TCP_TCC_READ_REQ_sum"] * request_bytes[0],
            "l2_write": v["TCP_TCC_WRITE_REQ_sum"] * request_bytes[1],
            "hbm": (v["FETCH_SIZE"] + v["WRITE_SIZE"]) * 1024,
            "duration_ns": duration[kernel],
            "LDS instr/wave": v["SQ_INSTS_LDS"] / v["SQ_WAVES"] if v["SQ_WAVES"] else 0.0,
        }
    if not kernels:
        raise cli.ToolError("rocprofv3's CSVs hold no kernel's counters: did the kernel regex match?")
    return kernels


def report(kernels: dict, array_bytes: float) -> list:
    table = []
    for kernel, v in kernels.items():
        l1, l2_read, l2_write, hbm = v["l1"], v["l2_read"], v["l2_write"], v["hbm"]
        seconds = v["duration_ns"] * 1e-9
        extra = "bank conflicts" if "bank conflicts" in v else "LDS instr/wave"
        table.append({
            "kernel": kernel,
            "L1 MB": l1 / 1e6, "L2 read MB": l2_read / 1e6, "L2 write MB": l2_write / 1e6, "HBM MB": hbm / 1e6,
            "L1 ratio": l1 / array_bytes, "L2 read ratio": l2_read / array_bytes,
            "L2 write ratio": l2_write / array_bytes, "HBM ratio": hbm / array_bytes,
            "time ms": seconds * 1e3, "achieved GB/s": hbm / seconds / 1e9 if seconds else 0.0,
            extra: v[extra],
        } | {name: v[name] for name in UTILISATION | COUNTS if name in v})
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


def available(metrics: list) -> list:
    """The metrics this GPU's Nsight Compute knows (an optional one it does not know would stop
    the whole run); all of them when it cannot say."""
    listing = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True)
    known = {line.split()[0] for line in listing.stdout.splitlines() if line.strip()}
    if listing.returncode != 0 or not known:
        return metrics
    return [m for m in metrics if m in METRICS.values() or m.split(".")[0] in known]


def run_ncu(args, out: pathlib.Path) -> dict:
    """Profiles the command into OUT/ncu.csv, which appears only once Nsight Compute has finished well."""
    log, partial = out / "ncu.csv", out / ".ncu.csv.partial"
    metrics = available(list(METRICS.values()) + list(UTILISATION.values()) + list(COUNTS.values()))
    try:
        result = cli.run_child(  # stopped with its benchmark if this run is interrupted
            ["ncu", "--clock-control", "none", "--metrics", ",".join(metrics),
             "--kernel-name", f"regex:{args.kernels}", "--csv", "--page", "raw", "--print-units", "base",
             "--log-file", str(partial)] + args.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if "ERR_NVGPUCTRPERM" in result.stdout + result.stderr + (partial.read_text() if partial.exists() else ""):
            raise cli.ToolError(PERMISSION_HELP)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            raise cli.ToolError(f"the profiled command failed (exit {result.returncode})")
        partial.replace(log)
    finally:
        partial.unlink(missing_ok=True)
    return parse_ncu(cli.read_text(log, "Nsight Compute's CSV"), log)


def amd_gfx_name() -> str:
    listing = subprocess.run(["rocminfo"], capture_output=True, text=True).stdout
    match = re.search(r"gfx[0-9a-f]+", listing)
    if not match:
        raise cli.ToolError("rocminfo names no gfx agent: is an AMD GPU present?")
    return match.group(0)


def run_rocprof(args, out: pathlib.Path, request_bytes: tuple[int, int]) -> dict:
    """Profiles the command, one run per counter group, into OUT/rocprof/, which appears only once
    every run has finished well."""
    raw, partial = out / "rocprof", out / ".rocprof.partial"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        for index, group in enumerate(AMD_COUNTER_GROUPS, start=1):
            folder = partial / f"group{index}"
            result = cli.run_child(
                ["rocprofv3", "--pmc", *group, "--kernel-include-regex", args.kernels, "--output-format", "csv",
                 "-d", str(folder), "-o", "traffic", "--"] + args.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True)
            found = sorted(folder.rglob("*counter_collection.csv"))
            if result.returncode != 0 or not found:
                sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
                raise cli.ToolError(AMD_PERMISSION_HELP if "lock" in (result.stdout + result.stderr).lower() or not found
                                    else f"the profiled command failed (exit {result.returncode})")
        shutil.rmtree(raw, ignore_errors=True)
        partial.replace(raw)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    sources = sorted(raw.rglob("*counter_collection.csv"))
    texts = [cli.read_text(path, "rocprofv3's counter CSV") for path in sources]
    return parse_rocprof(texts, request_bytes, sources)


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", help="regex of the kernel names to profile")
    parser.add_argument("--array-bytes", type=cli.positive_number, required=True, help="bytes of the problem's array")
    parser.add_argument("--out", required=True, help="folder for traffic.md, traffic.csv and the raw profiles")
    parser.add_argument("--vendor", choices=["nvidia", "amd"], help="default: the profiler found on the PATH")
    parser.add_argument("--parse", nargs="+", help="report saved profiles (ncu.csv, or rocprofv3 CSVs) instead of running")
    parser.add_argument("--amd-gfx", help="with --parse on AMD profiles: the GPU they came from (default gfx90a)")
    parser.add_argument("command", nargs="*", help="the benchmark and its arguments, after --")
    args = parser.parse_args()
    if not args.out:
        parser.error("--out needs a folder, not ''")
    if args.parse and (args.kernels is not None or args.command or args.vendor):
        parser.error("--parse reports saved profiles: it takes no --kernels, --vendor or command to run")
    if not args.parse and args.amd_gfx:
        parser.error("--amd-gfx is for --parse (a run asks rocminfo)")
    vendor = args.vendor or ("nvidia" if shutil.which("ncu") else "amd" if shutil.which("rocprofv3") else None)

    if args.parse:
        texts = [cli.read_text(p, "a saved profile (ncu.csv, or rocprofv3 CSVs)") for p in args.parse]
        if "Counter_Name" in texts[0].splitlines()[0]:
            kernels = parse_rocprof(texts, amd_request_bytes(args.amd_gfx or "gfx90a"), args.parse)
        elif len(texts) > 1:
            raise cli.ToolError(f"an Nsight Compute profile is one CSV: give {args.parse[0]} alone", args.parse[1])
        else:
            kernels = parse_ncu(texts[0], args.parse[0])
        out = cli.output_folder(args.out)
    elif not args.command or not args.kernels:
        parser.error("give --kernels and the benchmark command after --")
    elif vendor is None:
        raise cli.ToolError("neither ncu (Nsight Compute) nor rocprofv3 is on the PATH")
    elif shutil.which(PROFILERS[vendor]) is None:
        raise cli.ToolError(f"{PROFILERS[vendor]} is not on the PATH (--vendor {vendor})")
    else:
        request_bytes = amd_request_bytes(amd_gfx_name()) if vendor == "amd" else None
        created = not pathlib.Path(args.out).exists()
        out = cli.output_folder(args.out)  # the profilers write their raw output there
        try:
            kernels = run_ncu(args, out) if vendor == "nvidia" else run_rocprof(args, out, request_bytes)
        except BaseException:
            if created and not any(out.iterdir()):
                out.rmdir()  # a folder this run made and nothing finished in
            raise

    table = report(kernels, args.array_bytes)
    text = markdown(table, args.array_bytes)
    with cli.atomic_output(out / "traffic.csv") as f:
        writer = csv.DictWriter(f, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    with cli.atomic_output(out / "traffic.md") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    cli.run(main)
