#!/usr/bin/env python3
"""Grades your exercises: builds them, runs each step's tests, and prints one line per step.

    python3 exercises/grade.py 1              chapter 1 (several: 1 2; none: every chapter)
    python3 exercises/grade.py 1 --step 2     one step of it
    python3 exercises/grade.py 1 --asan       under AddressSanitizer, which names the line of an
                                              out-of-bounds access (CPU backend only)
    python3 exercises/grade.py 1 --preset student-cuda   on an NVIDIA GPU (student-hip: an AMD one)
    python3 exercises/grade.py 1 --bench      builds and runs chapter 1's benchmark instead: your
                                              steps timed beside the naive one

It always builds first, so what it grades is what you wrote. On the CPU backend every step runs
twice: with the threads of each block in order, and shuffled between barriers, so that a missing
__syncthreads() fails. The whole output of the build and the tests goes to
build/<preset>/grade.log. Exit status: 0 when every graded step passes, 1 otherwise.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "exercises"))
import generate  # noqa: E402  (tells an edited exercise from a fresh stub)
PRESETS = ("student-cpu", "student-cuda", "student-hip")


class GradeError(Exception):
    pass


def chapters() -> dict:
    """{number: folder name} of the course's chapters."""
    found = {}
    for folder in sorted((ROOT / "chapters").glob("[0-9][0-9]_*")):
        found[int(folder.name[:2])] = folder.name
    return found


def run_logged(command: list, log) -> int:
    log.write(f"\n$ {' '.join(command)}\n")
    log.flush()
    return subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT).returncode


def first_compiler_error(text: str) -> str:
    """The first compiler error, its path made relative to the course: 'exercises/x.cu:4:2: error: ...'."""
    for line in text.splitlines():
        match = re.match(r"(?P<path>\S+?):(?P<line>\d+):(?:(?P<column>\d+):)? (?:fatal )?error: (?P<what>.*)", line)
        if match:
            path = match["path"]
            if path.startswith(str(ROOT) + "/"):
                path = path[len(str(ROOT)) + 1:]
            column = f":{match['column']}" if match["column"] else ""
            return f"{path}:{match['line']}{column}: {match['what']}"
    return ""


def describe_failure(output: str) -> str:
    """One line for the first failure in a step's test output."""
    if match := re.search(r"not implemented yet: edit (\S+)", output):
        return "not started"
    if match := re.search(r"ERROR: AddressSanitizer: (\S+).*?\n(?:.*\n)*?\s*#\d+ 0x[0-9a-f]+ in (.+?) (\S*exercises/\S+?:\d+)", output):
        return f"{match[1]} at {relative(match[3])} (in {match[2]})"
    if match := re.search(r"(\S*exercises/\S+?:\d+(?::\d+)?): runtime error: (.*)", output):
        return f"{match[2]} at {relative(match[1])}"
    if match := re.search(r"__syncthreads\(\) was reached by .*", output):
        return match[0]
    if match := re.search(r"a kernel wrote outside a buffer of (\d+) elements \(just ([^)]*)\)", output):
        return f"an out-of-bounds write: a kernel wrote just outside a buffer of {match[1]} elements ({match[2]})"
    detail = ""
    if match := re.search(r"\((\d+) of (\d+) elements of the (.*?) output differ.*\n\s*first wrong element "
                          r"(\[[^\]]*\]): got (\S+), expected ([^\s)]+)", output):
        detail = (f"first wrong element {match[4]} of the {match[3]} output: got {match[5]}, expected {match[6]} "
                  f"({match[1]} of {match[2]} wrong)")
    elif match := re.search(r"(\d+ elements outside the interior were written.*)", output):
        detail = match[1]
    elif match := re.search(r": Failure\n(.*)", output):
        detail = match[1].strip()
    case = re.search(r"\[  FAILED  \] (\S+)", output)
    replay = re.search(r"replay with ([^)]*)\)", output)
    parts = [detail or "failed"]
    if case:
        parts.append(f"in {case[1]}")
    if replay:
        parts.append(f"replay: {replay[1]}")
    return "; ".join(parts)


