#!/usr/bin/env python3
"""Writes a chapter's measured figures from its committed results into its lesson, its notes and
its step files: each table between `<!-- BEGIN GENERATED: NAME -->` and
`<!-- END GENERATED: NAME -->` in the lesson (README.md) or the record (NOTES.md), wherever its
markers are, and in each step file of solutions/NN_name/ the block between `// BEGIN MEASURED`
and `// END MEASURED` (that step's cases, experiments marked, from the same runs).

    profiling/report.py chapters/NN_name          rewrite them
    profiling/report.py --check chapters/NN_name  exit 1 if any differs from results/

The chapter keeps one folder of results per GPU, results/GPU/ (results.py), each with bench.json
and ceilings.json. Its tables come from chapters/NN_name/tables.py, a module with
`tables(results) -> {name: markdown}` for one GPU's results, or, without one, from
report_tables.default_tables. With several GPUs recorded, each table is made for each GPU and
they are set side by side: a column per GPU for every column of the table, each GPU's figures
against its own ceilings (or, where the tables differ in shape, one after the other under each
GPU's name); each step's block lists every GPU. After step files change, run
exercises/generate.py so that the stubs carry the same figures.
"""
import argparse
import importlib.util
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cli  # noqa: E402
import report_tables  # noqa: E402
import results  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MEASURED = re.compile(r"^// BEGIN MEASURED.*?^// END MEASURED\n", re.S | re.M)


def load_tables_module(chapter: pathlib.Path):
    """The chapter's tables.py as a module, or None when it has none."""
    module_path = chapter / "tables.py"
    if not module_path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"tables_{chapter.resolve().name}", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gpu_tables(chapter: pathlib.Path, module, res: results.ChapterResults) -> dict:
    """One GPU's tables; results that lack what a table reads are one line naming the folder."""
    try:
        return module.tables(res) if module else report_tables.default_tables(res)
    except (cli.ToolError, OSError):
        raise
    except Exception as error:  # results that lack what the chapter's tables read (another run's sizes)
        what = f"{type(error).__name__}: {error}" if str(error) else f"{type(error).__name__} (something it reads is missing)"
        raise cli.ToolError(f"cannot make its tables from {res.folder}: {what}",
                            chapter / "tables.py" if module else "profiling/report_tables.py") from error


BY_GPU = "_by_gpu"  # a table named so compares GPU models: it names its model even when only one made it


def chapter_tables(chapter: pathlib.Path, runs: list) -> dict:
    """{name: markdown}: each table with every GPU's figures side by side."""
    module = load_tables_module(chapter)
    per_gpu = [gpu_tables(chapter, module, res) for res in runs]
    names = dict.fromkeys(name for tables in per_gpu for name in tables)
    return {name: side_by_side([(res, tables[name]) for res, tables in zip(runs, per_gpu) if name in tables],
                               always_named=name.endswith(BY_GPU))
            for name in names}


def split_segments(markdown: str) -> list:
    """The markdown as ("text", lines) and ("table", rows of cells) segments, in order."""
    segments = []
    for line in markdown.split("\n"):
        kind = "table" if line.startswith("|") else "text"
        item = [cell.strip() for cell in line.strip().strip("|").split("|")] if kind == "table" else line
        if segments and segments[-1][0] == kind:
            segments[-1][1].append(item)
        else:
            segments.append((kind, [item]))
    return segments


def blank_edges(lines: list) -> tuple:
    """(how many blank lines lead, the lines between, how many trail)."""
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    end = max((i + 1 for i, line in enumerate(lines) if line.strip()), default=start)
    return start, lines[start:end], len(lines) - end


def table_lines(rows: list) -> list:
    """Rows of cells back to markdown; the second row holds the alignment specs."""
    return ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(rows[1]) + "|"] + ["| " + " | ".join(r) + " |" for r in rows[2:]]


WIDEST_SIDE_BY_SIDE = 4  # value columns a table may have for a column per GPU; wider ones get a row per GPU


