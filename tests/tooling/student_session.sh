#!/usr/bin/env bash
# A student's session, scripted, on a fresh clone of the course (CI runs it; a test of the course
# itself). It follows the README's Students section and checks what a student must be able to
# rely on:
#   1. the untouched stubs grade as "not started", one line per step, the naive step ok, in
#      every chapter;
#   2. a stub written correctly passes;
#   3. a missing __syncthreads() is caught by default;
#   4. an out-of-bounds write fails, the summary points at --asan, and --asan names the line;
#   5. the student's benchmark runs to the end with stubs unfinished;
#   6. nothing a student is told to run rewrites an edited exercise.
#   tests/tooling/student_session.sh [SOURCE_REPOSITORY]   (default: this checkout's committed HEAD)
set -euo pipefail
source_repo=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$source_repo" "$work/course"
cd "$work/course"

fail() { echo "student session FAILED: $*" >&2; exit 1; }
# grade ARGS...: runs the grader, keeps its output in $out and its exit status in $status.
grade() {
  status=0
  out=$(python3 exercises/grade.py "$@" 2>&1) || status=$?
  printf '%s\n' "$out" | sed 's/^/    | /'
}
expect() { grep -qE "$1" <<<"$out" || fail "expected /$1/ in the grader's output"; }

step01=exercises/01_transpose/01_coalesced.cu
step02=exercises/01_transpose/02_shared_tile.cu

echo "1. untouched stubs"
grade 1
((status == 1)) || fail "grading untouched stubs exited $status"
expect "^  00_naive +ok$"
expect "^  02_shared_tile +not started: edit $step02$"
expect "^  1 of [0-9]+ steps pass$"
(($(wc -l <<<"$out") <= 15)) || fail "the summary takes $(wc -l <<<"$out") lines"

echo "1b. every chapter's untouched stubs: each step fails cleanly or is given"
grade
((status == 1)) || fail "grading every chapter's untouched stubs exited $status"
if grep -E "CRASHED|TIMEOUT|NOT RUN|skipped|FAIL" <<<"$out"; then fail "an untouched stub crashed, hung or failed unclearly"; fi
(($(grep -cE "^  00_[a-z0-9_]+ +ok$" <<<"$out") == $(ls -d chapters/[0-9][0-9]_*/ | wc -l))) || fail "a step 00 (given complete) does not pass"

echo "2. one stub written (as its solution writes it)"
cp solutions/01_transpose/01_coalesced.cu "$step01"
grade 1 --step 1
((status == 0)) || fail "a correct step 01 did not pass"
expect "^  01_coalesced +ok$"

echo "3. step 02 with its barrier missing"
grep -v "__syncthreads();" solutions/01_transpose/02_shared_tile.cu >"$step02"
grade 1 --step 2
((status == 1)) || fail "a missing barrier passed"
expect "^  02_shared_tile +FAIL: edit $step02: .*first wrong element \[y=[0-9]+, x=[0-9]+\]"

echo "4. step 02 writing one row past the end of its output"
sed 's/if (out_row < cols \&\& out_col < rows)/if (out_row <= cols \&\& out_col < rows)/' \
  solutions/01_transpose/02_shared_tile.cu >"$step02"
grep -q "out_row <= cols" "$step02" || fail "the out-of-bounds edit did not apply"
grade 1 --step 2
((status == 1)) || fail "an out-of-bounds write passed"
expect "02_shared_tile +(FAIL|CRASHED): edit $step02: .*(wrote outside|out-of-bounds)"
expect "grade.py 1 --step 2 --asan names the line"
grade 1 --step 2 --asan
((status == 1)) || fail "an out-of-bounds write passed under ASan"
expect "02_shared_tile +CRASHED: edit $step02: heap-buffer-overflow at $step02:[0-9]+"

echo "5. the student's benchmark, step 02 set back to its stub, the later stubs unfinished"
git checkout -q -- "$step02"
bench_status=0
python3 exercises/grade.py 1 --bench >"$work/bench.txt" 2>&1 || bench_status=$?
grep -E "^(skipped|FAILED) |^00_naive|^01_coalesced|^error:" "$work/bench.txt" | sort | uniq -c | sed 's/^/    | /'
grep -qE "^01_coalesced +[0-9.]+ " "$work/bench.txt" || fail "the benchmark did not time the written step"
grep -qE "^Summary on " "$work/bench.txt" || fail "the benchmark did not run to its summary"
if grep -qE "Segmentation fault|core dumped|terminate called" "$work/bench.txt"; then fail "the benchmark crashed"; fi
((bench_status == 1)) || fail "the benchmark exited $bench_status with stubs that fail"

echo "6. the student's edits survive"
edited=$(sha256sum "$step01")
if python3 exercises/generate.py >"$work/generate.txt" 2>&1; then fail "generate.py overwrote edited exercises"; fi
grep -q "has been edited; it is left as it is" "$work/generate.txt" || fail "generate.py did not say why it refused"
[[ $(sha256sum "$step01") == "$edited" ]] || fail "an edited exercise was rewritten"
[[ -z $(git status --porcelain --untracked-files=all -- exercises | grep -v "^ M ") ]] || fail "exercises/ gained or lost files"

echo "student session passed"
