"""Errors: the same file/offset/path/reason as the command's one-line error, mapped to classes."""
import os
import re
import struct

import pytest

import etprof
from conftest import cli, data

SRC = data("real/add_pte_10x.etdp")


def cli_error(path):
    """(exit code, file, offset or None, path or None, reason) from `etprof ops PATH`'s stderr:
    "etprof: FILE: offset N: FIELD: REASON" (docs/cli.md)."""
    rc, _, err = cli("ops", path)
    line = err.strip().splitlines()[-1]
    prefix = "etprof: %s: " % path
    assert line.startswith(prefix), line
    rest = line[len(prefix):]
    off = None
    m = re.match(r"offset (\d+): ", rest)
    if m:
        off = int(m.group(1))
        rest = rest[m.end():]
    field = None
    m = re.match(r"([A-Za-z_][\w\[\].]*): ", rest)
    if m:
        field = m.group(1)
        rest = rest[m.end():]
    return rc, path, off, field, rest


def truncations(tmp_path):
    raw = open(SRC, "rb").read()
    out = []
    for n in (0, 7, 11, 100, 1000, len(raw) - 1):
        p = tmp_path / ("cut_%d.etdp" % n)
        p.write_bytes(raw[:n])
        out.append(str(p))
    # cut, with the size prefix corrected: the error is deeper in the file
    for n in (600, 2000):
        p = tmp_path / ("cutfix_%d.etdp" % n)
        p.write_bytes(struct.pack("<I", n - 4) + raw[4:n])
        out.append(str(p))
    return out


def test_input_error_fields_equal_cli(tmp_path):
    paths = truncations(tmp_path)
    seen_deep = False
    for path in paths:
        rc, f, off, field, reason = cli_error(path)
        assert rc == 1, path
        with pytest.raises(etprof.InputError) as ei:
            etprof.open(path).ops()
        e = ei.value
        assert (e.file, e.offset, e.path, e.reason) == (f, off, field, reason), path
        assert e.exit_code == 1
        assert isinstance(e, etprof.Error) and isinstance(e, ValueError)
        assert str(e) == "%s: %s" % (f, str(e)[len(f) + 2:])
        seen_deep |= field is not None and field.startswith("run_data")
    assert seen_deep, "no truncation reached the run_data (the test would not test fields)"


def test_usage_and_io_errors(tmp_path):
    with pytest.raises(etprof.UsageError) as ei:
        etprof.open(SRC, data("upstream/add.pte"), method="no_such_method")
    assert ei.value.exit_code == 2 and "no_such_method" in str(ei.value)
    with pytest.raises(etprof.UsageError):
        etprof.open(SRC, method="forward")  # --method needs --pte
    missing = str(tmp_path / "missing.etdp")
    with pytest.raises(etprof.IOError) as ei:
        etprof.open(missing)
    assert isinstance(ei.value, OSError) and ei.value.file == missing
    assert ei.value.exit_code == 3
    # a program given as the dump: an input error, located
    with pytest.raises(etprof.InputError) as ei:
        etprof.open(data("upstream/add.pte"))
    assert ei.value.offset is not None
    with pytest.raises(TypeError):
        etprof.open(SRC, method=3)
    assert os.path.exists(SRC)


def test_program_mismatch_is_a_located_input_error():
    """The wrong program: raised by ops() (the blocks are checked as they are analysed), with the
    command's file, field path and reason."""
    dump = data("real/module_linear_10x.etdp")
    rc, _, err = cli("ops", dump, "--pte", data("upstream/add.pte"))
    assert rc == 1
    line = err.strip().splitlines()[-1]
    p = etprof.open(dump, data("upstream/add.pte"))
    with pytest.raises(etprof.InputError) as ei:
        p.ops()
    e = ei.value
    assert line == "etprof: " + str(e)
    assert e.file == dump and e.path == "run_data[1].events[0]" and e.offset is None
    assert "not the program of this dump" in e.reason
    p.close()


@pytest.mark.parametrize("cmd,call", [
    ("tree", lambda p: p.tree()),
    ("explain", lambda p: p.explain()),
    ("summary", lambda p: p.summary()),
])
def test_new_entry_points_raise_the_commands_located_error(cmd, call):
    """tree(), explain() and summary()'s backend figures on the wrong program: the command's
    error line (file, field path, reason), as InputError."""
    dump = data("real/module_linear_10x.etdp")
    rc, _, err = cli(cmd, dump, "--pte", data("upstream/add.pte"))
    assert rc == 1
    with etprof.open(dump, data("upstream/add.pte")) as p:
        with pytest.raises(etprof.InputError) as ei:
            call(p)
    assert err.strip().splitlines()[-1] == "etprof: " + str(ei.value)
    assert ei.value.path == "run_data[1].events[0]" and ei.value.exit_code == 1
