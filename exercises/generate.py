#!/usr/bin/env python3
"""Generates the student stubs in exercises/ from the solutions in solutions/ (for whoever edits
solutions/; students never need to run it).

In a solution file, a region

    // BEGIN SOLUTION: <hint for the student>
    ...the solution...
    // STUB: <a line the stub gets instead>
    // END SOLUTION

becomes, in the exercise file, a TODO comment carrying the hint followed by the STUB lines
(uncommented). A region stands for at most 30 lines of solution: a longer piece is cut into
numbered parts, `// BEGIN SOLUTION: part 2 of 3, the waits: <hint>`, the hint naming the idea, the
invariant to keep and the mistake to avoid; a part that can be checked on its own gets a test of
its own (course::register_part_test), and the grader then names the part that fails
(tests/tooling/test_tools.py checks the parts and that no stub quotes a measured figure). Files without markers (each chapter's naive step) are copied unchanged. Every
generated file starts with a line that names its source and a fingerprint of the rest, so an
exercise someone has edited is recognised: it is never overwritten or removed without --force,
and --force first keeps a copy of it beside it (NAME.cu.edited-YYYYMMDD-HHMMSS). It reads every
solution (UTF-8) and checks every place it writes before it writes anything, and writes each
file whole, so a problem leaves exercises/ as it was.

    exercises/generate.py          write exercises/ from solutions/ (refuses if that would overwrite an edit)
    exercises/generate.py --force  the same, keeping a copy of every edited exercise it replaces
    exercises/generate.py --check  exit 1 if exercises/ differs from what would be generated: a line
                                   per file on stdout, and one error line on stderr naming the first
"""
import argparse
import hashlib
import os
import pathlib
import re
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "profiling"))
import cli  # noqa: E402

SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
SOURCE_SUFFIXES = {".cu", ".cuh", ".hpp", ".cpp"}

