#!/usr/bin/env bash
# Probe 4: do the hardware work queues a device (CUDA_DEVICE_MAX_CONNECTIONS, default 8) change
# steps 04 and 05 at weak 512^3 and strong 1024^3 on four H100s? Fresh processes as threads, every
# case on 4 GPUs (--all), 20 steps a run, 10 repetitions, alternating default and 32.
set -u
export NCCL_NVLS_ENABLE=0
nvidia-smi -L; nvidia-smi -L | grep -q H100 || { echo "not H100s: nothing run"; exit 0; }
start=$SECONDS
cmake --preset cuda >/dev/null && cmake --build build/cuda -j64 --target bench_multi_gpu >$OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
b=build/cuda/chapters/06_multi_gpu/bench_multi_gpu
mkdir -p $OUT/runs
for i in 1 2 3 4; do
  for setting in default 32; do
    name=connections-$setting-$i
    if [[ $setting == default ]]; then e=(env -u CUDA_DEVICE_MAX_CONNECTIONS); else e=(env CUDA_DEVICE_MAX_CONNECTIONS=$setting); fi
    timeout 150 "${e[@]}" $b --all --weak=512 --strong=1024 --steps=20 --repetitions=10 --gpus=4 --benchmark_filter='x4$' \
      --benchmark_out=$OUT/runs/$name.json --benchmark_out_format=json >$OUT/runs/$name.txt 2>&1
    echo "== $name (exit $?, at $((SECONDS - start)) s)"
    grep -E '_median' $OUT/runs/$name.txt | grep -E '04_overlap|05_graph|split compute|exchange only \(NCCL|peer copies x' | sed -E 's/\x1b\[[0-9;]*m//g; s/\/iterations:1\/repeats:10\/manual_time_median//' | awk '{print $1,$2,$3,$4,$5,$6,$7,$8}'
  done
done
tar czf $OUT/runs.tgz -C $OUT runs && rm -rf $OUT/runs
echo "done after $((SECONDS - start)) s"
