#!/usr/bin/env python3
"""Summarises the probe's runs into summary.md, and runs/ into timeline.json (for figures.py).

runs/: the interior's chunk and free multiprocessors; nccl-runs/: NCCL's CTA policy and p2p
channels; images-runs/: the boundary's images written by its leapfrog, not a second launch.
Per setting (both passes pooled), on 4 GPUs: ms a time step of each case (the median of each
pass's 10 runs of 20 steps, the passes' mean), the share of its exchange each overlap hides, and
the per-step timeline from events (means over every rank and call).
"""
import gzip
import json
import pathlib
import re
import statistics

HERE = pathlib.Path(__file__).parent
SETTINGS = ["events=off", "default", "chunk=64", "chunk=32", "chunk=16", "chunk=32,reserve=8", "chunk=32,reserve=16"]
IMAGES_SETTINGS = ["events=off", "events=off,images", "default", "images", "images,chunk=64"]
NCCL_SETTINGS = ["default", "NCCL_CTA_POLICY=1", "NCCL_CTA_POLICY=2", "NCCL_MIN_P2P_NCHANNELS=32"]
GROUPS = {"strong 1024^3": 256, "weak 512^3 per GPU": 512}  # the group and its slab's planes on 4 GPUs
CASES = ["04_overlap", "split compute only", "exchange only (NCCL)", "overlap by peer copies",
         "exchange only (peer copies)", "overlap, interior after the boundary"]
TIMED = {"04_overlap": "04_overlap", "split compute only": "split_compute_only",
         "overlap by peer copies": "copy_engines", "overlap, interior after the boundary": "interior_after_boundary"}
FIELDS = ["leapfrog", "boundary", "exchange_end", "interior_start", "interior_end", "next"]
# runs/ has every field; nccl-runs/, made by the patch before the leapfrog's own mark, has no "leapfrog".
LINE = re.compile(r"TIMELINE (\S+) rank \d+ dz (\d+) chunk \S+: (?:leapfrog (\S+) )?" +
                  " ".join(f"{f} (\\S+)" for f in FIELDS[1:]))


def step_ms(setting: str, folder: str = "runs") -> dict:
    times = {}
    for path in sorted(HERE.glob(f"{folder}/{setting}-pass*.json.gz")):
        data = json.loads(gzip.open(path, "rt").read())
        steps = int(data["context"]["steps"])
        for b in data["benchmarks"]:
            if b["run_name"] == b["name"] or not b["name"].endswith("_median"):
                continue
            group, case = b["run_name"].split("/")[:2]
            times.setdefault((group, case.removesuffix(" x4")), []).append(b["real_time"] / steps)
    return {key: statistics.mean(v) for key, v in times.items()}


def hidden(exchange: float, split: float, overlapped: float) -> float:
    """The share of the exchange alone that an overlap hides beside the same split compute."""
    return (exchange + split - overlapped) / exchange


def timeline(setting: str, folder: str = "runs") -> dict:
    rows = {}
    for path in sorted(HERE.glob(f"{folder}/{setting}-pass*.txt.gz")):
        for line in gzip.open(path, "rt"):
            if m := LINE.search(line):
                rows.setdefault((m[1], int(m[2])), []).append([float("nan") if x is None else float(x) for x in m.groups()[2:]])
    # Means over every call and rank (each line already a mean over its steps): unlike medians
    # taken field by field, they keep a row's order (an interior's end before the next step's start).
    return {key: dict(zip(FIELDS, (statistics.fmean(c) for c in zip(*v)))) for key, v in rows.items()}


