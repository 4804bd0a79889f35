#!/bin/sh
# Builds etprof and runs the main job on a bundled sample: a QNN (Qualcomm NPU) ETDump of ten
# runs of the stories260k LLM and its .pte.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# ETPROF_TESTS=OFF: the demo needs only the build packages (python3, flatc... are test-only).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DETPROF_TESTS=OFF >/dev/null
cmake --build build
data=tests/data
./build/etprof summary "$data/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" \
    --pte "$data/upstream/stories260k_hybrid_llama_qnn.pte"
echo
echo "Next: build/etprof explain ... (same arguments) answers what these numbers mean."
