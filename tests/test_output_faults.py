#!/usr/bin/env python3
"""Faults around `-o FILE` and the one-line rule (issue 35, items 5-8 and "also seen"); every case
makes its inputs here, checks the exit code, that stderr is exactly one line naming the file,
and that no file is left behind (the directory listing before and after).

1. `-o` through a symbolic link replaces the link's TARGET atomically (a new inode renamed into
   the target's directory), the link stays a link; a dangling link creates its target; a chain
   of links and a relative link into another directory are followed; a link loop is exit 3; a
   link to a device or FIFO is written in place; `-o /dev/stdout` with stdout a file appends to
   that file (its offset), /dev/stdout stays a symbolic link.
2. RLIMIT_FSIZE (SIGXFSZ): every command writing `-o` under a 512-byte file-size limit ends with
   exit 3 and `FILE: write failed: File too large`, no temporary file, the old target intact.
3. A legal 245-255-byte `-o` name works (the temporary name stays within NAME_MAX); a 256-byte
   one is exit 3 with one line, nothing left.
4. `-o` (or compare's `--html`) naming one of the inputs, by the same path, another path, a
   symbolic link, a hard link or standard input, is exit 2 before anything is written: the
   input keeps its bytes; a copy of the input is no input and is written.
5. ETPROF_MEMORY_BUDGET that does not parse or overflows: one warning line naming it and the
   default kept (52 MiB), never the limit lifted: a block of 90,000 shared events (~61 MiB to
   decode, tests/tools/shared_event_dump.py) is refused under it with exactly one line (the
   refusal; the warning is not printed on exit 1), read with 0 or 200.

usage: test_output_faults.py ETPROF DATA_DIR TMP
"""
import errno
import os
import resource
import shutil
import stat
import subprocess
import sys

E, DATA, TMP = sys.argv[1:4]
shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
fails = 0
OLD = b"old content, must survive\n"


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        fails += 1


def run(args, cwd=TMP, limit=None, stdout=subprocess.PIPE):
    pre = None
    if limit is not None:
        def pre():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    p = subprocess.run([E] + args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout,
                       stderr=subprocess.PIPE, preexec_fn=pre)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def one_line(err, name, what):
    lines = err.splitlines()
    check(len(lines) == 1 and err.endswith("\n") and name in lines[0],
          "%s: exactly one stderr line naming %s: %r" % (what, name, err))


def listing(d):
    return sorted(os.listdir(d))


D = os.path.join(DATA, "real", "add_pte_1x.etdp")
PTE = os.path.join(DATA, "upstream", "add.pte")
# expected bytes of `info D` from a plain file (the reference the links must get)
rc, ref, err = run(["info", D, "-f", "json"])
check(rc == 0 and ref.startswith(b"{"), "info -f json on stdout (reference)")


def info_to(out, cwd=TMP):
    return run(["info", D, "-f", "json", "-o", out], cwd=cwd)


# ---- 1. symbolic links --------------------------------------------------------------------------
d = os.path.join(TMP, "links")
os.makedirs(os.path.join(d, "sub"))
tgt = os.path.join(d, "target.txt")
with open(tgt, "wb") as f:
    f.write(OLD)
os.chmod(tgt, 0o640)
ino = os.stat(tgt).st_ino
os.symlink("target.txt", os.path.join(d, "lnk"))
before = listing(d)
rc, out, err = info_to("lnk", cwd=d)
check(rc == 0 and err == "", "-o LINK: exit 0, nothing on stderr (%d %r)" % (rc, err))
check(os.path.islink(os.path.join(d, "lnk")) and os.readlink(os.path.join(d, "lnk")) == "target.txt",
      "-o LINK: the link is still the same symbolic link")
check(open(tgt, "rb").read() == ref, "-o LINK: the target holds the new output")
st = os.stat(tgt)
check(st.st_ino != ino, "-o LINK: the target was replaced by rename (new inode), not rewritten")
check(stat.S_IMODE(st.st_mode) == 0o640, "-o LINK: the target keeps its mode 0640")
check(listing(d) == before, "-o LINK: no other file in the directory %s" % listing(d))

# a chain of links, the last one relative into a subdirectory, ending dangling: creates it
os.symlink("sub/made.txt", os.path.join(d, "dang"))
os.symlink(os.path.join(d, "dang"), os.path.join(d, "chain"))
before_sub = listing(os.path.join(d, "sub"))
rc, out, err = info_to(os.path.join(d, "chain"))
check(rc == 0 and open(os.path.join(d, "sub", "made.txt"), "rb").read() == ref,
      "-o chain -> dangling relative link: the target is created in sub/ (%d %r)" % (rc, err))
