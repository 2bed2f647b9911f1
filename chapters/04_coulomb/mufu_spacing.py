#!/usr/bin/env python3
"""How the compiled hot loops space their MUFU (XU) instructions, from `cuobjdump -sass`.

    cuobjdump -sass build/cuda/chapters/04_coulomb/lib04_coulomb_steps.a | mufu_spacing.py [--kernels REGEX]
    mufu_spacing.py SASS_FILE [--kernels REGEX]

The XU takes one warp instruction every 8 cycles of its sub-partition: a stretch of a warp's code
with no MUFU leaves it idle unless other warps have one ready. For each kernel, the hot loop is
the innermost loop (the code between a backward branch and its target) holding the most MUFU;
printed per kernel: the loop's instructions and MUFU, the MUFU in each 32-instruction window
from the loop's start, the longest MUFU-free stretch inside the body and across its back edge
(the loop runs again), and the count of each opcode in the loop.
"""
import argparse
import re
import shutil
import subprocess
import sys
from collections import Counter

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
BRANCH_TARGET = re.compile(r"\bBRA\b.*?(?:`\((\.L_x_\d+)\)|\b0x([0-9a-f]+)\b)")
WINDOW = 32


class Kernel:
    def __init__(self, name):
        self.name = name
        self.instructions = []  # (address, text)
        self.labels = {}  # label -> address of the instruction after it


def parse(lines):
    """The kernels of a cuobjdump -sass listing, in order."""
    kernels, kernel, pending_labels = [], None, []
    for line in lines:
        if match := FUNCTION.match(line):
            kernel = Kernel(match.group(1))
            kernels.append(kernel)
            pending_labels = []
        elif kernel is None:
            continue
        elif match := LABEL.match(line):
            pending_labels.append(match.group(1))
        elif match := INSTRUCTION.match(line):
            address = int(match.group(1), 16)
            for label in pending_labels:
                kernel.labels[label] = address
            pending_labels = []
            kernel.instructions.append((address, match.group(2)))
    return kernels


def opcode(text):
    """The instruction's opcode without its predicate and modifiers: `@!P0 MUFU.RSQ R5, R4` -> MUFU."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def loops(kernel):
    """(first, last) instruction indices of every loop: a branch back to an earlier address."""
    index_of = {address: n for n, (address, _) in enumerate(kernel.instructions)}
    found = []
    for n, (address, text) in enumerate(kernel.instructions):
        if opcode(text) != "BRA":
            continue
        match = BRANCH_TARGET.search(text)
        if not match:
            continue
        target = kernel.labels.get(match.group(1)) if match.group(1) else int(match.group(2), 16)
        if target is not None and target <= address and target in index_of:
            found.append((index_of[target], n))
    return found


def hot_loop(kernel):
    """The innermost loop with the most MUFU (ties: the longer), or None."""
    candidates = loops(kernel)
    innermost = [(a, b) for a, b in candidates if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in candidates)]
    best = None
    for first, last in innermost:
        body = [opcode(text) for _, text in kernel.instructions[first : last + 1]]
        key = (body.count("MUFU"), len(body))
        if best is None or key > best[0]:
            best = (key, body)
    return best[1] if best else None


def spacing(body):
    """MUFU per 32-instruction window, the longest MUFU-free stretch inside the body and across
    its back edge (0 and 0 when every instruction is a MUFU; the body's length when there is none)."""
    windows = [body[start : start + WINDOW].count("MUFU") for start in range(0, len(body), WINDOW)]
    positions = [n for n, op in enumerate(body) if op == "MUFU"]
    if not positions:
        return windows, len(body), len(body)
    inside = max([b - a - 1 for a, b in zip(positions, positions[1:])] + [positions[0], len(body) - 1 - positions[-1]])
    across = positions[0] + len(body) - 1 - positions[-1]
    return windows, inside, max(inside, across)


def readable(names):
    """Demangled kernel names, namespaces and parameter lists dropped (c++filt where installed)."""
    if not names or not shutil.which("c++filt"):
        return names
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout.split("\n")
    short = []
    for name in out[: len(names)]:
        name = re.sub(r"ch04::|\(anonymous namespace\)::", "", name)
        name = name[len("void "):] if name.startswith("void ") else name
        depth = 0
        for n, char in enumerate(name):
            depth += char == "<"
            depth -= char == ">"
            if char == "(" and depth == 0 and n > 0:
                name = name[:n]
                break
        short.append(name)
    return short


def report(kernels, pattern):
    chosen = [k for k in kernels if re.search(pattern, k.name)]
    lines = [
        "# MUFU spacing in each kernel's hot loop (the innermost loop with the most MUFU), from cuobjdump -sass",
        f"# per {WINDOW}-instruction window from the loop's start; stretch: the most instructions in a row without a MUFU,",
        "# inside the loop body / across its back edge",
    ]
    for kernel, name in zip(chosen, readable([k.name for k in chosen])):
        body = hot_loop(kernel)
        if body is None:
            lines.append(f"{name}: no loop")
            continue
        windows, inside, across = spacing(body)
        mufu = body.count("MUFU")
        counts = Counter(body)
        lines.append(f"{name}: loop {len(body)} instructions, {mufu} MUFU (one per {len(body) / max(mufu, 1):.2f}), "
                     f"fewest in a full window {min(windows[: len(body) // WINDOW] or windows)}, "
                     f"longest MUFU-free stretch {inside} / {across}")
        lines.append(f"  MUFU per window: {windows}")
        lines.append("  opcodes: " + " ".join(f"{op} {n}" for op, n in counts.most_common()))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sass", nargs="?", help="a saved cuobjdump -sass listing (default: standard input)")
    parser.add_argument("--kernels", default="_kernel", help="regular expression on the mangled names (default: _kernel)")
    args = parser.parse_args()
    try:
        text = open(args.sass).read() if args.sass else sys.stdin.read()
    except OSError as error:
        sys.exit(f"error: cannot read {args.sass}: {error.strerror}")
    kernels = parse(text.splitlines())
    if not kernels:
        sys.exit("error: no 'Function :' sections in the input: is it the output of cuobjdump -sass?")
    sys.stdout.write(report(kernels, args.kernels))


if __name__ == "__main__":
    main()
