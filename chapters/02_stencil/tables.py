"""Chapter 2's README tables (profiling/report.py): every step for every operator with the
conv3d peer, each operator against its roofline, the compute-bound compound_r2's steps with
every rate, and the traffic profile."""
import report_tables
import results


def fmas_per_point(case) -> int:
    """FMAs a point of the form the case computed: 2 flops each, 8 bytes a point."""
    return round(case.gflop_per_run * 1e9 / 2 / (case.bytes_per_run / 8))


def steps_table(res, conv3d: tuple) -> str:
    cases = res.cases
    operators = res.groups()
    by = {(c.group, c.name): c for c in cases}
    steps = list(dict.fromkeys(c.name for c in cases if c.is_step))
    copy = next(c for c in cases if c.name.startswith("device copy"))
    names = [g.split()[0] for g in operators]
    lines = [f"Interior {operators[0].split()[1]} floats on the {res.context['gpu']}, median of {copy.repetitions} runs, L2 "
             f"flushed before each; GB/s = 2 x {copy.bytes_per_run / 2 / 1e6:.1f} MB (the cube read and written once) / time.",
             "", "| step | " + " | ".join(f"{n} GB/s" for n in names) +
             " | box27 of copy | compound_r2 effective GFLOP/s | of FMA ceiling |",
             "|---|" + "---:|" * (len(names) + 3)]
    box = next(g for g in operators if g.startswith("box27"))
    r2 = next(g for g in operators if g.startswith("compound_r2"))
    for name in [copy.name] + steps:
        cells = []
        for g in operators:
            c = by.get((g, name))
            cells.append(f"{c.gbps:.0f}" if c else "")
        b = by.get((box, name))
        c2 = by.get((r2, name))
        peer = not name[:2].isdigit()
        # Effective: the weight table's flops over the step's time, whatever form the step computes.
        gflops = by[(r2, steps[0])].gflop_per_run / (c2.median_ms / 1e3) if c2 and not peer else None
        lines.append(f"| {'*' + name + '* (peer)' if peer else '`' + name + '`'} | " + " | ".join(cells) +
                     f" | {b.gbps / res.ceilings['copy_GBps']:.3f} | " +
                     (f"{gflops:.0f} | {gflops / res.ceilings['fma_GFLOPs']:.3f} |" if gflops else " | |"))
    context, peers = conv3d
    for peer in peers:
        cells = [f"{peer.gbps:.0f}" if g.startswith(peer.group) else "" for g in operators]
        lines.append(f"| *{peer.name}* (peer, PyTorch {context['torch']}) | " + " | ".join(cells) + " | | | |")
    lines.append("")
    lines.append(f"Ceilings measured by `course_ceilings` on the same machine: copy {res.ceilings['copy_GBps']:.0f} GB/s, "
                 f"FMA {res.ceilings['fma_GFLOPs'] / 1e3:.1f} TFLOP/s. Effective GFLOP/s counts the weight table's 2 flops "
                 f"per nonzero weight ({fmas_per_point(by[(r2, steps[0])])} a point for compound_r2) over the step's time, "
                 "like effective bandwidth counts the fewest bytes"
                 + "".join(f"; `{name}` computes the separable form, {fmas_per_point(by[(r2, name)])} FMAs a point, so "
                           "its effective rate can pass the FMA ceiling" for name in steps
                           if fmas_per_point(by[(r2, name)]) != fmas_per_point(by[(r2, steps[0])])) + ".")
    return "\n".join(lines)


def tables(res) -> dict:
    r2 = next(g for g in res.groups() if g.startswith("compound_r2"))
    return {
        "steps": steps_table(res, results.load_peers(res.folder / "conv3d.json")),
        "roofline": report_tables.roofline_table(res),
        "compound_r2": report_tables.group_table(res, r2),
        "traffic": report_tables.traffic_table(res.folder / "traffic.csv", "cube size (536.9 MB)"),
    }
