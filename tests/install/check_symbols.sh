#!/bin/sh
# The libraries export the public API only (issue 11.4): every global symbol defined by the shared
# library (dynamic symbol table) and by the static library is etp_-prefixed AND declared in a public
# header under include/. Offenders are listed. The shared library's SONAME is checked too.
# Self-check: the build tree's internal archive (which keeps the internals global, for the command
# and the tests) must be flagged, so the check is shown able to fail.
# usage: check_symbols.sh INCLUDE_DIR LIBETPROF.so LIBETPROF.a [SONAME [INTERNAL.a]]
set -u
inc=$1 so=$2 ar=$3 soname=${4:-} internal=${5:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
grep -ohw 'etp_[A-Za-z0-9_]*' "$inc"/*.h | sort -u > "$tmp/declared"

# check NAME FILE-WITH-SYMBOLS: prints offenders, returns 1 when any
check() {
    what=$1 list=$2
    grep -v '^etp_' "$list" > "$tmp/noprefix" || true
    grep '^etp_' "$list" | sort -u | comm -23 - "$tmp/declared" > "$tmp/undeclared"
    n1=$(wc -l < "$tmp/noprefix") n2=$(wc -l < "$tmp/undeclared") total=$(wc -l < "$list")
    if [ "$n1" -ne 0 ] || [ "$n2" -ne 0 ]; then
        echo "FAIL: $what: $total global symbols, $n1 without the etp_ prefix, $n2 etp_ ones not declared in $inc:"
        [ "$n1" -ne 0 ] && echo "  not etp_: $(tr '\n' ' ' < "$tmp/noprefix")"
        [ "$n2" -ne 0 ] && echo "  not public: $(tr '\n' ' ' < "$tmp/undeclared")"
        return 1
    fi
    if [ "$total" -eq 0 ]; then echo "FAIL: $what: no global symbols at all"; return 1; fi
    echo "ok: $what: $total global symbols, all public etp_ API"
    return 0
}

for f in "$so" "$ar"; do
    [ -f "$f" ] || { echo "FAIL: $f does not exist"; exit 1; }
done
nm -D --defined-only "$so" | awk 'NF >= 3 { print $NF }' | sed 's/@.*//' | sort -u > "$tmp/so.syms" || exit 1
check "$so (nm -D --defined-only)" "$tmp/so.syms" || fail=1
# static: global (upper-case type letter) defined symbols of every member
nm -g --defined-only "$ar" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' | sort -u > "$tmp/ar.syms" || exit 1
check "$ar (nm -g --defined-only)" "$tmp/ar.syms" || fail=1
# every public function is in both
grep -oh '\betp_[a-z0-9_]*[[:space:]]*(' "$inc"/*.h | sed 's/[[:space:]]*($//' | sort -u > "$tmp/funcs"
missing=$(comm -23 "$tmp/funcs" "$tmp/so.syms" | tr '\n' ' ')
[ -n "$missing" ] && { echo "FAIL: declared in $inc but not exported by $so: $missing"; fail=1; }
missing=$(comm -23 "$tmp/funcs" "$tmp/ar.syms" | tr '\n' ' ')
[ -n "$missing" ] && { echo "FAIL: declared in $inc but not defined globally in $ar: $missing"; fail=1; }

if [ -n "$soname" ]; then
    got=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
    if [ "$got" != "$soname" ]; then echo "FAIL: $so: SONAME '$got', expected '$soname'"; fail=1
    else echo "ok: SONAME $got"; fi
fi
if [ -n "$internal" ]; then
    nm -g --defined-only "$internal" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' | sort -u > "$tmp/int.syms"
    if check "self-check on $internal" "$tmp/int.syms" > "$tmp/self.out"; then
        echo "FAIL: the check passes the internal archive, which exports internals: it cannot fail"; fail=1
    else
        echo "ok: the check flags the internal archive ($(sed -n 's/.*: \([0-9]*\) global symbols, \([0-9]*\) without.*, \([0-9]*\) etp_.*/\2 non-etp_ and \3 internal etp_ of \1/p' "$tmp/self.out" | head -1))"
    fi
fi
[ "$fail" -eq 0 ] && echo "symbols: ok"
exit "$fail"
