"""Tests of the course's Python tools: the exercise generator, the Nsight Compute parser, the
benchmark JSON reader, the README table and step-header writer, and the GPU validation script's
discovery of chapters."""
import contextlib
import csv
import importlib.util
import io
import itertools
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHAPTER1 = ROOT / "chapters" / "01_transpose"
CHAPTER2 = ROOT / "chapters" / "02_stencil"
CHAPTER3 = ROOT / "chapters" / "03_seismic"
sys.path.insert(0, str(ROOT / "profiling"))
import cli  # noqa: E402


def load(name: str, path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = load("generate", ROOT / "exercises" / "generate.py")
traffic = load("traffic", ROOT / "profiling" / "traffic.py")
report = load("report", ROOT / "profiling" / "report.py")
results = load("results", ROOT / "profiling" / "results.py")
peer_timing = load("peer_timing", ROOT / "profiling" / "peer_timing.py")
registry = load("registry", ROOT / "profiling" / "registry.py")
course_table = load("course_table", ROOT / "profiling" / "course_table.py")


class ExerciseGenerator(unittest.TestCase):
    def test_a_region_becomes_its_hint_and_stub_lines(self):
        solution = ("void f() {\n  // BEGIN SOLUTION: add one\n  x += 1;\n  // STUB: throw NotImplemented(__FILE__);\n"
                    "  // END SOLUTION\n}\n")
        stub = generate.make_stub(solution, "solutions/f.cu")
        self.assertIn("  // TODO: add one\n  throw NotImplemented(__FILE__);\n}", stub)
        self.assertNotIn("x += 1", stub)
        self.assertTrue(stub.startswith("// Generated from solutions/f.cu"))

    def test_a_file_without_markers_is_copied_below_its_header(self):
        text = "__global__ void k() {}\n"
        copy = generate.make_stub(text, "solutions/k.cu")
        self.assertTrue(copy.startswith("// Copied from solutions/k.cu"))
        self.assertEqual(copy.partition("\n")[2], text)

    def test_the_solutions_measured_figures_stay_out_of_the_exercise(self):
        text = ("// Predicted: 2x step 00.\n// BEGIN MEASURED by profiling/report.py\n//   0.5 ms, 0.97 of copy\n"
                "// END MEASURED\n__global__ void k() {}\n")
        for stub in (generate.make_stub(text, "solutions/03_seismic/00_naive.cu"),
                     generate.make_stub(text.replace("{}", "{\n  // BEGIN SOLUTION: x\n  // END SOLUTION\n}"),
                                        "solutions/03_seismic/01_aligned.cu")):
            self.assertIn("// Predicted: 2x step 00.\n// Measured: left out here", stub)
            self.assertIn("python3 exercises/grade.py 3 --bench", stub)
            self.assertNotIn("0.97 of copy", stub)
        self.assertTrue(generate.make_stub(text, "solutions/03_seismic/00_naive.cu").startswith("// Copied from"))

    def test_findings_written_by_hand_stay_out_of_the_exercise(self):
        text = ("// Predicted: 2x.\n// BEGIN FINDINGS\n// Measured: 1.9x; the profile shows why.\n// END FINDINGS\n"
                "__global__ void k() {\n  // BEGIN SOLUTION: x\n  // END SOLUTION\n}\n")
        stub = generate.make_stub(text, "solutions/01_transpose/04_rows_per_thread.cu")
        self.assertIn("// Predicted: 2x.\n__global__", stub)
        self.assertNotIn("1.9x", stub)

    def test_no_exercise_header_gives_away_a_measurement(self):
        """The convention the generator relies on: a solution header's findings ("Measured: ...",
        "The profile: ...", "The miss: ...") sit between BEGIN/END FINDINGS, so no stub shows them."""
        finding = re.compile(r"^// (Measured\b(?!: left out here|: not yet recorded|: see the README)|The profile:|The miss:)")
        for exercise in sorted(ROOT.glob("exercises/*/*.cu")):
            header = itertools.takewhile(lambda line: line.startswith("//"), exercise.read_text().split("\n")[1:])
            for line in header:
                with self.subTest(exercise=str(exercise.relative_to(ROOT))):
                    self.assertIsNone(finding.match(line), f"{line!r}: wrap it in BEGIN/END FINDINGS in its solution")

    def test_an_edit_anywhere_is_recognised(self):
        stub = generate.make_stub("int f() {\n  // BEGIN SOLUTION: one\n  return 1;\n  // STUB: return 0;\n"
                                  "  // END SOLUTION\n}\n", "solutions/f.cu")
        self.assertFalse(generate.is_edited(stub))
        self.assertTrue(generate.is_edited(stub.replace("return 0;", "return 1;")))
        self.assertTrue(generate.is_edited(stub.partition("\n")[2]))  # header removed

    def run_generator(self, *arguments):
        """Runs generate.py's main on a solution and its exercise in a temporary tree."""
        old = generate.SOLUTIONS, generate.EXERCISES, sys.argv
        try:
            generate.SOLUTIONS, generate.EXERCISES = self.tree / "solutions", self.tree / "exercises"
            sys.argv = ["generate.py", *arguments]
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as errors:
                try:
                    return generate.main(), errors.getvalue()
                except generate.cli.ToolError as error:  # what cli.run makes one line and status 1
                    return 1, errors.getvalue() + f"error: {error}\n"
        finally:
            generate.SOLUTIONS, generate.EXERCISES, sys.argv = old

    def test_an_edited_exercise_is_never_overwritten_without_force_and_kept_with_it(self):
        with tempfile.TemporaryDirectory() as folder:
            self.tree = pathlib.Path(folder)
            solution = self.tree / "solutions" / "01_a" / "01_step.cu"
            solution.parent.mkdir(parents=True)
            solution.write_text("int f() {\n  // BEGIN SOLUTION: one\n  return 1;\n  // STUB: return 0;\n  // END SOLUTION\n}\n")
            self.assertEqual(self.run_generator()[0], 0)
            exercise = self.tree / "exercises" / "01_a" / "01_step.cu"
            student_work = exercise.read_text().replace("return 0;", "return 1;  // mine")
            exercise.write_text(student_work)
            solution.write_text(solution.read_text().replace("one", "one, as an int"))  # the solution changes
            status, errors = self.run_generator()
            self.assertEqual(status, 1)
            self.assertIn("exercises/01_a/01_step.cu has been edited", errors)
            self.assertEqual(exercise.read_text(), student_work)
            status, errors = self.run_generator("--check")
            self.assertEqual(status, 1)
            self.assertIn("error: exercises/ is not up to date: exercises/01_a/01_step.cu differs", errors)
            self.assertEqual(self.run_generator("--force")[0], 0)
            self.assertIn("one, as an int", exercise.read_text())
            backups = list(exercise.parent.glob("01_step.cu.edited-*"))
            self.assertEqual([b.read_text() for b in backups], [student_work])
            self.assertEqual(self.run_generator("--check")[0], 0)

    def test_broken_markers_are_errors(self):
        for text in ("// BEGIN SOLUTION\nx\n", "// END SOLUTION\n", "// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n"):
            with self.assertRaises(generate.MarkerError, msg=text):
                generate.make_stub(text, "f.cu")


# A TODO stands for at most this many lines of solution; longer ones are cut into numbered parts.
MOST_SOLUTION_LINES = 30
# A line of a stub that reports what the solution measured: a verb of measuring and a figure.
MEASURED_VERB = re.compile(r"\b(measured|took|ran at|runs at|reached|reaches|came to)\b", re.I)
FIGURE = re.compile(r"\d(?:[\d.,]*\d)?\s*(?:ms|µs|us|GB/s|TB/s|GFLOP/s|TFLOP/s|MLUPS|x\b|%|of (?:the )?(?:device )?copy"
                    r"|of (?:the )?(?:rsqrt|FMA))")


def solution_regions(text: str) -> list:
    """(first line, hint, lines of solution) of each BEGIN SOLUTION region: blank lines and the
    STUB lines not counted."""
    regions, current = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        if match := generate.BEGIN.match(line):
            current = [number, match["hint"] or "", 0]
        elif generate.END.match(line):
            regions.append(tuple(current))
            current = None
        elif current is not None and line.strip() and not generate.STUB.match(line):
            current[2] += 1
    return regions


class ExerciseShape(unittest.TestCase):
    def test_no_todo_stands_for_more_than_30_lines_of_solution(self):
        too_long = [f"{path.relative_to(ROOT)}:{first}: {lines} lines ({hint[:60]})"
                    for path in sorted((ROOT / "solutions").glob("*/*.cu"))
                    for first, hint, lines in solution_regions(path.read_text()) if lines > MOST_SOLUTION_LINES]
        self.assertEqual(too_long, [], "cut these regions into numbered parts (// BEGIN SOLUTION: part 2 of 3, ...)")

    def test_parts_are_numbered_in_order(self):
        for path in sorted((ROOT / "solutions").glob("*/*.cu")):
            numbered = [re.match(r"part (\d+) of (\d+)\b", hint) for _, hint, _ in solution_regions(path.read_text())]
            numbered = [(int(m[1]), int(m[2])) for m in numbered if m]
            if numbered:
                total = numbered[0][1]
                self.assertEqual(numbered, [(k, total) for k in range(1, total + 1)], path.relative_to(ROOT))

    def test_no_stub_quotes_a_measured_figure_of_the_solution(self):
        quoted = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
                  for path in sorted((ROOT / "exercises").glob("*/*.cu"))
                  for number, line in enumerate(path.read_text().splitlines(), start=1)
                  if line.lstrip().startswith("//") and MEASURED_VERB.search(line) and FIGURE.search(line)]
        self.assertEqual(quoted, [], "a stub keeps the idea, the bound and the prediction, not what the solution measured")

    def test_the_checks_catch_what_they_are_for(self):
        region = "// BEGIN SOLUTION: part 1 of 1, all: x\n" + "a;\n" * 31 + "// STUB: b;\n// END SOLUTION\n"
        self.assertEqual(solution_regions(region), [(1, "part 1 of 1, all: x", 31)])
        line = "// measured: their loads, timed as a copy, took 0.76 of the device copy"
        self.assertTrue(MEASURED_VERB.search(line) and FIGURE.search(line))
        self.assertFalse(MEASURED_VERB.search("// Predicted: 0.85 of the copy") and FIGURE.search("x"))


