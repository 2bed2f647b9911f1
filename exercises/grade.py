#!/usr/bin/env python3
"""Grades your exercises: builds them, runs each step's tests, and prints one line per step.

    python3 exercises/grade.py 1              chapter 1 (several: 1 2; none: every chapter)
    python3 exercises/grade.py 1 --step 2     one step of it
    python3 exercises/grade.py 1 --asan       under AddressSanitizer, which names the line of an
                                              out-of-bounds access (CPU backend only)
    python3 exercises/grade.py 1 --preset student-cuda   on an NVIDIA GPU (student-hip: an AMD one)
    python3 exercises/grade.py 1 --bench      times your written steps; on a GPU, beside the
                                              solution's same steps, with a speed verdict each
    python3 exercises/grade.py 1 --step 2 --profile --preset student-cuda
                                              your step's memory traffic (L1, L2, HBM) beside the
                                              solution's and the fewest bytes it must move

It always builds first, so what it grades is what you wrote. Steps you have not started (the stub
as generated) are reported as such and not run. On the CPU backend every step runs twice: with
the threads of each block in order, and shuffled between barriers, so that a missing
__syncthreads() fails. The whole output of the build and the tests goes to
build/<preset>/grade.log. Exit status: 0 when every graded step passes, 1 otherwise, 2 for a bad
command line or environment variable (checked before anything is built). Ctrl-C or SIGTERM stops
the build and the tests it started, says so in one line and exits with 130 or 143.
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
sys.path.insert(0, str(ROOT / "profiling"))
import cli  # noqa: E402  (command-line errors in one line)
import environment  # noqa: E402  (the variables the course's programs read, checked first)
import registry  # noqa: E402  (a chapter's step files)
import verdict  # noqa: E402  (the speed verdict and the traffic comparison)

PRESETS = ("student-cpu", "student-cuda", "student-hip")


class GradeError(Exception):
    """What stops the grader, in one line: a bad command line or machine (exit status 2), or a
    build that failed (1)."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def chapters() -> dict:
    """{number: folder name} of the course's chapters."""
    return {int(folder.name[:2]): folder.name for folder in sorted((ROOT / "chapters").glob("[0-9][0-9]_*"))}


def exercise_steps(folder: str) -> list:
    """The step files of a chapter, without .cu, as its registry (steps.hpp) names them and the
    build compiles them: ["00_naive", "01_coalesced", ...]."""
    return sorted({row.file for row in registry.rows(ROOT / "chapters" / folder)})


def check_exercises(folder: str) -> None:
    """Fails, before anything is built, unless each of the chapter's step files is a file this user can read."""
    for step in exercise_steps(folder):
        path = ROOT / "exercises" / folder / f"{step}.cu"
        shown = path.relative_to(ROOT)
        if path.is_dir():
            raise GradeError(f"{shown} is a folder, not the step's source: move it away and restore the file "
                             f"(git checkout -- {shown})", status=1)
        if not path.exists():
            raise GradeError(f"{shown} is missing, and the build compiles every step: restore it "
                             f"(git checkout -- {shown})", status=1)
        try:
            path.open("rb").close()
        except OSError as error:
            raise GradeError(f"cannot read {shown}: {error.strerror}", status=1) from None


def exercise_text(folder: str, step: str) -> str:
    """The exercise as text; bytes that are not UTF-8 are replaced, which also marks it edited."""
    return (ROOT / "exercises" / folder / f"{step}.cu").read_bytes().decode("utf-8", errors="replace")


def started(folder: str, step: str) -> bool:
    """Whether the step is given complete, or its stub has been edited since generate.py wrote it."""
    text = exercise_text(folder, step)
    return generate.is_edited(text) or not text.startswith("// Generated from")


def prepare_build_folder(preset: str) -> pathlib.Path:
    build = ROOT / "build" / preset
    for folder in (ROOT / "build", build):
        if folder.exists() and not folder.is_dir():
            raise GradeError(f"{folder.relative_to(ROOT)} is a file, not a folder: move it away, the build goes there")
    try:
        build.mkdir(parents=True, exist_ok=True)
        (build / ".grade-write-test").touch()
        (build / ".grade-write-test").unlink()
    except OSError as error:
        raise GradeError(f"cannot write the build folder {build.relative_to(ROOT)}: {error.strerror}") from error
    return build