BEGIN = re.compile(r"^(?P<indent>\s*)// BEGIN SOLUTION(?::\s*(?P<hint>.*))?$")
STUB = re.compile(r"^\s*// STUB: ?(?P<code>.*)$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
STUB_HEADER = "// Generated from {source} by exercises/generate.py (fingerprint {fingerprint}): edit the TODOs.\n"
GIVEN_HEADER = "// Copied from {source} by exercises/generate.py (fingerprint {fingerprint}): given complete.\n"
MEASURED = re.compile(r"^// BEGIN MEASURED.*?^// END MEASURED\n", re.S | re.M)  # profiling/report.py's block
FINDINGS = re.compile(r"^// BEGIN FINDINGS\n.*?^// END FINDINGS\n", re.S | re.M)  # what the measurements showed, by hand
CHAPTER = re.compile(r"solutions/0*(?P<number>\d+)_")
FINGERPRINT = re.compile(r"^// (?:Generated|Copied) from \S+ by exercises/generate\.py \(fingerprint (?P<value>[0-9a-f]{12})\)")


class MarkerError(Exception):
    pass


def without_measurements(text: str, source: str) -> str:
    """The step's header without the solution's measured figures (report.py's block) and findings
    (written by hand between BEGIN/END FINDINGS): a student predicts first, then times their own step."""
    chapter = CHAPTER.search(source)
    grade = f"python3 exercises/grade.py {chapter['number']} --bench" if chapter else "exercises/grade.py's --bench"
    text = FINDINGS.sub("", text)
    return MEASURED.sub(f"// Measured: left out here so that you predict first. On a GPU, `{grade}` times your\n"
                        "// step beside the solution's; the solution's figures are in the chapter's README.\n", text, count=1)


def make_stub(text: str, source: str) -> str:
    text = without_measurements(text, source)
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
    body = "".join(out)
    header = GIVEN_HEADER if body == text else STUB_HEADER
    return header.format(source=source, fingerprint=fingerprint(body)) + body


def fingerprint(body: str) -> str:
    return hashlib.sha256(body.encode(errors="surrogateescape")).hexdigest()[:12]


def is_edited(text: str) -> bool:
    """Whether an exercise file differs from what generate.py last wrote there (line endings
    aside: a checkout that turns them into CRLF has not edited anything)."""
    first, _, body = text.replace("\r\n", "\n").partition("\n")
    match = FINGERPRINT.match(first)
    return match is None or match["value"] != fingerprint(body)


def in_tree(path: pathlib.Path) -> str:
    """How a message names a path: relative to the folder holding solutions/ and exercises/."""
    return os.path.relpath(path, EXERCISES.parent)


def read_utf8(path: pathlib.Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise cli.ToolError(f"line {line}: byte 0x{data[error.start]:02x} is not UTF-8: save the file as UTF-8",
                            in_tree(path)) from None


def expected_exercises() -> dict:
    files = {}
    for path in sorted(SOLUTIONS.rglob("*")):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES:
            relative = path.relative_to(SOLUTIONS)
            files[relative] = make_stub(read_utf8(path), f"solutions/{relative.as_posix()}")
    return files


def exercise_text(relative: pathlib.Path) -> str | None:
    """The exercise as it is now (bytes that are not UTF-8 kept as they are), None if absent."""
    path = EXERCISES / relative
    if path.is_dir():
        raise cli.ToolError("is a folder where generate.py writes a file; nothing was written", in_tree(path))
    return path.read_bytes().decode(errors="surrogateescape") if path.exists() else None


def why_stale(relative: pathlib.Path, text: str | None) -> str:
    """Why exercises/RELATIVE is not what its solution generates, in words ("" for an orphan's)."""
    if text is None:
        return f"exercises/{relative} is missing"
    data = text.encode(errors="surrogateescape")
    try:
        data.decode()
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return (f"exercises/{relative}: line {line}: byte 0x{data[error.start]:02x} is not UTF-8, so it differs from "
                f"what solutions/{relative} generates")
    return f"exercises/{relative} differs from what solutions/{relative} generates"


def check_writable(relatives: list) -> None:
    """Fails, before anything is written, unless every one of these exercises can be written or
    removed: its folder is a folder (or can be made in one) that this user may write into."""
    for relative in relatives:
        folder = (EXERCISES / relative).parent
        while not folder.exists():
            folder = folder.parent
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            why = "is not a folder" if not folder.is_dir() else "this user cannot write into it"
            raise cli.ToolError(f"{why}, so exercises/{relative} cannot be written; nothing was written",
                                in_tree(folder))


def write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with cli.atomic_output(path, binary=True) as f:
        f.write(text.encode(errors="surrogateescape"))


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="only check that exercises/ is up to date")
    mode.add_argument("--force", action="store_true", help="replace edited exercises too, keeping a copy of each")
    args = parser.parse_args()
    try:
        expected = expected_exercises()
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    existing = {p.relative_to(EXERCISES) for p in EXERCISES.rglob("*")
                if p.is_file() and p.suffix in SOURCE_SUFFIXES}
    current = {r: exercise_text(r) for r in sorted(existing | expected.keys())}
    stale = sorted(r for r, text in expected.items() if current[r] != text)
    orphans = sorted(existing - expected.keys())
    if args.check:
        problems = [f"stale: {why_stale(name, current[name])}" for name in stale] + \
                   [f"orphan: exercises/{name} has no solution" for name in orphans]
        for problem in problems:
            print(problem)
        if problems:
            more = f" (and {len(problems) - 1} more, above)" if len(problems) > 1 else ""
            raise cli.ToolError(f"exercises/ is not up to date: {problems[0].partition(': ')[2]}{more}; run python3 exercises/generate.py "
                                "(it refuses to overwrite an edited exercise)")
        print(f"exercises/ is up to date ({len(expected)} files)")
        return 0
    edited = [r for r in stale + orphans if current[r] is not None and is_edited(current[r])]
    if edited and not args.force:
        for name in edited:
            print(f"error: exercises/{name} has been edited; it is left as it is", file=sys.stderr)
        print("error: nothing was written; if those edits may go, run exercises/generate.py --force: it keeps a "
              "copy of each edited file beside it first", file=sys.stderr)
        return 1
    check_writable(stale + orphans)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for relative in edited:
        target = EXERCISES / relative
        backup = target.with_name(f"{target.name}.edited-{stamp}")
        write(backup, current[relative])
        print(f"kept a copy of the edited exercises/{relative} as exercises/{backup.relative_to(EXERCISES)}")
    for relative in stale:
        write(EXERCISES / relative, expected[relative])
        print(f"wrote exercises/{relative}")
    for relative in orphans:
        (EXERCISES / relative).unlink()
        print(f"removed exercises/{relative}")
    return 0


if __name__ == "__main__":
    cli.run(main)