class NsightComputeParser(unittest.TestCase):
    def test_kernel_names_are_shortened(self):
        cases = {
            "void ch01::(anonymous namespace)::transpose_tile_kernel<1>(const float *, float *, int, int)": "transpose_tile_kernel<1>",
            "void ch01::<unnamed>::multiply_rows_kernel(const float *, const float *, float *, int, int)": "multiply_rows_kernel",
            "void transpose_readWrite_alignment_kernel<float, float, 1, 0, 6, 5, 3>(int)": "transpose_readWrite_alignment_kernel<float, float, 1, 0, 6, 5, 3>",
            "ch01::<unnamed>::transpose_naive_kernel(const float *, float *, int, int)": "transpose_naive_kernel",
            "void unnamed>::naive_kernel<Box27>(const float *, float *, Grid)": "naive_kernel<Box27>",
            "void unnamed>::fma_kernel<unnamed>::Fp16>(const T1::Stored *, T1::Stored *, Fields)": "fma_kernel<Fp16>",
            "void ch05::<unnamed>::fma_kernel<ch05::<unnamed>::Bf16>(const unsigned short *)": "fma_kernel<Bf16>",
            "void ch02::<unnamed>::z_chunk_kernel<ch02::Compound<2>, 4, 32>(const float *, float *, ch02::Grid)": "z_chunk_kernel<Compound<2>, 4, 32>",
        }
        for full, short in cases.items():
            self.assertEqual(traffic.short_name(full), short)

    def test_the_committed_profile_reproduces_the_committed_table(self):
        kernels = traffic.parse_ncu((CHAPTER1 / "results" / "h200" / "ncu.csv").read_text())
        table = traffic.report(kernels, 16384 * 16384 * 4)
        committed = list(csv.DictReader((CHAPTER1 / "results" / "h200" / "traffic.csv").open()))
        self.assertEqual([row["kernel"] for row in table], [row["kernel"] for row in committed])
        for row, saved in zip(table, committed):
            for column, value in row.items():
                if column != "kernel":
                    self.assertAlmostEqual(value, float(saved[column]), places=6, msg=f"{row['kernel']} {column}")

    def test_units_rows_and_thousands_separators(self):
        header = ["ID", "Kernel Name"] + list(traffic.METRICS.values())
        lines = [header, [""] + ["", ""] + ["sector"] * (len(header) - 3), ["0", "void k()"] + ["1,024"] * (len(header) - 2)]
        text = io.StringIO()
        csv.writer(text).writerows(lines)
        kernels = traffic.parse_ncu("==PROF== noise\n" + text.getvalue())
        self.assertEqual(kernels["k"]["duration_ns"], 1024.0)
        self.assertEqual(kernels["k"]["l1"], 2 * 1024 * traffic.SECTOR)