def main() -> None:
    out, figure = [], {}
    for setting in SETTINGS:
        ms, marks = step_ms(setting), timeline(setting)
        if setting == "events=off":  # what the events cost: the same cases without them
            on = step_ms("default")
            out += ["## What the events cost (default chunk, the same machine)", "",
                    "| on 4 GPUs, ms a time step | case | events off | events on | change |", "|---|---|---:|---:|---:|"]
            out += [f"| {group} | {case} | {ms[(group, case)]:.4f} | {on[(group, case)]:.4f} | "
                    f"{on[(group, case)] / ms[(group, case)] - 1:+.1%} |" for group in GROUPS for case in CASES]
            out.append("")
            continue
        out += [f"## {setting}", "",
                "| on 4 GPUs, ms a time step | split compute only | 04 | hidden by 04 | copy engines | hidden by copy engines |"
                " interior after the boundary |", "|---|---:|---:|---:|---:|---:|---:|"]
        for group in GROUPS:
            t = {case: ms[(group, case)] for case in CASES}
            nccl, peer = t["exchange only (NCCL)"], t["exchange only (peer copies)"]
            hidden04 = hidden(nccl, t["split compute only"], t["04_overlap"])
            hidden_ce = hidden(peer, t["split compute only"], t["overlap by peer copies"])
            out.append(f"| {group} | {t['split compute only']:.4f} | {t['04_overlap']:.4f} | {hidden04:.2f} | "
                       f"{t['overlap by peer copies']:.4f} | {hidden_ce:.2f} | {t['overlap, interior after the boundary']:.4f} |")
        out += ["", "| timeline (ms from the boundary's start) | case | boundary's leapfrog done | boundary done |"
                " exchange done | interior start | interior end | next step |", "|---|---|---:|---:|---:|---:|---:|---:|"]
        for group, dz in GROUPS.items():
            for case, label in TIMED.items():
                m = marks[(label, dz)]
                out.append(f"| {group} | {case} | " + " | ".join(f"{m[f]:.4f}" for f in FIELDS) + " |")
                figure.setdefault(setting, {}).setdefault(group, {})[case] = {**m, "ms_per_step": ms[(group, case)]}
            for case in ("exchange only (NCCL)", "exchange only (peer copies)"):
                figure[setting][group][case] = {"ms_per_step": ms[(group, case)]}
        out.append("")
    out += ["# NCCL's settings (nccl-runs/)", "",
            "| on 4 GPUs, ms a time step | setting | exchange alone | `03_nccl` | split compute only | `04_overlap` | hidden by 04 |"
            " 04: boundary done | 04: exchange done | 04: interior end |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for group, dz in GROUPS.items():
        for setting in NCCL_SETTINGS:
            t, m = step_ms(setting, "nccl-runs"), timeline(setting, "nccl-runs")[("04_overlap", dz)]
            nccl, split, step04 = t[(group, "exchange only (NCCL)")], t[(group, "split compute only")], t[(group, "04_overlap")]
            out.append(f"| {group} | {setting} | {nccl:.4f} | {t[(group, '03_nccl')]:.4f} | {split:.4f} | {step04:.4f} | "
                       f"{hidden(nccl, split, step04):.2f} | {m['boundary']:.4f} | {m['exchange_end']:.4f} | {m['interior_end']:.4f} |")
    out.append("")
    out += ["# The boundary's images in its leapfrog (images-runs/)", "",
            "| on 4 GPUs, ms a time step | setting | split compute only | `04_overlap` | exchange alone | hidden by 04 |"
            " overlap, interior after the boundary |", "|---|---|---:|---:|---:|---:|---:|"]
    for group in GROUPS:
        for setting in IMAGES_SETTINGS:
            t = step_ms(setting, "images-runs")
            nccl, split, step04 = t[(group, "exchange only (NCCL)")], t[(group, "split compute only")], t[(group, "04_overlap")]
            out.append(f"| {group} | {setting} | {split:.4f} | {step04:.4f} | {nccl:.4f} | {hidden(nccl, split, step04):.2f} | "
                       f"{t[(group, 'overlap, interior after the boundary')]:.4f} |")
    out += ["", "| timeline (ms from the boundary's start) | setting | case | boundary's leapfrog done | boundary done |"
            " exchange done | interior start | interior end | next step |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for group, dz in GROUPS.items():
        for setting in IMAGES_SETTINGS:
            if setting.startswith("events=off"):
                continue
            marks = timeline(setting, "images-runs")
            for case, label in TIMED.items():
                m = marks[(label, dz)]
                out.append(f"| {group} | {setting} | {case} | " + " | ".join(f"{m[f]:.4f}" for f in FIELDS) + " |")
    out.append("")
    (HERE / "summary.md").write_text("# Summary (generated by summarize.py)\n\n" + "\n".join(out))
    (HERE / "timeline.json").write_text(json.dumps(figure, indent=1) + "\n")


if __name__ == "__main__":
    main()
