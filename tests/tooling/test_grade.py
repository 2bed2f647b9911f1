"""Tests of the student's grader (exercises/grade.py) and its speed verdict (profiling/verdict.py):
how a test's output becomes one line, how a time becomes a verdict, and the command-line checks
made before anything is built."""
import importlib.util
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "profiling"))
import results  # noqa: E402
import verdict  # noqa: E402

sys.path.insert(0, str(ROOT / "exercises"))
import generate  # noqa: E402

spec = importlib.util.spec_from_file_location("grade", ROOT / "exercises" / "grade.py")
grade = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grade)


def failing_test(name: str, body: str) -> str:
    """A failing test as the step tests print it (GoogleTest's brief format: no "[ RUN ]" lines)."""
    return (f"{body}\nGoogle Test trace:\n/c/common/src/testing.cpp:80: step source: exercises/05_x/07_y.cu\n"
            f"/c/common/src/testing.cpp:30: seed 42 (replay with COURSE_SEED=42)\n[  FAILED  ] {name} (3 ms)\n")


def wrong_element(where: str, when: str, what="the state", note="the first that differs") -> str:
    """Chapter 5's failure after a time step, as test_lbm.cpp reports it (ADD_FAILURE: no parenthesis)."""
    return (f"/c/chapters/05_x/test_lbm.cpp:76: Failure\nFailed\n{what} after time step {when} ({note})\n"
            f"18 of 4329 elements of the 13 x 37 x 9 (y, x, k) output differ from the float64 reference by more than "
            f"atol + rtol*|ref| (atol 2e-06, rtol 1e-05)\n"
            f"  first wrong element {where}: got 0.455191761, expected 0.452113144\n  ... and 17 more")


class FailureLines(unittest.TestCase):
    def test_the_earliest_time_step_that_differs_is_reported_whichever_test_failed_first(self):
        output = failing_test("StepForStep.04/1x1_3_steps", wrong_element("[y=0, x=0]", "3 of 3")) + \
            failing_test("StepForStep.04/130x33_3_steps", wrong_element("[y=4, x=128]", "1 of 3"))
        line = grade.describe_failure(output)
        self.assertIn("first wrong element [y=4, x=128]", line)
        self.assertIn("after time step 1 of 3", line)
        self.assertIn("in StepForStep.04/130x33_3_steps", line)
        self.assertIn("replay: COURSE_SEED=42", line)

    def test_what_differs_and_the_part_its_time_step_ran_are_named(self):
        moment = grade.describe_failure(failing_test("StepForStep.05/1x1_3_steps", wrong_element(
            "[y=0, x=0]", "3 of 3", "the density rho", "the moments of the last; time step 3 is a pulling step: part 2")))
        self.assertIn("of the density rho, the 13 x 37 x 9 (y, x, k) output", moment)
        self.assertIn("after time step 3 of 3 (time step 3 is a pulling step: part 2)", moment)
        state = grade.describe_failure(failing_test("StepForStep.04/1x1_3_steps", wrong_element("[y=0, x=0]", "2 of 3")))
        self.assertIn("of the state, the 13 x 37 x 9 (y, x, k) output", state)
        self.assertTrue(state.split(";")[0].endswith("after time step 2 of 3"), state)

    def test_a_read_past_the_end_is_named_an_out_of_bounds_access(self):
        output = "error: a kernel read or wrote past the end of a buffer (the CPU backend puts ...)\n"
        self.assertIn("out-of-bounds access", grade.describe_failure(output))

    def test_a_message_of_a_test_of_its_own_is_the_line(self):
        output = failing_test("BadLayout.01_aligned",
                              "/c/t.cpp:79: Failure\nFailed\n01_aligned did not refuse a packed grid (std::invalid_argument)")
        self.assertTrue(grade.describe_failure(output).startswith("01_aligned did not refuse a packed grid"))

    def test_a_failing_test_of_one_part_names_the_part(self):
        part = ("/c/c.cpp:9: Failure\nFailed\nthe copy plan reads row 17 twice\nGoogle Test trace:\n/c/common/src/testing.cpp:"
                "95: step source: exercises/03_seismic/08_async_ring.cu, part 2 (the copy plan)\n[  FAILED  ] Plan.x (1 ms)\n")
        whole = failing_test("Laplacian.08_async_ring/8x8x8", "/c/t.cpp:79: Failure\nFailed\n3 of 512 elements differ")
        self.assertEqual(grade.failing_part(part + whole), "part 2 (the copy plan)")
        # A part's failure says where to look, even after a failure of the whole step (chapter 5's
        # step-for-step tests are otherwise preferred by their time step).
        self.assertEqual(grade.failing_part(whole + part), "part 2 (the copy plan)")
        timed = failing_test("StepForStep.10_x/5x1", "/c/t.cpp:79: Failure\nFailed\nthe state after time step 1 of 4 differs")
        self.assertEqual(grade.failing_part(timed + part), "part 2 (the copy plan)")
        self.assertEqual(grade.failing_part(whole + timed), "")

    def test_a_tile_copy_protocol_mistake_is_the_line(self):
        output = ("error: course::load_tile_async: one copy more than the barrier's phase holds (...)\n"
                  "[  FAILED  ] Laplacian.10_x/8x8x8 (3 ms)\n")
        self.assertTrue(grade.describe_failure(output).startswith("course::load_tile_async: one copy more"))

    def test_a_bad_environment_number_is_reported_as_it_is(self):
        output = "error: COURSE_SEED='abc': COURSE_SEED takes a whole number from 0 to 18446744073709551615 (...)\n"
        self.assertTrue(grade.describe_failure(output).startswith("COURSE_SEED='abc'"))


