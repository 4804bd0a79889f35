#!/usr/bin/env python3
"""`etprof session` (issue 33.1): LLM generations from dumps built of real blocks.

Independent facts:
- the session dumps are built here with flatc (schema/etdump.fbs) from the corpus's real
  stories260k QNN dumps: the prefill_forward 1-run dump's blocks then the kv_forward 10-run dump's
  (session1), that twice (session2: two generations), and the prefill dump then the kv_forward
  dump whose logged output shapes resolve kv_forward (mixed). Recipe: decode both with flatc,
  concatenate their run_data, re-encode (size-prefixed), nothing else changed;
- every expected value is computed here from flatc's JSON of the source dumps (the reference
  decoder, never etprof): Method::execute and DELEGATE_CALL = end_time - start_time (ns), the
  prompt length from flatc's JSON of the program (prefill_forward's first input, [1, 32]);
  percentiles by linear interpolation (numpy's default), by hand.

    test_session.py ETPROF DATA_DIR SCHEMA_DIR [PYTHON_MODULE_DIR]   (exit 77 without flatc)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

E, D, S = sys.argv[1], sys.argv[2], sys.argv[3]
PYDIR = sys.argv[4] if len(sys.argv) > 4 else None
if not shutil.which("flatc"):
    print("skip: flatc not found (apt install flatbuffers-compiler; scripts/install-deps.sh --test)")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))
import flatc_io  # noqa: E402

PTE = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
PRE = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_prefill_forward_1x.etdp")
KV10 = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
KVOUT = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_outputs_2x.etdp")
T = tempfile.mkdtemp(prefix="etprof-session-")
SCH = os.path.join(S, "etdump.fbs")
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def close(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def pct(v, p):  # numpy.percentile, method "linear"
    s = sorted(v)
    k = (len(s) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def decode(path):
    d = os.path.join(T, "dec-" + os.path.basename(path))
    os.makedirs(d, exist_ok=True)
    return flatc_io.flatc_json(SCH, path, d, size_prefixed=True)


def build(name, *docs):
    rd = []
    for doc in docs:
        rd += doc["run_data"]
    return flatc_io.flatc_bin(SCH, {"run_data": rd}, name, T, size_prefixed=True)


def execute_blocks(doc, base):
    """[(block index in the merged dump, Method::execute us, DELEGATE_CALL us)] of the Execute
    blocks of `doc`, whose first block is block `base` of the merged dump."""
    out = []
    for bi, rd in enumerate(doc["run_data"]):
        if rd.get("name") != "Execute":
            continue
        ex, dc = [], 0.0
        for ev in rd.get("events") or []:
            p = ev.get("profile_event")
            if not p:
                continue
            dur = (int(p.get("end_time", 0)) - int(p.get("start_time", 0))) / 1000.0
            if p.get("name") == "Method::execute":
                ex.append(dur)
            elif p.get("name") == "DELEGATE_CALL":
                dc += dur
        assert len(ex) == 1, "premise: one Method::execute per Execute block"
        out.append((base + bi, ex[0], dc))
    return out


def run(*args, fmt="json", rc=0):
    p = subprocess.run([E, "session", *args, "--format", fmt], capture_output=True, text=True)
    check(p.returncode == rc, f"session {args} {fmt}: exit {p.returncode}, want {rc}: {p.stderr}")
    if fmt == "json" and p.returncode == 0:
        return json.loads(p.stdout)
    return p


pre, kv, kvout = decode(PRE), decode(KV10), decode(KVOUT)
s1 = build("session1", pre, kv)
s2 = build("session2", pre, kv, pre, kv)
mixed = build("mixed", pre, kvout)
npre = len(pre["run_data"])
P = execute_blocks(pre, 0)
K = execute_blocks(kv, npre)
check(len(P) == 1 and len(K) == 10, f"premise: 1 prefill and 10 kv Execute blocks, got {len(P)}, {len(K)}")

# the prompt length: prefill_forward's first input in flatc's JSON of the program
prog = flatc_io.flatc_json(os.path.join(S, "program.fbs"), PTE, T)
plan = [pl for pl in prog["execution_plan"] if pl["name"] == "prefill_forward"][0]
tok = plan["values"][plan["inputs"][0]]["val"]
check(tok["scalar_type"] == "INT" and tok["sizes"][0] == 1, f"premise: token input {tok}")
L = tok["sizes"][1]
check(L == 32, f"premise: prefill_forward takes 32 tokens, got {L}")


def expect_gen(g, P, K, what):
    ttft = P[0][1]
    check(close(g["prefill"]["ttft"], ttft), f"{what}: ttft {g['prefill']['ttft']}, hand {ttft}")
    check(g["prefill"]["prompt_tokens"] == L and g["prefill"]["prompt_tokens_from"] == "input_shape"
          and g["prefill"]["prompt_method"] == "prefill_forward", f"{what}: prompt {g['prefill']}")
    check(close(g["prefill"]["tokens_per_second"], L / (ttft / 1e6)),
          f"{what}: prefill tokens/s {g['prefill']['tokens_per_second']}, hand {L / (ttft / 1e6)}")
    ex = [k[1] for k in K]
    med = pct(ex, 50)
    # warm-up by hand: the first step, then each next one above 1.5 x the median while the one
    # before was warm-up
    warm = []
    for i, v in enumerate(ex):
        warm.append(i == 0 or (warm[i - 1] and v > 1.5 * med))
    steady = [v for v, w in zip(ex, warm) if not w]
    check(sum(warm) == 1, f"premise: one warm-up step (the cold first kv run), got {sum(warm)}")
    d = g["decode"]
    check(d["steps"] == 10 and d["warmup_steps"] == 1 and d["steady_steps"] == 9, f"{what}: steps {d}")
    check(close(d["tokens_per_second"], len(steady) / (sum(steady) / 1e6)),
          f"{what}: decode tokens/s {d['tokens_per_second']}, hand {len(steady) / (sum(steady) / 1e6)}")
    check(close(d["tokens_per_second_all"], 10 / (sum(ex) / 1e6)),
          f"{what}: decode tokens/s all {d['tokens_per_second_all']}, hand {10 / (sum(ex) / 1e6)}")
    tl = d["token_latency"]
    for k, want in (("p50", pct(ex, 50)), ("p90", pct(ex, 90)), ("max", max(ex))):
        check(close(tl[k], want), f"{what}: token latency {k} {tl[k]}, hand {want}")
    check(len(d["latencies"]) == 10 and all(close(a, b) for a, b in zip(d["latencies"], ex)),
          f"{what}: the latency series is the kv runs' Method::execute in order")
    want_slow = sorted(K, key=lambda k: -k[1])[:5]
    got_slow = [(x["block"], x["execute"]) for x in d["slowest"]]
    check(len(got_slow) == 5 and all(a[0] == b[0] and close(a[1], b[1]) for a, b in zip(got_slow, want_slow)),
          f"{what}: slowest {got_slow}, hand {[(k[0], k[1]) for k in want_slow]}")
    check(d["slowest"][0]["step"] == 1 and d["slowest"][0]["warmup"], f"{what}: the slowest step is the cold first one")
    sp = g["decode_split"]
    dc = sum(k[2] for k in K)
    check(close(sp["execute"], sum(ex)) and close(sp["delegate"], dc) and close(sp["cpu"], 0.0) and
          close(sp["framework"], sum(ex) - dc), f"{what}: decode split {sp}, hand exec {sum(ex)} delegate {dc}")
    check(close(sp["delegate_pct"], 100 * dc / sum(ex)), f"{what}: decode delegate share {sp['delegate_pct']}")
    pp = g["prefill_split"]
    check(close(pp["execute"], ttft) and close(pp["delegate"], P[0][2]) and
          close(pp["framework"], ttft - P[0][2]), f"{what}: prefill split {pp}")
    check(g["first_block"] == P[0][0] and g["last_block"] == K[-1][0],
          f"{what}: blocks {g['first_block']}..{g['last_block']}, want {P[0][0]}..{K[-1][0]}")


# ---- 1. one generation; the files cannot tell (shared context binary, no tensors logged) ----------
j = run(s1, "--pte", PTE)
if j:
    check(j["schema_version"] == 1 and j["time_unit"] == "us", "envelope")
    ph = j["phases"]
    check(ph["ambiguous"] and ph["decided_by"] == "inferred" and ph["inferred"] == 11 and
          ph["from_files"] == 0, f"phases: {ph}")
    check(ph["statement"] and "INFERRED" in ph["statement"], "the statement says inferred")
    check(any(n.startswith("AMBIGUOUS: ") for n in j["notes"]), "a JSON note says AMBIGUOUS")
    check(len(j["generations"]) == 1, f"one generation, got {len(j['generations'])}")
    if j["generations"]:
        expect_gen(j["generations"][0], P, K, "inferred")
    check([r["phase"] for r in j["runs"]] == ["prefill"] + ["decode"] * 10, "run phases in block order")

# every format says so
for fmt, needle in (("table", "AMBIGUOUS: "), ("md", "AMBIGUOUS: "), ("csv", ",inferred,"),
                    ("tsv", "\tinferred\t"), ("jsonl", '"phases_by":"inferred"')):
    p = run(s1, "--pte", PTE, fmt=fmt)
    check(needle in p.stdout, f"{fmt}: the inferred phases are said ({needle!r})")

# ---- 2. --prefill-runs 1: the user's statement; same figures --------------------------------------
j = run(s1, "--pte", PTE, "--prefill-runs", "1")
if j:
    check(j["phases"]["decided_by"] == "option" and j["phases"]["from_option"] == 11, f"option: {j['phases']}")
    if j["generations"]:
        expect_gen(j["generations"][0], P, K, "option")
for fmt, needle in (("table", "by --prefill-runs 1"), ("csv", ",option,")):
    p = run(s1, "--pte", PTE, "--prefill-runs", "1", fmt=fmt)
    check(needle in p.stdout, f"{fmt} with --prefill-runs: said ({needle!r})")
# --prompt-tokens N overrides the shape
j = run(s1, "--pte", PTE, "--prefill-runs", "1", "--prompt-tokens", "7")
if j and j["generations"]:
    g = j["generations"][0]["prefill"]
    check(g["prompt_tokens"] == 7 and g["prompt_tokens_from"] == "option" and
          close(g["tokens_per_second"], 7 / (P[0][1] / 1e6)), f"--prompt-tokens 7: {g}")

# ---- 3. two generations: a new one at the prefill after the decode runs ---------------------------
j = run(s2, "--pte", PTE)
if j:
    gs = j["generations"]
    check(len(gs) == 2, f"two generations, got {len(gs)}")
    if len(gs) == 2:
        n1 = len(pre["run_data"]) + len(kv["run_data"])
        expect_gen(gs[0], P, K, "gen 0")
        expect_gen(gs[1], [(b + n1, e, d) for b, e, d in P], [(b + n1, e, d) for b, e, d in K], "gen 1")

# ---- 4. mixed: kv_forward resolved from its logged output shapes, the prefill run inferred -------
j = run(mixed, "--pte", PTE)
if j:
    ph = j["phases"]
    check(ph["decided_by"] == "mixed" and ph["from_files"] == 2 and ph["inferred"] == 1 and ph["ambiguous"],
          f"mixed phases: {ph}")
    check([(r["phase"], r["phase_by"], r["method"]) for r in j["runs"]] ==
          [("prefill", "inferred", None), ("decode", "method", "kv_forward"), ("decode", "method", "kv_forward")],
          f"mixed runs: {[(r['phase'], r['phase_by'], r['method']) for r in j['runs']]}")
# --prefill-runs where the files tell some runs: said, and those runs keep their method's phase
j = run(mixed, "--pte", PTE, "--prefill-runs", "1")
if j:
    check([r["phase_by"] for r in j["runs"]] == ["option", "method", "method"], "mixed + option: bases")
    check(any("applies only to the 1 run(s) the files cannot tell" in n for n in j["notes"]),
          "mixed + option: the note says where the flag applies")
# a forced method that says prefill: every run is a prefill of one generation, from the files
j = run(s1, "--pte", PTE, "--method", "prefill_forward")
if j:
    check(not j["phases"]["ambiguous"] and j["phases"]["decided_by"] == "method" and
          len(j["generations"]) == 1 and j["generations"][0]["prefill"]["runs"] == 11,
          f"--method prefill_forward: {j['phases']}")

# ---- 5. usage errors: one line, exit 2 --------------------------------------------------------------
for bad in (("--prefill-runs", "0"), ("--prompt-tokens", "x")):
    p = run(s1, "--pte", PTE, *bad, fmt="table", rc=2)
    check(p.stdout == "" and len(p.stderr.strip().splitlines()) == 1, f"{bad}: one stderr line, no output")

# ---- 6. Python: Profile.session() is the command's document ----------------------------------------
if PYDIR:
    sys.path.insert(0, PYDIR)
    try:
        import etprof
    except ImportError as e:
        print(f"note: Python part skipped (etprof not importable from {PYDIR}: {e})")
    else:
        with etprof.open(s1, PTE) as prof:
            got = prof.session(prefill_runs=1)
        want = run(s1, "--pte", PTE, "--prefill-runs", "1")
        if want:
            for k in ("phases", "generations", "runs", "notes"):
                check(got.get(k) == want.get(k), f"python session()[{k!r}] equals the command's JSON")

shutil.rmtree(T, ignore_errors=True)
for f in fails:
    print("FAIL:", f)
print(f"test_session: {len(fails)} failure(s)")
sys.exit(1 if fails else 0)
