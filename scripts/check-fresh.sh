#!/bin/sh
# Proves the README's two commands on a bare Debian 12: a pristine `debootstrap --variant=minbase
# bookworm` root plus git and ca-certificates (the README starts from a clone), a fresh `git clone`
# of the commit under test (HEAD; uncommitted changes are not tested), then, inside a chroot and as
# the README reads them, `scripts/demo.sh` and then `scripts/test.sh`; then the Debian package is
# built from test.sh's build (cpack -G DEB), installed with dpkg -i, and /usr/bin/etprof run;
# last the Python wheel (pip wheel ./python) is installed offline on a second fresh root.
#
# Needs root, debootstrap (scripts/install-deps.sh --test installs it) and network to Debian's
# mirror; without them it prints "SKIPPED: <why>" and exits 0.
#
# Environment:
#   ETPROF_FRESH_CACHE   cache directory, outside the repo (default /var/cache/etprof-fresh). Holds
#                        the base root as a tarball, made once right after debootstrap, so every run
#                        starts from the pristine base; and the downloaded .deb files (apt's archive
#                        cache only: nothing is preinstalled, install-deps.sh still installs it all)
#   ETPROF_FRESH_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   ETPROF_FRESH_FULL=1  run test.sh in full inside the root (sanitizers, valgrind, fuzzing). By
#                        default test.sh runs with ETPROF_QUICK=1 (build with -Werror + the ctest
#                        suite) and FUZZ_SECONDS=5 to keep CI time down; the packages are the same
#                        (install-deps.sh --test installs them all either way)
#   ETPROF_FRESH_KEEP=1  keep the root after the run (printed), for debugging
# Exit: 0 passed or skipped, 1 a README command or the package failed on the fresh root, 2 setup
# error.
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
cache=${ETPROF_FRESH_CACHE:-/var/cache/etprof-fresh}
mirror=${ETPROF_FRESH_MIRROR:-http://deb.debian.org/debian}
base=$cache/bookworm-minbase.tar
t0=$(date +%s)

skip() { echo "SKIPPED: fresh-machine check: $*"; exit 0; }
say() { echo "check-fresh: $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap and chroot); run as root to prove the README on a bare Debian 12"
command -v chroot >/dev/null 2>&1 || skip "chroot not found"
if [ ! -f "$base" ] && ! command -v debootstrap >/dev/null 2>&1; then
    skip "debootstrap not found (apt-get install debootstrap, or scripts/install-deps.sh --test)"
fi
host=$(echo "$mirror" | sed 's|^[a-z]*://||; s|/.*||')
timeout 15 getent hosts "$host" >/dev/null 2>&1 || skip "no network: cannot resolve $host"
case "$cache" in "$repo"|"$repo"/*) echo "check-fresh: ETPROF_FRESH_CACHE must be outside the repo" >&2; exit 2 ;; esac

mkdir -p "$cache/apt-archives/partial"
# One run at a time per cache (the root and the .deb cache are shared).
exec 9>"$cache/lock"
flock 9

commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    say "note: uncommitted changes are not tested; testing HEAD $commit"
fi

if [ ! -f "$base" ]; then
    say "creating the base root (debootstrap --variant=minbase bookworm + git, ca-certificates)"
    tmp=$cache/debootstrap.tmp
    rm -rf --one-file-system "$tmp"
    debootstrap --variant=minbase --include=git,ca-certificates bookworm "$tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
        tail -20 "$cache/debootstrap.log" >&2; echo "check-fresh: debootstrap failed (log: $cache/debootstrap.log)" >&2; exit 2; }
    chroot "$tmp" apt-get clean
    tar --numeric-owner -C "$tmp" -cpf "$base.tmp" .
    mv "$base.tmp" "$base"
    rm -rf --one-file-system "$tmp"
    say "base root cached at $base ($(( $(date +%s) - t0 )) s)"
fi

root=$cache/root
mounted=""
cleanup() {
    for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
    if [ "${ETPROF_FRESH_KEEP:-0}" = 1 ]; then
        say "root kept at $root"
    elif ! grep -q " $root[/ ]" /proc/mounts; then
        rm -rf --one-file-system "$root"
    else
        echo "check-fresh: something is still mounted under $root; not removing it" >&2
    fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

if grep -q " $root[/ ]" /proc/mounts; then
    echo "check-fresh: $root has mounts from an earlier run; unmount them first" >&2; exit 2
fi
rm -rf --one-file-system "$root"
mkdir -p "$root"
tar --numeric-owner -C "$root" -xpf "$base"
if chroot "$root" sh -c 'command -v python3 || command -v flatc || command -v cmake || command -v cc' >/dev/null 2>&1; then
    echo "check-fresh: the base root is not bare (python3/flatc/cmake/cc present); delete $base" >&2; exit 2
fi

mnt() { mount "$@"; mounted="${*##* } $mounted"; }
mnt -t proc proc "$root/proc"
mnt -t sysfs sysfs "$root/sys"
mnt --bind /dev "$root/dev"
mnt -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
mnt --bind "$cache/apt-archives" "$root/var/cache/apt/archives"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

git bundle create "$root/tmp/etprof.bundle" HEAD 2>/dev/null
in_root() {
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
}
in_root git -c advice.detachedHead=false clone -q /tmp/etprof.bundle /root/etprof
in_root git -C /root/etprof rev-parse HEAD | grep -qx "$commit" || { echo "check-fresh: clone is not $commit" >&2; exit 2; }
say "fresh clone of $commit in $root/root/etprof ($(( $(date +%s) - t0 )) s)"

# README command 1, alone first, as a newcomer runs it.
t1=$(date +%s)
say "README command 1: scripts/demo.sh"
if ! in_root sh -c 'cd /root/etprof && scripts/demo.sh'; then
    echo "FAILED: fresh-machine check: scripts/demo.sh on a bare Debian 12 root (commit $commit)" >&2; exit 1
fi
# The demo must not have needed the test-only tools.
for tool in python3 flatc jq; do
    if in_root sh -c "command -v $tool" >/dev/null 2>&1; then
        echo "FAILED: fresh-machine check: $tool installed by scripts/demo.sh (test-only tool)" >&2; exit 1
    fi
done
say "demo.sh passed ($(( $(date +%s) - t1 )) s)"

# README command 2.
t2=$(date +%s)
if [ "${ETPROF_FRESH_FULL:-0}" = 1 ]; then quick=0; else quick=1; fi
say "README command 2: scripts/test.sh (ETPROF_QUICK=$quick FUZZ_SECONDS=5)"
if ! in_root sh -c "cd /root/etprof && ETPROF_QUICK=$quick FUZZ_SECONDS=5 ETPROF_FRESH=0 scripts/test.sh"; then
    echo "FAILED: fresh-machine check: scripts/test.sh on a bare Debian 12 root (commit $commit)" >&2; exit 1
fi
say "test.sh passed ($(( $(date +%s) - t2 )) s)"

# The Debian package (docs/install.md): made from test.sh's build, installed with dpkg -i, and
# the command run from /usr/bin. Then the Python wheel, installed on a second fresh root.
t3=$(date +%s)
version=$(sed -n 's/^project(etprof VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
say "package: cpack -G DEB in build-test, dpkg -i, /usr/bin/etprof --version"
if ! in_root sh -c 'cd /root/etprof/build-test && rm -rf /tmp/etprof-deb && cpack -G DEB -B /tmp/etprof-deb >/dev/null && dpkg -i /tmp/etprof-deb/etprof_*.deb'; then
    echo "FAILED: fresh-machine check: building or installing the .deb (cpack -G DEB, dpkg -i) on a bare Debian 12 root (commit $commit)" >&2; exit 1
fi
got=$(in_root /usr/bin/etprof --version) || got=""
case $got in
    "etprof $version "*) say "installed: $got" ;;
    *) echo "FAILED: fresh-machine check: /usr/bin/etprof --version from the .deb printed '$got', expected etprof $version (commit $commit)" >&2; exit 1 ;;
esac
if ! in_root sh -c 'dpkg -L etprof | grep -qx /usr/share/man/man1/etprof.1 && test -e /usr/lib/libetprof.so.0 && /usr/bin/etprof info /root/etprof/tests/data/real/add_pte_1x.etdp >/dev/null'; then
    echo "FAILED: fresh-machine check: the installed .deb lacks etprof.1 or libetprof.so.0, or its etprof cannot read a dump (commit $commit)" >&2; exit 1
fi
say "package passed ($(( $(date +%s) - t3 )) s)"

# The Python wheel (docs/python.md): built in this root with Debian's pip, offline
# (python3-pip/-wheel/-setuptools are there: install-deps.sh --test), then installed offline on
# ANOTHER fresh root from the same pristine base, which gets only what running it needs
# (python3, python3-pip, libjansson4, libsqlite3-0, libprotobuf-c1: no compiler, no -dev package, no cmake) and imports it
# from pip install --target; its figure must be the MANIFEST's (add_pte_1x.etdp: one run of
# Method::execute and of native_call_add.out).
t4=$(date +%s)
say "python wheel: pip wheel ./python here, pip install on a second fresh root"
if ! in_root sh -c 'cd /root/etprof && rm -rf /tmp/etprof-wheel && python3 -m pip wheel -q --no-build-isolation --no-deps --no-index -w /tmp/etprof-wheel ./python'; then
    echo "FAILED: fresh-machine check: pip wheel ./python on a bare Debian 12 root (commit $commit)" >&2; exit 1
fi
root2=$cache/root-wheel
if grep -q " $root2[/ ]" /proc/mounts; then
    echo "check-fresh: $root2 has mounts from an earlier run; unmount them first" >&2; exit 2
fi
rm -rf --one-file-system "$root2"
mkdir -p "$root2"
tar --numeric-owner -C "$root2" -xpf "$base"
mnt -t proc proc "$root2/proc"
mnt --bind /dev "$root2/dev"
mnt --bind "$cache/apt-archives" "$root2/var/cache/apt/archives"
cp -L /etc/resolv.conf "$root2/etc/resolv.conf"
cp "$root"/tmp/etprof-wheel/etprof-*.whl "$root2/tmp/" && cp tests/data/real/add_pte_1x.etdp "$root2/tmp/"
in_root2() {
    chroot "$root2" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}
if ! in_root2 sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 python3-pip libjansson4 libsqlite3-0 libprotobuf-c1 >/dev/null'; then
    echo "FAILED: fresh-machine check: installing python3, python3-pip, libjansson4, libsqlite3-0, libprotobuf-c1 on the second root (commit $commit)" >&2; exit 1
fi
got=$(in_root2 sh -c 'python3 -m pip install -q --root-user-action=ignore --no-index --no-deps --target /opt/etprof-py /tmp/etprof-*.whl && cd / && PYTHONPATH=/opt/etprof-py python3 -c "
import etprof
o = etprof.open(\"/tmp/add_pte_1x.etdp\").ops(as_dict=True)
n = dict(zip(o[\"name\"], o[\"count\"]))
assert etprof.__file__.startswith(\"/opt/etprof-py/\"), etprof.__file__
print(n[\"Method::execute\"], n[\"native_call_add.out\"])"' 2>&1) || got="$got (exit $?)"
# the figures are the last line (pip may still print a notice before them)
last=$(printf '%s\n' "$got" | tail -n 1)
if [ "$last" != "1 1" ]; then
    echo "FAILED: fresh-machine check: the wheel on a second bare Debian 12 root: '$got', expected '1 1' (commit $commit)" >&2; exit 1
fi
for m in "$root2/var/cache/apt/archives" "$root2/dev" "$root2/proc"; do umount -l "$m" 2>/dev/null || true; done
rm -rf --one-file-system "$root2"
say "python wheel passed: installed with pip --target on a second fresh root, import etprof, MANIFEST's runs ($(( $(date +%s) - t4 )) s)"
echo "fresh-machine check passed: demo.sh, test.sh, the .deb (dpkg -i, etprof --version) and the Python wheel (a second root) on a bare Debian 12 root, $(( $(date +%s) - t0 )) s in all"
