"""Chapter 3's README tables (profiling/report.py): the default ones (the steps, the roofline, the
traffic per kernel), the compiler's and the profiler's resources per kernel, and the source
document's speed-up model measured with the profiled kernel times."""

if __name__ == "__main__":  # profiling/report.py imports this file; on its own it is no program
    raise SystemExit("error: this file holds the README's tables: run profiling/report.py chapters/03_seismic")

import csv
import io

import cli
import report_tables
import results


def profiled_kernels(path) -> dict:
    """resources.csv (Nsight Compute's raw page): the last launch of each kernel, by short name."""
    rows = list(csv.reader(io.StringIO(cli.read_text(path, "Nsight Compute's raw page"))))
    header_at = next((i for i, row in enumerate(rows) if "Kernel Name" in row), None)
    if header_at is None:
        raise cli.ToolError("has no 'Kernel Name' header: not Nsight Compute's raw page", path)
    header = rows[header_at]
    kernels = {}
    for row in rows[header_at + 2:]:  # the row after the header holds the units
        if len(row) == len(header):
            record = dict(zip(header, row))
            name = record["Kernel Name"].split("::")[-1].split("(")[0]
            kernels[name] = {key: value.replace(",", "") for key, value in record.items()}
    if not kernels:
        raise cli.ToolError("has no kernel's row", path)
    return kernels


def resources_table(res) -> str:
    lines = ["| kernel | registers per thread | static shared memory per block (bytes) | warps resident (% of the SM's) | shared-memory instructions per warp |",
             "|---|---:|---:|---:|---:|"]
    for name, k in profiled_kernels(res.folder / "resources.csv").items():
        warps = float(k["launch__grid_size"]) * float(k["launch__block_size"]) / 32
        shared = (float(k["smsp__inst_executed_op_shared_ld.sum"]) + float(k["smsp__inst_executed_op_shared_st.sum"])) / warps
        lines.append(f"| `{name}` | {k['launch__registers_per_thread']} | {k['launch__shared_mem_per_block_static']} | "
                     f"{float(k['sm__warps_active.avg.pct_of_peak_sustained_active']):.1f} | {shared:.0f} |")
    return "\n".join(lines)


def speedup_table(res) -> str:
    """(T_x + T_y + T_z) / T_xyz and (T_xy + T_z) / T_xyz with the fastest profiled kernel of each
    kind (profile.sh's traffic run, one launch each); T_xyz is the fastest one-pass kernel, of
    steps 06-09."""
    times = {row["kernel"]: row.number("time ms") for row in results.read_csv(res.folder / "traffic.csv")}

    def fastest(*prefixes):
        name = min((k for k in times if k.startswith(prefixes)), key=times.get)
        return name, times[name]

    (x, t_x), (y, t_y), (z, t_z) = fastest("x_kernel"), fastest("y_"), fastest("z_window_kernel", "z_vector_kernel")
    (xy, t_xy), (xyz, t_xyz) = fastest("xy_kernel"), fastest("one_pass_kernel", "prefetch_kernel", "async_ring_kernel", "prefetched_sums_kernel")
    return "\n".join([
        "| model | kernels | ms | ratio (document, MI250X) |",
        "|---|---|---:|---:|",
        f"| `T_x + T_y + T_z` | `{x}`, `{y}`, `{z}` | {t_x + t_y + t_z:.3f} | |",
        f"| `T_xy + T_z` | `{xy}`, `{z}` | {t_xy + t_z:.3f} | |",
        f"| `T_xyz` | `{xyz}` | {t_xyz:.3f} | |",
        f"| `(T_x + T_y + T_z) / T_xyz` | | | {(t_x + t_y + t_z) / t_xyz:.2f} (2.42) |",
        f"| `(T_xy + T_z) / T_xyz` | | | {(t_xy + t_z) / t_xyz:.2f} (1.63) |",
    ])


def tables(res) -> dict:
    return {**report_tables.default_tables(res), "resources": resources_table(res), "speedup": speedup_table(res)}