def run_logged(command: list, log, env=None) -> int:
    log.write(f"\n$ {' '.join(command)}\n")
    log.flush()
    return cli.run_child(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env).returncode


def relative(path: str) -> str:
    return path[len(str(ROOT)) + 1:] if path.startswith(str(ROOT) + "/") else path


def first_compiler_error(text: str) -> str:
    """The first compiler error, its path made relative to the course: 'exercises/x.cu:4:2: error: ...'."""
    for line in text.splitlines():
        match = re.match(r"(?P<path>\S+?):(?P<line>\d+):(?:(?P<column>\d+):)? (?:fatal )?error: (?P<what>.*)", line)
        if match:
            column = f":{match['column']}" if match["column"] else ""
            return f"{relative(match['path'])}:{match['line']}{column}: {match['what']}"
    return ""


# How a test of one part of a step names it (course::register_part_test): "step source: FILE.cu, part 2 (the waits)".
PART = re.compile(r"step source: \S+\.cu, (part \d+ \([^)\n]*\))")


def first_failure(output: str) -> str:
    """The output of the failing test to describe: a test of one part of the step if one failed
    (it says where to look), else the one whose state first differs, where the chapter's tests say
    after which time step (chapter 5), else the first. A test's output ends with its
    "[  FAILED  ] name" line (GoogleTest's brief format has no "[ RUN ]" lines)."""
    blocks, current = [], []
    for line in output.splitlines(keepends=True):
        current.append(line)
        if line.startswith("[  FAILED  ] "):
            blocks.append("".join(current))
            current = []
    failing = [block for block in blocks if ": Failure" in block]
    if not failing:
        return output
    if parts := [block for block in failing if PART.search(block)]:
        return parts[0]
    timed = [(int(m[1]), block) for block in failing if (m := re.search(r"after time step (\d+) of", block))]
    return min(timed, key=lambda pair: pair[0])[1] if timed else failing[0]


def failing_part(output: str) -> str:
    """The part of the step its first failing test checks alone ("part 2 (the waits)"), or "" when
    that test checks the whole step (course::register_part_test names the part)."""
    match = PART.search(first_failure(output))
    return match[1] if match else ""


def describe_failure(output: str) -> str:
    """One line for the first failure in a step's test output."""
    if match := re.search(r"^error: (COURSE_\w+=.*)$", output, re.M):
        return match[1]
    if match := re.search(r"ERROR: AddressSanitizer: (\S+).*?\n(?:.*\n)*?\s*#\d+ 0x[0-9a-f]+ in (.+?) (\S*exercises/\S+?:\d+)", output):
        return f"{match[1]} at {relative(match[3])} (in {match[2]})"
    if match := re.search(r"(\S*exercises/\S+?:\d+(?::\d+)?): runtime error: (.*)", output):
        return f"{match[2]} at {relative(match[1])}"
    if re.search(r"error: a kernel read or wrote past the end of a buffer", output):
        return "an out-of-bounds access: a kernel read or wrote past the end of a buffer"
    if match := re.search(r"^error: (a kernel read or wrote at an address no buffer holds[^:]*|a GPU thread's stack "
                          r"overflowed.*|course::(?:copy_async|load_tile_async|wait_tile)\b.*)$", output, re.M):
        return ("an out-of-bounds or misaligned access: " if match[1].startswith("a kernel") else "") + match[1]
    if match := re.search(r"__syncthreads\(\) was reached by .*", output):
        return match[0]
    if match := re.search(r"a kernel wrote outside a buffer of (\d+ elements?) \(just ([^)]*)\)", output):
        return f"an out-of-bounds write: a kernel wrote just outside a buffer of {match[1]} ({match[2]})"
    failure = first_failure(output)
    detail = ""
    if match := re.search(r"\(?(\d+) of (\d+) elements of the (.*?) output differ.*\n\s*first wrong element "
                          r"(\[[^\]]*\]): got (\S+), expected ([^\s)]+)", failure):
        # Chapter 5 says what it compared after which time step, and may say which part that step ran:
        # "the density rho after time step 3 of 3 (the moments of the last; time step 3 is ...)".
        when = re.search(r"^(.*?) ?(after time step \d+ of \d+)(?: \([^;)\n]*(?:; ([^)\n]*))?\))?", failure, re.M)
        what = f"{when[1]}, the {match[3]} output" if when and when[1] else f"the {match[3]} output"
        detail = (f"first wrong element {match[4]} of {what}: got {match[5]}, expected {match[6]} "
                  f"({match[1]} of {match[2]} wrong)")
        if when:
            detail += f", {when[2]}" + (f" ({when[3]})" if when[3] else "")
    elif match := re.search(r"(\d+ elements? outside the interior written.*?\(z, y, x\))", failure):
        detail = match[1]
    elif match := re.search(r'C\+\+ exception with description "(.*)" thrown in the test body', failure):
        detail = f"threw: {match[1]}"
    elif match := re.search(r": Failure\n(?:Failed\n)?(.*)", failure):
        detail = match[1].strip()
    case = re.search(r"\[  FAILED  \] (\S+)", failure) or re.search(r"\[ RUN      \] (\S+)", failure)
    replay = re.search(r"replay with ([^)]*)\)", output)
    parts = [detail or "failed"]
    if case:
        parts.append(f"in {case[1]}")
    if replay:
        parts.append(f"replay: {replay[1]}")
    return "; ".join(parts)


