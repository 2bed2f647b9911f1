#!/usr/bin/env python3
"""The environment variables the course's programs read, checked before anything is built, so
that a wrong one is said in one line at once, not after minutes of building: the course's own
(common/src/numbers.cpp refuses the same values when a program starts) and GoogleTest's that
would make a test program run less than its tests and still pass (common/src/gtest_main.cpp
refuses them too).

    python3 profiling/environment.py     exit 2 and one line when a variable is wrong, else nothing

exercises/grade.py, tests/run_all.sh, profiling/benchmark_all.sh and profiling/validate_gpu.sh
check it first.
"""
import os
import re
import sys

# The course's variables and the whole numbers they take.
WHOLE_NUMBERS = {
    "COURSE_SEED": (0, 2**64 - 1),
    "COURSE_CPU_SHUFFLE": (0, 2**64 - 1),
    "COURSE_CPU_THREADS": (1, 1024),
    "COURSE_DEVICE_MEMORY_MB": (1, 2**40),
}
# GoogleTest's, which ctest passes on to every test program: a run of none or of a part is no pass.
RUN_LESS = {
    "GTEST_REPEAT": lambda value: value.strip() == "0" and "runs no test, so every step would pass: unset it",
    "GTEST_TOTAL_SHARDS": lambda value: "runs a part of each program's tests, which would pass a step on a part: "
                                        "unset it and GTEST_SHARD_INDEX",
}


def problem(environ=os.environ) -> str | None:
    """What is wrong with the environment, in one line, or None."""
    for name, (low, high) in WHOLE_NUMBERS.items():
        value = environ.get(name)
        if value is not None and not (re.fullmatch(r"[0-9]+", value) and low <= int(value) <= high):
            return f"{name}='{value}': it takes a whole number from {low} to {high}; unset it or fix it"
    for name, why in RUN_LESS.items():
        if (value := environ.get(name)) is not None and (said := why(value)):
            return f"{name}={value} {said}"
    return None


if __name__ == "__main__":
    if found := problem():
        print(f"error: {found}", file=sys.stderr)
        sys.exit(2)
