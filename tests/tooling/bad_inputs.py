#!/usr/bin/env python3
"""Feeds the course's programs and tools a table of bad inputs and checks that each answers
like a good tool: a non-zero exit, ONE line on stderr that starts with "error: " and names the
problem, no Python traceback and no crash, and no file created, changed or removed.

    tests/tooling/bad_inputs.py --build BUILD_DIR [-k TEXT]

A row is Row(program, args, error, ...):
    program  a script (*.py, *.sh) under the source tree, or under {tmp} where the row's `files`
             put a copy of one (to run it on a tree of its own), run with this python or bash, or
             else a compiled program under BUILD_DIR (e.g. "chapters/01_transpose/bench_transpose").
             A compiled program missing from the build FAILS the row, unless the row's
             `backend` is not this build's (GPU_BACKEND in BUILD_DIR/CMakeCache.txt): then it
             is skipped, and said so.
    args     the arguments. In args and env, {tmp} is the row's scratch folder (also its working
             directory), {root} the source tree, {build} the build folder, {PATH} the PATH.
    error    a regex searched for in the error line.
    status   the exit status it must have: 1 for bad input, 2 for a bad command line (the
             tools' convention, profiling/cli.py); None accepts any failure. 0 makes the row a
             --help row: it must succeed, `error` is searched for in stdout, and stderr stays
             empty (and, as for every row, nothing is created).
    env      variables to set for the run (None removes one).
    files    what {tmp} holds before the run: {relative path: text | Copy("path/in/source")};
             a text starting with "#!" becomes an executable script. The run must leave {tmp}
             exactly as it found it, so an output that must not be created or truncated is
             checked by naming its path in args (absent) or by pre-creating it here (kept).
    lines    how many lines stderr may have (1); None: any number, the last one the error.
    needs    a python module the row needs (the test's own python runs the tools): a row
             whose module is missing is skipped, and said so.
    backend  "CPU", "CUDA" or "HIP": the row holds only for a build of that backend.
    ram_below  GB: the row holds only where less RAM than this is free (a machine with more has
             room for the problem, so the row is skipped, and said so).
    signal   a signal (signal.SIGINT, ...) that interrupts a run of good input: the row waits until
             the program has created its partial output in {tmp} (NAME.partial-PID), sends the
             signal, and the program must die of it, its last line on stderr the error, and
             leave {tmp} as it found it (the partial removed, an earlier output kept).
"""
import argparse
import dataclasses
import importlib.util
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
CRASHES = re.compile(r"Traceback \(most recent call last\)|Segmentation fault|core dumped|terminate called|"
                     r"AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|Aborted")


@dataclasses.dataclass
class Copy:
    source: str  # a file or folder of the source tree, copied into the row's scratch folder


@dataclasses.dataclass
class Row:
    program: str
    args: list
    error: str
    status: int | None = None
    env: dict = dataclasses.field(default_factory=dict)
    files: dict = dataclasses.field(default_factory=dict)
    lines: int | None = 1
    needs: str | None = None
    backend: str | None = None
    ram_below: float | None = None
    signal: int | None = None


# ---- inputs the rows share ------------------------------------------------------------------
COULOMB = "chapters/04_coulomb"
RECORDED = f"{COULOMB}/results/h200"  # one GPU's recorded results
BENCH = json.loads((ROOT / RECORDED / "bench.json").read_text())
CEILINGS = '{"copy_GBps": COPY, "fma_GFLOPs": 58873.7, "rsqrt_Gops": 4127.7}'
NCU_HEADER = '"ID","Kernel Name",' + ",".join(f'"{m}"' for m in (
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum", "dram__bytes_read.sum",
    "dram__bytes_write.sum", "gpu__time_duration.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")) + "\n"
ROCPROF_GROUP1 = "tests/tooling/fixtures/rocprofv3_group1_counter_collection.csv"
ROCPROF_GROUP2 = "tests/tooling/fixtures/rocprofv3_group2_counter_collection.csv"


def bench(keep=lambda run: True, **changes) -> str:
    """Chapter 4's recorded run, with only the benchmarks `keep` accepts, each changed by `changes`."""
    return json.dumps(BENCH | {"benchmarks": [run | changes for run in BENCH["benchmarks"] if keep(run)]})


def ceilings(copy_gbps: str) -> str:
    return CEILINGS.replace("COPY", copy_gbps)


def chapter(source: str = COULOMB, **replaced) -> dict:
    """A copy of a chapter's lesson, tables and H200 results (chapter 4's by default) in {tmp}/ch
    (not named after a chapter, so that report.py, were it to succeed, finds no step files to
    rewrite), with files replaced: chapter(**{"results/h200/bench.json": ""}); a value of None
    leaves the file out."""
    files = {"ch/README.md": Copy(f"{source}/README.md"), "ch/tables.py": Copy(f"{source}/tables.py")}
    files |= {f"ch/results/h200/{path.name}": Copy(f"{source}/results/h200/{path.name}")
              for path in sorted((ROOT / source / "results" / "h200").iterdir()) if path.is_file()}
    for name, text in replaced.items():
        files.pop(f"ch/{name}", None)
        if text is not None:
            files[f"ch/{name}"] = text
    return files


# generate.py on a tree of its own in {tmp}: two solutions, whose exercises are still to be written.
GENERATE = "{tmp}/exercises/generate.py"
SOLUTION = "int f() {\n  // BEGIN SOLUTION: return one\n  return 1;\n  // STUB: return 0;\n  // END SOLUTION\n}\n"
GENERATOR_TREE = {"exercises/generate.py": Copy("exercises/generate.py"), "profiling/cli.py": Copy("profiling/cli.py"),
                  "solutions/01_a/01_step.cu": SOLUTION, "solutions/02_b/01_step.cu": SOLUTION}

# grade.py on a tree of its own in {tmp}: the course's chapters by name, their exercises, and the tools.
GRADE = "{tmp}/exercises/grade.py"
GRADER_TREE = {"exercises": Copy("exercises"),
               **{f"profiling/{name}.py": Copy(f"profiling/{name}.py")
                  for name in ("cli", "results", "verdict", "registry", "environment")},
               **{f"chapters/{folder.name}/{name}": Copy(f"chapters/{folder.name}/{name}")
                  for folder in sorted((ROOT / "chapters").glob("[0-9][0-9]_*"))
                  for name in ("steps.hpp", *(bench.name for bench in folder.glob("bench_*.cpp")))}}



def grader_tree_without(exercise: str) -> dict:
    """GRADER_TREE with one exercise file left out ("01_transpose/02_shared_tile.cu")."""
    return {name: content for name, content in GRADER_TREE.items() if name != "exercises"} | \
        {f"exercises/{path.relative_to(ROOT / 'exercises')}": Copy(str(path.relative_to(ROOT)))
         for path in sorted((ROOT / "exercises").rglob("*"))
         if path.is_file() and path.relative_to(ROOT / "exercises").as_posix() != exercise}


NO_TORCH = {"lib/torch/__init__.py": "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n"}
# A PATH without the profilers: only what profile.sh needs before it looks for them.
NO_PROFILER = {"bin/dirname": "#!/bin/sh\nexec /usr/bin/dirname \"$@\"\n"}
PEERS = [f"chapters/{chapter}/{peer}.py" for chapter, peer in (
    ("02_stencil", "peer_conv3d"), ("03_seismic", "peer_torch"), ("04_coulomb", "peer_torch"),
    ("05_lattice_boltzmann", "peer_torch"))]
PEER2, PEER3, PEER4, PEER5 = PEERS
CHAPTERS = sorted(path.name for path in (ROOT / "chapters").iterdir() if (path / "tables.py").exists())
SWEEP = "chapters/02_stencil/size_sweep.py"
FAILING_BENCH_STENCIL = {"b/chapters/02_stencil/bench_stencil": "#!/bin/sh\necho 'no device' >&2\nexit 3\n"}