def read_results(junit: pathlib.Path) -> dict:
    """{test name: (status, failure message, output)} from CTest's JUnit file."""
    results = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        failure = case.find("failure")
        output = case.find("system-out")
        results[case.get("name")] = (case.get("status"), failure.get("message", "") if failure is not None else "",
                                     output.text or "" if output is not None else "")
    return results


def hints(folder: str, step: str, not_started: list, detail: str, chapter: int) -> list:
    """What else a failing step's source suggests: another step it uses, a wait or a barrier."""
    text = exercise_text(folder, step) if step != "other" else ""
    found = []
    for other in exercise_steps(folder):
        if other != step and other in text:
            found.append(f"it uses {other}.cu, not started yet" if other in not_started else
                         f"it uses {other}.cu: if grade.py {chapter} --step {int(other[:2])} fails, fix that first")
    if "outside" in detail or "out-of-bounds" in detail:
        return found  # an index, not an order between threads
    copies = any(call in text for call in ("wait_copies", "wait_tile"))
    if copies and "nan" in detail.lower():  # a tile read before its copies landed still holds the poison
        found.append("it copies asynchronously: does a wait cover every group before the tile is read, and is each "
                     "tile refilled only after the barrier that frees it?")
    elif copies or "__shared__" in text:
        found.append("it shares memory between threads: a missing __syncthreads(), or a wrong index into the tile?")
    return found


def grade_step(results: dict, folder: str, step: str, asan: bool, chapter: int, not_started: list) -> tuple:
    """(passed, verdict, detail) for one step from its in-order and shuffled tests."""
    name = f"{folder}/{step}"
    runs = {variant: results.get(name + suffix) for variant, suffix in (("in order", ""), ("shuffled", "/shuffled"))}
    runs = {variant: run for variant, run in runs.items() if run is not None}
    if not runs:
        return False, "NOT RUN", "see the log"
    skipped = ("skipped", "disabled", "notrun")
    ran = {variant: run for variant, run in runs.items() if run[0] not in skipped}
    if not ran:
        reason = re.search(r"backend \S+: (.*)", next(iter(runs.values()))[2])
        return False, "skipped", reason[1] if reason else "the tests did not run (see the log)"
    if all(status == "run" for status, _, _ in ran.values()):
        return True, "ok", ""  # a shuffled twin skips when the step's tests are all host code
    variant, (status, message, output) = next((v, r) for v, r in ran.items() if r[0] != "run")
    detail = describe_failure(output)
    if detail.startswith("COURSE_"):
        return False, "ERROR", detail
    if "Timeout" in message:
        return False, "TIMEOUT", "a loop that never ends, or a barrier that not every thread reaches?"
    step_option = f" --step {int(step[:2])}" if step[:2].isdigit() else ""  # the chapter's "other" tests: no step
    asan_hint = f"python3 exercises/grade.py {chapter}{step_option} --asan names the line"
    if re.search(r"SEGFAULT|Subprocess aborted|Child aborted|Exception|BUS|ILLEGAL", message) or \
            not re.search(r"\[  FAILED  \]", output):
        if asan:
            return False, "CRASHED", detail if detail != "failed" else message or "see the log"
        said = any(marker in detail for marker in ("out-of-bounds", "stack overflowed", "course::"))
        what = detail if said else f"{message or 'the test program died'}, likely an out-of-bounds access"
        return False, "CRASHED", f"{what}; {asan_hint}"
    if "out-of-bounds" in detail and not asan:
        return False, "FAIL", f"{detail}; {asan_hint}"
    if variant == "shuffled" and runs.get("in order", ("run",))[0] == "run":
        return False, "FAIL", "only with shuffled threads: a missing __syncthreads()? " + detail
    part = failing_part(output)
    # A part tested alone already says where to look: the guesses about barriers and waits are for
    # failures of the whole step.
    extra = [] if part else hints(folder, step, not_started, detail, chapter)
    return False, "FAIL", (f"{part}: " if part else "") + detail + (f" ({'; '.join(extra)})" if extra else "")