class RocprofParser(unittest.TestCase):
    """rocprofv3's counter_collection.csv layout, from ROCm's documentation (no AMD GPU here)."""

    def setUp(self):
        fixtures = sorted((pathlib.Path(__file__).parent / "fixtures").glob("rocprofv3_group*_counter_collection.csv"))
        self.texts = [path.read_text() for path in fixtures]

    def test_counters_become_bytes_and_the_last_dispatch_wins(self):
        kernels = traffic.parse_rocprof(self.texts, traffic.amd_request_bytes("gfx90a"))
        tile = kernels["transpose_tile_kernel<1>"]
        self.assertEqual(tile["l1"], 2048 * 64)
        self.assertEqual(tile["l2_read"], 1024 * 64)
        self.assertEqual(tile["l2_write"], 1024 * 64)
        self.assertEqual(tile["hbm"], 128 * 1024)  # FETCH_SIZE + WRITE_SIZE, KiB
        self.assertEqual(tile["duration_ns"], 250)
        self.assertEqual(tile["LDS instr/wave"], 2.0)
        self.assertEqual(kernels["transpose_naive_kernel"]["l2_write"], 8192 * 64)

    def test_mi300_reads_are_128_byte_lines(self):
        kernels = traffic.parse_rocprof(self.texts, traffic.amd_request_bytes("gfx942"))
        self.assertEqual(kernels["transpose_tile_kernel<1>"]["l2_read"], 1024 * 128)
        self.assertEqual(kernels["transpose_tile_kernel<1>"]["l2_write"], 1024 * 64)

    def test_a_missing_counter_is_an_error(self):
        with self.assertRaises(cli.ToolError):
            traffic.parse_rocprof(self.texts[:2], traffic.amd_request_bytes("gfx90a"))

    def test_the_report_names_the_amd_column(self):
        kernels = traffic.parse_rocprof(self.texts, traffic.amd_request_bytes("gfx90a"))
        table = traffic.report(kernels, 1024 * 64)
        self.assertIn("LDS instr/wave", table[0])
        self.assertAlmostEqual(table[0]["HBM ratio"], 2.0)


