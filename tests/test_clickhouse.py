#!/usr/bin/env python3
"""The fleet export loaded into a real ClickHouse (Debian's clickhouse-server 18.16; issue 33.4).

Starts clickhouse-server as a normal process with a config written to a temporary directory,
listening on 127.0.0.1 only on free ports; creates the table from `etprof export --schema
clickhouse`; generates hundreds of small dumps with etprof-gen and inserts their export with
`clickhouse-client --query "INSERT ... FORMAT JSONEachRow"`; then checks that ClickHouse's per-op
counts and quantiles (quantile(): linear interpolation between closest ranks, exact below 8192
values, as numpy's default percentile) equal etprof's own per-file figures (`etprof ops --format
json --all --time-unit ns`, row by row), and, independently, that the dumps ClickHouse holds are
the files' sha256sum and their run counts etprof-gen's --blocks. The server is stopped at the
end, whatever happened. Skipped (77) only when clickhouse-server or clickhouse-client is not
installed.
usage: test_clickhouse.py ETPROF ETPROF_GEN [NFILES]"""
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ETPROF, GEN = sys.argv[1], sys.argv[2]
NFILES = int(sys.argv[3]) if len(sys.argv) > 3 else 300
SERVER = shutil.which("clickhouse-server") or ("/usr/sbin/clickhouse-server"
                                               if os.path.exists("/usr/sbin/clickhouse-server") else None)
CLIENT = shutil.which("clickhouse-client")
if not SERVER or not CLIENT:
    print("SKIP: clickhouse-server/clickhouse-client not installed (Debian packages "
          "clickhouse-server, clickhouse-client; scripts/install-deps.sh --test)")
    sys.exit(77)

checks = 0


def fail(msg):
    raise AssertionError(msg)


def check(cond, msg):
    global checks
    if not cond:
        fail(msg)
    checks += 1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


CONFIG = """<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{d}/server.log</log><errorlog>{d}/error.log</errorlog>
    <console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>{tcp}</tcp_port>
  <http_port>{http}</http_port>
  <path>{d}/data/</path>
  <tmp_path>{d}/tmp/</tmp_path>
  <user_files_path>{d}/user_files/</user_files_path>
  <format_schema_path>{d}/format_schemas/</format_schema_path>
  <users_config>{d}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <max_concurrent_queries>8</max_concurrent_queries>
</yandex>
"""
USERS = """<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage><max_threads>2</max_threads>
    </default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
  </interval></default></quotas>
</yandex>
"""


