#!/bin/sh
# make_release_snapshot.sh COMMIT [OUTDIR] - regenerates the release reference outputs
# (tests/data/release-0.1.0/ for COMMIT 54cb14b, "release 0.1.0"): builds etprof at COMMIT in a
# temporary git worktree, runs every case of tests/tools/release_cases.txt in tests/data (paths
# relative, so the JSON "file" members do not depend on the checkout) and writes
# NAME.json.gz and NAME.csv.gz (output, exit code in NAME.rc) to OUTDIR. The test
# tests/test_release_json.py (ctest release_json) compares today's outputs with them.
set -eu
COMMIT=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${2:-$ROOT/tests/data/release-0.1.0}
TMP=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$TMP/src" >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
git -C "$ROOT" worktree add --detach "$TMP/src" "$COMMIT" >/dev/null
cmake -S "$TMP/src" -B "$TMP/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$TMP/build" --target etprof_cli --parallel 2 >/dev/null 2>&1 || cmake --build "$TMP/build" --parallel 2 >/dev/null
ET=$TMP/build/etprof
mkdir -p "$OUT"
cd "$ROOT/tests/data"
grep -v '^#' "$ROOT/tests/tools/release_cases.txt" | while read -r name args; do
    [ -n "$name" ] || continue
    for fmt in json csv; do
        # shellcheck disable=SC2086
        COLUMNS=100 "$ET" -f $fmt $args >"$TMP/o" 2>/dev/null && rc=0 || rc=$?
        gzip -n -9 <"$TMP/o" >"$OUT/$name.$fmt.gz"
        echo "$rc" >"$OUT/$name.$fmt.rc"
    done
done
echo "$COMMIT" >"$OUT/COMMIT"
