#!/usr/bin/env bash
# Probe: step 05 against step 04 at weak 128^3 on four H100s (1.83x slower in the recording).
# Reruns steps 03-05 and the references three times, at 20/100/500 steps a run, as threads and as
# four MPI processes, and step 05 instantiated without node priorities (graph_priority_probe.patch).
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi -L; nvidia-smi -L | grep -q H100 || { echo "not H100s: nothing run"; exit 0; }
git apply chapters/06_multi_gpu/results/h100-80gb-hbm3/graph-small-2026-11-28/graph_priority_probe.patch || exit 1
start=$SECONDS
cmake --preset cuda >/dev/null && cmake --build build/cuda -j64 --target bench_multi_gpu >$OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
echo "built after $((SECONDS - start)) s"
b=build/cuda/chapters/06_multi_gpu/bench_multi_gpu
f='^weak.*/(03_nccl|04_overlap|05_graph|compute only|split compute only|exchange only \(NCCL\)) x'
mkdir -p $OUT/runs
run() {  # NAME ARGS...
  local name=$1; shift
  echo "== $name (at $((SECONDS - start)) s)"
  timeout 120 "$@" --benchmark_out="$OUT/runs/$name.json" --benchmark_out_format=json >"$OUT/runs/$name.txt" 2>&1
  echo "exit $?"; grep -E "_median" "$OUT/runs/$name.txt" | grep -E " x[124]" | sed -E 's/\/iterations:1\/repeats:[0-9]+\/manual_time_median//' | sed -E 's/\x1b\[[0-9;]*m//g' | awk '{print $1,$2,$3,$4,$5,$6,$7}'
}
for i in 1 2 3; do
  run threads-100-$i $b --all --weak=128 --strong=128 --steps=100 --repetitions=20 --benchmark_filter="$f"
done
for s in 20 500; do
  run threads-$s $b --all --weak=128 --strong=128 --steps=$s --repetitions=20 --gpus=4 --benchmark_filter="$f"
done
run mpi4-100 mpirun -np 4 $b --all --weak=128 --strong=128 --steps=100 --repetitions=20 --benchmark_filter="$f"
for i in 1 2; do
  CH06_PROBE_NO_PRIORITY=1 run threads-100-nopriority-$i $b --all --weak=128 --strong=128 --steps=100 --repetitions=20 --gpus=4 --benchmark_filter="$f"
done
nvidia-smi topo -m > $OUT/runs/topology.txt
tar czf $OUT/runs.tgz -C $OUT runs && rm -rf $OUT/runs
echo "done after $((SECONDS - start)) s"
