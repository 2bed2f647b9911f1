#!/usr/bin/env bash
# Probe 3: is step 05's time at weak 128^3 on four H100s fixed per process (per graph instance)?
# Fresh processes as threads, each timing 04 and 05 on 4 GPUs, with the driver's default number of
# hardware work queues a device, with 32, and with 1 (CUDA_DEVICE_MAX_CONNECTIONS).
set -u
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; nvidia-smi -L | grep -q H100 || { echo "not H100s: nothing run"; exit 0; }
start=$SECONDS
cmake --preset cuda >/dev/null && cmake --build build/cuda -j64 --target bench_multi_gpu >$OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
b=build/cuda/chapters/06_multi_gpu/bench_multi_gpu
f='^weak.*/(03_nccl|04_overlap|05_graph) x4$'
mkdir -p $OUT/runs
for setting in default 32 1; do
  n=8; [[ $setting == 1 ]] && n=3
  for i in $(seq 1 $n); do
    name=connections-$setting-$i
    if [[ $setting == default ]]; then e=(env -u CUDA_DEVICE_MAX_CONNECTIONS); else e=(env CUDA_DEVICE_MAX_CONNECTIONS=$setting); fi
    timeout 100 "${e[@]}" $b --weak=128 --strong=128 --steps=100 --repetitions=10 --gpus=4 --benchmark_filter="$f" \
      --benchmark_out=$OUT/runs/$name.json --benchmark_out_format=json >$OUT/runs/$name.txt 2>&1
    echo "$name (exit $?, at $((SECONDS - start)) s): $(grep -E '_median' $OUT/runs/$name.txt | sed -E 's/\x1b\[[0-9;]*m//g' | awk '{printf "%s %s %s | ", $4, $5, $6}')"
  done
done
tar czf $OUT/runs.tgz -C $OUT runs && rm -rf $OUT/runs
echo "done after $((SECONDS - start)) s"
