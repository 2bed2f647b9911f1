"""The recording scripts (profiling/validate_gpu.sh, chapters/06_multi_gpu/measure.sh) on a machine
they do not trust: run from another folder, into a results folder with a quote in its name, and
again into an earlier run's folder. They run on a copy of the course whose GPU, build and tools
are stand-ins (a fake nvidia-smi naming an H200; a build whose ceilings and benchmark fail), so
the stages fail, and the test reads what the scripts made of that."""
import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHAPTER = "chapters/06_multi_gpu"
STANDINS = {
    "bin/nvidia-smi": 'case "$*" in\n  *name*) echo "NVIDIA H200" ;;\n  *driver_version*) echo "580.00" ;;\n'
                      '  *topo*) echo "GPU0 GPU1" ;;\n  *) echo "GPU 0: NVIDIA H200"; echo "GPU 1: NVIDIA H200" ;;\nesac\n',
    "bin/cmake": "exit 0\n",
    "bin/ctest": "exit 0\n",
    "build/cuda/common/course_ceilings": "echo 'no device' >&2\nexit 1\n",
    f"build/cuda/{CHAPTER}/bench_multi_gpu": "echo 'no device' >&2\nexit 1\n",
}


def course_copy(tree: pathlib.Path) -> None:
    """The scripts, the tools they call, chapter 6's sources by name, and the stand-ins."""
    for name in ("validate_gpu.sh", "results.py", "cli.py", "registry.py", "environment.py", "plot.py"):
        (tree / "profiling").mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "profiling" / name, tree / "profiling" / name)
    (tree / CHAPTER).mkdir(parents=True)
    shutil.copy2(ROOT / CHAPTER / "measure.sh", tree / CHAPTER / "measure.sh")
    for name in ("bench_multi_gpu.cpp", "test_multi_gpu.cpp"):
        (tree / CHAPTER / name).write_text("")
    for name, script in STANDINS.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("#!/bin/sh\n" + script)
        (tree / name).chmod(0o755)


class RecordingScripts(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="recording-"))
        self.addCleanup(shutil.rmtree, self.tmp)
        self.tree, self.here = self.tmp / "course", self.tmp / "here"
        course_copy(self.tree)
        self.here.mkdir()

    def measure(self, results: str, *part: str) -> subprocess.CompletedProcess:
        env = dict(os.environ, PATH=f"{self.tree / 'bin'}:{os.environ['PATH']}", COURSE_GIT_COMMIT="0123456789ab",
                   PYTHONDONTWRITEBYTECODE="1")
        for variable in ("COURSE_SEED", "COURSE_CPU_THREADS", "COURSE_DEVICE_MEMORY_MB", "GTEST_REPEAT"):
            env.pop(variable, None)
        return subprocess.run(["bash", str(self.tree / CHAPTER / "measure.sh"), results, *part], cwd=self.here, env=env,
                              capture_output=True, text=True, timeout=120)

    def test_a_relative_results_folder_is_where_the_script_was_run(self):
        self.measure("r", "validate")
        self.assertTrue((self.here / "r" / "ceilings.log").exists(), "validate did not write into ./r")
        self.assertFalse((self.tree / "r").exists(), "validate wrote into the course's own r/")

    def test_a_quote_in_the_results_folder_breaks_no_step(self):
        done = self.measure("it's")
        folder = self.here / "it's" / CHAPTER / "results" / "h200"
        self.assertIn("== GPU topology: ok", done.stdout, done.stdout + done.stderr)
        self.assertEqual((folder / "topology.txt").read_text(), "GPU0 GPU1\n")
        done = self.measure("it's", "extras")  # again: the README notes the file once
        self.assertEqual((folder / "README.md").read_text().count("`topology.txt`"), 1)

    def test_a_second_run_names_nothing_an_earlier_run_left(self):
        results = self.here / "r"
        (results / CHAPTER / "results" / "h200").mkdir(parents=True)
        (results / "ceilings.json").write_text('{"gpu": "NVIDIA H100 80GB HBM3", "copy_GBps": 3000}\n')
        (results / CHAPTER / "results" / "h200" / "bench.json").write_text("{}\n")
        done = self.measure("r", "validate")
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)  # its ceilings and benchmark failed
        self.assertFalse((results / CHAPTER / "results" / "h100-80gb-hbm3").exists(),
                         "the results were named after the earlier run's ceilings.json")
        folder = results / CHAPTER / "results" / "h200"
        readme = (folder / "README.md").read_text()
        self.assertIn("| benchmark | FAILED", readme)
        self.assertNotIn("bench.json", next(line for line in readme.splitlines() if line.startswith("Files:")))
        self.assertFalse((folder / "bench.json").exists(), "the earlier run's bench.json is still there")
        self.assertFalse((results / "ceilings.json").exists())


if __name__ == "__main__":
    unittest.main()