def grade_tests(args, preset: str, build: pathlib.Path, known: dict, selected: list) -> int:
    log_path = build / "grade.log"
    junit = build / "grade.junit.xml"
    junit.unlink(missing_ok=True)
    shown_log = log_path.relative_to(ROOT)
    steps = {n: [s for s in exercise_steps(known[n]) if args.step is None or int(s[:2]) == args.step] for n in selected}
    with log_path.open("w") as log:
        build_programs(preset, build, log, [known[n] for n in selected], ("test_*.cpp",))
        # Read after the build: a file edited while it ran is graded as it is when the tests run.
        unstarted = {n: [s for s in exercise_steps(known[n]) if not started(known[n], s)] for n in selected}
        not_started = {n: [s for s in steps[n] if s in unstarted[n]] for n in selected}
        labels = "|".join(f"chapter{n}" + (f"-step{args.step:02d}" if args.step is not None else "") for n in selected)
        skip = [f"{known[n]}/{s}" for n in selected for s in not_started[n]]
        ran_any = args.step is None or any(set(steps[n]) - set(not_started[n]) for n in selected)
        command = ["ctest", "--preset", preset, "-L", f"^({labels})$", "--output-junit", str(junit),
                   "--parallel", str(os.cpu_count() or 1)]
        if skip:  # stubs as generated are not run: they can only fail, and some take long to
            command += ["-E", "^(" + "|".join(re.escape(name) for name in skip) + ")(/shuffled)?$"]
        if ran_any:
            run_logged(command, log)
    if ran_any and not junit.exists():
        raise GradeError(f"the tests did not run; see {shown_log}", status=1)
    results = read_results(junit) if junit.exists() else {}

    passed_all = True
    for number in selected:
        folder = known[number]
        backend = "CPU backend, threads in order and shuffled" if preset.startswith("student-cpu") else preset
        print(f"chapter {number}: exercises/{folder}/ ({backend}{', AddressSanitizer' if args.asan else ''})")
        passed = 0
        names = steps[number] + (["other"] if f"{folder}/other" in results and args.step is None else [])
        for step in names:
            if step in not_started[number]:
                ok, verdict_word, detail = False, "not started", ""
            else:
                ok, verdict_word, detail = grade_step(results, folder, step, args.asan, number, unstarted[number])
            passed += ok and step != "other"
            passed_all &= ok
            if ok or verdict_word in ("skipped", "NOT RUN"):
                line = f"{verdict_word} {detail}".rstrip()
            else:
                where = f"edit exercises/{folder}/{step}.cu" if step != "other" else \
                    f"the chapter's own tests (chapters/{folder}, not a step of yours; see the log)"
                line = f"{verdict_word}: {where}" + (f": {detail}" if detail else "")
            print(f"  {step:<26} {line}")
        print(f"  {passed} of {len(steps[number])} steps pass")
    print(f"whole output: {shown_log}")
    return 0 if passed_all else 1


