#!/usr/bin/env bash
# A student's session on an NVIDIA GPU, scripted: what the speed verdict says of steps known to be
# right and fast, of a step not started, and of a step made slow on purpose. CI has no GPU; this
# runs where one is (the course's recorded output: exercises/speed_verdicts/).
#   1. every chapter's solutions copied in as the student's own steps: `grade.py N --bench
#      --preset student-cuda` gives every step a verdict, and each must be "ok";
#   2. chapter 1 with step 07 set back to its stub and step 02's padded tile unpadded again (its
#      shared memory back to 32 banks on one column): 07 skipped, 02_tile_padded "slow";
#   3. `grade.py 1 --step 2 --profile`: that step's traffic beside the solution's.
#   tests/tooling/student_gpu_session.sh [SOURCE_FOLDER [CHAPTER...]]
# SOURCE_FOLDER defaults to this checkout; part 1 grades the CHAPTERs given (by number), or every
# chapter, or none with the single argument "-" (parts 2 and 3 alone: a run that must be short).
# It works on a copy of the course (build/ left out), so nothing here touches your exercises.
set -euo pipefail
source_tree=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
shift $(($# > 0))
wanted=("$@")
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "error: no NVIDIA GPU here" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/course"
tar -C "$source_tree" --exclude=./build --exclude=./.git -cf - . | tar -C "$work/course" -xf -
cd "$work/course"
fail() { echo "student GPU session FAILED: $*" >&2; exit 1; }
# bench N...: grades chapter N's speed, keeps the output in $out and its exit status in $status.
bench() {
  status=0
  out=$(python3 exercises/grade.py "$@" --preset student-cuda 2>&1) || status=$?
  printf '%s\n' "$out"
}

echo "1. every chapter's solutions as the student's steps"
for folder in solutions/[0-9][0-9]_*/; do
  chapter=$(basename "$folder")
  if ((${#wanted[@]})) && [[ " ${wanted[*]} " != *" $((10#${chapter:0:2})) "* ]]; then continue; fi
  cp "$folder"*.cu "exercises/$chapter/"
  bench "$((10#${chapter:0:2}))" --bench
  ((status == 0)) || fail "chapter $chapter: the solution's own steps did not pass their verdict"
  grep -qE "^    [0-9]{2}_[a-z0-9_]+ +ok, " <<<"$out" || fail "chapter $chapter: no verdict printed"
  if grep -E "^    [0-9]{2}_[a-z0-9_]+ +(slow|broken)" <<<"$out"; then fail "chapter $chapter: a solution's step was not ok"; fi
done

echo "2. chapter 1: step 07 not started, step 02's padded tile unpadded"
cp solutions/01_transpose/*.cu exercises/01_transpose/
python3 - <<'PY'
import pathlib, sys
sys.path.insert(0, "exercises")
import generate
stub = generate.make_stub(pathlib.Path("solutions/01_transpose/07_split_rows.cu").read_text(),
                          "solutions/01_transpose/07_split_rows.cu")
pathlib.Path("exercises/01_transpose/07_split_rows.cu").write_text(stub)
PY
sed -i 's/launch_tile(transpose_tile_kernel<1>, in, out, rows, cols);/launch_tile(transpose_tile_kernel<0>, in, out, rows, cols);/' \
  exercises/01_transpose/02_shared_tile.cu
grep -q "transpose_tile_kernel<0>, in, out, rows, cols);" exercises/01_transpose/02_shared_tile.cu || fail "the slowing edit did not apply"
bench 1 --bench
grep -qE "^  07_split_rows +skipped: not started$" <<<"$out" || fail "the stub was not skipped"
grep -qE "^    02_tile_padded +slow, " <<<"$out" || fail "the unpadded tile was not judged slow"

echo "3. the slowed step's traffic beside the solution's"
bench 1 --step 2 --profile
((status == 0)) || fail "--profile failed"
echo "student GPU session passed"
