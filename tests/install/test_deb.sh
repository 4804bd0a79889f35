#!/bin/sh
# cpack -G DEB makes a Debian package holding what `cmake --install` installs, under /usr
# (issue 11.5): dpkg-deb -c must list the command, the shared library (+ symlinks), the static
# library, the header, the .pc (naming prefix=/usr), the CMake package, one man page per command
# and the completion scripts; Depends must name libjansson4 and libzip4, and (except in sanitizer builds)
# every library the command and libetprof.so.N load must come from a package Depends names.
# Exit 77 (skipped) without dpkg-deb or cpack.
# usage: test_deb.sh BUILD_DIR LIBDIR VERSION MANDIR DATADIR [sanitize]
set -u
build=$1 libdir=$2 version=$3 mandir=$4 datadir=$5 san=${6:-}
command -v dpkg-deb >/dev/null 2>&1 || { echo "SKIPPED: dpkg-deb not found (not a Debian system)"; exit 77; }
cpack=$(dirname "$(command -v cmake)")/cpack
[ -x "$cpack" ] || cpack=$(command -v cpack) || { echo "SKIPPED: cpack not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp" > "$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$tmp/cpack.log"; echo "FAIL: cpack made no .deb"; exit 1; }
echo "ok: $(basename "$deb")"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' > "$tmp/list"
soversion=${version%%.*}
need="/usr/bin/etprof /usr/$libdir/libetprof.so.$version /usr/$libdir/libetprof.so.$soversion
/usr/$libdir/libetprof.so /usr/$libdir/libetprof.a /usr/include/etprof.h /usr/$libdir/pkgconfig/etprof.pc
/usr/$libdir/cmake/etprof/etprofConfig.cmake /usr/$libdir/cmake/etprof/etprofConfigVersion.cmake
/usr/$mandir/man1/etprof.1 /usr/$datadir/bash-completion/completions/etprof
/usr/$datadir/zsh/site-functions/_etprof"
for f in $need; do grep -qx "$f" "$tmp/list" || bad "the .deb lacks $f"; done
n=0
for c in $("$build/etprof" --help | sed -n '/^commands:$/,/^$/p' | awk 'NF > 1 { print $1 }'); do
    grep -qx "/usr/$mandir/man1/etprof-$c.1" "$tmp/list" || bad "the .deb lacks the man page of $c"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || bad "no commands in etprof --help"
[ "$fail" -eq 0 ] && echo "ok: dpkg-deb -c lists the command, libraries, header, .pc, CMake package, $n+1 man pages, completion"

dpkg-deb -f "$deb" Package | grep -qx etprof || bad "Package is not etprof"
dpkg-deb -f "$deb" Version | grep -qx "$version" || bad "Version is not $version"
deps=$(dpkg-deb -f "$deb" Depends)
echo "$deps" | grep -q 'libjansson4' || bad "Depends ($deps) lacks libjansson4"
echo "$deps" | grep -q 'libzip4' || bad "Depends ($deps) lacks libzip4"
mkdir "$tmp/root" && dpkg-deb -x "$deb" "$tmp/root"
grep -qx 'prefix=/usr' "$tmp/root/usr/$libdir/pkgconfig/etprof.pc" || bad "etprof.pc in the .deb does not say prefix=/usr: $(head -1 "$tmp/root/usr/$libdir/pkgconfig/etprof.pc")"
if [ "$san" != sanitize ]; then
    for b in "$tmp/root/usr/bin/etprof" "$tmp/root/usr/$libdir/libetprof.so.$version"; do
        for lib in $(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            case $lib in
            libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|ld-linux*) pkg=libc6 ;;
            libjansson.so.4) pkg=libjansson4 ;;
            libz.so.1) pkg=zlib1g ;;
            libzip.so.4) pkg=libzip4 ;;
            libsqlite3.so.0) pkg=libsqlite3-0 ;;
            libprotobuf-c.so.1) pkg=libprotobuf-c1 ;;
            *) pkg="" ;;
            esac
            if [ -z "$pkg" ]; then bad "$(basename "$b") loads $lib, which no Depends entry provides"
            elif ! echo "$deps" | grep -q "$pkg"; then bad "$(basename "$b") loads $lib but Depends lacks $pkg"; fi
        done
    done
    # libzip is opened with dlopen when an ETRecord is read (src/base/zipload.c): the soname the
    # command and the library carry must be the one libzip4 provides, and not be NEEDED
    for b in "$tmp/root/usr/bin/etprof" "$tmp/root/usr/$libdir/libetprof.so.$version"; do
        grep -aq 'libzip\.so\.4' "$b" || bad "$(basename "$b") does not name libzip.so.4 (dlopen)"
        if readelf -d "$b" | grep -q 'NEEDED.*libzip'; then bad "$(basename "$b") links libzip (it should dlopen it)"; fi
    done
    [ "$fail" -eq 0 ] && echo "ok: Depends ($deps) covers every NEEDED library and the dlopened libzip.so.4"
fi
[ "$fail" -eq 0 ] && echo "deb: ok"
exit "$fail"
