#!/usr/bin/env bash
# A student's session, scripted, on a fresh clone of the course (CI runs it; a test of the course
# itself). It follows the README's Students section and checks what a student must be able to
# rely on:
#   1. the untouched stubs grade as "not started", one line per step, the naive step ok, in
#      every chapter;
#   2. a stub written correctly passes;
#   3. a missing __syncthreads() is caught by default;
#   4. an out-of-bounds write fails, the summary points at --asan, and --asan names the line;
#   5. each kind of bug the GPU would show fails on the CPU too, naming the file: a `+=` into a
#      stencil's halo, a whole vector stored past a row's end, a read past the end of a buffer,
#      an asynchronous copy read before a wait covers it;
#   6. the student's benchmark skips the steps not started and exits 0;
#   7. nothing a student is told to run rewrites an edited exercise.
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

# bug CHAPTER STEP FILE OLD NEW: writes the step as its solution does, with OLD replaced by NEW,
# grades it, and expects a FAIL or CRASHED line that names the file.
bug() {
  local chapter=$1 step=$2 file=$3 old=$4 new=$5
  python3 - "solutions/$file" "exercises/$file" "$old" "$new" <<'PY' || fail "the bug could not be planted in $file"
import sys
source, target, old, new = sys.argv[1:]
text = open(source).read()
assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {source}"
open(target, "w").write(text.replace(old, new))
PY
  grade "$chapter" --step "$step"
  ((status == 1)) || fail "the bug in $file passed"
  expect "^  [0-9a-z_]+ +(FAIL|CRASHED): edit exercises/$file: "
  git checkout -q -- "exercises/$file"
}

echo "5a. step 02 of chapter 3 adding into the halo (x > dx for x >= dx in its += pass)"
bug 3 2 03_seismic/02_sliding_window.cu "  if (x >= g.dx || y >= g.dy) return;
  const int z_begin" "  if (x > g.dx || y >= g.dy) return;
  const int z_begin"
expect "outside the interior written"

echo "5b. step 03 of chapter 3 storing a whole vector at the end of a row (y pass), step 02 written"
cp solutions/03_seismic/02_sliding_window.cu exercises/03_seismic/02_sliding_window.cu  # step 03 uses its z pass
bug 3 3 03_seismic/03_vectors.cu "  store_inside<kVec>(target, sum, x0, g.dx);
  // STUB: (void)in; (void)out; (void)g;
  // END SOLUTION
}

// out += Dzz(in): step 02's window" "  *reinterpret_cast<Vec<kVec>*>(target) = sum;
}

// out += Dzz(in): step 02's window"
expect "outside the interior written"
git checkout -q -- exercises/03_seismic/02_sliding_window.cu

echo "5c. step 05 of chapter 4 reading one atom past the end (<= for <)"
bug 4 5 04_coulomb/05_shared_atoms.cu "if (base + t < count) tile[t] = atoms[base + t];" "if (base + t <= count) tile[t] = atoms[base + t];"
expect "out-of-bounds"

echo "5d. step 08 of chapter 3 waiting one group of copies too few"
bug 3 8 03_seismic/08_async_ring.cu "    course::wait_copies<kStages - 2>();
    __syncthreads();" "    course::wait_copies<kStages - 1>();
    __syncthreads();"
expect "first wrong element"

echo "6. the student's benchmark, step 02 set back to its stub, the later stubs not started"
git checkout -q -- "$step02"
bench_status=0
python3 exercises/grade.py 1 --bench >"$work/bench.txt" 2>&1 || bench_status=$?
grep -E "skipped|FAILED|^00_naive|^01_coalesced|^error:|verdict" "$work/bench.txt" | sed 's/^/    | /'
grep -qE "^  02_shared_tile +skipped: not started$" "$work/bench.txt" || fail "a step not started was not skipped"
grep -qE "^01_coalesced +[0-9.]+ " "$work/bench.txt" || fail "the benchmark did not time the written step"
grep -qE "^Summary on " "$work/bench.txt" || fail "the benchmark did not run to its summary"
grep -qE "^no speed verdict: CPU times are not GPU times" "$work/bench.txt" || fail "no word on the speed verdict"
if grep -qE "FAILED|Segmentation fault|core dumped|terminate called" "$work/bench.txt"; then fail "the benchmark failed or crashed"; fi
((bench_status == 0)) || fail "the benchmark exited $bench_status with every written step right"

echo "7. the student's edits survive"
edited=$(sha256sum "$step01")
if python3 exercises/generate.py >"$work/generate.txt" 2>&1; then fail "generate.py overwrote edited exercises"; fi
grep -q "has been edited; it is left as it is" "$work/generate.txt" || fail "generate.py did not say why it refused"
[[ $(sha256sum "$step01") == "$edited" ]] || fail "an edited exercise was rewritten"
[[ -z $(git status --porcelain --untracked-files=all -- exercises | grep -v "^ M ") ]] || fail "exercises/ gained or lost files"

echo "student session passed"