NO_MATPLOTLIB = {"lib/matplotlib/__init__.py": "raise ModuleNotFoundError(\"No module named 'matplotlib'\", "
                                               "name='matplotlib')\n"}
FAILING_NVIDIA_SMI = {"bin/nvidia-smi": "#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n"}

REPORT, PLOT, TRAFFIC, RESULTS = (f"profiling/{name}.py" for name in ("report", "plot", "traffic", "results"))
VALIDATE, INSTALL = "profiling/validate_gpu.sh", "cmake/install-deps.sh"
PLOT_INPUTS = {"bench.json": Copy(f"{RECORDED}/bench.json"), "ceilings.json": Copy(f"{RECORDED}/ceilings.json")}
PLOT_ARGS = ["bench.json", "--ceilings", "ceilings.json"]

BENCH1 = "chapters/01_transpose/bench_transpose"
BENCH2 = "chapters/02_stencil/bench_stencil"
BENCH4 = "chapters/04_coulomb/bench_coulomb"
BENCH5 = "chapters/05_lattice_boltzmann/bench_lbm"
BENCH6 = "chapters/06_multi_gpu/bench_multi_gpu"
COURSE_CEILINGS = "common/course_ceilings"
TEST1 = "chapters/01_transpose/test_transpose"
TEST3 = "chapters/03_seismic/test_seismic"
LONGEST_NAME = "p" * 250 + ".json"  # 255 characters, the most a file name may have
CHAPTER6 = "chapters/06_multi_gpu"
CEILINGS6 = json.loads((ROOT / CHAPTER6 / "results" / "h200" / "ceilings.json").read_text())
BENCH6_RUN = json.loads((ROOT / CHAPTER6 / "results" / "h200" / "bench.json").read_text())

