#!/usr/bin/env python3
"""Sums Nsight Compute's per-instruction stall samples (`ncu --import R --page source
--print-source sass --csv`, on standard input) into one line per kernel: each reason's share of
all the kernel's warp samples, largest first, and the share of its mio_throttle samples (the queue
to the MUFU unit full) that sit on MUFU instructions. A kernel profiled more than once (warm-up,
then the timed run) is reported from its last launch.

    ncu --import stalls.ncu-rep --page source --print-source sass --csv | stall_reasons.py > stalls-by-reason.txt
"""
import csv
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "profiling"))
import traffic  # noqa: E402


def short_name(signature: str) -> str:
    """traffic.py's short name without the casts of numeric template arguments:
    'void ch04::<unnamed>::split_kernel<(int)8, (int)4>(const ...)' -> 'split_kernel<8, 4>'."""
    return re.sub(r"\((?:int|unsigned int|bool)\)", "", traffic.short_name(signature))


def kernels(lines):
    """{kernel: rows of its last launch}."""
    found, name, rows = {}, None, None
    for row in csv.reader(lines):
        if row and row[0] == "Kernel Name":
            if name:
                found[name] = rows
            name, rows = short_name(row[1]), []
        elif name is not None and row:
            rows.append(row)
    if name:
        found[name] = rows
    return found


def summary(rows) -> str:
    header, body = rows[0], rows[1:]
    reasons = [i for i, column in enumerate(header) if column.startswith("stall_") and "Not Issued" not in column]
    source = header.index("Source")

    def count(row, i):
        return float(row[i] or 0)

    totals = {header[i][len("stall_"):]: sum(count(row, i) for row in body) for i in reasons}
    everything = sum(totals.values()) or 1.0
    mio = header.index("stall_mio")
    at_mufu = sum(count(row, mio) for row in body if "MUFU" in row[source])
    shares = sorted(((value / everything, reason) for reason, value in totals.items() if value), reverse=True)
    listed = ", ".join(f"{reason} {share:.2f}" for share, reason in shares if share >= 0.01)
    return f"{listed}; mio_throttle at MUFU {at_mufu / (totals['mio'] or 1.0):.2f} of it"


def main() -> int:
    found = kernels(sys.stdin)
    if not found:
        print("error: no 'Kernel Name' rows on standard input (expected ncu --page source --csv)", file=sys.stderr)
        return 2
    print("# Each reason's share of the kernel's warp samples (Nsight Compute SourceCounters, summed over its SASS")
    print("# instructions by stall_reasons.py); mio: mio_throttle, the queue to the MUFU unit full.")
    for name, rows in found.items():
        print(f"{name}: {summary(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
