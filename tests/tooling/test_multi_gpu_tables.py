"""Chapter 6's tables (chapters/06_multi_gpu/tables.py) on results of several GPU counts: the H200's
one-GPU runs copied with made-up times on 2, 4 and 8 GPUs (its recorded two-GPU runs left out),
chosen so that every efficiency, rate and hidden share has one known value."""
import json
import pathlib
import shutil
import tempfile
import unittest

from test_tools import ROOT, report, results  # the tools as test_tools.py loads them

CHAPTER6 = ROOT / "chapters" / "06_multi_gpu"
tables = report.load_tables_module(CHAPTER6)

PEER_BOTH_WAYS_GBPS = 700.0
EXCHANGE_SHARE, HIDDEN = 0.05, 0.95  # the exchange alone, of the compute alone; the share step 04 hides


def run_ms(group: str, step: str, gpus: int, t1: float, weak_efficiency: dict, strong_efficiency: dict) -> float:
    """A run's made-up median on `gpus`: steps 01 to 03 and 05 at the efficiencies given, step 04
    a little better (it hides HIDDEN of the exchange), the compute alone at step 04's compute."""
    weak = group.startswith("weak")
    compute = t1 if weak else t1 / gpus
    if step.startswith("compute only"):
        return compute
    if step.startswith("exchange only"):
        return EXCHANGE_SHARE * compute
    if step.startswith("04_"):
        return compute * (1 + EXCHANGE_SHARE * (1 - HIDDEN))
    efficiency = (weak_efficiency if weak else strong_efficiency)[gpus]
    return t1 / efficiency / (1 if weak else gpus)


def several_gpus(folder: pathlib.Path, counts: list, weak_efficiency: dict, strong_efficiency: dict) -> pathlib.Path:
    """Chapter 6's H200 results in folder/results/h200/, its one-GPU runs only, every case but step
    00 also on `counts` GPUs with run_ms's times (step 00 runs on one GPU only, as the benchmark's
    does)."""
    gpu = folder / "results" / "h200"
    shutil.copytree(CHAPTER6 / "results" / "h200", gpu)
    bench = json.loads((gpu / "bench.json").read_text())
    bench["benchmarks"] = [run for run in bench["benchmarks"] if run["run_name"].split("/")[1].endswith(" x1")]
    ones = {}
    for run in bench["benchmarks"]:
        if run.get("aggregate_name") == "median" and "00_one_gpu x1/" in run["run_name"]:
            ones[run["run_name"].split("/")[0]] = run["real_time"]
    added = []
    for run in bench["benchmarks"]:
        group, case = run["run_name"].split("/")[:2]
        if run.get("run_type") != "aggregate" or case.startswith("00_"):
            continue
        step = case.removesuffix(" x1")
        for gpus in counts:
            copy = dict(run, run_name=run["run_name"].replace(f"/{case}/", f"/{step} x{gpus}/"))
            copy["name"] = copy["run_name"]
            copy["real_time"] = run_ms(group, step, gpus, ones[group], weak_efficiency, strong_efficiency)
            copy.update({key: value * run["real_time"] / copy["real_time"] for key, value in run.items() if key.endswith("/s")})
            added.append(copy)
    bench["benchmarks"] += added
    bench["context"]["gpus"] = str(max(counts))
    (gpu / "bench.json").write_text(json.dumps(bench))
    (gpu / "bench-small.json").unlink()  # the small runs' table is the same code as the scaling one
    ceilings = json.loads((gpu / "ceilings.json").read_text())
    (gpu / "ceilings.json").write_text(json.dumps(ceilings | {"peer_both_ways_GBps": PEER_BOTH_WAYS_GBPS}))
    return gpu


def one_gpu(folder: pathlib.Path) -> pathlib.Path:
    """The H100's results in folder/results/h100-80gb-hbm3/ with its one-GPU runs only, as a machine
    with one GPU records them."""
    gpu = folder / "results" / "h100-80gb-hbm3"
    shutil.copytree(CHAPTER6 / "results" / "h100-80gb-hbm3", gpu)
    ceilings = json.loads((gpu / "ceilings.json").read_text())
    (gpu / "ceilings.json").write_text(json.dumps({key: value for key, value in ceilings.items() if not key.startswith("peer")}))
    bench = json.loads((gpu / "bench.json").read_text())
    bench["benchmarks"] = [run for run in bench["benchmarks"] if run["run_name"].split("/")[1].endswith(" x1")]
    bench["context"]["gpus"] = "1"
    (gpu / "bench.json").write_text(json.dumps(bench))
    for several in gpu.glob("bench-mpi-*.json"):
        if several.name != "bench-mpi-1.json":
            several.unlink()
    return gpu


