#!/usr/bin/env python3
"""Times the box's best step and the device copy over cubes from 2^20 to 2^30 bytes, with the L2
flushed before every run (as every other table of the chapter) and with it left warm, and writes
one row per (size, L2, case) to a CSV: where the L2 stops helping, and where a cube is too small
to fill the machine.

    chapters/02_stencil/size_sweep.py BUILD_DIR --out chapters/02_stencil/results/h200/size_sweep.csv

The median of the benchmark's repetitions; effective GB/s as everywhere in the chapter (the
cube read and written once). figures.py draws it. The CSV is written whole once every size has
run: a failed or interrupted sweep leaves --out as it was.
"""
import argparse
import csv
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import cli  # noqa: E402

CASES = "^box27 .*/(device copy|11_wide_tiles)"  # the box's best step and the copy, by benchmark name
SIZES = [round((2 ** k / 4) ** (1 / 3)) for k in range(20, 31)]  # N^3 floats: 2^20 .. 2^30 bytes


def run(bench: pathlib.Path, size: int, warm: bool) -> list:
    with tempfile.TemporaryDirectory() as folder:
        out = pathlib.Path(folder) / "bench.json"
        command = [str(bench), f"--size={size}", "--quiet", f"--benchmark_filter={CASES}",
                   f"--benchmark_out={out}", "--benchmark_out_format=json"] + (["--warm-l2"] if warm else [])
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-2000:] + result.stderr[-2000:])
            raise cli.ToolError(f"{' '.join(command)} failed (exit {result.returncode})")
        runs = json.loads(out.read_text())["benchmarks"]
    times = {}
    for r in runs:
        if r.get("run_type") == "iteration":
            times.setdefault(r["name"].split("/")[1], []).append(r["real_time"])
    cube = 4 * size ** 3
    return [{"size": size, "cube bytes": cube, "L2": "warm" if warm else "flushed", "case": name,
             "median ms": f"{statistics.median(t):.5f}", "GB/s": f"{2 * cube / (statistics.median(t) / 1e3) / 1e9:.1f}",
             "repetitions": len(t)} for name, t in times.items()]


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", type=pathlib.Path, help="the build folder of a GPU preset")
    parser.add_argument("--out", type=pathlib.Path, required=True, help="the CSV to write")
    args = parser.parse_args()
    bench = args.build / "chapters/02_stencil/bench_stencil"
    if not bench.is_file():
        raise cli.ToolError("not built: give the build folder of a GPU preset that holds it", bench)
    cli.check_output_file(args.out)
    rows = []
    for size in SIZES:
        for warm in (False, True):
            measured = run(bench, size, warm)
            rows += measured
            print(f"{size}^3 {'warm' if warm else 'flushed'}: " +
                  ", ".join(f"{r['case']} {r['GB/s']} GB/s" for r in measured), flush=True)
    with cli.atomic_output(args.out) as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    cli.run(main)
