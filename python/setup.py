"""Build of the etprof Python package (docs/python.md).

Offline, with Debian's python3-dev and python3-setuptools only (pip: python3-pip, python3-venv,
python3-wheel). Two ways to get the library:

* bundled (the default: what `pip install ./python` and `pip wheel ./python` do): the library's
  C sources (../src/{base,read,model,analyze,view,write}/*.c and ../src/analyze/backends/*.c)
  are compiled into the extension module itself, with the defines CMake gives them and hidden
  visibility; the module exports only PyInit__etprof and needs only libjansson, zlib (and libzip,
  loaded when an ETRecord is read) at run time. Nothing to install first, no run path:

      python3 -m pip install --no-build-isolation --no-index ./python

* shared (CMake's route, ETPROF_LIBRARY_DIR set): the module links libetprof.so (the public API
  only); CMake runs

      python3 setup.py build --build-base BUILD/python-build --build-lib BUILD/python

Environment of the shared route (CMake sets them; by hand, point them at a build tree or an
installed prefix):

    ETPROF_INCLUDE_DIR   directory holding etprof.h        (default: ../include)
    ETPROF_LIBRARY_DIR   directory holding libetprof.so    (unset: the bundled build)
    ETPROF_RPATH         1 to record ETPROF_LIBRARY_DIR as the module's run path (build trees)
    ETPROF_INSTALL_RPATH a run path to record instead (the installed module: $ORIGIN-relative)
Both routes:
    ETPROF_VERSION       the library version string (default: the project's, ../CMakeLists.txt)
    ETPROF_WERROR        1 adds -Werror
"""
import glob
import tempfile
import os
import re
import shutil
import subprocess

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)
inc = os.environ.get("ETPROF_INCLUDE_DIR") or os.path.join(top, "include")
libdir = os.environ.get("ETPROF_LIBRARY_DIR")
werror = ["-Werror"] if os.environ.get("ETPROF_WERROR") == "1" else []

LAYERS = ("base", "read", "model", "analyze", "view", "write")  # CMakeLists.txt ETPROF_LAYERS


def project_version():
    try:
        with open(os.path.join(top, "CMakeLists.txt"), encoding="utf-8") as f:
            m = re.search(r"project\(etprof\s+VERSION\s+([0-9.]+)", f.read())
        return m.group(1) if m else "0.1.0"
    except OSError:
        return "0.1.0"


def libzip_soname():
    """The soname libzip is dlopen'ed by (src/base/zipload.c), read as CMake reads it: objdump
    -p of the library pkg-config finds. None: zipload.c's own default."""
    try:
        d = subprocess.run(["pkg-config", "--variable=libdir", "libzip"], capture_output=True,
                           text=True, check=True).stdout.strip()
        objdump = shutil.which("objdump")
        lib = os.path.join(d, "libzip.so")
        if not objdump or not os.path.exists(lib):
            return None
        out = subprocess.run([objdump, "-p", lib], capture_output=True, text=True).stdout
        m = re.search(r"SONAME\s+(\S+)", out)
        return m.group(1) if m else None
    except (OSError, subprocess.CalledProcessError):
        return None


def pkg_cflags(pkg):
    try:
        out = subprocess.run(["pkg-config", "--cflags-only-I", pkg], capture_output=True,
                             text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return []
    return [x[2:] for x in out if x.startswith("-I")]


version = os.environ.get("ETPROF_VERSION") or project_version()
module_src = [os.path.join("src", "_etprof.c")]
common = dict(
    define_macros=[("ETPROF_VERSION_STR", '"%s"' % version)],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra"] + werror,
)

if libdir:
    rpath = [libdir] if os.environ.get("ETPROF_RPATH") == "1" else []
    if os.environ.get("ETPROF_INSTALL_RPATH"):
        rpath = [os.environ["ETPROF_INSTALL_RPATH"]]
    ext = Extension("etprof._etprof", sources=module_src, include_dirs=[inc],
                    library_dirs=[libdir], runtime_library_dirs=rpath, libraries=["etprof"],
                    **common)
else:
    src = os.path.join(top, "src")
    if not os.path.isdir(os.path.join(src, "base")):
        raise SystemExit("etprof setup.py: the library's sources are not at %s; build from a "
                         "checkout of etprof (pip install ./python), or set ETPROF_LIBRARY_DIR "
                         "to a built libetprof.so" % src)
    lib_src = []
    for layer in LAYERS:
        lib_src += sorted(glob.glob(os.path.join(src, layer, "*.c")))
    lib_src += sorted(glob.glob(os.path.join(src, "analyze", "backends", "*.c")))
    defines = common["define_macros"] + [("_POSIX_C_SOURCE", "200809L"),
                                         ("ETPROF_VERSION", '"%s"' % version)]
    soname = libzip_soname()
    if soname:
        defines.append(("ETPROF_LIBZIP_SONAME", '"%s"' % soname))
    ldmap = os.path.join(here, "src", "module.map")
    # Perfetto's protobuf encoder, generated from schema/perfetto_trace.proto by protoc-c
    # (protobuf-c-compiler) as CMake does; its runtime is libprotobuf-c (libprotobuf-c-dev)
    pb_dir = tempfile.mkdtemp(prefix="etprof-pb-")
    try:
        subprocess.run(["protoc-c", "--proto_path=" + os.path.join(top, "schema"),
                        "--c_out=" + pb_dir, os.path.join(top, "schema", "perfetto_trace.proto")],
                       check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("etprof setup.py: protoc-c failed (%s): apt-get install protobuf-c-compiler "
                         "libprotobuf-c-dev" % e)
    lib_src.append(os.path.join(pb_dir, "perfetto_trace.pb-c.c"))
    ext = Extension(
        "etprof._etprof",
        sources=module_src + lib_src,
        include_dirs=[inc, pb_dir] + [os.path.join(src, layer) for layer in LAYERS]
        + pkg_cflags("libzip") + pkg_cflags("jansson"),
        libraries=["jansson", "z", "sqlite3", "protobuf-c", "m", "pthread", "dl"],
        define_macros=defines,
        extra_compile_args=common["extra_compile_args"] + ["-fvisibility=hidden"],
        # only PyInit__etprof leaves the module: the library's etp_* stay inside it
        extra_link_args=["-Wl,--version-script=" + ldmap],
        depends=[ldmap],
    )

setup(
    name="etprof",
    version=version,
    description="ExecuTorch ETDump profiles as pandas DataFrames, through libetprof",
    packages=["etprof"],
    package_data={"etprof": ["py.typed"]},
    ext_modules=[ext],
    python_requires=">=3.9",
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