def two_models(folder: pathlib.Path, h200_counts: list, h100_one_gpu: bool = False) -> pathlib.Path:
    """A chapter folder holding the made-up H200 results on `h200_counts` GPUs beside the H100's
    recording (its one-GPU runs only, with h100_one_gpu), and the chapter's tables.py."""
    chapter = folder / "06_multi_gpu"
    several_gpus(chapter, h200_counts, WEAK, STRONG)
    if h100_one_gpu:
        one_gpu(chapter)
    else:
        shutil.copytree(CHAPTER6 / "results" / "h100-80gb-hbm3", chapter / "results" / "h100-80gb-hbm3")
    shutil.copy(CHAPTER6 / "tables.py", chapter / "tables.py")
    return chapter


def rows_of(markdown: str) -> dict:
    """{first cell: cells} of a markdown table's body rows."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in markdown.splitlines()
            if line.startswith("|") and not line.startswith("|---")]
    return {row[0]: row for row in rows[1:]}


WEAK = {2: 0.96, 4: 0.93, 8: 0.97}
STRONG = {2: 0.95, 4: 0.90, 8: 0.80}


class MultiGpuTables(unittest.TestCase):
    def made(self, counts: list) -> dict:
        with tempfile.TemporaryDirectory() as folder:
            self.res = results.load_gpu(several_gpus(pathlib.Path(folder), counts, WEAK, STRONG))
            return tables.tables(self.res)

    def test_one_gpu_leaves_the_exchange_and_every_target_unmeasured(self):
        with tempfile.TemporaryDirectory() as folder:
            made = tables.tables(results.load_gpu(one_gpu(pathlib.Path(folder))))
        self.assertIn("Not measured: the exchange crosses a link from 2 GPUs on", made["exchange"])
        targets = rows_of(made["targets"])
        self.assertEqual(len(targets), 4)
        for row in targets.values():
            self.assertEqual(row[2:], ["not measured: 1 GPU here", "-"])
        between = rows_of(made["between"])  # the copy rate and step 00, nothing that needs a link
        self.assertEqual(len(between), 3, made["between"])
        self.assertFalse({"hidden_by_gpu", "copy_engines_by_gpu", "processes_by_gpu"} & set(made))

    def test_between_gpus_quotes_each_machines_copy_rate_and_step_04s_two_factors_on_4_gpus(self):
        between = rows_of(self.made([2, 4])["between"])
        weak_rows = tables.by_step(self.res.cases, tables.group_of(self.res, "weak"))
        row = lambda start: next(cells[1] for label, cells in between.items() if label.startswith(start))  # noqa: E731
        self.assertEqual(row("copy rate"), f"{self.res.ceilings['copy_GBps']:.1f}")
        self.assertEqual(row("`04_overlap` on 4 GPUs, weak"), f"{1 / (1 + EXCHANGE_SHARE * (1 - HIDDEN)):.3f}")
        exchange, weight = row("exchange alone on 4 GPUs, weak").split()
        self.assertEqual(weight, f"({float(exchange) / tables.step_ms(weak_rows, tables.SPLIT, 4, 20):.2f})")
        baseline, shows = (float(row(f"weak on 4 GPUs, the {part}'s factor")) for part in ("baseline", "overlap"))
        self.assertAlmostEqual(baseline * shows, float(row("`04_overlap` on 4 GPUs, weak")), delta=0.002)

    def test_between_gpus_lines_up_a_4_gpu_model_with_an_8_gpu_one(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = two_models(pathlib.Path(folder), [2, 4, 8])
            runs = results.load_chapter(chapter)
            merged = report.chapter_tables(chapter, runs)
            alone = tables.tables(next(res for res in runs if res.folder.name == "h100-80gb-hbm3"))
        self.assertEqual(len(rows_of(merged["between"])), len(rows_of(alone["between"])), merged["between"])
        self.assertNotIn("—", merged["between"])  # every row filled by both: compared at 4 GPUs

    def test_a_table_by_gpu_names_its_gpu_when_only_one_model_made_it(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = two_models(pathlib.Path(folder), [2, 4], h100_one_gpu=True)
            merged = report.chapter_tables(chapter, results.load_chapter(chapter))
        self.assertTrue(merged["hidden_by_gpu"].startswith("**H200**"), merged["hidden_by_gpu"])

    def test_the_anchor_beside_the_steps_that_match_it_from_its_own_csv(self):
        header = "type, nx, ny, iter_max, nccheck, num_devices, p2p, runtime, runtime_serial\n"
        with tempfile.TemporaryDirectory() as folder:
            gpu = several_gpus(pathlib.Path(folder), [2, 4], WEAK, STRONG)
            (gpu / "anchor-2026-01-01").mkdir()
            csv = gpu / "anchor-2026-01-01" / "anchor.csv"
            csv.write_text(header + "multi_threaded_copy, 64, 64, 10, 1, 4, 1, 0.60, 2.1\n"  # the slower run of two
                           "multi_threaded_copy, 64, 64, 10, 1, 4, 1, 0.55, 1.9\n"
                           "nvshmem, 64, 64, 10, 1, 4, 1, 0.52, 2.0\n")  # a variant with no match here
            res = results.load_gpu(gpu)
            made = rows_of(tables.tables(res)["anchor_by_gpu"])
            res.cases = [c for c in res.cases if not c.name.startswith("02_")]  # a step that did not run
            unmatched = rows_of(tables.tables(res)["anchor_by_gpu"])
            csv.write_text(csv.read_text() + "nccl, 64, 64, 10\n")
            with self.assertRaisesRegex(ValueError, "anchor.csv:5: not a line of the anchor's -csv output"):
                tables.tables(res)
        # one GPU's time is the median of every run's (2.0), the case's time its lowest (0.55)
        self.assertEqual(made["`multi_threaded_copy`"][1:], [f"{2.0 / (4 * 0.55):.3f}", "step 02, threads", f"{STRONG[4]:.3f}"])
        self.assertEqual(made["`nvshmem`"][1:], [f"{2.0 / (4 * 0.52):.3f}", "—", "—"])
        self.assertEqual(unmatched["`multi_threaded_copy`"][3], "—")

    def test_efficiency_is_t1_over_n_tn_strong_and_t1_over_tn_weak(self):
        made = self.made([2, 4, 8])
        strong_part, weak_part = made["scaling"].split("\n\n**")
        self.assertTrue(strong_part.startswith("**strong") and weak_part.startswith("weak"))
        strong, weak = rows_of(strong_part), rows_of(weak_part)
        self.assertEqual(strong["`01_host_staging`"][-1].split()[1], f"({STRONG[8]:.2f})")
        self.assertEqual(weak["`01_host_staging`"][-1].split()[1], f"({WEAK[8]:.2f})")
        self.assertEqual(strong["`00_one_gpu`"][2:], ["", "", ""])  # step 00 on one GPU only

    def test_the_exchange_from_2_gpus_its_rate_and_the_share_hidden(self):
        made = self.made([2, 4, 8])
        weak = rows_of(made["exchange"].split("\n\n**")[1])
        self.assertEqual(list(weak), ["2", "4", "8"])
        cells = weak["8"]
        compute, exchange = float(cells[4]), float(cells[1])
        self.assertAlmostEqual(exchange / compute, EXCHANGE_SHARE, places=3)
        self.assertEqual(cells[7], f"{HIDDEN:.2f}")  # hidden by 04
        self.assertAlmostEqual(float(cells[3]), float(cells[2]) / PEER_BOTH_WAYS_GBPS, delta=0.006)
        self.assertIn(f"peer copy both ways {PEER_BOTH_WAYS_GBPS:.0f} GB/s", made["exchange"])

    def test_the_targets_on_8_gpus(self):
        targets = rows_of(self.made([2, 4, 8])["targets"])
        strong = next(row for label, row in targets.items() if label.startswith("strong") and "efficiency" in label)
        # step 04 beats step 05 here: it hides all but 5% of an exchange of 5% of the compute
        self.assertEqual(strong[2:], [f"{1 / (1 + EXCHANGE_SHARE * (1 - HIDDEN)):.3f}", "yes"])
        weak = next(row for label, row in targets.items() if label.startswith("weak") and "efficiency" in label)
        # three decimals, so that a miss by less than 0.005 does not show as the target itself
        self.assertTrue(weak[2].startswith(f"{1 / (1 + EXCHANGE_SHARE * (1 - HIDDEN)):.3f} (")
                        and weak[2].endswith("the lowest of 2, 4, 8)"), weak)
        for label, row in targets.items():
            if "hidden" in label:
                self.assertTrue(row[2].startswith(f"{HIDDEN:.2f}"), row)
                self.assertEqual(row[3], "yes")

    def test_4_gpus_leave_the_strong_target_unmeasured_and_say_which_counts_ran(self):
        targets = rows_of(self.made([2, 4])["targets"])
        strong = next(row for label, row in targets.items() if label.startswith("strong") and "efficiency" in label)
        self.assertEqual(strong[2:], ["not measured: 4 GPUs here", "-"])
        weak = next(row for label, row in targets.items() if label.startswith("weak") and "efficiency" in label)
        self.assertIn("the lowest of 2, 4)", weak[2])  # "at every count" is only as good as the counts that ran
        hidden = next(row for label, row in targets.items() if label.startswith("strong") and "hidden" in label)
        self.assertIn("4 GPUs", hidden[2])

    def test_a_4_gpu_model_and_an_8_gpu_model_share_the_targets_rows(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = two_models(pathlib.Path(folder), [2, 4, 8])
            merged = report.chapter_tables(chapter, results.load_chapter(chapter))["targets"]
            self.assertEqual(len(rows_of(merged)), 4, merged)  # one row a target, each GPU's column beside the other's

    def test_the_copy_engines_hidden_share_only_where_their_exchange_alone_was_recorded(self):
        with tempfile.TemporaryDirectory() as folder:
            gpu = several_gpus(pathlib.Path(folder), [2, 4], WEAK, STRONG)
            bench = json.loads((gpu / "bench.json").read_text())
            bench["benchmarks"] = [run for run in bench["benchmarks"]
                                   if f"/{tables.PEER_COPY_EXCHANGE} x" not in run["run_name"]]
            (gpu / "bench.json").write_text(json.dumps(bench))
            self.assertNotIn("hidden", tables.copy_engines_table(results.load_gpu(gpu), 20))
            copies = [dict(run, run_name=run["run_name"].replace(tables.EXCHANGE, tables.PEER_COPY_EXCHANGE),
                           real_time=0.8 * run["real_time"])
                      for run in bench["benchmarks"] if f"/{tables.EXCHANGE} x" in run["run_name"]]
            bench["benchmarks"] += [dict(run, name=run["run_name"]) for run in copies]
            (gpu / "bench.json").write_text(json.dumps(bench))
            res = results.load_gpu(gpu)
            steps = int(res.context["steps"])
            made = tables.copy_engines_table(res, steps)
        self.assertIn("hidden: 04 | hidden: copy engines |", made)
        for group, row in rows_of(made).items():
            rows = tables.by_step(res.cases, group)
            copies, nccl = (tables.step_ms(rows, name, 4, steps) for name in (tables.PEER_COPY_EXCHANGE, tables.EXCHANGE))
            split, step_04, overlapped = float(row[1]), float(row[2]), float(row[4])
            self.assertEqual(row[-1], f"{(copies + split - overlapped) / copies:.2f}", row)
            self.assertEqual(row[-2], f"{(nccl + split - step_04) / nccl:.2f}", row)

    def test_without_steps_04_and_05_the_targets_say_why_they_are_not_measured(self):
        res = results.load_gpu(CHAPTER6 / "results" / "h100-80gb-hbm3")
        res.cases = [c for c in res.cases if not c.name.startswith(tables.OVERLAPPED)]  # as a build without NCCL runs
        self.assertIn("Not measured: steps 04 and 05", tables.targets_table(res, int(res.context["steps"])))

    def test_step_01s_host_round_trip_is_bounded_only_where_the_host_copies_were_measured(self):
        with tempfile.TemporaryDirectory() as folder:
            gpu = several_gpus(pathlib.Path(folder), [2, 4], WEAK, STRONG)
            res = results.load_gpu(gpu)
            res.ceilings = {key: value for key, value in res.ceilings.items() if "host" not in key}
            self.assertNotIn("host copy", tables.lesson_bound(res, 20))
            res.ceilings |= {"device_to_host_GBps": 40.0, "host_to_device_GBps": 60.0}
            made = tables.lesson_bound(res, 20)
        host = next(row for label, row in rows_of(made).items() if label.startswith("step 01"))
        rows = tables.by_step(res.cases, tables.group_of(res, "weak"))
        halo = rows[tables.EXCHANGE][4].bytes_per_run / 20  # what a GPU sends and receives a step
        self.assertEqual(host[3], "host copy 40 down, 60 up GB/s")
        self.assertEqual(host[4], f"{(halo / 2 / 40e9 + halo / 2 / 60e9) * 1e3:.4f}")  # ms: half down, then half up


if __name__ == "__main__":
    unittest.main()
