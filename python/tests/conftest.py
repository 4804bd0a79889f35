"""Shared fixtures of the Python package's tests (run by ctest `python`, python/tests/run.py).

The environment (set by tests/python.cmake) says where things are: ETPROF_BIN (the command, for
comparisons), ETPROF_TEST_DATA, ETPROF_SCHEMA_DIR, ETPROF_FUZZ_CORPUS, ETPROF_FLATC.
"""
import json
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def _env(name, default):
    return os.environ.get(name) or default


BIN = _env("ETPROF_BIN", os.path.join(ROOT, "build-test", "etprof"))
DATA = _env("ETPROF_TEST_DATA", os.path.join(ROOT, "tests", "data"))
SCHEMA = _env("ETPROF_SCHEMA_DIR", os.path.join(ROOT, "schema"))
CORPUS = _env("ETPROF_FUZZ_CORPUS", os.path.join(ROOT, "fuzz", "corpus", "etdump"))
FLATC = os.environ.get("ETPROF_FLATC") or "flatc"
# set when the library and the module are ASan/UBSan builds (tests/python.cmake): RSS is then the
# sanitizer's (quarantine, shadow), not ours
SANITIZED = os.environ.get("ETPROF_SANITIZED") == "1"


def data(*parts):
    return os.path.join(DATA, *parts)


def child_env():
    """The environment for a program the tests start: without the sanitizer runtime preloaded
    for Python (tests/python.cmake), which the sanitized programs link themselves."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def cli(*args):
    """Runs the command; returns (exit code, stdout, stderr)."""
    r = subprocess.run([BIN, *args], capture_output=True, text=True, check=False, env=child_env())
    return r.returncode, r.stdout, r.stderr


def cli_json(*args):
    rc, out, err = cli(*args, "--format", "json")
    assert rc == 0, "etprof %s: exit %d: %s" % (" ".join(args), rc, err)
    return json.loads(out)


@pytest.fixture
def flatc():
    from shutil import which

    exe = FLATC if os.path.isabs(FLATC) else which(FLATC)
    if not exe or not os.path.exists(exe):
        pytest.skip("flatc not found (apt-get install flatbuffers-compiler)")
    return exe