def merged_table(tables: list, labels: list) -> list | None:
    """One table from each GPU's version of it, rows matched by their leading cells (as few as
    tell every row apart): a narrow table gets every other column once per GPU ("median ms
    (H200)"), or once where every GPU fills it alike, a wider one a row per GPU under each row's
    leading cells (a "GPU" column after them), so the GPUs' figures stand together either way. None when the versions differ in
    their header, or no leading cells tell the rows apart."""
    header, align = tables[0][0], tables[0][1]
    if any(table[0] != header or table[1] != align for table in tables):
        return None
    width = next((k for k in range(1, len(header))
                  if all(len({tuple(row[:k]) for row in table[2:]}) == len(table) - 2 for table in tables)), None)
    if width is None:
        return None
    keyed = [{tuple(row[:width]): row for row in table[2:]} for table in tables]
    keys = list(dict.fromkeys(tuple(row[:width]) for table in tables for row in table[2:]))
    values = range(width, len(header))
    if len(values) <= WIDEST_SIDE_BY_SIDE:
        # A column every GPU fills alike (the lesson's words beside the measurements) is shown once.
        shared = {c for c in values if all(len({rows_of[key][c] for rows_of in keyed if key in rows_of}) == 1
                                           and all(key in rows_of for rows_of in keyed) for key in keys)}
        per_gpu = lambda c: [None] if c in shared else labels  # noqa: E731
        rows = [header[:width] + [header[c] if label is None else f"{header[c]} ({label})" for c in values for label in per_gpu(c)],
                align[:width] + [align[c] for c in values for _ in per_gpu(c)]]
        for key in keys:
            rows.append(list(key) + [keyed[0][key][c] if c in shared else rows_of[key][c] if key in rows_of else "—"
                                     for c in values for rows_of in ([None] if c in shared else keyed)])
    else:
        rows = [header[:width] + ["GPU"] + header[width:], align[:width] + ["---"] + align[width:]]
        for key in keys:
            present = [(label, rows_of[key]) for label, rows_of in zip(labels, keyed) if key in rows_of]
            rows += [(list(key) if index == 0 else [""] * width) + [label] + row[width:]
                     for index, (label, row) in enumerate(present)]
    return table_lines(rows)


def gpu_labels(runs: list) -> list:
    """What the tables call each GPU: the first word of its name ("H100", "H200") when that tells
    them apart, else the whole name without the vendor ("H100 80GB HBM3")."""
    short = [res.label.split()[0] for res in runs]
    return short if len(set(short)) == len(short) else [res.label for res in runs]


def side_by_side(parts: list, always_named: bool = False) -> str:
    """Each GPU's version of a table (parts: (results, markdown)) as one markdown: the tables
    merged column by column, text that differs given once per GPU under its name; versions of
    different shapes one after the other. One GPU's is returned as it is, or under its GPU's name
    when `always_named`."""
    if len(parts) == 1:
        return f"**{gpu_labels([parts[0][0]])[0]}**\n\n{parts[0][1]}" if always_named else parts[0][1]
    labels = gpu_labels([res for res, _ in parts])
    split = [split_segments(markdown) for _, markdown in parts]
    stacked = "\n\n".join(f"**{label}**\n\n{markdown}" for label, (_, markdown) in zip(labels, parts))
    if any([kind for kind, _ in segments] != [kind for kind, _ in split[0]] for segments in split):
        return stacked
    lines = []
    for pieces in zip(*split):
        kind, contents = pieces[0][0], [content for _, content in pieces]
        if kind == "table":
            merged = merged_table(contents, labels)
            if merged is None:
                return stacked
            lines += merged
        elif all(content == contents[0] for content in contents):
            lines += contents[0]
        else:  # each GPU's text, its first line headed by the GPU's name
            leading, _, trailing = blank_edges(contents[0])
            lines += [""] * leading
            for index, (label, text) in enumerate(zip(labels, contents)):
                _, body, _ = blank_edges(text)
                if body:
                    lines += ([""] if index else []) + [f"{label}: {body[0]}"] + body[1:]
            lines += [""] * trailing
    return "\n".join(lines)


def source_line(res: results.ChapterResults) -> str:
    return f"commit {res.context['commit']}, {res.context['date'][:10]}"


def generated(chapter: pathlib.Path, runs: list) -> dict:
    if len(runs) == 1:
        where = f"results/ ({source_line(runs[0])})"
    else:
        where = " and ".join(f"results/{res.folder.name}/ ({source_line(res)})" for res in runs)
    source = f"<!-- generated by profiling/report.py from {where} -->"
    return {name: f"{source}\n{table}" for name, table in chapter_tables(chapter, runs).items()}


def markers(name: str):
    return re.compile(rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)", re.S)