check(os.path.islink(os.path.join(d, "chain")) and os.path.islink(os.path.join(d, "dang")),
      "-o chain: both links stay links")
check(listing(os.path.join(d, "sub")) == sorted(before_sub + ["made.txt"]),
      "-o chain: only the target in sub/ %s" % listing(os.path.join(d, "sub")))

# a link loop: exit 3, one line, nothing written
os.symlink("loop_b", os.path.join(d, "loop_a"))
os.symlink("loop_a", os.path.join(d, "loop_b"))
before = listing(d)
rc, out, err = info_to("loop_a", cwd=d)
check(rc == 3, "-o a link loop: exit 3 (%d)" % rc)
one_line(err, "loop_a", "-o a link loop")
check(os.strerror(errno.ELOOP).lower() in err.lower(), "-o a link loop: says why: %r" % err)
check(listing(d) == before, "-o a link loop: nothing left")

# a failed command through a link: the target keeps its bytes, nothing left
with open(tgt, "wb") as f:
    f.write(OLD)
before = listing(d)
rc, out, err = run(["info", os.path.join(DATA, "..", "golden_errors", "bad_identifier.etdp"),
                    "-o", "lnk"], cwd=d)
check(rc == 1 and open(tgt, "rb").read() == OLD and listing(d) == before,
      "-o LINK, input rejected: exit 1, the target keeps its bytes, nothing left (%d)" % rc)

# a link to a FIFO: written in place (a reader gets the output), the FIFO and the link stay
fifo = os.path.join(d, "fifo")
os.mkfifo(fifo)
os.symlink("fifo", os.path.join(d, "to_fifo"))
reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
rc, out, err = info_to("to_fifo", cwd=d)
got = reader.communicate()[0]
check(rc == 0 and got == ref, "-o LINK to a FIFO: written through it (%d, %d bytes)" % (rc, len(got)))
check(stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.path.islink(os.path.join(d, "to_fifo")),
      "-o LINK to a FIFO: the FIFO and the link stay")
# a link to /dev/null: in place, the link stays
os.symlink("/dev/null", os.path.join(d, "to_null"))
rc, out, err = info_to("to_null", cwd=d)
check(rc == 0 and os.path.islink(os.path.join(d, "to_null")) and
      os.readlink(os.path.join(d, "to_null")) == "/dev/null",
      "-o LINK to /dev/null: exit 0, the link stays (%d %r)" % (rc, err))

# -o /dev/stdout with stdout a file opened for appending: the output lands after what is there,
# /dev/stdout stays a symbolic link (as root it used to be replaced by a regular file)
so = os.path.join(TMP, "stdout.txt")
with open(so, "wb") as f:
    f.write(b"first\n")
with open(so, "ab") as f:
    rc, out, err = run(["info", D, "-f", "json", "-o", "/dev/stdout"], stdout=f)
check(rc == 0 and open(so, "rb").read() == b"first\n" + ref,
      "-o /dev/stdout, stdout appending to a file: the output follows its content (%d %r)"
      % (rc, err))
check(os.path.islink("/dev/stdout"), "-o /dev/stdout: /dev/stdout is still a symbolic link")