ROWS = [
    # ---- report.py ----
    Row(REPORT, [], r"required: chapter", status=2),
    Row(REPORT, ["ch", "--bogus"], r"unrecognized arguments: --bogus", status=2, files=chapter()),
    Row(REPORT, ["--check", "chapters/99_nothing"], r"chapters/99_nothing: no such chapter folder", status=1),
    Row(REPORT, ["ch/README.md"], r"ch/README.md: is not a folder", status=1, files=chapter()),
    Row(REPORT, ["ch"], r"ch/results: no GPU's results", status=1, files=chapter(**{"results/h200/bench.json": None})),
    Row(REPORT, ["ch"], r"bench.json: is empty", status=1, files=chapter(**{"results/h200/bench.json": ""})),
    Row(REPORT, ["ch"], r"bench.json: not valid JSON", status=1, files=chapter(**{"results/h200/bench.json": '{"benchmarks": ['})),
    Row(REPORT, ["ch"], r'bench.json: has no "benchmarks" list', status=1, files=chapter(**{"results/h200/bench.json": "[]"})),
    Row(REPORT, ["ch"], r'bench.json: its "context" lacks gpu', status=1,
        files=chapter(**{"results/h200/bench.json": '{"benchmarks": []}'})),
    Row(REPORT, ["ch"], r"bench.json: holds no median, min and max", status=1,
        files=chapter(**{"results/h200/bench.json": bench(lambda run: run["run_type"] == "iteration")})),
    Row(REPORT, ["ch"], r"bench.json: benchmarks\[\d+\]: expected times in ms", status=1,
        files=chapter(**{"results/h200/bench.json": bench(time_unit="us")})),
    Row(REPORT, ["ch"], r"bench.json: benchmarks\[\d+\]: real_time needs a finite number above zero, not 0", status=1,
        files=chapter(**{"results/h200/bench.json": bench(real_time=0)})),
    Row(REPORT, ["ch"], r"ceilings.json: no such file", status=1, files=chapter(**{"results/h200/ceilings.json": None})),
    Row(REPORT, ["ch"], r"ceilings.json: is empty", status=1, files=chapter(**{"results/h200/ceilings.json": "\n"})),
    *[Row(REPORT, ["ch"], rf'ceilings.json: "copy_GBps" needs a finite number above zero, not {shown}', status=1,
          files=chapter(**{"results/h200/ceilings.json": ceilings(value)}))
      for value, shown in (("0", "0"), ("-5", "-5"), ("1e999", "Infinity"), ('"abc"', '"abc"'), ("NaN", "NaN"))],
    Row(REPORT, ["ch"], r'ceilings.json: has no "rsqrt_Gops"', status=1,
        files=chapter(**{"results/h200/ceilings.json": '{"copy_GBps": 4218.9, "fma_GFLOPs": 58873.7}'})),
    Row(REPORT, ["ch"], r"torch.json: is empty", status=1, files=chapter(**{"results/h200/torch.json": ""})),
    Row(REPORT, ["ch"], r'torch.json: has no "cases" list', status=1, files=chapter(**{"results/h200/torch.json": "{}"})),
    Row(REPORT, ["ch"], r"ch/README.md: no such file", status=1, files=chapter(**{"README.md": None})),
    Row(REPORT, ["ch"], r"ch/README.md: has no markers for the '\w+' table", status=1,
        files=chapter(**{"README.md": "# a lesson without generated tables\n"})),
    Row(REPORT, ["--check", "ch"], r"ch/tables.py: cannot make its tables from .*: IndexError", status=1,
        files=chapter(**{"results/h200/bench.json": bench(lambda run: not run["run_name"].startswith("2048x2048"))})),

    # ---- report.py and results.py on malformed results, one folder per GPU (issues 24 and 28) ----
    Row(REPORT, ["ch"], r"traffic.csv: is empty", status=1, files=chapter(**{"results/h200/traffic.csv": ""})),
    Row(REPORT, ["--check", "ch"], r"traffic.csv: has a header but no rows", status=1,
        files=chapter(**{"results/h200/traffic.csv": "kernel,time ms,XU pipe %,FMA pipe %,issue %,occupancy %\n"})),
    Row(REPORT, ["ch"], r"traffic.csv: has no column 'XU pipe %'", status=1,
        files=chapter(**{"results/h200/traffic.csv": "kernel,time ms\nk,1\n"})),
    Row(REPORT, ["ch"], r"ch/results/bench.json: results are kept per GPU, in results/GPU/", status=1,
        files=chapter(**{"results/bench.json": Copy(f"{RECORDED}/bench.json")})),
    Row(REPORT, ["ch"], r"ch/results/h100: holds a run on the NVIDIA H200, whose folder is h200/", status=1,
        files={**chapter(), **{f"ch/results/h100/{name}": Copy(f"{RECORDED}/{name}") for name in ("bench.json", "ceilings.json")}}),
    Row(RESULTS, ["--gpu-folder", " "], r'cannot name a results folder after the GPU " "', status=1),
    # issue 44: every measurement of the ceilings checked, chapter 6's peer copy too; the context's
    # numbers the tables read; results some other chapter's benchmark wrote
    *[Row(REPORT, ["ch"], rf'ceilings.json: "{key}" needs a finite number above zero, not {shown}', status=1,
          files=chapter(CHAPTER6, **{"results/h200/ceilings.json": json.dumps(CEILINGS6 | {key: value})}))
      for key, value, shown in (("peer_both_ways_GBps", -773.3, "-773.3"), ("peer_GBps", "abc", '"abc"'),
                                ("host_to_device_GBps", 0, "0"))],
    *[Row(REPORT, ["ch"], rf'bench.json: its context\'s "steps" needs a whole number above zero, not {shown}', status=1,
          files=chapter(CHAPTER6, **{"results/h200/bench.json": json.dumps(
              BENCH6_RUN | {"context": BENCH6_RUN["context"] | {"steps": value}})}))
      for value, shown in (("0", '"0"'), ("abc", '"abc"'), ("2.5", '"2.5"'))],
    Row(REPORT, ["ch"], r'bench.json: was written by "build/cuda/chapters/04_coulomb/bench_coulomb", not by '
        r"bench_multi_gpu: another chapter's results\?", status=1,
        files=chapter(CHAPTER6, **{"bench_multi_gpu.cpp": "", "results/h200/bench.json": Copy(f"{RECORDED}/bench.json")})),

    # ---- plot.py ----
    Row(PLOT, PLOT_ARGS, r"required: --out", status=2, files=PLOT_INPUTS),
    Row(PLOT, ["absent.json", "--out", "b.png"], r"absent.json: no such file", status=1),
    Row(PLOT, ["bench.json", "--out", "b.png"], r"bench.json: is empty", status=1, files={"bench.json": ""}),
    Row(PLOT, ["bench.json", "--out", "b.png"], r"bench.json: not valid JSON", status=1, files={"bench.json": "{,}"}),
    Row(PLOT, ["bench.json", "--out", "b.png"], r'bench.json: has no "benchmarks" list', status=1,
        files={"bench.json": '{"context": {}}'}),
    Row(PLOT, ["bench.json", "--out", "b.png"], r"bench.json: is a folder", status=1, files={"bench.json/x": ""}),
    Row(PLOT, [*PLOT_ARGS, "--out", "b.png"], r'ceilings.json: "copy_GBps" needs a finite number above zero, not -5',
        status=1, files=PLOT_INPUTS | {"ceilings.json": ceilings("-5"), "b.png": "kept"}),
    Row(PLOT, [*PLOT_ARGS, "--out", "b.png"], r'ceilings.json: has no "fma_GFLOPs"', status=1,
        files=PLOT_INPUTS | {"ceilings.json": '{"copy_GBps": 1, "rsqrt_Gops": 2}'}),
    Row(PLOT, [*PLOT_ARGS, "--peers", "peers.json", "--out", "b.png"], r"peers.json: cases\[0\]: median_ms needs",
        status=1, files=PLOT_INPUTS | {"peers.json": '{"cases": [{"group": "g", "name": "n", "amounts": {"GB": 1}}]}'}),
    Row(PLOT, [*PLOT_ARGS, "--out", "no/such/b.png"], r"no/such: no such folder", status=1, files=PLOT_INPUTS),
    Row(PLOT, [*PLOT_ARGS, "--out", "file/b.png"], r"file: is not a folder", status=1,
        files=PLOT_INPUTS | {"file": "a file"}),
    Row(PLOT, [*PLOT_ARGS, "--out", "."], r"\.: is a folder", status=1, files=PLOT_INPUTS),
    Row(PLOT, [*PLOT_ARGS, "--out", "b.xyz"], r"b.xyz: unknown image type '.xyz': give a name ending in .*\.png",
        status=1, files=PLOT_INPUTS | {"b.xyz": "kept"}, needs="matplotlib"),
    Row(PLOT, [*PLOT_ARGS, "--out", "b.png"],
        r"matplotlib is missing .*bash cmake/install-deps.sh plots.* -m pip install matplotlib", status=1,
        env={"PYTHONPATH": "{tmp}/lib"}, files=PLOT_INPUTS | NO_MATPLOTLIB | {"b.png": "kept"}),

    # ---- traffic.py ----
    *[Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", value, "--out", "out"],
          rf"argument --array-bytes: needs a finite number above zero, not '{value}'", status=2,
          files={"ncu.csv": Copy("chapters/01_transpose/results/h200/ncu.csv")})
      for value in ("0", "-1", "abc", "inf", "nan", "1e999")],
    Row(TRAFFIC, ["--parse", "ncu.csv", "--out", "out"], r"required: --array-bytes", status=2),
    Row(TRAFFIC, ["--array-bytes", "4", "--out", "out"], r"give --kernels and the benchmark command", status=2),
    Row(TRAFFIC, ["--parse", "absent.csv", "--array-bytes", "4", "--out", "out"], r"absent.csv: no such file", status=1),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"ncu.csv: is empty", status=1,
        files={"ncu.csv": "", "out/traffic.csv": "kept", "out/traffic.md": "kept"}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "new"], r"ncu.csv: is empty", status=1,
        files={"ncu.csv": ""}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"ncu.csv: not text", status=1,
        files={"ncu.csv": "\udcff\udcfe\n"}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"ncu.csv: has no kernels", status=1,
        files={"ncu.csv": "==PROF== No kernels were profiled.\n", "out/traffic.csv": "kept"}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"ncu.csv: has the Nsight Compute "
        r"header but no kernel's row", status=1, files={"ncu.csv": NCU_HEADER, "out/traffic.csv": "kept"}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"],
        r"ncu.csv: Nsight Compute did not report .*gpu__time_duration", status=1,
        files={"ncu.csv": '"ID","Kernel Name","dram__bytes_read.sum"\n"0","k","1"\n'}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"ncu.csv: row 2: 'lots' is not a number",
        status=1, files={"ncu.csv": NCU_HEADER + '"0","void k()",' + ",".join(['"lots"'] * 9) + "\n"}),
    Row(TRAFFIC, ["--parse", "g1.csv", "g2.csv", "--array-bytes", "4", "--out", "out"],
        r"rocprofv3 reported no SQ_INSTS_LDS", status=1, files={"g1.csv": Copy(ROCPROF_GROUP1), "g2.csv": Copy(ROCPROF_GROUP2)}),
    Row(TRAFFIC, ["--parse", "g1.csv", "--array-bytes", "4", "--out", "out"], r"g1.csv: has no Dispatch_Id",
        status=1, files={"g1.csv": "Kernel_Name,Counter_Name,Counter_Value\nk,FETCH_SIZE,1\n"}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"out: is a file, not a folder",
        status=1, files={"ncu.csv": Copy("chapters/01_transpose/results/h200/ncu.csv"), "out": "kept"}),
    Row(TRAFFIC, ["--kernels", "k", "--array-bytes", "4", "--out", "out", "--", "true"],
        r"neither ncu \(Nsight Compute\) nor rocprofv3 is on the PATH", status=1, env={"PATH": "{tmp}/bin"},
        files={"bin/true": "#!/bin/sh\n"}),
    Row(TRAFFIC, ["--vendor", "nvidia", "--kernels", "k", "--array-bytes", "4", "--out", "out", "--", "true"],
        r"ncu is not on the PATH \(--vendor nvidia\)", status=1, env={"PATH": "{tmp}/bin"}, files={"bin/true": "#!/bin/sh\n"}),
    # A profiler that fails half-way leaves neither its raw output nor the folder it was given.
    Row(TRAFFIC, ["--kernels", "k", "--array-bytes", "4", "--out", "out", "--", "true"],
        r"the profiled command failed \(exit 3\)", status=1, lines=None, env={"PATH": "{tmp}/bin"},
        files={"bin/ncu": '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --log-file ] && echo \'"ID","Kernel Name"\' >"$2"; '
               'shift; done\necho "==ERROR== the application failed" >&2\nexit 3\n', "bin/true": "#!/bin/sh\n"}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"ncu.csv: line \d+ ends in the middle: "
        r"a profile cut short\?", status=1,
        files={"ncu.csv": (ROOT / "chapters/01_transpose/results/h200/ncu.csv").read_text()[:-40]}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out"], r"ncu.csv: row \d+: \d+ fields where the "
        r"header has \d+: a profile cut short\?", status=1,
        files={"ncu.csv": (ROOT / "chapters/01_transpose/results/h200/ncu.csv").read_text().rsplit(",", 40)[0] + "\n"}),

    Row(TRAFFIC, ["--parse", "a.csv", "b.csv", "--array-bytes", "4", "--out", "out"],
        r"b.csv: an Nsight Compute profile is one CSV: give a.csv alone", status=1,
        files={"a.csv": Copy("chapters/01_transpose/results/h200/ncu.csv"), "b.csv": Copy("chapters/01_transpose/results/h200/ncu.csv")}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", ""], r"--out needs a folder, not ''", status=2,
        files={"ncu.csv": Copy("chapters/01_transpose/results/h200/ncu.csv")}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--kernels", "k", "--array-bytes", "4", "--out", "out"],
        r"--parse reports saved profiles: it takes no --kernels", status=2,
        files={"ncu.csv": Copy("chapters/01_transpose/results/h200/ncu.csv")}),
    Row(TRAFFIC, ["--parse", "ncu.csv", "--array-bytes", "4", "--out", "out", "--", "true"],
        r"--parse reports saved profiles: it takes no --kernels, --vendor or command", status=2,
        files={"ncu.csv": Copy("chapters/01_transpose/results/h200/ncu.csv")}),
    Row(TRAFFIC, ["--kernels", "k", "--amd-gfx", "gfx942", "--array-bytes", "4", "--out", "out", "--", "true"],
        r"--amd-gfx is for --parse", status=2),

    # ---- the PyTorch peers: every argument checked before torch is taken or anything measured ----
    Row(PEER2, ["--size", "-1"], r"argument --size: needs a whole number from 1 to 1024, not '-1'", status=2),
    Row(PEER2, ["--size", "0"], r"argument --size: needs a whole number from 1 to 1024, not '0'", status=2),
    Row(PEER3, ["--size", "2000"], r"argument --size: needs a whole number from 1 to 1024, not '2000'", status=2),
    Row(PEER4, ["--sizes", "0x0:0"], r"argument --sizes: needs NXxNY:ATOMS\[,NXxNY:ATOMS...\] with NX from 1 to "
        r"65536, NY from 1 to 65536, ATOMS from 1 to 16777216, not '0x0:0'", status=2),
    Row(PEER4, ["--sizes", "64x32:abc"], r"argument --sizes: needs NXxNY:ATOMS", status=2),
    Row(PEER4, ["--sizes", "8x8:5,8x8:5"], r"argument --sizes: gives 8x8:5 twice", status=2),
    Row(PEER5, ["--sizes", "8x8,8x8"], r"argument --sizes: gives 8x8 twice", status=2),
    Row(PEER5, ["--sizes", "8x65536"], r"argument --sizes: needs NXxNY.* NY from 1 to 65535, not '8x65536'", status=2),
    Row(PEER5, ["--steps", "0"], r"argument --steps: needs a whole number from 1 to 1000, not '0'", status=2),
    *[Row(peer, ["--out", "missing/peer.json"], r"missing: no such folder to write into", status=1) for peer in PEERS],
    Row(PEER2, ["--out", "peer.json"], r"PyTorch is not installed", status=1, env={"PYTHONPATH": "{tmp}/lib"},
        files=NO_TORCH),
    *[Row(peer, ["--help"], r"usage: ", status=0, env={"PYTHONPATH": "{tmp}/lib"}, files=NO_TORCH) for peer in PEERS],

    # ---- the chapters' other scripts ----
    Row("tests/run_all.sh", ["3"], r"run_all.sh takes no arguments, not '3'", status=2),
    # issue 44: the wrappers check their options and the environment before installing or building
    Row("tests/run_all.sh", [], r"COURSE_SEED='abc': it takes a whole number", status=2, env={"COURSE_SEED": "abc"}),
    Row("profiling/benchmark_all.sh", ["--bogus"], r"'--bogus' is not an option every benchmark takes", status=2),
    Row("profiling/benchmark_all.sh", ["--repetitions=0"], r"--repetitions needs a whole number from 1 to 10000, not '0'",
        status=2),
    Row("profiling/benchmark_all.sh", ["--benchmark_filter=["], r"is not a valid regular expression", status=2),
    Row("profiling/benchmark_all.sh", ["--quiet"], r"--quiet is set by benchmark_all.sh itself", status=2),
    Row("profiling/benchmark_all.sh", ["--all"], r"COURSE_CPU_THREADS='0'", status=2, env={"COURSE_CPU_THREADS": "0"}),
    *[Row(f"chapters/{chapter}/profile.sh", args, error, status=status, env=env, files=files)
      for chapter in CHAPTERS for args, error, status, env, files in (
          ([], r"usage: profile.sh BUILD_DIR OUT_DIR", 2, {}, {}),
          (["nobuild", "out"], r"nobuild: no such build folder", 2, {}, {}),
          ([".", "out"], rf"\./chapters/{chapter}/bench_\w+: not built", 2, {}, {}),
          (["{build}", "out"], r"is a file, not a folder for the outputs", 2, {}, {"out": "kept"}),
          (["{build}", "out"], r"ncu \(NVIDIA's Nsight Compute\).* is not on the PATH", 1, {"PATH": "{tmp}/bin"},
           NO_PROFILER))],
    Row("chapters/02_stencil/profile.sh", ["{build}", "out", "stalls", "extra"], r"usage: profile.sh", status=2),
    Row("chapters/02_stencil/profile.sh", ["{build}", "out", "flops"], r"'flops' is not traffic, stalls or both", status=2),
    Row(SWEEP, ["b", "--out", "o.csv"], r"bench_stencil --size=\d+ .* failed \(exit 3\)", status=1, lines=None,
        files=FAILING_BENCH_STENCIL | {"o.csv": "kept"}),
    Row(SWEEP, ["nobuild", "--out", "o.csv"], r"nobuild/chapters/02_stencil/bench_stencil: not built", status=1),
    Row(SWEEP, ["b", "--out", "missing/o.csv"], r"missing: no such folder to write into", status=1,
        files=FAILING_BENCH_STENCIL),
    *[Row(f"chapters/{chapter}/tables.py", [], rf"run profiling/report.py chapters/{chapter}", status=1)
      for chapter in CHAPTERS],
    *[Row(f"chapters/{chapter}/figures.py", ["--out-dir", "figures"], r"matplotlib is missing", status=1,
          env={"PYTHONPATH": "{tmp}/lib"}, files=NO_MATPLOTLIB) for chapter in CHAPTERS],
    *[Row(f"chapters/{chapter}/figures.py", ["--out-dir", "figures"], r"figures: is a file, not a folder", status=1,
          files={"figures": "kept"}, needs="matplotlib") for chapter in CHAPTERS],

    # ---- results.py ----
    Row(RESULTS, [], r"required: path", status=2),
    Row(RESULTS, ["absent.json"], r"absent.json: no such file or folder", status=1),
    Row(RESULTS, ["bench.json"], r"bench.json: is empty", status=1, files={"bench.json": " \n"}),
    Row(RESULTS, ["bench.json"], r"bench.json: not valid JSON", status=1, files={"bench.json": "nope"}),
    Row(RESULTS, ["bench.json"], r'bench.json: has no "benchmarks" list', status=1, files={"bench.json": "[1, 2]"}),
    Row(RESULTS, ["bench.json"], r"bench.json: benchmarks\[\d+\]: its run_name is not GROUP/STEP", status=1,
        files={"bench.json": bench(run_name="flat")}),
    Row(RESULTS, ["bench.json"], r"bench.json: benchmarks\[\d+\]: repetitions needs a whole number", status=1,
        files={"bench.json": bench(repetitions="3")}),
    Row(RESULTS, ["peers.json"], r'peers.json: has no "cases" list', status=1, files={"peers.json": '{"cases": []}'}),
    Row(RESULTS, ["peers.json"], r'peers.json: cases\[0\] needs "amounts" with at least "GB"', status=1,
        files={"peers.json": '{"cases": [{"group": "g", "name": "n", "median_ms": 1, "min_ms": 1, "max_ms": 1}]}'}),
    Row(RESULTS, ["ch"], r'ceilings.json: "copy_GBps" needs a finite number above zero, not 0', status=1,
        files=chapter(**{"results/h200/ceilings.json": ceilings("0")})),
    Row(RESULTS, ["."], r"results: no GPU's results: the chapter has no results/GPU/bench.json", status=1),

    # ---- generate.py: every source read and every target checked before anything is written ----
    # grade.py: every check before anything is built or written
    Row(GRADE, ["9"], r"there is no chapter 9; the chapters are 1, 2, 3", status=2, files=GRADER_TREE),
    Row(GRADE, ["3", "--step", "99"], r"chapter 3 has no step 99; its steps are 0, 1, 2, 3", status=2, files=GRADER_TREE),
    Row(GRADE, ["1", "3", "--step", "1"], r"--step needs exactly one chapter", status=2, files=GRADER_TREE),
    Row(GRADE, ["1", "--step", "x"], r"argument --step: invalid int value: 'x'", status=2, files=GRADER_TREE),
    Row(GRADE, ["1"], r"COURSE_SEED='abc': it takes a whole number from 0 to", status=2, env={"COURSE_SEED": "abc"},
        files=GRADER_TREE),
    Row(GRADE, ["1"], r"COURSE_CPU_THREADS='0': it takes a whole number from 1 to 1024", status=2,
        env={"COURSE_CPU_THREADS": "0"}, files=GRADER_TREE),
    Row(GRADE, ["1"], r"build/student-cpu is a file, not a folder", status=2,
        files=GRADER_TREE | {"build/student-cpu": "not a folder"}),
    Row(GRADE, ["1", "--bench", "--asan"], r"--bench times one whole chapter", status=2, files=GRADER_TREE),
    Row(GRADE, ["1", "--profile"], r"--profile measures one step on a GPU", status=2, files=GRADER_TREE),
    # issue 44: the environment, the profiler and the step files checked before anything is built or created
    Row(GRADE, ["6", "--bench"], r"COURSE_DEVICE_MEMORY_MB='abc': it takes a whole number", status=2,
        env={"COURSE_DEVICE_MEMORY_MB": "abc"}, files=GRADER_TREE),
    Row(GRADE, ["1"], r"GTEST_REPEAT=0 runs no test", status=2, env={"GTEST_REPEAT": "0"}, files=GRADER_TREE),
    Row(GRADE, ["1", "--step", "2", "--profile", "--preset", "student-cuda"], r"ncu not found: --profile needs Nsight "
        r"Compute on the PATH", status=2, env={"PATH": "{tmp}/bin"}, files=GRADER_TREE),
    Row(GRADE, ["1"], r"exercises/01_transpose/02_shared_tile.cu is a folder, not the step's source", status=1,
        files=grader_tree_without("01_transpose/02_shared_tile.cu") | {"exercises/01_transpose/02_shared_tile.cu/x": ""}),
    Row(GRADE, ["1", "--step", "2"], r"exercises/01_transpose/02_shared_tile.cu is missing, and the build compiles every "
        r"step: restore it", status=1, files=grader_tree_without("01_transpose/02_shared_tile.cu")),
    Row(GENERATE, [], r"solutions/02_b/01_step.cu: line 2: byte 0xe9 is not UTF-8", status=1,
        files=GENERATOR_TREE | {"solutions/02_b/01_step.cu": "int f() {\n  // caf\udce9\n}\n"}),
    Row(GENERATE, ["--check"], r"solutions/02_b/01_step.cu: line 1: byte 0xe9 is not UTF-8", status=1,
        files=GENERATOR_TREE | {"solutions/02_b/01_step.cu": "\udce9\n"}),
    Row(GENERATE, [], r"exercises/02_b: is not a folder, so exercises/02_b/01_step.cu cannot be written; nothing was "
        r"written", status=1, files=GENERATOR_TREE | {"exercises/02_b": "a file"}),
    Row(GENERATE, [], r"exercises/02_b/01_step.cu: is a folder where generate.py writes a file", status=1,
        files=GENERATOR_TREE | {"exercises/02_b/01_step.cu/x": ""}),
    Row(GENERATE, [], r"nothing was written; if those edits may go", status=1, lines=None,
        files=GENERATOR_TREE | {"exercises/02_b/01_step.cu": "// my own, in Latin-1: caf\udce9\n"}),
    Row(GENERATE, ["--bogus"], r"unrecognized arguments: --bogus", status=2, files=GENERATOR_TREE),
    Row(GENERATE, ["--check"], r"exercises/ is not up to date: exercises/01_a/01_step.cu: line 1: byte 0xe9 is not UTF-8",
        status=1, files=GENERATOR_TREE | {"exercises/01_a/01_step.cu": "// caf\udce9\n"}),

    # ---- validate_gpu.sh (needs no GPU: it stops before anything that would use one) ----
    Row(VALIDATE, [], r"usage: validate_gpu.sh", status=2),
    Row(VALIDATE, [""], r"usage: validate_gpu.sh", status=2),
    Row(VALIDATE, ["--dry-run", "results", "99"], r"no chapter 99 to validate \(chapters: 1 ", status=2),
    Row(VALIDATE, ["--dry-run", "results", "1.5"], r"'1.5' is not a chapter number", status=2),
    Row(VALIDATE, ["--dry-run", "results", "-1"], r"'-1' is not a chapter number", status=2),
    Row(VALIDATE, ["--dry-run", "results", "18446744073709551617"], r"no chapter 18446744073709551617", status=2),
    Row(VALIDATE, ["--dry-run", "file/results", "1"], r"file/results: cannot create the results folder "
        r"\(file is not a folder\)", status=2, files={"file": "a file"}),
    Row(VALIDATE, ["file/results", "1"], r"file/results: cannot create the results folder", status=2,
        files={"file": "a file"}),
    Row(VALIDATE, ["results", "1"], r"no NVIDIA GPU here \(nvidia-smi -L failed\)", status=2,
        env={"PATH": "{tmp}/bin:{PATH}"}, files=FAILING_NVIDIA_SMI),
    Row(VALIDATE, ["results", "1"], r"COURSE_SEED='x': it takes a whole number", status=2, env={"COURSE_SEED": "x"}),

    # ---- install-deps.sh (each stops before it looks at the machine) ----
    Row(INSTALL, ["gpu"], r"install-deps.sh: unknown argument 'gpu'", status=2),
    Row(INSTALL, [""], r"install-deps.sh: unknown argument ''", status=2),
    Row(INSTALL, ["--plots"], r"install-deps.sh: unknown argument '--plots'", status=2),
    Row(INSTALL, ["cpu", "cuda"], r"install-deps.sh: one backend at a time, not both cpu and cuda", status=2),

    # ---- compiled programs (paths relative to --build) ----------------------------------------
    Row(BENCH1, ["--rows=abc"], r"--rows needs a whole number from 1 to 65536, not 'abc'", status=2),
    Row(BENCH1, ["--rows=4294967297", "--cols=8", "--benchmark_out=o.json"], r"--rows needs a whole number", status=2,
        files={"o.json": "kept"}),
    Row(BENCH1, ["--rows=3000000000"], r"--rows needs a whole number", status=2),
    Row(BENCH1, ["--rows=-8"], r"--rows needs a whole number", status=2),
    Row(BENCH1, ["--repetitions=3x"], r"--repetitions needs a whole number from 1 to 10000, not '3x'", status=2),
    Row(BENCH1, ["--repetitions=0"], r"--repetitions needs a whole number", status=2),
    Row(BENCH1, ["--nonsense"], r"unknown option '--nonsense'", status=2),
    Row(BENCH1, ["--benchmark_filter=[", "--benchmark_out=o.json"], r"not a valid regular expression", status=2,
        files={"o.json": "kept"}),
    Row(BENCH1, ["--rows=8", "--cols=8", "--benchmark_filter=matches-nothing", "--benchmark_out=new.json"],
        r"--benchmark_filter='matches-nothing' selects none of the \d+ cases", status=2),
    Row(BENCH1, ["--benchmark_out=missing/out.json"], r"cannot write missing/out.json", status=2),
    *[Row(BENCH1, ["--ceilings=c.json"], rf'c.json: "{key}" must be a finite positive number, not {re.escape(value)}',
          status=2, files={"c.json": '{"copy_GBps": 1, "fma_GFLOPs": 1, "rsqrt_Gops": 1}'.replace(f'"{key}": 1',
                                                                                                f'"{key}": {value}')})
      for key, value in (("copy_GBps", "0"), ("fma_GFLOPs", "-5"), ("rsqrt_Gops", "1e999"), ("copy_GBps", '"abc"'),
                         ("fma_GFLOPs", "12abc"), ("rsqrt_Gops", ""))],
    Row(BENCH1, ["--ceilings=c.json"], r'c.json: has no "copy_GBps"', status=2, files={"c.json": "{}"}),
    Row(BENCH1, ["--ceilings=absent.json"], r"absent.json: cannot read the ceilings file \(No such file", status=2),
    Row(BENCH2, ["--size=4294967300"], r"--size needs a whole number from 1 to 1024", status=2),
    Row(BENCH2, ["--size=2000"], r"--size needs a whole number from 1 to 1024", status=2),
    Row(BENCH4, ["--sizes=64x32:abc"], r"--sizes needs NXxNY:ATOMS", status=1),
    Row(BENCH4, ["--sizes=4294967297x1:5"], r"--sizes needs NXxNY:ATOMS", status=1),
    Row(BENCH5, ["--sizes=64x"], r"a size is NXxNY with NX from 1 to 65536 and NY from 1 to 65535, not '64x'", status=1),
    Row(BENCH5, ["--sizes=0x8"], r"a size is NXxNY with NX from 1 to 65536 and NY from 1 to 65535, not '0x8'", status=1),
    Row(BENCH5, ["--sizes=4x65536"], r"NY from 1 to 65535, not '4x65536'", status=1),
    Row(BENCH5, ["--cpu-size=3"], r"a size is NXxNY", status=1),
    Row(BENCH5, ["--steps=0"], r"--steps needs a whole number from 1 to 1000, not '0'", status=2),
    Row(BENCH5, ["--flow=missing/flow.csv"], r"cannot write missing/flow.csv", status=1),
    Row(BENCH5, ["--accuracy=missing/accuracy.csv"], r"cannot write missing/accuracy.csv", status=1),
    Row(BENCH5, ["--accuracy=a.csv", "--widths=24,1"], r"--widths takes cells across the channel, 2 to 65535, comma-separated, not '24,1'", status=1),
    Row(BENCH5, ["--accuracy=a.csv", "--tau=0.5"], r"--tau takes a relaxation time from 0.51 to 10, not '0.5'", status=1),
    Row(BENCH5, ["--accuracy=a.csv", "--only=08_fma"], r"--only takes step ids .* there is no '08_fma'", status=1),
    Row(BENCH5, ["--capacity=64x"], r"a size is NXxNY with NX from 1 to 65536 and NY from 1 to 65535, not '64x'", status=1),
    Row(BENCH5, ["--vortex=missing/vortex.csv"], r"cannot write missing/vortex.csv", status=1),
    Row(COURSE_CEILINGS, ["--megabytes=2x"], r"--megabytes needs a whole number from 1 to 1048576, not '2x'", status=2),
    Row(COURSE_CEILINGS, ["--megabytes=0"], r"--megabytes needs a whole number", status=2),
    Row(COURSE_CEILINGS, ["--out=missing/ceilings.json"], r"cannot write missing/ceilings.json", status=1),
    Row(COURSE_CEILINGS, ["--bogus"], r"unknown or malformed option '--bogus'", status=2),
    Row(TEST1, ["--course_step=01_transpose/99_nothing"], r"no test of this program belongs to that step", status=1),
    Row(TEST1, ["--bogus"], r"unknown argument '--bogus'", status=2),
    # The harness's command line (common/src/benchmark.cpp), all checked before anything is created:
    # Google Benchmark's flags that the harness sets itself or whose value it would answer with
    # its usage and exit status 0, repeated options, empty values, and the ceilings file.
    Row(BENCH1, ["--benchmark_out=o.json", "--benchmark_out_format=xml"], r"--benchmark_out_format takes only json",
        status=2),
    Row(BENCH1, ["--benchmark_out=o.json", "--benchmark_out_format=csv"], r"--benchmark_out_format takes only json",
        status=2),
    Row(BENCH1, ["--benchmark_format=xml"], r"--benchmark_format takes only console", status=2),
    Row(BENCH1, ["--benchmark_format=json"], r"--benchmark_format takes only console .*--benchmark_out=FILE.json",
        status=2),
    Row(BENCH1, ["--benchmark_out=o.json", "--help"], r"usage: .*\n.*--rows=", status=0),
    Row(BENCH1, ["--benchmark_out=a.json", "--benchmark_out=b.json"], r"--benchmark_out is given twice", status=2),
    Row(BENCH1, ["--rows=8", "--rows=16", "--benchmark_out=o.json"], r"--rows is given twice", status=2),
    Row(BENCH1, ["--benchmark_repetitions=7"], r"--benchmark_repetitions is not this harness's: give --repetitions=N",
        status=2),
    Row(BENCH1, ["--benchmark_list_tests=true", "--benchmark_out=o.json"], r"--benchmark_list_tests is not taken",
        status=2),
    Row(BENCH1, ["--benchmark_min_time=0.5"], r"--benchmark_min_time is not taken", status=2),
    Row(BENCH1, ["--benchmark_filter"], r"--benchmark_filter needs a value", status=2),
    Row(BENCH1, ["--rows=", "--benchmark_out=o.json"], r"--rows needs a value: --rows=\d+", status=2),
    Row(BENCH1, ["--rows"], r"--rows needs a value", status=2),
    Row(BENCH5, ["--flow="], r"--flow needs a value", status=2),
    Row(BENCH1, ["--quiet=yes"], r"--quiet takes no value", status=2),
    Row(BENCH1, ["--ceilings="], r"--ceilings needs a file", status=2),
    Row(BENCH1, ["--ceilings=c.json"], r"c.json: is empty", status=2, files={"c.json": "\n"}),
    Row(BENCH1, ["--ceilings=c.json"], r"c.json: is a folder", status=2, files={"c.json/x": ""}),
    Row(BENCH1, ["--ceilings=c.json"], r"c.json: is not a JSON object", status=2,
        files={"c.json": '"copy_GBps": 1, "fma_GFLOPs": 1, "rsqrt_Gops": 1'}),
    Row(COURSE_CEILINGS, ["--out=c.json", "--bogus"], r"unknown or malformed option '--bogus'", status=2),
    Row(COURSE_CEILINGS, ["--out=a.json", "--out=b.json"], r"--out is given twice", status=2),
    Row(COURSE_CEILINGS, ["--out=c.json", "--help"], r"usage: course_ceilings", status=0),
    # The tests' main (common/src/gtest_main.cpp): a selection of no test is no pass.
    Row(TEST1, ["--gtest_filter=matches-nothing"], r"--gtest_filter='matches-nothing' selects none of this program's "
        r"\d+ tests", status=1),
    Row(TEST1, ["--course_step="], r"--course_step needs CHAPTER/FILE .*, not ''", status=2),
    Row(TEST1, ["--course_step=00_naive"], r"--course_step needs CHAPTER/FILE", status=2),
    Row(TEST3, ["--course_step=01_transpose/00_naive"], r"this program tests 03_seismic, not 01_transpose", status=1),
    Row(TEST1, ["--course_step=01_transpose/00_naive", "--gtest_filter=Transpose*"],
        r"--course_step selects the tests itself", status=2),
    Row(TEST1, ["--course_step=01_transpose/00_naive", "--course_step=01_transpose/01_coalesced"],
        r"--course_step is given twice", status=2),
    # The course's environment variables: parsed whole, range-checked, named in the error.
    *[Row(BENCH1, ["--rows=8", "--cols=8", "--benchmark_out=o.json"], rf"{variable}='{re.escape(value)}': {variable} takes",
          status=2, env={variable: value}, files={"o.json": "kept"}, backend=backend)
      for variable, value, backend in [("COURSE_SEED", "abc", None), ("COURSE_SEED", "-1", None), ("COURSE_SEED", "", None),
                                       ("COURSE_SEED", "18446744073709551616", None),
                                       ("COURSE_CPU_SHUFFLE", "abc", "CPU"), ("COURSE_CPU_SHUFFLE", "0x3039", "CPU"),
                                       ("COURSE_CPU_SHUFFLE", "", "CPU"), ("COURSE_CPU_THREADS", "0", "CPU"),
                                       ("COURSE_CPU_THREADS", "-4", "CPU"), ("COURSE_CPU_THREADS", "abc", "CPU"),
                                       ("COURSE_CPU_THREADS", "100000", "CPU")]],
    Row(TEST1, ["--gtest_filter=*1x1*"], r"COURSE_CPU_SHUFFLE='12345x'", status=2, env={"COURSE_CPU_SHUFFLE": "12345x"},
        backend="CPU"),
    # ---- the benchmark harness's problems: sizes declared once, memory checked (issue 24) ----
    Row(BENCH4, ["--sizes=8x8:5,8x8:5", "--benchmark_out=o.json"], r"two problems are named '8x8, 5 atoms' "
        r"\(a size given twice\?\)", status=2, files={"o.json": "kept"}),
    Row(BENCH4, ["--sizes=65536x65536:1", "--benchmark_out=o.json"], r"nothing to time: every selected case was "
        r"skipped; no JSON written", status=1, env={"COURSE_DEVICE_MEMORY_MB": "1000"}),
    Row(BENCH5, ["--flow=f.csv", "--sizes=abc"], r"a size is NXxNY with NX from 1 to 65536 .*, not 'abc'", status=1),
    Row(BENCH5, ["--cpu-size=65536x65535"], r"the CPU schemes' --cpu-size=65536x65535 needs [\d.]+ GB of "
        r"(host )?memory.*; this machine has [\d.]+ GB of RAM free", status=2, ram_below=429),
    *[Row(BENCH1, ["--rows=8", "--cols=8", "--benchmark_out=o.json"],
          rf"COURSE_DEVICE_MEMORY_MB='{value}': COURSE_DEVICE_MEMORY_MB takes a whole number from 1 to", status=2,
          env={"COURSE_DEVICE_MEMORY_MB": value}, files={"o.json": "kept"}) for value in ("abc", "0", "", "1.5", "-3")],
    # ---- issue 44: interrupted runs, modes that skip their checks, limits the code cannot reach ----
    # An output is whole or absent whatever ends the run: a signal removes the partial (one line
    # names it; the program dies of the signal), an earlier output stays, a folder is refused first,
    # and a name of 255 characters is taken (its partial's name is cut to fit).
    Row(BENCH5, ["--accuracy=a.csv", "--widths=192"], r"interrupted by SIGINT: not written: a\.csv", signal=signal.SIGINT),
    Row(BENCH6, [f"--pulse={LONGEST_NAME}", "--pulse-steps=100000"], rf"interrupted by SIGTERM: not written: {LONGEST_NAME}",
        signal=signal.SIGTERM),
    Row(COURSE_CEILINGS, ["--out=c.json", "--megabytes=256"], r"interrupted by SIGHUP: not written: c\.json",
        signal=signal.SIGHUP, files={"c.json": "kept"}),
    Row(BENCH1, ["--rows=2048", "--cols=2048", "--benchmark_out=o.json"], r"interrupted by SIGINT: not written: o\.json",
        lines=None, signal=signal.SIGINT),
    Row(BENCH5, ["--flow=d"], r"cannot write d: it is a folder: give a file name", status=1, files={"d/x": "kept"}),
    Row(BENCH6, ["--pulse=d"], r"cannot write d: it is a folder", status=1, files={"d/x": "kept"}),
    Row(BENCH5, ["--accuracy=d/"], r"cannot write d/: it ends in '/'", status=1),
    Row(COURSE_CEILINGS, ["--out=d"], r"cannot write d: it is a folder", status=1, files={"d/x": "kept"}),
    Row(BENCH1, ["--rows=8", "--cols=8", "--benchmark_out=d"], r"cannot write d: it is a folder", status=2,
        files={"d/x": "kept"}),
    # Every option is checked whichever mode reads it, and one a mode would ignore is refused.
    Row(BENCH6, ["--pulse-size=abc"], r"--pulse-size needs a whole number from 1 to 4096, not 'abc'", status=2),
    Row(BENCH6, ["--pulse-steps=-5"], r"--pulse-steps needs a whole number", status=2),
    Row(BENCH6, ["--pulse-size=40"], r"--pulse-size is for --pulse; the benchmark does not read it", status=2),
    Row(BENCH6, ["--pulse=p.json", "--strong=64"], r"--strong is for the benchmark; --pulse does not read it", status=2),
    Row(BENCH6, ["--pulse=p.json", "--benchmark_out=o.json"], r"--benchmark_out is for timing; --pulse times nothing",
        status=2),
    Row(BENCH5, ["--accuracy=a.csv", "--flow=f.csv"], r"--flow and --accuracy are runs of their own: give one", status=2),
    Row(BENCH5, ["--flow=f.csv", "--repetitions=3"], r"--repetitions is for timing; --flow times nothing", status=2),
    Row(BENCH5, ["--widths=24"], r"--widths is for --accuracy; the benchmark does not read it", status=2),
    Row(BENCH5, ["--capacity=64x32", "--sizes=8x8"], r"--sizes is for the benchmark; --capacity does not read it",
        status=2),
    # Memory weighed on every path: a mode that times nothing, and the CPU backend's one RAM that
    # every rank (device) of chapter 6 shares.
    Row(BENCH6, ["--pulse=p.json", "--pulse-size=4096"], r"the pulse on 4096\^3 points .* needs [\d.]+ GB of "
        r"(device |host )?memory", status=2),
    Row(BENCH6, ["--pulse=p.json"], r"the pulse on \d+\^3 points .*COURSE_DEVICE_MEMORY_MB=1 allows 1.0 MB", status=2,
        env={"COURSE_DEVICE_MEMORY_MB": "1"}),
    Row(BENCH6, ["--gpus=8", "--strong=512", "--weak=512", "--benchmark_out=o.json"],
        r"nothing to time: every selected case was skipped; no JSON written", status=1,
        env={"COURSE_DEVICE_MEMORY_MB": "500"}, backend="CPU"),
    Row(BENCH5, ["--sizes=4628x4628", "--benchmark_out=o.json"], r"nothing to time: every selected case was skipped",
        status=1, env={"COURSE_DEVICE_MEMORY_MB": "9000"}, backend="CPU"),
    # A range that is documented is reachable, or refused in one line.
    Row(BENCH5, ["--accuracy=a.csv", "--widths=24,65535"], r"--widths: a channel 65535 cells across takes \d+ time "
        r"steps .*more than a run counts \(2147483647\): at this tau, widths up to \d+", status=1),
    # A test program that would run nothing, or a part, is no pass.
    Row(TEST1, ["--gtest_repeat=0"], r"--gtest_repeat=0 runs no test", status=2),
    Row(TEST1, [], r"GTEST_REPEAT=0 runs no test", status=2, env={"GTEST_REPEAT": "0"}),
    Row(TEST1, [], r"GTEST_TOTAL_SHARDS=2 runs a part of this program's tests", status=2,
        env={"GTEST_TOTAL_SHARDS": "2", "GTEST_SHARD_INDEX": "0"}),
    # ---- end of the compiled programs' rows ---------------------------------------------------
]


