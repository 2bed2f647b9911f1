#!/usr/bin/env bash
# Probe 5: probe-queues-128.sh's question with the settings taken in turn (default, 32, 1, default,
# ...), so that a slow spell of the machine cannot fall on one setting alone. Fresh processes as
# threads, each timing steps 03-05 on 4 GPUs at weak 128^3, 10 runs of 100 steps.
set -u
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; nvidia-smi -L | grep -q H100 || { echo "not H100s: nothing run"; exit 0; }
start=$SECONDS
cmake --preset cuda >/dev/null && cmake --build build/cuda -j64 --target bench_multi_gpu >$OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
b=build/cuda/chapters/06_multi_gpu/bench_multi_gpu
f='^weak.*/(03_nccl|04_overlap|05_graph) x4$'
mkdir -p $OUT/runs
for i in $(seq 1 "${ROUNDS:-7}"); do
  for setting in default 32 1; do
    name=connections-$setting-$i
    if [[ $setting == default ]]; then e=(env -u CUDA_DEVICE_MAX_CONNECTIONS); else e=(env CUDA_DEVICE_MAX_CONNECTIONS=$setting); fi
    timeout 60 "${e[@]}" $b --weak=128 --strong=128 --steps=100 --repetitions=10 --gpus=4 --benchmark_filter="$f" \
      --benchmark_out=$OUT/runs/$name.json --benchmark_out_format=json >$OUT/runs/$name.txt 2>&1
    echo "$name (exit $?, at $((SECONDS - start)) s): $(grep -E '_median' $OUT/runs/$name.txt | sed -E 's/\x1b\[[0-9;]*m//g' | awk '{printf "%s %s | ", $4, $6}')"
  done
done
tar czf $OUT/runs.tgz -C $OUT runs && rm -rf $OUT/runs
echo "done after $((SECONDS - start)) s"