# ---- 2. RLIMIT_FSIZE / SIGXFSZ in every command that writes -o ---------------------------------
R = os.path.join(DATA, "real")
U = os.path.join(DATA, "upstream")
QD = os.path.join(DATA, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
QP = os.path.join(U, "stories260k_hybrid_llama_qnn.pte")
QH = os.path.join(DATA, "qnn-fixtures", "stories260k_kv_qhas.json")
LIN = os.path.join(R, "module_linear_intermediate_1x")
LPTE = os.path.join(U, "module_linear_no_constant_segment.pte")
cmds = {
    "summary": ["summary", D, "--pte", PTE],
    "info": ["info", D],
    "events": ["events", D],
    "ops": ["ops", D, "--pte", PTE],
    "runs": ["runs", D],
    "tree": ["tree", D, "--pte", PTE],
    "explain": ["explain", D, "--pte", PTE],
    "qnn": ["qnn", QD, "--pte", QP, "--method", "kv_forward", "--qhas", QH],
    "trace": ["trace", D],
    "report": ["report", D, "--pte", PTE],
    "diff": ["diff", D, D],
    "tensors": ["tensors", LIN + ".etdp", "--debug-buffer", LIN + ".debug.bin"],
    "compare": ["compare", LIN + ".etdp", LIN + ".etdp", "--debug-buffer", LIN + ".debug.bin",
                "--debug-buffer-new", LIN + ".debug.bin"],
    "check-outputs": ["check-outputs", os.path.join(R, "bundled_program_intermediate_1x.etdp"),
                      "--debug-buffer", os.path.join(R, "bundled_program_intermediate_1x.debug.bin"),
                      "--pte", os.path.join(U, "bundled_program.bpte")],
    "modules": ["modules", D, "--pte", PTE, "--etrecord", os.path.join(U, "etrecord.bin")],
}
d = os.path.join(TMP, "fsize")
os.makedirs(d)
LIMIT = 512  # below every command's output here (check-outputs' JSON is about 1 KiB)
for name, args in cmds.items():
    fmt = [] if name in ("trace", "report") else ["-f", "json"]
    rc, out, err = run(args + fmt + ["-o", "full.out"], cwd=d)
    size = os.path.getsize(os.path.join(d, "full.out")) if rc == 0 else 0
    check(rc == 0 and size > LIMIT, "%s -o: exit 0 without a limit, %d bytes > %d (%r)"
          % (name, size, LIMIT, err[:200]))
    os.unlink(os.path.join(d, "full.out"))
    for present in (False, True):
        out_name = "lim.out"
        if present:
            with open(os.path.join(d, out_name), "wb") as f:
                f.write(OLD)
        before = listing(d)
        rc, out, err = run(args + fmt + ["-o", out_name], cwd=d, limit=LIMIT)
        what = "%s -o under RLIMIT_FSIZE %d, target %s" % (name, LIMIT,
                                                          "present" if present else "absent")
        check(rc == 3, "%s: exit 3, not killed by SIGXFSZ (%d)" % (what, rc))
        one_line(err, out_name, what)
        check(os.strerror(errno.EFBIG) in err, "%s: says %r: %r" % (what, os.strerror(errno.EFBIG), err))
        check(listing(d) == before, "%s: no file left %s" % (what, listing(d)))
        if present:
            check(open(os.path.join(d, out_name), "rb").read() == OLD, "%s: old bytes kept" % what)
            os.unlink(os.path.join(d, out_name))
# standard output redirected to a file under the limit: exit 3, "<stdout>", not a SIGXFSZ death
with open(os.path.join(d, "redirected"), "wb") as f:
    rc, out, err = run(cmds["events"], cwd=d, limit=LIMIT, stdout=f)
check(rc == 3, "events > FILE under RLIMIT_FSIZE: exit 3 (%d)" % rc)
one_line(err, "<stdout>", "events > FILE under RLIMIT_FSIZE")

# ---- 3. long file names -------------------------------------------------------------------------
d = os.path.join(TMP, "names")
os.makedirs(d)
for n in (245, 250, 255):
    name = ("n%d_" % n) + "x" * (n - 6 - len(str(n))) + ".out"
    assert len(name) == n, (n, len(name))
    before = listing(d)
    rc, out, err = info_to(name, cwd=d)
    check(rc == 0 and err == "" and open(os.path.join(d, name), "rb").read() == ref,
          "-o a %d-byte name: written (%d %r)" % (n, rc, err))
    check(listing(d) == sorted(before + [name]), "-o a %d-byte name: nothing else left" % n)
    # replaced again (the name exists now), and a failed run through it leaves nothing
    rc, out, err = info_to(name, cwd=d)
    check(rc == 0 and listing(d) == sorted(before + [name]), "-o a %d-byte name, again" % n)
    rc, out, err = run(["info", os.path.join(DATA, "..", "golden_errors", "bad_identifier.etdp"),
                        "-o", name], cwd=d)
    check(rc == 1 and listing(d) == sorted(before + [name]), "-o a %d-byte name, exit 1: "
          "nothing left %s" % (n, listing(d)))
name = "y" * 256
before = listing(d)
rc, out, err = info_to(name, cwd=d)
check(rc == 3, "-o a 256-byte name: exit 3 (%d)" % rc)
one_line(err, name, "-o a 256-byte name")
check(listing(d) == before, "-o a 256-byte name: nothing left")

# ---- 4. -o naming an input ---------------------------------------------------------------------
d = os.path.join(TMP, "same")
os.makedirs(d)
x = os.path.join(d, "x.etdp")
shutil.copyfile(D, x)
os.symlink("x.etdp", os.path.join(d, "x_link"))
os.link(x, os.path.join(d, "x_hard"))
for f, src in (("p.pte", PTE), ("l.etdp", LIN + ".etdp"), ("l.bin", LIN + ".debug.bin"),
               ("rec.bin", os.path.join(U, "etrecord.bin"))):
    shutil.copyfile(src, os.path.join(d, f))
raw = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
cases = [
    (["summary", "x.etdp", "-o", "x.etdp"], "x.etdp", "the same path"),
    (["summary", "x.etdp", "-o", "../same/./x.etdp"], "../same/./x.etdp", "another path"),
    (["report", "x.etdp", "-o", "x_link"], "x_link", "a symbolic link to it"),
    (["ops", "x.etdp", "-o", "x_hard"], "x_hard", "a hard link to it"),
    (["ops", "x.etdp", "--pte", "p.pte", "-o", "p.pte"], "p.pte", "the --pte"),
    (["diff", "x.etdp", "l.etdp", "-o", "l.etdp"], "l.etdp", "diff's NEW"),
    (["tensors", "l.etdp", "--debug-buffer", "l.bin", "-o", "l.bin"], "l.bin", "the --debug-buffer"),
    (["modules", "x.etdp", "--pte", "p.pte", "--etrecord", "rec.bin", "-o", "rec.bin"], "rec.bin",
     "the --etrecord"),
    (["compare", "l.etdp", "l.etdp", "--debug-buffer", "l.bin", "--debug-buffer-new", "l.bin",
      "--html", "l.etdp"], "l.etdp", "compare --html"),
]
for args, out, what in cases:
    before = listing(d)
    rc, so, err = run(args, cwd=d)
    check(rc == 2 and so == b"", "-o naming %s: exit 2, nothing on stdout (%d)" % (what, rc))
    one_line(err, out, "-o naming %s" % what)
    check(listing(d) == before and all(open(os.path.join(d, f), "rb").read() == b
                                       for f, b in raw.items()),
          "-o naming %s: every input keeps its bytes, nothing left" % what)
with open(x, "rb") as f:
    p = subprocess.run([E, "info", "-", "-o", x], cwd=d, stdin=f, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
check(p.returncode == 2 and open(x, "rb").read() == raw["x.etdp"],
      "info - < x.etdp -o x.etdp: exit 2, the file keeps its bytes (%d)" % p.returncode)
one_line(p.stderr.decode(), "<stdin>", "info - < x.etdp -o x.etdp")
shutil.copyfile(x, os.path.join(d, "copy.etdp"))
rc, so, err = run(["info", "x.etdp", "-f", "json", "-o", "copy.etdp"], cwd=d)
check(rc == 0 and open(os.path.join(d, "copy.etdp"), "rb").read().startswith(b"{"),
      "-o a copy of the input (another inode): written (%d %r)" % (rc, err))

# ---- 5. ETPROF_MEMORY_BUDGET ------------------------------------------------------------------
d = os.path.join(TMP, "budget")
os.makedirs(d)
big = os.path.join(d, "s90k.etdp")
subprocess.check_call([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "tools", "shared_event_dump.py"),
                       big, "1", "90000"], stdout=subprocess.DEVNULL)


def with_budget(value, args):
    env = dict(os.environ)
    env.pop("ETPROF_MEMORY_BUDGET", None)
    if value is not None:
        env["ETPROF_MEMORY_BUDGET"] = value
    p = subprocess.run([E] + args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode("utf-8", "replace")


for value, want in ((None, 1), ("", 1), ("0", 0), ("200", 0), ("52", 1)):
    rc, err = with_budget(value, ["events", big, "-f", "csv"])
    check(rc == want and (err == "" if want == 0 else len(err.splitlines()) == 1),
          "ETPROF_MEMORY_BUDGET=%r, 90,000 shared events: exit %d (%d %r)" % (value, want, rc, err[:120]))
BAD = ("64M", "-1", " 8", "+8", "0x40", "1e3", "8 ", "abc", "17592186044416",
       "18446744073709551615", "18446744073709551616", "99999999999999999999999")
for value in BAD:
    rc, err = with_budget(value, ["events", big, "-f", "csv"])
    check(rc == 1, "ETPROF_MEMORY_BUDGET=%r: the default is kept, the block refused (%d)" % (value, rc))
    one_line(err, "memory budget of 52.0 MiB", "ETPROF_MEMORY_BUDGET=%r, refused" % value)
    rc, err = with_budget(value, ["info", D])
    lines = err.splitlines()
    check(rc == 0 and len(lines) == 1 and lines[0].startswith(
              'etprof: warning: ETPROF_MEMORY_BUDGET="%s" ' % value) and
          "the default memory budget of 52 MiB is kept" in lines[0],
          "ETPROF_MEMORY_BUDGET=%r on a small dump: exit 0, one warning line: %r" % (value, err))
rc, err = with_budget("x\ny", ["info", D])
check(rc == 0 and len(err.splitlines()) == 1 and 'ETPROF_MEMORY_BUDGET="x?y"' in err,
      "ETPROF_MEMORY_BUDGET with a line break: one warning line, shown as '?': %r" % err)

print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