def case(name: str, median_ms: float, gigabytes: float, group="g") -> results.Case:
    return results.Case(group, name, median_ms, median_ms, median_ms, 20, {"GB": gigabytes})


class SpeedVerdict(unittest.TestCase):
    ceilings = {"copy_GBps": 1000.0, "fma_GFLOPs": 50000.0, "rsqrt_Gops": 5000.0}

    def test_as_fast_as_the_solution_is_ok_and_says_the_fraction_of_copy(self):
        v = verdict.judge(case("04_shared_y", 1.0, 0.8), case("04_shared_y", 0.97, 0.8), self.ceilings)
        self.assertEqual(v.word, "ok")
        self.assertIn("0.97 of the solution", v.line())
        self.assertIn("0.80 of copy", v.line())

    def test_below_the_threshold_is_slow_and_points_at_the_lesson(self):
        v = verdict.judge(case("04_shared_y", 2.5, 0.8), case("04_shared_y", 1.0, 0.8), self.ceilings)
        self.assertEqual(v.word, "slow")
        self.assertIn("0.40 of the solution", v.line())
        self.assertIn("see the step's lesson", v.line())

    def test_faster_than_the_memory_allows_is_a_broken_measurement(self):
        v = verdict.judge(case("04_shared_y", 0.1, 0.8), case("04_shared_y", 1.0, 0.8), self.ceilings)
        self.assertEqual(v.word, "broken")
        self.assertIn("broken measurement", v.line())

    def test_every_step_the_student_timed_is_judged_against_the_same_case(self):
        mine = [case("[peer] copy", 1.0, 1.0), case("01_a", 1.0, 0.5), case("01_a", 2.0, 0.5, group="h")]
        theirs = [case("01_a", 1.0, 0.5), case("01_a", 1.0, 0.5, group="h")]
        words = [(v.group, v.word) for v in verdict.verdicts(mine, theirs, self.ceilings)]
        self.assertEqual(words, [("g", "ok"), ("h", "slow")])


class StartedSteps(unittest.TestCase):
    def test_an_exercise_that_is_not_utf8_counts_as_edited(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp) / "exercises" / "09_x"
            folder.mkdir(parents=True)
            (folder / "01_a.cu").write_bytes(b"// Generated from solutions/09_x/01_a.cu by exercises/generate.py "
                                              b"(fingerprint 000000000000): edit the TODOs.\nint caf\xe9;\n")
            (folder / "00_b.cu").write_text("// Copied from solutions/09_x/00_b.cu (given complete)\n")
            stub = generate.make_stub("int f() {\n  // BEGIN SOLUTION: one\n  return 1;\n  // STUB: return 0;\n  // END SOLUTION\n}\n",
                                      "solutions/09_x/02_c.cu")
            (folder / "02_c.cu").write_bytes(stub.replace("\n", "\r\n").encode())
            saved = grade.ROOT
            grade.ROOT = pathlib.Path(tmp)
            try:
                self.assertTrue(grade.started("09_x", "01_a"))
                self.assertTrue(grade.started("09_x", "00_b"))  # given complete: always graded
                self.assertFalse(grade.started("09_x", "02_c"))  # a stub whose line endings became CRLF
            finally:
                grade.ROOT = saved


class TrafficTable(unittest.TestCase):
    def test_each_kernel_shows_the_students_traffic_beside_the_solutions(self):
        mine = {"k<0>": {"L1 MB": "2147.5", "L2 read MB": "1073.7", "L2 write MB": "1073.7", "HBM MB": "2131.8",
                         "bank conflicts": "268435456"}}
        theirs = {"k<1>": {"L1 MB": "2147.5", "L2 read MB": "1073.7", "L2 write MB": "1073.7", "HBM MB": "2131.7",
                           "bank conflicts": "0"}}
        lines = verdict.traffic_table(mine, theirs, 2147.5e6)
        self.assertIn("bank conflicts (M)", lines[0])
        self.assertRegex(lines[2], r"^  k<0> .* 2147\.5 / - .* 268\.4 / -$")
        self.assertRegex(lines[3], r"^  k<1> .* - / 2147\.5 .* - / 0\.0$")
        self.assertIn("2147.5 MB", lines[-1])