class BenchmarkResults(unittest.TestCase):
    def test_the_committed_run_has_every_step_and_peer(self):
        context, cases = results.load(CHAPTER1 / "results" / "h200" / "bench.json")
        self.assertEqual(context["gpu"], "NVIDIA H200")
        names = [c.name for c in cases if c.group.startswith("transpose")]
        self.assertIn("cublasSgeam", names)
        self.assertIn("00_naive", names)
        for case in cases:
            self.assertGreater(case.median_ms, 0)
            self.assertLessEqual(case.min_ms, case.median_ms)
            self.assertLessEqual(case.median_ms, case.max_ms)

    def test_a_peers_file_reads_back_as_its_cases(self):
        case = peer_timing.peer_case("box27", "torch conv3d 3x3x3", (2.0, 1.5, 2.5), {"GB": 1.0}, note="kept")
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "peer.json"
            peer_timing.write_results(path, [case], gpu="NVIDIA H200", torch="2.11")
            context, cases = results.load_peers(path)
        self.assertEqual(context, {"gpu": "NVIDIA H200", "torch": "2.11"})
        [read] = cases
        self.assertEqual((read.group, read.name, read.median_ms, read.min_ms, read.max_ms),
                         ("box27", "torch conv3d 3x3x3", 2.0, 1.5, 2.5))
        self.assertEqual((read.repetitions, read.amounts), (peer_timing.REPETITIONS, {"GB": 1.0}))

    def test_tables_go_between_their_markers_only(self):
        readme = "intro\n<!-- BEGIN GENERATED: t -->\nold\n<!-- END GENERATED: t -->\noutro\n"
        self.assertEqual(report.fill({"README.md": readme}, {"t": "new"}),
                         {"README.md": "intro\n<!-- BEGIN GENERATED: t -->\nnew\n<!-- END GENERATED: t -->\noutro\n"})
        with self.assertRaises(cli.ToolError):
            report.fill({"README.md": readme}, {"missing": "x"})

    def test_a_table_goes_into_the_lesson_or_the_notes_wherever_its_markers_are(self):
        lesson = "<!-- BEGIN GENERATED: steps -->\n<!-- END GENERATED: steps -->\n"
        notes = "<!-- BEGIN GENERATED: stalls -->\n<!-- END GENERATED: stalls -->\n"
        filled = report.fill({"README.md": lesson, "NOTES.md": notes}, {"steps": "a", "stalls": "b"})
        self.assertIn("steps -->\na\n", filled["README.md"])
        self.assertIn("stalls -->\nb\n", filled["NOTES.md"])
        with self.assertRaisesRegex(cli.ToolError, "README.md or NOTES.md: has no markers for the 'gone' table"):
            report.fill({"README.md": lesson, "NOTES.md": notes}, {"gone": "c"})


    def test_every_rate_is_kept(self):
        _, cases = results.load(CHAPTER1 / "results" / "h200" / "bench.json")
        four = [c for c in cases if c.group == "A^T x, 4 passes"]
        self.assertTrue(four)
        for case in four:
            self.assertAlmostEqual(case.amounts["passes"], 4.0, delta=1e-4)  # counters are stored rounded
        _, cases = results.load(CHAPTER2 / "results" / "h200" / "bench.json")
        step = next(c for c in cases if c.group.startswith("compound_r2") and c.is_step)
        self.assertAlmostEqual(step.gflop_per_run, 2 * 125 * 512**3 / 1e9, delta=1e-3)

    def test_the_roofline_names_the_ceiling_that_binds(self):
        res = results.load_gpu(CHAPTER2 / "results" / "h200")
        by = {(c.group.split()[0], c.name): c for c in res.cases}
        self.assertEqual(by[("compound_r2", "11_wide_tiles")].roofline_ms(res.ceilings)[1], "GFLOP")
        self.assertEqual(by[("box27", "11_wide_tiles")].roofline_ms(res.ceilings)[1], "GB")
        box = by[("box27", "11_wide_tiles")]
        self.assertAlmostEqual(box.roofline_ms(res.ceilings)[0], box.bytes_per_run / res.ceilings["copy_GBps"] / 1e6)