def build_programs(preset: str, build: pathlib.Path, log, folders: list, patterns: tuple, extra=()) -> None:
    """Configures (once) and builds the chapters' programs named by `patterns` (and `extra`
    targets); a failure is one line."""
    shown_log = pathlib.Path(log.name).relative_to(ROOT)
    if not (build / "CMakeCache.txt").exists() and run_logged(["cmake", "--preset", preset], log) != 0:
        raise GradeError(f"configuring the {preset} build failed; see {shown_log}", status=1)
    programs = [path.stem for folder in folders for pattern in patterns for path in (ROOT / "chapters" / folder).glob(pattern)]
    programs += list(extra)
    if run_logged(["cmake", "--build", "--preset", preset, "--target", *programs], log) != 0:
        log.flush()
        text = pathlib.Path(log.name).read_text(errors="replace")
        if stray := re.search(r"(exercises/\S+\.cu) is not registered", text):
            raise GradeError(f"{stray[1]} is not one of the course's steps: move it out of exercises/ (the build "
                             "compiles the steps listed in each chapter's steps.hpp, and no other file there)", status=1)
        error = first_compiler_error(text)
        raise GradeError(f"the build failed: {error or 'see the log'} (whole output: {shown_log})", status=1)


def bench_program(folder: str) -> str:
    return next((ROOT / "chapters" / folder).glob("bench_*.cpp")).stem


def without_steps(steps: list) -> list:
    """The benchmark filter that leaves out the cases of these step files (by their numbers)."""
    numbers = sorted({step[:2] for step in steps})
    return [f"--benchmark_filter=-/({'|'.join(numbers)})_"] if numbers else []


def run_bench(program: pathlib.Path, options: list, log, env) -> tuple:
    """(exit status, output) of a benchmark run; the output also goes to the log."""
    log.write(f"\n$ {program.relative_to(ROOT)} {' '.join(options)}\n")
    done = cli.run_child([str(program), *options], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, errors="replace")
    log.write(done.stdout + done.stderr)
    log.flush()
    return done.returncode, done.stdout + done.stderr


def failed_cases(output: str) -> list:
    """The step files whose cases the benchmark reported FAILED, before or after timing."""
    return sorted({match[1] for match in re.finditer(r"^FAILED [^/\n]+/(\d\d_\S*?)[: ]", output, re.M)})


def solution_build(preset: str, log) -> pathlib.Path:
    """The solutions' build of the same backend (build/cuda or build/hip), configured once."""
    solution_preset = preset.removeprefix("student-")
    build = prepare_build_folder(solution_preset)
    if not (build / "CMakeCache.txt").exists() and run_logged(["cmake", "--preset", solution_preset], log) != 0:
        raise GradeError(f"configuring the {solution_preset} build (the solution's steps) failed; see the log", status=1)
    return build


def ceilings_for(gpu: str, build: pathlib.Path, log) -> dict:
    """This GPU's ceilings, measured once and kept under build/<preset>/ceilings/ by its name."""
    cache = build / "ceilings" / (re.sub(r"[^A-Za-z0-9]+", "-", gpu).strip("-") + ".json")
    if not cache.exists():
        print(f"  measuring the ceilings of the {gpu} once (kept in {cache.relative_to(ROOT)})")
        cache.parent.mkdir(exist_ok=True)
        if run_logged([str(build / "common" / "course_ceilings"), f"--out={cache}"], log) != 0:
            raise GradeError("course_ceilings failed: see the log", status=1)
    return verdict.results.load_ceilings(cache)