def fill(documents: dict, tables: dict) -> dict:
    """{path: text} of the chapter's documents (its README.md, and NOTES.md when it has one) with
    each table written between its markers, in whichever documents hold them; a table whose
    markers none holds is a ToolError."""
    documents = dict(documents)
    for name, table in tables.items():
        holders = [path for path, text in documents.items() if markers(name).search(text)]
        if not holders:
            raise cli.ToolError(f"has no markers for the '{name}' table (<!-- BEGIN GENERATED: {name} --> ... "
                                f"<!-- END GENERATED: {name} -->)", " or ".join(str(path) for path in documents))
        for path in holders:
            documents[path] = markers(name).sub(lambda m: m.group(1) + table + "\n" + m.group(2), documents[path])
    return documents


def case_lines(res: results.ChapterResults, number: str, indent: str) -> list:
    """One line per case of step file `number` ("06") and group: time and every rate."""
    cases = [c for c in res.cases if c.is_step and c.name[:2] == number]
    if not cases:
        return [f"//{indent}not measured yet"]
    name_width = max(len(c.name) for c in cases)
    group_width = max(len(c.group) for c in cases)
    run = f" ({res.context['steps']} time steps)" if res.context.get("steps") else ""  # chapters 5 and 6 time runs of steps
    lines = []
    for c in cases:
        cells = [f"{c.median_ms:.4f} ms{run}"] + (["an experiment"] if c.experiment else [])
        for unit in report_tables.units_of([c]):
            cells.append(f"{c.rate(unit):.0f} {unit}/s")
            if unit in results.CEILINGS:
                cells[-1] += f" ({c.of_ceiling(unit, res.ceilings):.3f} {results.CEILINGS[unit][1]})"
        lines.append(f"//{indent}{c.name:<{name_width}}  {c.group:<{group_width}}  " + ", ".join(cells))
    return lines


def measured_block(runs: list, number: str) -> str:
    """The figures of the cases of step file `number` ("06") on every GPU recorded."""
    if len(runs) == 1:
        lines = [f"// BEGIN MEASURED by profiling/report.py from the chapter's results/ "
                 f"({runs[0].gpu}, {source_line(runs[0])}):"] + case_lines(runs[0], number, "   ")
    else:
        lines = ["// BEGIN MEASURED by profiling/report.py from the chapter's results/, per GPU:"]
        for res in runs:
            lines += [f"//   {res.gpu} ({source_line(res)}):"] + case_lines(res, number, "     ")
    return "\n".join(lines) + "\n// END MEASURED\n"


def updated_step_files(chapter: pathlib.Path, runs: list) -> dict:
    """{path: new text} for every step file of the chapter whose measured block differs."""
    changed = {}
    for path in sorted((ROOT / "solutions" / chapter.resolve().name).glob("[0-9][0-9]_*.cu")):
        text = path.read_text()
        if not MEASURED.search(text):
            raise cli.ToolError("has no '// BEGIN MEASURED' ... '// END MEASURED' block in its header",
                                path.relative_to(ROOT))
        new = MEASURED.sub(lambda _: measured_block(runs, path.name[:2]), text, count=1)
        if new != text:
            changed[path] = new
    return changed


def main() -> int:
    parser = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("chapter", type=pathlib.Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    runs = results.load_chapter(args.chapter)
    documents = {args.chapter / "README.md": cli.read_text(args.chapter / "README.md", "the chapter's lesson")}
    if (args.chapter / "NOTES.md").exists():
        documents[args.chapter / "NOTES.md"] = cli.read_text(args.chapter / "NOTES.md", "the chapter's notes")
    filled = fill(documents, generated(args.chapter, runs))
    updated = {path: text for path, text in filled.items() if text != documents[path]}
    updated |= updated_step_files(args.chapter, runs)
    return write_or_check(updated, args.check, f"profiling/report.py {args.chapter}",
                          f"{args.chapter}: README tables and step headers match results/")


def write_or_check(updated: dict, check: bool, command: str, up_to_date: str) -> int:
    """Writes each {path: text} whole, or with `check` says which are stale (exit 1) without writing."""
    if check:
        for path in updated:
            print(f"{path}: its generated figures are out of date; run {command}")
        if not updated:
            print(up_to_date)
        return 1 if updated else 0
    for path, text in updated.items():
        with cli.atomic_output(path) as f:
            f.write(text)
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    cli.run(main)
