#!/usr/bin/env python3
"""A signal while `report -o OUT` / `trace -o OUT` writes leaves no OUT.XXXXXX.tmp, and OUT
either absent or with its old content (issue 16.4; docs/cli.md "Exit codes").

Two ways, both without races:
1. The test hook ETPROF_TEST_RAISE_BEFORE_RENAME=SIG (docs/cli.md, "Test hooks") makes the
   writer raise SIG when the temporary file is complete and not yet renamed: the worst moment.
   Every signal the writer cleans up after (SIGINT, SIGTERM, SIGHUP), each command, OUT absent
   and OUT present (mode 0600, old bytes).
2. No hook: SIGTERM sent from outside once the temporary file has appeared, to a `trace -o` of
   a generated dump that takes seconds to write (tests/tools/shared_event_dump.py).

usage: test_signal_cleanup.py ETPROF DATA_DIR TMP
"""
import glob
import os
import signal
import subprocess
import sys
import time

etprof, data, tmp = sys.argv[1:4]
os.makedirs(tmp, exist_ok=True)
dump = os.path.join(data, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
pte = os.path.join(data, "upstream", "stories260k_hybrid_llama_qnn.pte")
fails = 0
OLD = b"old content, must survive\n"


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        fails += 1


def leftovers(out):
    return glob.glob(glob.escape(out) + ".*.tmp")


cmds = {"report": ["report", dump, "--pte", pte], "trace": ["trace", dump]}
for name, cmd in cmds.items():
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for present in (False, True):
            out = os.path.join(tmp, "%s-%d-%d.out" % (name, sig, present))
            for f in [out] + leftovers(out):
                if os.path.exists(f):
                    os.unlink(f)
            if present:
                with open(out, "wb") as f:
                    f.write(OLD)
                os.chmod(out, 0o600)
            env = dict(os.environ, ETPROF_TEST_RAISE_BEFORE_RENAME=str(int(sig)))
            p = subprocess.run([etprof] + cmd + ["-o", out], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            what = "%s -o, %s, target %s" % (name, signal.Signals(sig).name,
                                               "present" if present else "absent")
            check(p.returncode == -sig, "%s: ended by the signal (status %d)" % (what, p.returncode))
            check(leftovers(out) == [], "%s: no temporary file left %s" % (what, leftovers(out)))
            if present:
                check(open(out, "rb").read() == OLD and (os.stat(out).st_mode & 0o777) == 0o600,
                      "%s: the target keeps its old bytes and mode" % what)
            else:
                check(not os.path.exists(out), "%s: no target written" % what)
    # the hook set to 0 (or unset) changes nothing: the file is written
    out = os.path.join(tmp, "%s-nohook.out" % name)
    p = subprocess.run([etprof] + cmd + ["-o", out], stdin=subprocess.DEVNULL,
                       env=dict(os.environ, ETPROF_TEST_RAISE_BEFORE_RENAME="0"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0 and os.path.getsize(out) > 0 and leftovers(out) == [],
          "%s -o without a signal: written, no temporary file" % name)

# 2. a real signal from outside while trace writes a large output
gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools", "shared_event_dump.py")
big = os.path.join(tmp, "slow.etdp")
subprocess.check_call([sys.executable, gen, big, "8", str(1 << 16)], stdout=subprocess.DEVNULL)
out = os.path.join(tmp, "slow.json")
with open(out, "wb") as f:
    f.write(OLD)
p = subprocess.Popen([etprof, "trace", big, "-o", out], stdin=subprocess.DEVNULL,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
seen = False
deadline = time.monotonic() + 20
while time.monotonic() < deadline and p.poll() is None:
    t = leftovers(out)
    if t and os.path.getsize(t[0]) > 0:
        seen = True
        p.send_signal(signal.SIGTERM)
        break
    time.sleep(0.005)
p.communicate()
check(seen, "trace -o of a large dump: its temporary file was seen while it wrote")
check(p.returncode == -signal.SIGTERM, "SIGTERM during trace -o: ended by it (status %d)"
      % p.returncode)
check(leftovers(out) == [], "SIGTERM during trace -o: no temporary file left")
check(open(out, "rb").read() == OLD, "SIGTERM during trace -o: the target keeps its old bytes")
print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