def bench_chapter(number: int, folder: str, preset: str, build: pathlib.Path) -> int:
    """grade.py N --bench: times the written steps; on a GPU beside the solution's, with a verdict each."""
    not_started = [step for step in exercise_steps(folder) if not started(folder, step)]
    program = bench_program(folder)
    log_path = build / "grade.log"
    on_cpu = preset.startswith("student-cpu")
    print(f"chapter {number}: timing exercises/{folder}/ ({'CPU backend' if on_cpu else preset})")
    for step in not_started:
        print(f"  {step:<26} skipped: not started")
    with log_path.open("w") as log:
        build_programs(preset, build, log, [folder], ("bench_*.cpp",), extra=["course_ceilings"])
        if on_cpu:
            status, output = run_bench(build / "chapters" / folder / program, ["--quiet", *without_steps(not_started)], log, None)
            print(output.rstrip())
            print("no speed verdict: CPU times are not GPU times (grade.py --bench --preset student-cuda on a GPU)")
            if status < 0:
                print(f"the benchmark crashed: grade.py {number} names the step that crashes, and --asan its line")
            return 0 if status == 0 else 1
        solutions = solution_build(preset, log)
        build_programs(preset.removeprefix("student-"), solutions, log, [folder], ("bench_*.cpp",))
        env = dict(os.environ, COURSE_SEED=str(int.from_bytes(os.urandom(8), "little")))  # the same inputs for both
        skip = list(not_started)
        mine, theirs = build / "verdict-yours.json", build / "verdict-solution.json"
        while True:
            options = ["--quiet", "--verdict", *without_steps(skip)]
            mine.unlink(missing_ok=True)  # a run that fails leaves none: never an old one's verdicts
            status, output = run_bench(build / "chapters" / folder / program, [*options, f"--benchmark_out={mine}"], log, env)
            broken = [step for step in failed_cases(output) if step not in skip]
            for line in output.splitlines():
                if match := re.match(r"FAILED [^/]+/(\d\d)_", line):
                    file = next(name for name in exercise_steps(folder) if name.startswith(match[1]))
                    print(f"  FAIL: edit exercises/{folder}/{file}.cu: {line.removeprefix('FAILED ')}")
            if status == 0 or not broken:
                break
            skip += broken  # time the others without them
        if status != 0 or not mine.exists():
            print(output.rstrip() if not broken else "  nothing left to time")
            return 1
        theirs.unlink(missing_ok=True)
        solution_status, solution_output = run_bench(solutions / "chapters" / folder / program,
                                                     [*options, f"--benchmark_out={theirs}"], log, env)
        if solution_status != 0:
            raise GradeError(f"the solution's benchmark failed (see {log_path.relative_to(ROOT)}): "
                             f"{solution_output.strip().splitlines()[-1] if solution_output.strip() else ''}", status=1)
        context, student_cases = verdict.results.load(mine)
        _, solution_cases = verdict.results.load(theirs)
        ceilings = ceilings_for(context["gpu"], build, log)
    judged = verdict.verdicts(student_cases, solution_cases, ceilings)
    print(f"  speed verdicts on the {context['gpu']}: ok from {verdict.OK_FRACTION:.2f} of the solution's speed; "
          "timed on the same inputs, L2 flushed, the median of each")
    group = None
    for v in judged:
        if v.group != group:
            group = v.group
            print(f"  {group}:")
        print(f"    {v.name:<24} {v.line()}")
    print(f"whole output: {log_path.relative_to(ROOT)}")
    return 1 if skip != list(not_started) or any(v.word == "broken" for v in judged) else 0


def require_profiler(preset: str) -> None:
    """Fails unless the profiler --profile runs is on the PATH (checked before anything is built or created)."""
    profiler = "ncu" if preset == "student-cuda" else "rocprofv3"
    if shutil.which(profiler) is None:
        raise GradeError(f"{profiler} not found: --profile needs {'Nsight Compute' if profiler == 'ncu' else 'rocprofv3'} "
                         "on the PATH")


