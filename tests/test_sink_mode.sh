#!/bin/sh
# Issue 16.4: replacing an existing -o file keeps its permission bits (0600 stayed 0644 before).
set -e
ETPROF=$1; DATA=$2
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
umask 022
: > "$d/out"; chmod 600 "$d/out"
"$ETPROF" info "$DATA/fake-qnn-backend/stories260k_qnn_kv_forward_10x.etdp" -o "$d/out"
m=$(stat -c %a "$d/out")
[ "$m" = 600 ] || { echo "mode after replace: $m, expected 600"; exit 1; }
[ -s "$d/out" ] || { echo "output empty"; exit 1; }
ls "$d" | grep -q '\.tmp$' && { echo "temp file left"; exit 1; }
echo ok