def build_backend(build: pathlib.Path) -> str:
    cache = build / "CMakeCache.txt"
    match = re.search(r"^GPU_BACKEND:\w+=(\w+)$", cache.read_text(), re.M) if cache.exists() else None
    if not match:
        sys.exit(f"error: {cache}: no GPU_BACKEND in it: give a configured build folder")
    return match.group(1)


def command(row: Row, build: pathlib.Path) -> list | None:
    """The command line, or None when the compiled program is not in the build."""
    if row.program.endswith((".py", ".sh")):
        script = row.program if row.program.startswith("{tmp}/") else str(ROOT / row.program)
        return [sys.executable if row.program.endswith(".py") else shutil.which("bash") or "bash", script]
    program = build / row.program
    return [str(program)] if program.is_file() and os.access(program, os.X_OK) else None


def prepare(folder: pathlib.Path, files: dict) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Copy):
            source = ROOT / content.source
            (shutil.copytree if source.is_dir() else shutil.copyfile)(source, path)
        else:
            path.write_bytes(content.encode("utf-8", "surrogateescape"))
            if content.startswith("#!"):
                path.chmod(0o755)


def snapshot(folder: pathlib.Path) -> dict:
    """Every path under `folder`, with its bytes (files) or None (folders)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def answer_problems(row: Row, run: subprocess.CompletedProcess, lines: list) -> list:
    """What is wrong with a run's exit status and output (`lines`: stderr's non-empty lines)."""
    problems = []
    if crash := CRASHES.search(run.stdout + run.stderr):
        problems.append(f"a crash or traceback: '{crash.group(0)}'")
    if row.status == 0:  # --help: the usage on stdout
        if run.returncode != 0:
            problems.append(f"exit status {run.returncode}, not 0")
        if lines:
            problems.append("something on stderr")
        if not re.search(row.error, run.stdout):
            problems.append(f"stdout does not match /{row.error}/")
        return problems
    if row.signal is not None:
        if run.returncode != -row.signal:
            problems.append(f"exit status {run.returncode}, not death by {signal.Signals(row.signal).name}")
    elif run.returncode == 0:
        problems.append("exit status 0")
    elif run.returncode < 0 or run.returncode >= 128:
        problems.append(f"killed by a signal (status {run.returncode})")
    elif row.status is not None and run.returncode != row.status:
        problems.append(f"exit status {run.returncode}, not {row.status}")
    if not lines:
        problems.append("nothing on stderr")
    else:
        if row.lines is not None and len(lines) > row.lines:
            problems.append(f"{len(lines)} lines on stderr, not {row.lines}")
        if not lines[-1].startswith("error: "):
            problems.append("the last line on stderr does not start with 'error: '")
        if not re.search(row.error, lines[-1]):
            problems.append(f"the error line does not match /{row.error}/")
    return problems


def run_and_interrupt(command: list, folder: pathlib.Path, env: dict, signal_number: int):
    """Runs `command` in `folder` until it has created a partial output there, then sends it the
    signal: its run, or (a string) why it could not be interrupted so."""
    with subprocess.Popen(command, cwd=folder, env=env, text=True, errors="replace", stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL) as child:
        deadline = time.monotonic() + 120
        while not any(folder.rglob("*.partial-*")):
            if child.poll() is not None or time.monotonic() > deadline:
                child.kill()
                _, stderr = child.communicate()
                return (f"it never created a partial output to interrupt (exit status {child.returncode}); "
                        f"stderr: {stderr.strip()[-300:]}")
            time.sleep(0.01)
        child.send_signal(signal_number)
        try:
            stdout, stderr = child.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            return f"it did not end in 120 s after {signal.Signals(signal_number).name}"
    return subprocess.CompletedProcess(command, child.returncode, stdout, stderr)


def ram_free_gb() -> float:
    """The RAM a program may take without swapping (MemAvailable), in GB of 1e9 bytes."""
    for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024 / 1e9
    return 0.0


def check(row: Row, build: pathlib.Path, backend: str) -> tuple[str, list]:
    """("ok" | "skip" | "FAIL", what was wrong or why it was skipped)."""
    if row.backend and row.backend != backend:
        return "skip", [f"a {row.backend} row; this build is {backend}"]
    if row.needs and importlib.util.find_spec(row.needs) is None:
        return "skip", [f"{sys.executable} has no {row.needs}"]
    if row.ram_below and ram_free_gb() >= row.ram_below:
        return "skip", [f"this machine has {ram_free_gb():.0f} GB of RAM free, room for the problem"]
    argv = command(row, build)
    if argv is None:
        return "FAIL", [f"{build / row.program} is not in the build (an absent program fails the row)"]
    with tempfile.TemporaryDirectory(prefix="bad-input-") as scratch:
        tmp = pathlib.Path(scratch)
        places = {"{tmp}": scratch, "{root}": str(ROOT), "{build}": str(build), "{PATH}": os.environ.get("PATH", "")}

        def expand(text: str) -> str:
            for place, value in places.items():
                text = text.replace(place, value)
            return text

        prepare(tmp, row.files)
        env = os.environ | {"PYTHONDONTWRITEBYTECODE": "1"}
        for key, value in row.env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = expand(value)
        before, top_before = snapshot(tmp), sorted(os.listdir("/"))
        command_line = [expand(a) for a in argv + row.args]
        try:
            run = run_and_interrupt(command_line, tmp, env, row.signal) if row.signal is not None else \
                subprocess.run(command_line, cwd=tmp, env=env, text=True, errors="replace", capture_output=True,
                               stdin=subprocess.DEVNULL, timeout=120)
        except subprocess.TimeoutExpired:
            return "FAIL", ["did not finish in 120 s"]
        if isinstance(run, str):
            return "FAIL", [run]
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        problems = answer_problems(row, run, lines)
        after = snapshot(tmp)
        for path in sorted(set(before) | set(after)):
            if path not in after:
                problems.append(f"removed {path}")
            elif path not in before:
                problems.append(f"created {path}")
            elif before[path] != after[path]:
                problems.append(f"changed {path}")
        if sorted(os.listdir("/")) != top_before:
            problems.append("changed what / holds")
        if problems:
            problems += [f"stderr: {line}" for line in lines[-5:]]
        return ("FAIL" if problems else "ok"), problems or (lines or run.stdout.splitlines())[-1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=pathlib.Path, required=True, help="a configured (and built) build folder")
    parser.add_argument("-k", dest="only", default="", help="run only the rows whose command line contains this")
    args = parser.parse_args()
    build = args.build.resolve()
    backend = build_backend(build)
    failed = 0
    for row in ROWS:
        shown = " ".join([row.program, *(repr(a) if not a or " " in a else a for a in row.args)])
        if args.only not in shown:
            continue
        if row.env:
            shown = " ".join(f"{k}={v}" for k, v in row.env.items()) + " " + shown
        if row.signal is not None:
            shown += f", then {signal.Signals(row.signal).name}"
        verdict, notes = check(row, build, backend)
        failed += verdict == "FAIL"
        print(f"{verdict:4}  {shown}")
        for note in notes:
            print(f"        {note}")
    print(f"{failed} of the rows failed" if failed else "every row answered with one clear error")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