def profile_step(number: int, folder: str, step: int, preset: str, build: pathlib.Path) -> int:
    """grade.py N --step K --profile: the step's traffic at every level beside the solution's."""
    name = next(s for s in exercise_steps(folder) if int(s[:2]) == step)
    program = bench_program(folder)
    log_path = build / "grade.log"
    selection = ["--verdict", f"--benchmark_filter=/{name[:2]}_"]
    with log_path.open("w") as log:
        build_programs(preset, build, log, [folder], ("bench_*.cpp",))
        solutions = solution_build(preset, log)
        build_programs(preset.removeprefix("student-"), solutions, log, [folder], ("bench_*.cpp",))
        listing = build / "profile-cases.json"
        status, output = run_bench(build / "chapters" / folder / program,
                                   ["--quiet", "--repetitions=2", *selection, f"--benchmark_out={listing}"], log, None)
        if status != 0:
            print(output.rstrip())
            return status
        _, cases = verdict.results.load(listing)
        fewest = max(case.bytes_per_run for case in cases)
        tables = {}
        for who, where in (("yours", build), ("solution", solutions)):
            out = build / f"profile-{who}"
            command = [sys.executable, str(ROOT / "profiling" / "traffic.py"), "--kernels", "_kernel",
                       "--array-bytes", str(fewest), "--out", str(out), "--",
                       str(where / "chapters" / folder / program), "--repetitions=1", *selection]
            if run_logged(command, log) != 0:
                raise GradeError(f"profiling {who} failed; see {log_path.relative_to(ROOT)}", status=1)
            tables[who] = verdict.traffic_rows(out / "traffic.csv")
    print(f"chapter {number}, exercises/{folder}/{name}.cu: memory traffic per kernel, in "
          f"{', '.join(dict.fromkeys(c.group for c in cases))} (MB)")
    for line in verdict.traffic_table(tables["yours"], tables["solution"], fewest):
        print(line)
    print(f"whole output: {log_path.relative_to(ROOT)}")
    return 0


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapters", nargs="*", type=int, metavar="CHAPTER", help="chapter numbers (default: every chapter)")
    parser.add_argument("--step", type=int, help="grade only this step (its number)")
    parser.add_argument("--asan", action="store_true", help="build and test under AddressSanitizer (CPU backend)")
    parser.add_argument("--preset", choices=PRESETS, default="student-cpu", help="the build to grade (default: student-cpu)")
    parser.add_argument("--bench", action="store_true",
                        help="instead of the tests, time the chapter's written steps (on a GPU beside the solution's, "
                             "with a speed verdict); steps not started are skipped")
    parser.add_argument("--profile", action="store_true",
                        help="with --step on a GPU: the step's memory traffic beside the solution's and the fewest bytes")
    args = parser.parse_args()

    known = chapters()
    for number in args.chapters:
        if number not in known:
            raise GradeError(f"there is no chapter {number}; the chapters are {', '.join(map(str, known))}")
    selected = list(dict.fromkeys(args.chapters)) or list(known)
    if args.step is not None:
        if len(selected) != 1:
            raise GradeError("--step needs exactly one chapter, e.g. grade.py 1 --step 2")
        numbers = sorted({int(step[:2]) for step in exercise_steps(known[selected[0]])})
        if args.step not in numbers:
            raise GradeError(f"chapter {selected[0]} has no step {args.step}; its steps are "
                             f"{', '.join(str(n) for n in numbers)}")
    if args.bench and (len(selected) != 1 or args.step is not None or args.asan or args.profile):
        raise GradeError("--bench times one whole chapter: grade.py 1 --bench")
    if args.profile and (args.step is None or args.asan or args.preset == "student-cpu"):
        raise GradeError("--profile measures one step on a GPU: grade.py 1 --step 2 --profile --preset student-cuda")
    if args.asan and args.preset != "student-cpu":
        raise GradeError("--asan works with the CPU backend (student-cpu) only")
    if problem := environment.problem():
        raise GradeError(problem)
    for number in selected:
        check_exercises(known[number])
    if args.profile:
        require_profiler(args.preset)
        name = next(s for s in exercise_steps(known[selected[0]]) if int(s[:2]) == args.step)
        if not started(known[selected[0]], name):
            raise GradeError(f"exercises/{known[selected[0]]}/{name}.cu is not started: write it first", status=1)
    if "COURSE_SEED" in os.environ:
        print(f"note: COURSE_SEED={os.environ['COURSE_SEED']} gives every test the same inputs; unset it for fresh ones")
    for tool in ("cmake", "ctest"):
        if shutil.which(tool) is None:
            raise GradeError(f"{tool} not found: install what the course needs with bash cmake/install-deps.sh cpu")
    preset = "student-cpu-asan" if args.asan else args.preset
    build = prepare_build_folder(preset)
    if args.bench:
        return bench_chapter(selected[0], known[selected[0]], preset, build)
    if args.profile:
        return profile_step(selected[0], known[selected[0]], args.step, preset, build)
    return grade_tests(args, preset, build, known, selected)


if __name__ == "__main__":
    cli.stop_cleanly_on_signals()
    try:
        sys.exit(main())
    except GradeError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(error.status)
    except cli.ToolError as error:  # a chapter's registry of steps that cannot be read
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except (KeyboardInterrupt, cli.Interrupted) as interrupted:
        name, status = cli.interruption(interrupted)
        print(f"error: interrupted by {name}: the build and tests it started were stopped", file=sys.stderr)
        sys.exit(status)