def main(t):
    cdir = os.path.join(t, "ch")
    os.makedirs(cdir)
    tcp, http = free_port(), free_port()
    open(os.path.join(cdir, "config.xml"), "w").write(CONFIG.format(d=cdir, tcp=tcp, http=http))
    open(os.path.join(cdir, "users.xml"), "w").write(USERS)
    log = open(os.path.join(cdir, "stdout.log"), "w")
    server = subprocess.Popen([SERVER, "--config-file=" + os.path.join(cdir, "config.xml")],
                              stdout=log, stderr=subprocess.STDOUT, cwd=cdir)

    def client(query, stdin=None, multi=False):
        args = ["--multiquery"] if multi else ["--query", query]
        p = subprocess.run([CLIENT, "--host", "127.0.0.1", "--port", str(tcp)] + args,
                           stdin=stdin, input=query.encode() if multi else None,
                           capture_output=True)
        if p.returncode != 0:
            fail("clickhouse-client %r: %s" % (query[:80], p.stderr.decode(errors="replace")))
        return p.stdout.decode()

    try:
        # generate the dumps meanwhile the server starts
        pte = os.path.join(t, "m.pte")
        files = []
        for i in range(NFILES):
            f = os.path.join(t, "d%03d.etdp" % i)
            blocks = 3 + i % 5
            args = [GEN, "--style", "mixed" if i % 2 else "cpu", "--nodes", "8", "--blocks",
                    str(blocks), "--seed", str(i + 1), "-q", "-o", f]
            if i == 0:
                args += ["--pte", pte]
            subprocess.run(args, check=True)
            files.append((f, blocks))
        # the mixed and cpu styles have different programs: export each style with its own
        mixed = [f for f, _ in files[1::2]]
        cpu = [f for f, _ in files[0::2]]
        mpte = os.path.join(t, "mixed.pte")
        subprocess.run([GEN, "--style", "mixed", "--nodes", "8", "--blocks", "4", "--seed", "2",
                        "-q", "--pte", mpte, "-o", os.path.join(t, "x.etdp")], check=True)
        for _ in range(600):
            if server.poll() is not None:
                fail("clickhouse-server exited %d: %s" % (server.returncode,
                     open(os.path.join(cdir, "stdout.log")).read()[-2000:]))
            p = subprocess.run([CLIENT, "--host", "127.0.0.1", "--port", str(tcp), "--query",
                                "SELECT 1"], capture_output=True)
            if p.returncode == 0:
                break
            time.sleep(0.1)
        else:
            fail("clickhouse-server did not answer within 60 s")
        print("clickhouse-server %s on 127.0.0.1:%d" % (client("SELECT version()").strip(), tcp))
        schema = subprocess.run([ETPROF, "export", "--schema", "clickhouse"], check=True,
                                capture_output=True).stdout.decode()
        client(schema, multi=True)  # as printed, comments and all (docs/export.md)
        total_lines = 0
        t0 = time.time()
        for group, gpte in ((cpu, pte), (mixed, mpte)):
            out = os.path.join(t, "ops.jsonl")
            subprocess.run([ETPROF, "export"] + group + ["--pte", gpte, "--format", "jsonl",
                           "--label", "device=ci-farm-1", "--label", "soc=SM8650", "-q",
                           "-o", out], check=True)
            total_lines += sum(1 for _ in open(out))
            with open(out, "rb") as fh:
                client("INSERT INTO etprof_ops FORMAT JSONEachRow", stdin=fh)
        print("exported and inserted %d rows of %d files in %.1f s"
              % (total_lines, NFILES, time.time() - t0))
        check(int(client("SELECT count() FROM etprof_ops")) == total_lines, "every row inserted")
        # independent: the dumps' identity and run counts
        shas = {hashlib.sha256(open(f, "rb").read()).hexdigest(): b for f, b in files}
        got = {}
        for line in client("SELECT dump_sha256, max(run_index) + 1 FROM etprof_ops WHERE "
                           "name = 'Method::execute' AND measure = 'inclusive' GROUP BY "
                           "dump_sha256 FORMAT TabSeparated").splitlines():
            s, n = line.split("\t")
            got[s] = int(n)
        check(got == shas, "ClickHouse holds every dump (sha256sum) with its --blocks runs")
        # per-op counts and quantiles against etprof's own per-file figures
        res = {}
        q = ("SELECT dump_sha256, row, any(name), count(), quantile(0.5)(value), "
             "quantile(0.9)(value), min(value), max(value), sum(value) FROM etprof_ops WHERE "
             "measure = 'inclusive' GROUP BY dump_sha256, row FORMAT TabSeparated")
        for line in client(q).splitlines():
            s, row, name, n, q50, q90, mn, mx, tot = line.split("\t")
            res[(s, int(row))] = (name, int(n), float(q50), float(q90), float(mn), float(mx),
                                  float(tot))
        compared = 0
        for (f, _), gpte in zip(files, [pte if i % 2 == 0 else mpte for i in range(NFILES)]):
            sha = hashlib.sha256(open(f, "rb").read()).hexdigest()
            ops = json.loads(subprocess.run([ETPROF, "ops", f, "--pte", gpte, "--all",
                                             "--time-unit", "ns", "--format", "json"],
                                            check=True, capture_output=True).stdout)["rows"]
            for i, o in enumerate(ops):
                if o["p50"] is None:
                    continue
                name, n, q50, q90, mn, mx, tot = res[(sha, i)]
                check(name == o["name"], "row %d of %s: %r vs %r" % (i, f, name, o["name"]))
                tol = 1e-9 * max(1.0, abs(o["max"]))
                check(abs(q50 - o["p50"]) <= tol and abs(q90 - o["p90"]) <= tol,
                      "%s row %d %s: ClickHouse p50/p90 %r/%r, etprof %r/%r"
                      % (f, i, name, q50, q90, o["p50"], o["p90"]))
                check(abs(mn - o["min"]) <= tol and abs(mx - o["max"]) <= tol, "min/max")
                check(abs(tot - o["total"]) <= 1e-9 * max(1.0, abs(o["total"])), "total")
                check(n <= o["count"], "a value per run")
                compared += 1
        check(compared > 10 * NFILES, "op rows compared: %d" % compared)
        print("compared %d op rows of %d files" % (compared, NFILES))
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


# ctest's timeout or ^C: end through the finally that stops the server
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))

with tempfile.TemporaryDirectory() as tmp:
    try:
        main(tmp)
    except AssertionError as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
print("clickhouse: %d checks passed" % checks)