class CommandLine(unittest.TestCase):
    def run_grade(self, *args, env=None):
        return subprocess.run([sys.executable, str(ROOT / "exercises" / "grade.py"), *args], capture_output=True,
                              text=True, env=dict(os.environ, **(env or {})))

    def test_a_step_that_does_not_exist_is_refused_before_any_build(self):
        done = self.run_grade("3", "--step", "99", "--preset", "student-hip")
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr, "error: chapter 3 has no step 99; its steps are 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10\n")

    def test_a_seed_that_is_not_a_number_is_refused_in_one_line(self):
        done = self.run_grade("1", env={"COURSE_SEED": "abc"})
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.count("\n"), 1)
        self.assertIn("COURSE_SEED='abc'", done.stderr)

    def test_profile_needs_one_step_on_a_gpu(self):
        done = self.run_grade("1", "--profile")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--profile measures one step on a GPU", done.stderr)


def grader_tree(folder: pathlib.Path) -> None:
    """A copy of what grade.py reads, in `folder`: the exercises, the tools, each chapter's registry."""
    shutil.copytree(ROOT / "exercises", folder / "exercises")
    shutil.copytree(ROOT / "profiling", folder / "profiling", ignore=shutil.ignore_patterns("__pycache__"))
    for chapter in (ROOT / "chapters").glob("[0-9][0-9]_*"):
        (folder / "chapters" / chapter.name).mkdir(parents=True)
        for name in ("steps.hpp", *(path.name for path in chapter.glob("bench_*.cpp"))):
            shutil.copyfile(chapter / name, folder / "chapters" / chapter.name / name)


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class EditedDuringTheBuild(unittest.TestCase):
    def test_a_step_started_while_the_build_runs_is_graded(self):
        """A stub edited while the build runs (here by a cmake that only edits it) is run by the
        tests (here a ctest that records its command line), not skipped as not started."""
        with tempfile.TemporaryDirectory() as tmp:
            tree = pathlib.Path(tmp)
            grader_tree(tree)
            (tree / "bin").mkdir()
            stub = tree / "exercises" / "01_transpose" / "03_flagged_column.cu"
            for tool, script in (("cmake", f"echo '// started' >>{stub}\n"), ("ctest", f'echo "$@" >{tmp}/ctest.args\n')):
                (tree / "bin" / tool).write_text("#!/bin/sh\n" + script)
                (tree / "bin" / tool).chmod(0o755)
            env = dict(os.environ, PATH=f"{tree / 'bin'}:{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1")
            subprocess.run([sys.executable, str(tree / "exercises" / "grade.py"), "1", "--step", "3"], cwd=tmp, env=env,
                           capture_output=True, text=True, timeout=60)
            self.assertTrue((tree / "ctest.args").exists(), "the step edited during the build was not run")
            self.assertNotIn("03_flagged_column", (tree / "ctest.args").read_text())


class Interruption(unittest.TestCase):
    """grade.py stopped while its build runs (here a cmake that only sleeps): one line, the
    signal's exit status, and the build stopped with it."""

    def stop_during_the_build(self, signal_number: int) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            tree = pathlib.Path(tmp)
            grader_tree(tree)
            (tree / "bin").mkdir()
            for tool, script in (("cmake", f"echo $$ >{tmp}/cmake.pid\nexec sleep 60\n"), ("ctest", "")):
                (tree / "bin" / tool).write_text("#!/bin/sh\n" + script)
                (tree / "bin" / tool).chmod(0o755)
            env = dict(os.environ, PATH=f"{tree / 'bin'}:{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1")
            with subprocess.Popen([sys.executable, str(tree / "exercises" / "grade.py"), "1"], cwd=tmp, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as grader:
                pid_file = tree / "cmake.pid"
                deadline = time.monotonic() + 60
                while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertTrue(pid_file.exists(), "grade.py never started its build")
                build = int(pid_file.read_text())
                grader.send_signal(signal_number)
                _, stderr = grader.communicate(timeout=60)
            name = signal.Signals(signal_number).name
            self.assertEqual(grader.returncode, 128 + signal_number, stderr)
            self.assertEqual(stderr, f"error: interrupted by {name}: the build and tests it started were stopped\n")
            deadline = time.monotonic() + 10
            while alive(build) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(alive(build), f"the build grade.py started still runs after its {name}")

    def test_ctrl_c_stops_the_build_with_one_line(self):
        self.stop_during_the_build(signal.SIGINT)

    def test_sigterm_stops_the_build_too(self):
        self.stop_during_the_build(signal.SIGTERM)


if __name__ == "__main__":
    unittest.main()