def second_gpu(chapter: pathlib.Path, folder: pathlib.Path, slower: float = 1.3, copy_gbps: float = 2990.0) -> None:
    """A copy of `chapter`'s README, tables and H200 results in `folder`, with a second GPU's:
    the H200's run renamed an H100 80GB HBM3, every time `slower` times longer, a lower copy ceiling."""
    for name in ("README.md", "NOTES.md", "tables.py", "steps.hpp"):
        if (chapter / name).exists():
            shutil.copy(chapter / name, folder / name)
    shutil.copytree(chapter / "results" / "h200", folder / "results" / "h200")
    h100 = folder / "results" / "h100-80gb-hbm3"
    shutil.copytree(chapter / "results" / "h200", h100)
    bench = json.loads((h100 / "bench.json").read_text())
    bench["context"]["gpu"] = "NVIDIA H100 80GB HBM3"
    for run in bench["benchmarks"]:
        if "real_time" in run:
            run["real_time"] *= slower
            run.update({key: value / slower for key, value in run.items() if key.endswith("/s")})
    (h100 / "bench.json").write_text(json.dumps(bench))
    ceilings = json.loads((h100 / "ceilings.json").read_text())
    (h100 / "ceilings.json").write_text(json.dumps(ceilings | {"copy_GBps": copy_gbps}))


