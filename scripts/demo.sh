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
# The program's kv_forward and prefill_forward share one QNN context binary and the same
# instructions, and this dump logged no tensors: the files cannot tell which method ran, so we
# say it (tests/data/MANIFEST.md: the run was made with --method_name kv_forward). Without
# --method, every view reports the method as ambiguous and names both.
./build/etprof summary "$data/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" \
    --pte "$data/upstream/stories260k_hybrid_llama_qnn.pte" --method kv_forward
echo
echo "Next: build/etprof explain ... (same arguments) answers what these numbers mean."
