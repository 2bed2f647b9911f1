#!/usr/bin/env python3
"""The benchmark harness's guarantees, on real programs of a build:

    tests/tooling/benchmark_harness.py --build BUILD_DIR --backend CPU|CUDA|HIP

- A size that does not fit the device is skipped in one line and the others still run: chapter
  4's benchmark with two sizes and COURSE_DEVICE_MEMORY_MB=1, which the larger one exceeds.
- A case that keeps its first answer passes until the inputs change: it fails after timing, on
  fresh inputs, with their seed (tests/benchmark/misbehaving_cases.cu).
- On a GPU backend, a case whose work runs on another stream fails: "work ran outside the timed
  stream".
- --verdict times each step once per family, at the largest size that fits, and no peers: chapter
  4's benchmark with two sizes, then the larger one capped out.
- By default a benchmark times each step file's taught variant and the peers, a line as each case
  finishes; --all adds the experiments, marked; a filter that selects only experiments says so.
Exit 0 when every check holds, 1 when one does not, 77 (skipped) on a GPU build without a GPU.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys

NO_DEVICE = 77  # course::bench::Session::kNoDevice


def run(program: pathlib.Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(program), "--quiet", *args], capture_output=True, text=True, timeout=300,
                          env=os.environ | (env or {}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=pathlib.Path, required=True)
    parser.add_argument("--backend", choices=("CPU", "CUDA", "HIP"), required=True)
    args = parser.parse_args()
    coulomb = args.build / "chapters" / "04_coulomb" / "bench_coulomb"
    misbehaving = args.build / "tests" / "misbehaving_cases"
    problems = []

    def expect(what: str, result: subprocess.CompletedProcess, status: int, *patterns: str) -> None:
        output = result.stdout + result.stderr
        if result.returncode == NO_DEVICE:
            print(f"skipped: no device to run {what} on ({result.stderr.strip()})")
            raise SystemExit(NO_DEVICE)
        missing = [p for p in patterns if not re.search(p, output, re.M)]
        if result.returncode != status or missing:
            problems.append(f"{what}: exit status {result.returncode} (expected {status})"
                            + "".join(f"\n    no line matches /{p}/" for p in missing)
                            + "\n    output:\n" + "\n".join("      " + line for line in output.splitlines()[-15:]))

    capped = run(coulomb, "--sizes=16x16:50,2048x2048:1", "--benchmark_filter=0[01]_", "--repetitions=2",
                 env={"COURSE_DEVICE_MEMORY_MB": "1"})
    expect("a size over the capped memory", capped, 0,
           r"^skipped 2048x2048, 1 atoms: needs [\d.]+ MB of (device )?memory.*COURSE_DEVICE_MEMORY_MB=1 allows 1\.0 MB$",
           r"^16x16, 50 atoms +median ms", r"^00_naive +[\d.]+ ", r"^01_constant_memory +[\d.]+ ")
    if capped.stdout.count("skipped") != 1 or "2048x2048, 1 atoms " in capped.stdout.split("Summary", 1)[-1]:
        problems.append("the skipped size has more than its one line:\n" + capped.stdout)

    verdict = run(coulomb, "--sizes=16x16:50,24x24:60", "--benchmark_filter=0[01]_", "--repetitions=2", "--verdict")
    expect("--verdict", verdict, 0, r"^24x24, 60 atoms +median ms", r"^00_naive +[\d.]+ ", r"^01_constant_memory +[\d.]+ ")
    if re.search(r"^16x16, 50 atoms +median ms.*\n[0-9]", verdict.stdout, re.M):
        problems.append("--verdict timed the smaller size too:\n" + verdict.stdout)
    capped_verdict = run(coulomb, "--sizes=16x16:50,2048x2048:1", "--benchmark_filter=0[01]_", "--repetitions=2",
                         "--verdict", env={"COURSE_DEVICE_MEMORY_MB": "1"})
    expect("--verdict with the larger size over the capped memory", capped_verdict, 0,
           r"^16x16, 50 atoms +median ms.*\n00_naive +[\d.]+ ")

    taught = run(coulomb, "--sizes=16x16:50", "--benchmark_filter=/05_", "--repetitions=2")
    expect("the taught variant of a step file", taught, 0,
           r"^\[1/1\] +05_shared_atoms_8x4_points +16x16, 50 atoms: [\d.]+ ms, ", r"^05_shared_atoms_8x4_points +[\d.]+ ")
    if "8_points" in taught.stdout or "experiment" in taught.stdout:
        problems.append("an experiment ran without --all:\n" + taught.stdout)
    everything = run(coulomb, "--sizes=16x16:50", "--benchmark_filter=/05_", "--repetitions=2", "--all")
    expect("--all", everything, 0, r"^\[4/4\] ", r"^\[experiment\] 05_shared_atoms_8_points +[\d.]+ ",
           r"^05_shared_atoms_8x4_points +[\d.]+ ")
    expect("a filter that selects only experiments", run(coulomb, "--sizes=16x16:50", "--benchmark_filter=8x2"), 2,
           r"^error: --benchmark_filter='8x2' selects none of the \d+ cases of taught steps and peers .*; it selects "
           r"experiments, which run with --all$")
    expect("--verdict with --all", run(coulomb, "--verdict", "--all"), 2,
           r"^error: --verdict times the taught steps only; --all does not go with it$")

    expect("a control case", run(misbehaving, "--case=right"), 0, r"^right +[\d.]+ ")
    expect("a case that keeps its first answer", run(misbehaving, "--case=keeps_first_answer"), 1,
           r"^FAILED double/keeps_first_answer after timing: on fresh inputs from seed \d+ "
           r"\(the run replays with COURSE_SEED=\d+",
           r"^keeps_first_answer +FAILED after timing")
    expect("a case this device cannot run", run(misbehaving, "--case=unsupported"), 1,
           r"^skipped double/unsupported: this case needs a unit no device has$",
           r"^unsupported +skipped: this case needs a unit no device has",
           r"nothing to time: every selected case was skipped")
    if args.backend != "CPU":
        expect("a case on another stream", run(misbehaving, "--case=other_stream"), 1,
               r"^FAILED double/other_stream after timing: work ran outside the timed stream \(another stream\?\)")

    print("\n".join(f"FAIL  {problem}" for problem in problems) or "the harness caught every case")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
