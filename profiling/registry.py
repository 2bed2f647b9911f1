"""A chapter's registered steps, read from chapters/NN_name/steps.hpp as cmake/Chapter.cmake reads
them: each row STEP(NN_file, variant, ...) is a file's taught variant, each EXPERIMENT(NN_file,
variant, ...) another variant of the same file, tested like it and benchmarked with --all. A
benchmark names a step's case "NN_variant" (course::StepSource::id()), so the ids tell the tables
which of a recording's cases are experiments.

    profiling/registry.py chapters/NN_name    prints the chapter's rows, experiments marked
"""
import pathlib
import re
from dataclasses import dataclass

import cli

ROW = re.compile(r"^[ \t]*(STEP|EXPERIMENT)\((\d\d_[a-z0-9_]+),\s*([a-z0-9_]+)\s*[,)]", re.M)
LIST = re.compile(r"^#define (\w+)\((STEP(?:, EXPERIMENT)?)\)", re.M)


@dataclass(frozen=True)
class Row:
    file: str         # "08_async_ring"
    variant: str      # "async_ring_deep"
    experiment: bool
    table: str        # the X-macro that holds it, "CH03_STEPS"

    @property
    def id(self) -> str:
        """The name tests and benchmarks give the step: "08_async_ring_deep"."""
        return self.file[:3] + self.variant


def rows(chapter) -> list:
    """Every row of the chapter's steps.hpp, in order; a ToolError when it has none."""
    path = pathlib.Path(chapter) / "steps.hpp"
    text = cli.read_text(path, "the chapter's registry of steps")
    found, table = [], ""
    for line in text.splitlines():
        if macro := LIST.match(line):
            table = macro.group(1)
        elif row := ROW.match(line):
            found.append(Row(row.group(2), row.group(3), row.group(1) == "EXPERIMENT", table))
    if not found:
        raise cli.ToolError("registers no step (rows STEP(NN_file, variant, ...))", path)
    return found


def experiments(chapter) -> set:
    """The ids of the chapter's experiments."""
    return {row.id for row in rows(chapter) if row.experiment}


def problems(chapter) -> list:
    """What is wrong with the registry: a file with no taught variant, or with two in one list."""
    found = []
    taught = {}
    for row in rows(chapter):
        if not row.experiment:
            taught.setdefault((row.table, row.file), []).append(row.variant)
    for (table, file), variants in taught.items():
        if len(variants) > 1:
            found.append(f"{table} teaches {len(variants)} variants of {file} ({', '.join(variants)}): "
                         "one is a STEP( row, the others EXPERIMENT( rows")
    for row in rows(chapter):
        if not any(key[1] == row.file for key in taught):
            found.append(f"{row.file} has only experiments: make the variant its lesson teaches a STEP( row")
    return list(dict.fromkeys(found))


def main() -> int:
    parser = cli.ArgumentParser(description="Prints a chapter's registered steps, experiments marked.")
    parser.add_argument("chapter", type=pathlib.Path)
    args = parser.parse_args()
    for row in rows(args.chapter):
        print(f"{row.id:<60} {'experiment' if row.experiment else 'taught'}")
    for problem in problems(args.chapter):
        print(f"error: {problem}")
    return 1 if problems(args.chapter) else 0


if __name__ == "__main__":
    cli.run(main)
