#!/usr/bin/env bash
# Probe 2: the host's time to enqueue a step (steps 04 and 05) at weak 128^3, threads against four
# MPI processes, on four H100s (host_launch_probe.patch).
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi -L; nvidia-smi -L | grep -q H100 || { echo "not H100s: nothing run"; exit 0; }
git apply chapters/06_multi_gpu/results/h100-80gb-hbm3/graph-small-2026-11-28/host_launch_probe.patch || exit 1
start=$SECONDS
cmake --preset cuda >/dev/null && cmake --build build/cuda -j64 --target bench_multi_gpu >$OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
echo "built after $((SECONDS - start)) s; $(nproc) CPUs"
b=build/cuda/chapters/06_multi_gpu/bench_multi_gpu
f='^weak.*/(04_overlap|05_graph) x'
mkdir -p $OUT/runs
for i in 1 2; do
  CH06_PROBE_HOST=1 timeout 120 $b --weak=128 --strong=128 --steps=100 --repetitions=20 --gpus=4 --benchmark_filter="$f" \
    --benchmark_out=$OUT/runs/threads-$i.json --benchmark_out_format=json >$OUT/runs/threads-$i.txt 2>&1; echo "threads $i: exit $?"
  CH06_PROBE_HOST=1 timeout 120 mpirun -np 4 $b --weak=128 --strong=128 --steps=100 --repetitions=20 --benchmark_filter="$f" \
    --benchmark_out=$OUT/runs/mpi4-$i.json --benchmark_out_format=json >$OUT/runs/mpi4-$i.txt 2>&1; echo "mpi4 $i: exit $?"
done
for f in $OUT/runs/*.txt; do
  echo "== $(basename $f)"
  grep -E "_median" $f | sed -E 's/\/iterations:1\/repeats:[0-9]+\/manual_time_median//; s/\x1b\[[0-9;]*m//g' | awk '{print $1,$2,$3,$4,$5,$6,$7}'
  grep '^probe' $f | python3 -c '
import sys, statistics as st, collections as c
e=c.defaultdict(list); t=c.defaultdict(list)
for l in sys.stdin:
    w=l.split(); k=(w[1], int(w[5].rstrip(":"))); e[k].append(float(w[7])); t[k].append(float(w[10]))
for k in sorted(e): print(f"  step {k[0]} on {k[1]} ranks: enqueue median {st.median(e[k]):.2f} us/step (max {max(e[k]):.2f}), total median {st.median(t[k]):.2f} (n={len(e[k])})")'
done
tar czf $OUT/runs.tgz -C $OUT runs && rm -rf $OUT/runs
echo "done after $((SECONDS - start)) s"