def started(chapter_folder: str, step: str) -> bool:
    """Whether the step's exercise has been edited since generate.py wrote it (the other tests: yes)."""
    exercise = ROOT / "exercises" / chapter_folder / f"{step}.cu"
    return not exercise.exists() or generate.is_edited(exercise.read_text())


def relative(path: str) -> str:
    return path[len(str(ROOT)) + 1:] if path.startswith(str(ROOT) + "/") else path


def read_results(junit: pathlib.Path) -> dict:
    """{test name: (status, failure message, output)} from CTest's JUnit file."""
    results = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        failure = case.find("failure")
        output = case.find("system-out")
        results[case.get("name")] = (case.get("status"), failure.get("message", "") if failure is not None else "",
                                     output.text or "" if output is not None else "")
    return results


def grade_step(results: dict, chapter_folder: str, step: str, asan: bool, chapter: int) -> tuple:
    """(passed, verdict, detail) for one step from its in-order and shuffled tests."""
    name = f"{chapter_folder}/{step}"
    runs = {variant: results.get(name + suffix) for variant, suffix in (("in order", ""), ("shuffled", "/shuffled"))}
    runs = {variant: run for variant, run in runs.items() if run is not None}
    if not runs:
        return False, "NOT RUN", "see the log"
    if all(status == "run" for status, _, _ in runs.values()):
        return True, "ok", ""
    if all(status in ("skipped", "disabled", "notrun") for status, _, _ in runs.values()):
        reason = re.search(r"backend \S+: (.*)", next(iter(runs.values()))[2])
        return False, "skipped", reason[1] if reason else "the tests did not run (see the log)"
    variant, (status, message, output) = next((v, r) for v, r in runs.items() if r[0] != "run")
    detail = describe_failure(output)
    if detail == "not started" or not started(chapter_folder, step):
        return False, "not started", ""
    if "Timeout" in message:
        return False, "TIMEOUT", "a loop that never ends, or a barrier that not every thread reaches?"
    step_option = f" --step {int(step[:2])}" if step[:2].isdigit() else ""  # the chapter's "other" tests: no step
    asan_hint = f"python3 exercises/grade.py {chapter}{step_option} --asan names the line"
    if re.search(r"SEGFAULT|Subprocess aborted|Child aborted|Exception|BUS|ILLEGAL", message) or \
            not re.search(r"\[  FAILED  \]", output):
        if asan:
            return False, "CRASHED", detail if detail != "failed" else message or "see the log"
        return False, "CRASHED", f"{message or 'the test program died'}, likely an out-of-bounds access; {asan_hint}"
    if "out-of-bounds" in detail and not asan:
        return False, "FAIL", f"{detail}; {asan_hint}"
    if variant == "shuffled" and runs.get("in order", ("run",))[0] == "run":
        return False, "FAIL", "only with shuffled threads: a missing __syncthreads()? " + detail
    return False, "FAIL", detail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapters", nargs="*", type=int, metavar="CHAPTER", help="chapter numbers (default: every chapter)")
    parser.add_argument("--step", type=int, help="grade only this step (its number)")
    parser.add_argument("--asan", action="store_true", help="build and test under AddressSanitizer (CPU backend)")
    parser.add_argument("--preset", choices=PRESETS, default="student-cpu", help="the build to grade (default: student-cpu)")
    parser.add_argument("--bench", action="store_true",
                        help="instead of the tests, build and run the chapter's benchmark: every written step timed "
                             "beside the naive one, steps not written yet skipped, wrong ones reported")
    args = parser.parse_args()

    known = chapters()
    for number in args.chapters:
        if number not in known:
            raise GradeError(f"there is no chapter {number}; the chapters are {', '.join(map(str, known))}")
    selected = args.chapters or list(known)
    if args.step is not None and len(selected) != 1:
        raise GradeError("--step needs exactly one chapter, e.g. grade.py 1 --step 2")
    if args.step is not None and not 0 <= args.step <= 99:
        raise GradeError(f"--step {args.step}: a step is numbered 0 to 99")
    if args.bench and (len(selected) != 1 or args.step is not None or args.asan):
        raise GradeError("--bench times one whole chapter: grade.py 1 --bench")
    if args.asan and args.preset != "student-cpu":
        raise GradeError("--asan works with the CPU backend (student-cpu) only")
    preset = "student-cpu-asan" if args.asan else args.preset
    for tool in ("cmake", "ctest"):
        if shutil.which(tool) is None:
            raise GradeError(f"{tool} not found: install what the course needs with bash cmake/install-deps.sh cpu")

    build = ROOT / "build" / preset
    build.mkdir(parents=True, exist_ok=True)
    log_path = build / "grade.log"
    junit = build / "grade.junit.xml"
    junit.unlink(missing_ok=True)
    shown_log = log_path.relative_to(ROOT)
    with log_path.open("w") as log:
        if not (build / "CMakeCache.txt").exists() and run_logged(["cmake", "--preset", preset], log) != 0:
            raise GradeError(f"configuring the {preset} build failed; see {shown_log}")
        programs = [path.stem for n in selected for pattern in ("test_*.cpp", "bench_*.cpp")
                    for path in (ROOT / "chapters" / known[n]).glob(pattern)]  # the tests, and the benchmark to time a step
        if run_logged(["cmake", "--build", "--preset", preset, "--target", *programs], log) != 0:
            log.flush()
            error = first_compiler_error(log_path.read_text())
            raise GradeError(f"the build failed: {error or 'see the log'} (whole output: {shown_log})")
        if args.bench:
            folder = known[selected[0]]
            bench = build / "chapters" / folder / next((ROOT / "chapters" / folder).glob("bench_*.cpp")).stem
            return subprocess.run([str(bench), "--quiet"], cwd=ROOT).returncode
        labels = "|".join(f"chapter{n}" + (f"-step{args.step:02d}" if args.step is not None else "") for n in selected)
        run_logged(["ctest", "--preset", preset, "-L", f"^({labels})$", "--output-junit", str(junit),
                    "--parallel", str(os.cpu_count() or 1)], log)
    if not junit.exists():
        raise GradeError(f"the tests did not run; see {shown_log}")
    results = read_results(junit)

    passed_all = True
    for number in selected:
        folder = known[number]
        steps = sorted({name.split("/")[1] for name in results if re.match(rf"{folder}/\d\d_", name)})
        if args.step is not None:
            steps = [s for s in steps if int(s[:2]) == args.step]
            if not steps:
                raise GradeError(f"chapter {number} has no step {args.step}")
        backend = "CPU backend, threads in order and shuffled" if preset.startswith("student-cpu") else preset
        print(f"chapter {number}: exercises/{folder}/ ({backend}{', AddressSanitizer' if args.asan else ''})")
        passed = 0
        names = steps + (["other"] if f"{folder}/other" in results and args.step is None else [])
        for step in names:
            ok, verdict, detail = grade_step(results, folder, step, args.asan, number)
            passed += ok and step != "other"
            passed_all &= ok
            if ok or verdict in ("skipped", "NOT RUN"):
                line = f"{verdict} {detail}".rstrip()
            else:
                where = f"exercises/{folder}/{step}.cu" if step != "other" else f"the chapter's other tests (chapters/{folder})"
                line = f"{verdict}: edit {where}" + (f": {detail}" if detail else "")
            print(f"  {step:<26} {line}")
        print(f"  {passed} of {len(steps)} steps pass")
    print(f"whole output: {shown_log}")
    return 0 if passed_all else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except GradeError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
