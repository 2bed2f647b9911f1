#!/usr/bin/env python3
"""Generates the student stubs in exercises/ from the solutions in solutions/.

In a solution file, a region

    // BEGIN SOLUTION: <hint for the student>
    ...the solution...
    // STUB: <a line the stub gets instead>
    // END SOLUTION

becomes, in the exercise file, a TODO comment carrying the hint followed by the STUB lines
(uncommented). Files without markers (each chapter's naive step) are copied unchanged.

    exercises/generate.py          rewrite exercises/ from solutions/
    exercises/generate.py --check  exit 1 if exercises/ differs from what would be generated
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
SOURCE_SUFFIXES = {".cu", ".cuh", ".hpp", ".cpp"}

BEGIN = re.compile(r"^(?P<indent>\s*)// BEGIN SOLUTION(?::\s*(?P<hint>.*))?$")
STUB = re.compile(r"^\s*// STUB: ?(?P<code>.*)$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
HEADER = "// Generated from {source} by exercises/generate.py: edit the TODOs, not the solution.\n"


class MarkerError(Exception):
    pass


def make_stub(text: str, source: str) -> str:
    out = []
    region = None  # (indent, hint, stub lines, line number) while inside a region
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        bare = line.rstrip("\n")
        if region is None:
            begin = BEGIN.match(bare)
            if begin:
                region = (begin["indent"], begin["hint"] or "", [], number)
            elif STUB.match(bare) or END.match(bare):
                raise MarkerError(f"{source}:{number}: marker outside a BEGIN SOLUTION region")
            else:
                out.append(line)
            continue
        if BEGIN.match(bare):
            raise MarkerError(f"{source}:{number}: nested BEGIN SOLUTION (region opened at line {region[3]})")
        stub = STUB.match(bare)
        if stub:
            region[2].append(stub["code"])
        elif END.match(bare):
            indent, hint, stub_lines, _ = region
            out.append(f"{indent}// TODO: {hint}\n" if hint else f"{indent}// TODO: write this part\n")
            out.extend(f"{indent}{code}\n" for code in stub_lines)
            region = None
    if region is not None:
        raise MarkerError(f"{source}:{region[3]}: BEGIN SOLUTION without END SOLUTION")
    if out == text.splitlines(keepends=True):
        return text  # a given file (the naive step): the same in both tracks
    return HEADER.format(source=source) + "".join(out)


def expected_exercises() -> dict:
    files = {}
    for path in sorted(SOLUTIONS.rglob("*")):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES:
            relative = path.relative_to(SOLUTIONS)
            files[relative] = make_stub(path.read_text(), f"solutions/{relative.as_posix()}")
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only check that exercises/ is up to date")
    args = parser.parse_args()
    try:
        expected = expected_exercises()
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    existing = {p.relative_to(EXERCISES) for p in EXERCISES.rglob("*")
                if p.is_file() and p.suffix in SOURCE_SUFFIXES}
    stale = sorted(str(r) for r, text in expected.items()
                   if not (EXERCISES / r).exists() or (EXERCISES / r).read_text() != text)
    orphans = sorted(str(r) for r in existing - expected.keys())
    if args.check:
        for name in stale:
            print(f"stale: exercises/{name} differs from what solutions/{name} generates")
        for name in orphans:
            print(f"orphan: exercises/{name} has no solution")
        if stale or orphans:
            print("run: python3 exercises/generate.py")
            return 1
        print(f"exercises/ is up to date ({len(expected)} files)")
        return 0
    for relative, text in expected.items():
        target = EXERCISES / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
            print(f"wrote exercises/{relative}")
    for name in orphans:
        (EXERCISES / name).unlink()
        print(f"removed exercises/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