class Report(unittest.TestCase):
    def test_the_committed_readmes_are_reproduced(self):
        for chapter in (CHAPTER1, CHAPTER2):
            runs = results.load_chapter(chapter)
            documents = {path: path.read_text() for path in (chapter / "README.md", chapter / "NOTES.md") if path.exists()}
            self.assertEqual(report.fill(documents, report.generated(chapter, runs)), documents, chapter.name)

    def test_effective_bandwidth_counts_what_each_pass_must_move(self):
        tables = report.load_tables_module(CHAPTER3)
        # the passes that add to out read it back (the axis is the naive kernels' template argument)
        self.assertEqual([tables.cubes_to_move(k) for k in ("naive_kernel<0>", "naive_kernel<2>", "axis_kernel<1>",
                                                            "x_kernel<4>", "y_tile_kernel", "z_window_kernel")],
                         [2, 3, 3, 2, 3, 3])
        self.assertEqual([tables.cubes_to_move(k) for k in ("xy_kernel", "one_pass_kernel<64>", "async_ring_kernel<3, 2, 64, 1>",
                                                            "copy_async_ring_kernel<0>", "fdtd3d_design_kernel")],
                         [2, 2, 2, 2, 2])
        h200 = next(res for res in results.load_chapter(CHAPTER3) if res.folder.name == "h200")
        row = next(line for line in tables.bandwidth_table(h200).splitlines() if line.startswith("| `y_kernel<4>`"))
        # 3 cubes of 536.9 MB over the profiled 0.40662 ms; the HBM's 1601.5 MB over the same time
        self.assertEqual(row.split(" | ")[1:6], ["3", "0.407", "3961", "3939", "0.994"])

    def test_a_step_files_block_lists_its_cases(self):
        runs = results.load_chapter(CHAPTER2)
        block = report.measured_block(runs, "06").splitlines()
        self.assertTrue(block[0].startswith("// BEGIN MEASURED") and block[-1] == "// END MEASURED")
        # each GPU's heading and its lines for two variants x four operators
        self.assertEqual(len(block), 2 + len(runs) * (1 + 2 * 4))
        self.assertTrue(any("06_prefetch_4_rows" in line and "of FMA" in line for line in block))
        self.assertIn("not measured yet", report.measured_block(runs, "99"))

    def test_a_chapter_without_tables_py_gets_the_default_tables(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = pathlib.Path(folder) / "09_example"
            shutil.copytree(CHAPTER2 / "results" / "h200", chapter / "results" / "h200")  # one GPU
            tables = report.chapter_tables(chapter, results.load_chapter(chapter))
            self.assertEqual(set(tables), {"steps", "roofline", "traffic", "experiments"})
            r2 = next(line for line in tables["steps"].splitlines() if line.startswith("| step") and "of roofline" in line)
            self.assertIn("GFLOP/s | of FMA", r2)
            self.assertIn("| compound_r2 512^3 | 00–11 | 31.25 | FMA |", tables["roofline"])
            self.assertIn("| compound_r2 512^3 | 12 | 10.50 | copy |", tables["roofline"])
            self.assertIn("| box27 512^3 | 00–11 | 6.75 | copy |", tables["roofline"])

    def test_two_gpus_stand_side_by_side_each_against_its_own_ceiling(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = pathlib.Path(folder) / "01_transpose"
            chapter.mkdir()
            second_gpu(CHAPTER1, chapter)
            runs = results.load_chapter(chapter)
            self.assertEqual([res.folder.name for res in runs], ["h100-80gb-hbm3", "h200"])
            tables = report.generated(chapter, runs)
            self.assertIn("from results/h100-80gb-hbm3/ (commit", tables["transpose"].splitlines()[0])
            lines = tables["transpose"].splitlines()
            self.assertIn("| step | GPU | median ms |", "\n".join(lines))
            naive = lines.index(next(line for line in lines if line.startswith("| `00_naive` |")))
            h100, h200 = ([cell.strip() for cell in line.strip("|").split("|")] for line in lines[naive:naive + 2])
            self.assertEqual((h100[:2], h200[:2]), (["`00_naive`", "H100"], ["", "H200"]))
            self.assertAlmostEqual(float(h100[2]), 1.3 * float(h200[2]), delta=1e-3)
            # "of ceiling": each GPU's bandwidth over its own copy ceiling
            [h200_run] = [res for res in runs if res.folder.name == "h200"]
            case = next(c for c in h200_run.cases if c.name == "00_naive")
            self.assertEqual(h200[6], f"{case.gbps / h200_run.ceilings['copy_GBps']:.3f}")
            self.assertEqual(h100[6], f"{case.gbps / 1.3 / 2990.0:.3f}")
            # a narrow table: a column per GPU
            self.assertIn("ms per pass (H100) | ms per pass (H200)", tables["cost_model"])
            block = report.measured_block(runs, "02")
            self.assertIn("//   NVIDIA H100 80GB HBM3 (commit", block)
            self.assertIn("//   NVIDIA H200 (commit", block)
            # the lesson and the record take them, and --check then agrees with them
            documents = report.fill({name: (chapter / name).read_text() for name in ("README.md", "NOTES.md")
                                     if (chapter / name).exists()}, tables)
            self.assertEqual(report.fill(documents, report.generated(chapter, runs)), documents)

    def test_a_folder_not_named_after_its_gpu_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = pathlib.Path(folder) / "01_transpose"
            chapter.mkdir()
            second_gpu(CHAPTER1, chapter)
            (chapter / "results" / "h100-80gb-hbm3").rename(chapter / "results" / "h100")
            with self.assertRaisesRegex(cli.ToolError, r"h100: holds a run on the NVIDIA H100 80GB HBM3, whose folder "
                                                       r"is h100-80gb-hbm3/"):
                results.load_chapter(chapter)

    def test_gpu_folders_are_named_after_the_gpu(self):
        self.assertEqual(results.gpu_folder("NVIDIA H200"), "h200")
        self.assertEqual(results.gpu_folder("NVIDIA H100 80GB HBM3"), "h100-80gb-hbm3")
        self.assertEqual(results.gpu_folder("AMD Instinct MI250X"), "instinct-mi250x")


class TaughtStepsAndExperiments(unittest.TestCase):
    def test_every_chapter_teaches_one_variant_of_each_step_file(self):
        for chapter in sorted(ROOT.glob("chapters/[0-9][0-9]_*")):
            rows = registry.rows(chapter)
            self.assertEqual(registry.problems(chapter), [], chapter.name)
            files = {row.file for row in rows}
            self.assertEqual(files, {row.file for row in rows if not row.experiment}, chapter.name)

    def test_a_registry_that_teaches_two_variants_or_none_is_a_problem(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = pathlib.Path(folder)
            (chapter / "steps.hpp").write_text("#define CH09_STEPS(STEP, EXPERIMENT) \\\n"
                                               "  STEP(01_a, one, 1) \\\n  STEP(01_a, two, 1) \\\n"
                                               "  EXPERIMENT(02_b, three, 1) \\\n")
            self.assertEqual(registry.experiments(chapter), {"02_three"})
            problems = registry.problems(chapter)
            self.assertEqual(len(problems), 2, problems)
            self.assertIn("teaches 2 variants of 01_a", problems[0])
            self.assertIn("02_b has only experiments", problems[1])

    def test_the_recordings_mark_experiments_and_the_lesson_tables_leave_them_out(self):
        res = results.load_gpu(CHAPTER1 / "results" / "h200")
        self.assertEqual({c.name for c in res.experiments},
                         {"02_tile_unpadded", "05_vector_tile_streaming", "06_block_order_8_rows"})
        tables = report.load_tables_module(CHAPTER1).tables(res)
        self.assertNotIn("06_block_order_8_rows", tables["transpose"])
        self.assertIn("| `06_block_order` | `06_block_order_8_rows` |", tables["experiments"])

    def test_the_course_table_takes_the_best_taught_step_and_goes_stale_with_a_recording(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            chapter = root / "chapters" / "01_transpose"
            chapter.mkdir(parents=True)
            second_gpu(CHAPTER1, chapter)
            before = course_table.table(root)
            row = next(line for line in before.splitlines() if line.startswith("| 1 |"))
            self.assertIn("`06_block_order` | 0.98 of copy", row)  # the H200's
            # an experiment made faster than every taught step is still not the headline
            bench_path = chapter / "results" / "h200" / "bench.json"
            bench = json.loads(bench_path.read_text())
            for run in bench["benchmarks"]:
                if run.get("run_name", "").split("/")[:2] == ["transpose 16384x16384", "06_block_order_8_rows"]:
                    run["real_time"] /= 2
                    run.update({key: value * 2 for key, value in run.items() if key.endswith("/s")})
            bench_path.write_text(json.dumps(bench))
            self.assertIn("06_block_order_8_rows", report.load_tables_module(chapter).tables(
                results.load_gpu(chapter / "results" / "h200"))["experiments"])
            self.assertEqual(course_table.table(root), before)
            for run in bench["benchmarks"]:
                if run.get("run_name", "").split("/")[:2] == ["transpose 16384x16384", "05_vector_tile"]:
                    run["real_time"] /= 2
                    run.update({key: value * 2 for key, value in run.items() if key.endswith("/s")})
            bench_path.write_text(json.dumps(bench))
            self.assertIn("`05_vector_tile` | 1.9", course_table.table(root))

    def test_the_committed_course_readme_matches_the_recordings(self):
        readme = (ROOT / "README.md").read_text()
        self.assertIn(course_table.table(), readme)


class AtomicOutput(unittest.TestCase):
    """cli.atomic_output: a file is replaced whole, or left as it was."""

    def test_a_failed_write_leaves_the_old_file_and_no_temporary(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "table.csv"
            path.write_text("old\n")
            with self.assertRaises(RuntimeError):
                with cli.atomic_output(path) as f:
                    f.write("half")
                    raise RuntimeError("the writer failed")
            self.assertEqual(path.read_text(), "old\n")
            self.assertEqual([p.name for p in pathlib.Path(folder).iterdir()], ["table.csv"])

    def test_a_replaced_file_keeps_its_mode(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "README.md"
            path.write_text("old\n")
            path.chmod(0o644)
            with cli.atomic_output(path) as f:
                f.write("new\n")
            self.assertEqual((path.read_text(), path.stat().st_mode & 0o777), ("new\n", 0o644))


class ValidateScript(unittest.TestCase):
    SCRIPT = ROOT / "profiling" / "validate_gpu.sh"

    def test_a_dry_run_finds_every_chapters_programs(self):
        run = subprocess.run(["bash", str(self.SCRIPT), "--dry-run", "/tmp/course-results"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        for chapter in sorted((ROOT / "chapters").glob("[0-9][0-9]_*")):
            n = "ch" + chapter.name[:2]
            self.assertIn(f"== {n} benchmark", run.stdout)
            bench = next(chapter.glob("bench_*.cpp")).stem
            test = next(chapter.glob("test_*.cpp")).stem
            self.assertIn(f"build/cuda/chapters/{chapter.name}/{bench} ", run.stdout)
            self.assertIn(f"build/cuda/chapters/{chapter.name}/{test} ", run.stdout)
            for peer in chapter.glob("peer_*.py"):
                self.assertIn(f"== {n} peer {peer.stem[5:]}", run.stdout)

    def test_an_unknown_chapter_is_refused(self):
        for argument in ("99", "x"):
            run = subprocess.run(["bash", str(self.SCRIPT), "--dry-run", "/tmp/course-results", argument],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 2)
            self.assertIn("error:", run.stderr)


class InstallDeps(unittest.TestCase):
    """cmake/install-deps.sh against a fake tool set and a fake package manager: it installs only
    what the chosen backend cannot use already, and fails in one line when it cannot install."""
    SCRIPT = ROOT / "cmake" / "install-deps.sh"
    UTILITIES = ("bash", "sed", "grep", "mktemp", "rm", "id", "ls", "cat", "tr", "dirname", "env")

    def run_script(self, *arguments, cmake="3.25.1", usable=("GTest", "benchmark", "Boost"), ninja=True,
                   nvcc=False, apt_fails=False, matplotlib=True):
        with tempfile.TemporaryDirectory() as folder:
            bin_dir = pathlib.Path(folder) / "bin"
            bin_dir.mkdir()
            for tool in self.UTILITIES:
                (bin_dir / tool).symlink_to(shutil.which(tool))
            def fake(name, body):
                (bin_dir / name).write_text("#!/bin/bash\n" + body + "\n")
                (bin_dir / name).chmod(0o755)
            fake("c++", "exit 0")
            fake("python3", f"exit {0 if matplotlib else 1}")
            if ninja:
                fake("ninja", "exit 0")
            if nvcc:
                fake("nvcc", "exit 0")
            if cmake:
                lines = "".join(f"echo '-- usable: {name}'; " for name in usable)
                fake("cmake", f'if [[ $1 == --version ]]; then echo "cmake version {cmake}"; else {lines} fi')
            log = pathlib.Path(folder) / "apt.log"
            fake("apt-get", f'echo "$@" >> {log}; exit {1 if apt_fails else 0}')
            run = subprocess.run(["bash", str(self.SCRIPT), *arguments], capture_output=True, text=True,
                                 env={"PATH": str(bin_dir), "COURSE_APT_GET": str(bin_dir / "apt-get"),
                                      "ROCM_PATH": folder, "CUDA_HOME": folder})
            installed = log.read_text().splitlines() if log.exists() else []
            packages = next((line.split()[4:] for line in installed if line.startswith("install")), [])
            return run, packages

    def test_nothing_is_installed_when_everything_is_usable(self):
        run, packages = self.run_script("cpu")
        self.assertEqual((run.returncode, packages), (0, []), run.stderr)

    def test_a_cmake_from_pip_or_kitware_counts(self):
        run, packages = self.run_script("cpu", cmake="4.4.0")
        self.assertEqual((run.returncode, packages), (0, []), run.stderr)

    def test_the_cuda_backend_does_not_need_boost(self):
        run, packages = self.run_script("cuda", usable=("GTest", "benchmark"), nvcc=True)
        self.assertEqual((run.returncode, packages), (0, []), run.stderr)

    def test_only_what_is_missing_is_installed(self):
        run, packages = self.run_script("cpu", usable=("GTest",), ninja=False)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(sorted(packages), ["libbenchmark-dev", "libboost-context-dev", "ninja-build"])

    def test_a_cmake_too_old_is_replaced_and_the_libraries_cannot_be_probed(self):
        run, packages = self.run_script("cpu", cmake="3.20.0")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(sorted(packages), ["cmake", "libbenchmark-dev", "libboost-context-dev", "libgtest-dev"])

    def test_a_failed_install_is_one_line_and_an_error(self):
        run, _ = self.run_script("cpu", ninja=False, apt_fails=True)
        self.assertEqual(run.returncode, 1)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn("ninja-build", run.stderr)

    def test_a_missing_cuda_toolkit_is_named_not_installed(self):
        run, packages = self.run_script("cuda")
        self.assertEqual((run.returncode, packages), (1, []))
        self.assertIn("CUDA Toolkit", run.stderr)

    def test_plots_need_matplotlib(self):
        run, packages = self.run_script("cpu", "plots", matplotlib=False)
        self.assertEqual(packages, ["python3-matplotlib"])
        self.assertEqual(run.returncode, 1)  # the fake python3 still cannot import it afterwards
        self.assertIn("pip install matplotlib", run.stderr)

    def test_a_bad_argument_is_refused(self):
        run, packages = self.run_script("gpu")
        self.assertEqual((run.returncode, packages), (2, []))


if __name__ == "__main__":
    unittest.main()
