"""Runs the Python package's tests with Debian's pytest (ctest test `python`).

usage: run.py TESTS_DIR [pytest args...]; exits 77 (ctest: skipped) when pytest is missing.
"""
import sys

try:
    import pytest
except ImportError:
    print("skip: pytest not found (apt-get install python3-pytest, or scripts/install-deps.sh --test)")
    sys.exit(77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
