"""Build of the etprof Python package (docs/python.md).

Offline, with Debian's python3-dev and python3-setuptools only. CMake drives it when configured
with -DETPROF_PYTHON=ON (the default when the Python headers are found):

    python3 setup.py build --build-base BUILD/python-build --build-lib BUILD/python

It links libetprof.so (the public API only). Where the library and its header are comes from the
environment (CMake sets them; by hand, point them at a build tree or an installed prefix):

    ETPROF_INCLUDE_DIR   directory holding etprof.h        (default: ../include)
    ETPROF_LIBRARY_DIR   directory holding libetprof.so    (default: the system's)
    ETPROF_RPATH         1 to record ETPROF_LIBRARY_DIR as the module's run path (build trees)
    ETPROF_INSTALL_RPATH a run path to record instead (the installed module: $ORIGIN-relative)
    ETPROF_VERSION       the library version string
"""
import os

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
inc = os.environ.get("ETPROF_INCLUDE_DIR") or os.path.join(here, "..", "include")
libdir = os.environ.get("ETPROF_LIBRARY_DIR")
version = os.environ.get("ETPROF_VERSION", "0.1.0")
rpath = [libdir] if libdir and os.environ.get("ETPROF_RPATH") == "1" else []
if os.environ.get("ETPROF_INSTALL_RPATH"):
    rpath = [os.environ["ETPROF_INSTALL_RPATH"]]

ext = Extension(
    "etprof._etprof",
    sources=[os.path.join("src", "_etprof.c")],
    include_dirs=[inc],
    library_dirs=[libdir] if libdir else [],
    runtime_library_dirs=rpath,
    libraries=["etprof"],
    define_macros=[("ETPROF_VERSION_STR", '"%s"' % version)],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra"] + (
        ["-Werror"] if os.environ.get("ETPROF_WERROR") == "1" else []),
)

setup(
    name="etprof",
    version=version,
    description="ExecuTorch ETDump profiles as pandas DataFrames, through libetprof",
    packages=["etprof"],
    ext_modules=[ext],
    python_requires=">=3.9",
)
