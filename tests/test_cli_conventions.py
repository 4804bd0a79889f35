#!/usr/bin/env python3
"""Command-line conventions (issue 11.6), asserted for every command.

  * options before or after the command, --opt=value, bundled short options (-qf csv, -fcsv,
    -qo FILE), "--" ending the options: the same bytes as the plain spelling;
  * "did you mean" for an unknown command, for a misspelt option of every command (its own
    options and the global ones, after or before the command), for a long option given with one
    dash; the file-before-command hint rebuilding the line with the command first; all of them
    one line on stderr, exit 2 (docs/cli.md), nothing on stdout;
  * narrow terminals: at COLUMNS=60 no line of any command's table output is longer than 60
    columns (on dumps from tests/data copied under short names: a path is one word and stays
    whole), the columns left out are named in a note that says how to get them back, and they
    do come back with --wide / COLUMNS=<the width the note gives>; names of up to 28 characters
    are not cut; notes and prose wrap, word for word the same text as unwrapped.

The expectations are the conventions themselves (docs/cli.md) and facts of the inputs: the
option names come from each command's --help, the dumps and programs are those of
tests/data/MANIFEST.md. Nothing here is etprof's own output pasted back.

    test_cli_conventions.py ETPROF DATA_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

E, D = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
QNN_F = os.path.join(D, "fake-qnn-backend", "stories260k_qnn_kv_forward_10x.etdp")
QNN_P = os.path.join(D, "upstream", "stories260k_hybrid_llama_qnn.pte")
ETU_F = os.path.join(D, "ethosu-partial-delegation", "mobilenet_v2_ethosu_N_partial_1x.etdp")
ETU_P = os.path.join(D, "ethosu-partial-delegation", "pte", "mobilenet_v2_ethosu_N.pte")
QHAS = os.path.join(D, "qnn-fixtures", "stories260k_kv_qhas.json")
VIEWER = os.path.join(D, "qnn-fixtures", "viewer_213.txt")
OPTRACE = os.path.join(D, "qnn-fixtures", "optrace_small.json")
RUNTRACE = os.path.join(D, "qnn-fixtures", "runtrace_small.json")
EXIT_USAGE = 2  # docs/cli.md "Exit codes"

T = tempfile.mkdtemp()
for src, dst in [(QNN_F, "k.etdp"), (QNN_P, "k.pte"), (ETU_F, "n.etdp"), (ETU_P, "n.pte"),
                 (QHAS, "q.json"), (VIEWER, "v.txt"),
                 (OPTRACE, "o.json"), (RUNTRACE, "r.json"), (QNN_F, "-odd.etdp")]:
    shutil.copy(src, os.path.join(T, dst))

ENV = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
fails = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        fails.append(what)


def run(args, columns=None):
    env = dict(ENV)
    if columns is not None:
        env["COLUMNS"] = str(columns)
    p = subprocess.run([E, *args], capture_output=True, cwd=T, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ---------------------------------------------------------------------------------------------
# 1. Option position, --opt=value, bundles, "--": byte-identical output, every command.
# (command words, positional arguments, its own options)
COMMANDS = [
    ("summary", ["k.etdp"], ["--pte", "k.pte"]),
    ("info", ["k.etdp"], ["--pte", "k.pte"]),
    ("events", ["n.etdp"], ["--pte", "n.pte"]),
    ("ops", ["k.etdp"], ["--pte", "k.pte", "--top", "5"]),
    ("tree", ["n.etdp"], ["--pte", "n.pte"]),
    ("explain", ["k.etdp"], ["--pte", "k.pte"]),
    ("qnn", ["k.etdp"], ["--pte", "k.pte", "--qhas", "q.json"]),
    ("trace", ["n.etdp"], ["--pte", "n.pte"]),
    ("diff", ["n.etdp", "n.etdp"], ["--pte", "n.pte"]),
]
for cmd, pos, opts in COMMANDS:
    fmt = "json"
    rc, ref, err = run([cmd, *pos, *opts, "--format", fmt])
    check(rc == 0 and ref, f"{cmd}: reference run failed: {rc} {err.strip()}")
    variants = {
        "global option before the command": ["--format", fmt, cmd, *pos, *opts],
        "--format=VALUE after the files": [cmd, *pos, *opts, f"--format={fmt}"],
        "-fVALUE": [cmd, *pos, *opts, f"-f{fmt}"],
        "bundled -qf VALUE before the command": ["-qf", fmt, cmd, *pos, *opts],
        "the command's own option before the command, --opt=value":
            [f"{opts[0]}={opts[1]}", cmd, *pos, *opts[2:], "-f", fmt],
        "options between the files' words": [cmd, "--format", fmt, *opts, *pos],
        "-- ending the global options before the command": ["--format", fmt, "--", cmd, *pos, *opts],
        "-- right before the command": ["--", cmd, *pos, *opts, "--format", fmt],
    }
    for what, args in variants.items():
        rc2, out, err = run(args)
        check(rc2 == 0 and out == ref, f"{cmd}: {what}: differs from the plain spelling ({err.strip()})")
    if cmd in ("ops", "summary", "info"):
        o = os.path.join(T, f"{cmd}.out")
        rc2, out, _ = run([cmd, "-qo", o, "-f", fmt, *pos, *opts])
        with open(o, encoding="utf-8") as f:
            check(rc2 == 0 and out == "" and f.read() == ref, f"{cmd}: bundled -qo FILE")
        # "--" ends the options: a file whose name starts with '-'
        rc2, out, err = run([cmd, *opts, "--format", fmt, "--", "-odd.etdp"])
        rc3, ref2, _ = run([cmd, *opts, "--format", fmt, "./-odd.etdp"])
        ref2 = ref2.replace("./-odd.etdp", "-odd.etdp")  # the name as given is in the output
        check(rc2 == 0 and out == ref2 and out, f"{cmd}: -- then -odd.etdp ({err.strip()})")

# ---------------------------------------------------------------------------------------------
# 2. Mistakes: one line, exit 2, nothing on stdout, and the message.


def expect_err(what, args, *needles):
    rc, out, err = run(args)
    lines = err.splitlines()
    ok = rc == EXIT_USAGE and out == "" and len(lines) == 1 and all(n in err for n in needles)
    check(ok, f"{what}: exit {rc}, stderr {err.strip()!r}, expected exit 2 and {needles}")


expect_err("file before the command", ["k.etdp", "ops"],
           "unknown command \"k.etdp\"", "did you mean 'etprof ops k.etdp'?")
expect_err("file before the command, options kept in place", ["k.etdp", "ops", "--pte", "k.pte", "--top", "3"],
           "did you mean 'etprof ops k.etdp --pte k.pte --top 3'?")
expect_err("global option, then the file, then the command", ["--format", "csv", "k.etdp", "tree"],
           "did you mean 'etprof tree --format csv k.etdp'?")
expect_err("a misspelt command after the file", ["k.etdp", "oops", "--top", "3"],
           "did you mean 'etprof ops k.etdp --top 3'?")
expect_err("a lone dump", ["k.etdp"], "did you mean 'etprof summary k.etdp'?")
expect_err("a lone program", ["k.pte"], "did you mean 'etprof info k.pte'?")
expect_err("a word needing quotes", ["my run.etdp", "ops"], "did you mean: etprof ops 'my run.etdp'")
expect_err("near command", ["sumary", "k.etdp"], "did you mean 'summary'?")
expect_err("swapped letters", ["explian", "k.etdp"], "did you mean 'explain'?")
expect_err("far command", ["frobnicate", "k.etdp"], "unknown command \"frobnicate\" (see")
expect_err("option misspelt before the command", ["--formta", "csv", "ops", "k.etdp"],
           "unknown option --formta before the command: did you mean --format?")
expect_err("a command's option misspelt before the command", ["--ptee", "k.pte", "ops", "k.etdp"],
           "did you mean --pte?")
expect_err("long option with one dash", ["ops", "k.etdp", "-format", "csv"],
           "unknown option -format: did you mean --format?")
expect_err("long option with one dash, before the command", ["-top", "3", "ops", "k.etdp"],
           "unknown option -top: did you mean --top?")
expect_err("long option with one dash is no bundle (-output is not -o utput)",
           ["ops", "k.etdp", "-output", "x.txt"], "did you mean --output?")
expect_err("near option with =", ["ops", "k.etdp", "--formt=csv"],
           "unknown option --formt: did you mean --format?")
expect_err("unknown short option in a bundle", ["ops", "k.etdp", "-qz"], "unknown option -z")
expect_err("--version after a command", ["ops", "k.etdp", "--version"], "'etprof --version'")
expect_err("option of another command", ["info", "k.etdp", "--top", "3"],
           "option --top does not apply to this command (it is an option of", "ops")
check(not os.path.exists(os.path.join(T, "utput")), "-output wrote a file named utput")

# every option of every command, misspelt (one letter more): the suggestion names it
for cmd in ["summary", "info", "events", "ops", "tree", "explain", "qnn", "trace", "report", "diff"]:
    rc, help_text, _ = run([cmd, "--help"])
    names = sorted(set(re.findall(r"^\s+(?:-\w, )?--([a-z][a-z0-9-]*)", help_text, re.M)))
    check(rc == 0 and "format" in names and "wide" in names, f"{cmd} --help lists --format and --wide")
    for name in names:
        if name == "help":
            continue
        typo = "--" + name + "x"
        rc, out, err = run([cmd, "k.etdp", typo])
        check(rc == EXIT_USAGE and f"unknown option {typo}: did you mean --{name}?" in err,
              f"{cmd} {typo}: {err.strip()!r}")

# ---------------------------------------------------------------------------------------------
# 3. Narrow terminals.

W = 60
NARROW = [
    ("ops", ["ops", "k.etdp", "--pte", "k.pte"]),
    ("ops ethos-u", ["ops", "n.etdp", "--pte", "n.pte"]),
    ("summary", ["summary", "k.etdp", "--pte", "k.pte"]),
    ("summary ethos-u", ["summary", "n.etdp", "--pte", "n.pte"]),
    ("tree", ["tree", "k.etdp", "--pte", "k.pte"]),
    ("tree ethos-u", ["tree", "n.etdp", "--pte", "n.pte"]),
    ("info", ["info", "k.etdp", "--pte", "k.pte"]),
    ("info program", ["info", "n.pte"]),
    ("events", ["events", "n.etdp", "--pte", "n.pte"]),
    ("explain", ["explain", "n.etdp", "--pte", "n.pte"]),
    ("qnn", ["qnn", "k.etdp", "--pte", "k.pte", "--qhas", "q.json"]),
    ("qnn viewer", ["qnn", "--profile-log", "v.txt"]),
    ("qnn, three inputs", ["qnn", "--qhas", "q.json", "--optrace", "o.json", "--runtrace", "r.json"]),
    ("diff", ["diff", "n.etdp", "n.etdp", "--pte", "n.pte"]),
]
NOTE_RE = re.compile(r"columns left out to fit (\d+) terminal columns: (.*?) \(--wide or "
                     r"COLUMNS=(\d+) shows them; --format csv or json has every column\)")


def notes_of(text):
    """The notes of a table output, each joined back into one line (wrapped notes continue on
    lines indented by 6 spaces)."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("note: "):
            if cur is not None:
                out.append(cur)
            cur = line[6:]
        elif cur is not None and line.startswith("      ") and line.strip():
            cur += " " + line.strip()
        else:
            if cur is not None:
                out.append(cur)
            cur = None
    if cur is not None:
        out.append(cur)
    return out


def headers_after(text):
    """Header lines of the tables (the line above each dashed rule)."""
    lines = text.splitlines()
    return [lines[i - 1] for i in range(1, len(lines)) if re.fullmatch(r"-+(  -+)*", lines[i])]


for what, args in NARROW:
    rc, narrow, err = run(args, columns=W)
    rc2, full, _ = run(args)
    rc3, wide, _ = run(args + ["--wide"], columns=W)
    check(rc == 0 and rc2 == 0 and rc3 == 0, f"{what}: exit {rc}/{rc2}/{rc3} {err.strip()}")
    long = [l for l in narrow.splitlines() if len(l) > W]
    # a line may pass the width only when it is one word (a path) after its label
    long = [l for l in long if len(l.strip().split(" ", 1)[-1].strip().split()) > 1]
    check(not long, f"{what}: {len(long)} line(s) longer than {W} columns, e.g. {long[:1]}")
    check(wide == full, f"{what}: --wide under COLUMNS={W} differs from the unlimited output")
    # the same words, in the same order: wrapping moves no text
    check(narrow.split() == full.split() or "columns left out" in narrow or
          "~" in narrow, f"{what}: wrapping changed the text")
    # each table that left columns out says which and how to get them back
    for note in notes_of(narrow):
        m = NOTE_RE.search(note)
        if not m:
            continue
        check(int(m.group(1)) == W, f"{what}: the note names width {m.group(1)}, not {W}")
        left = m.group(2).split(", ")
        back = int(m.group(3))
        check(back > W, f"{what}: COLUMNS={back} to get them back is not wider than {W}")
        shown = " ".join(headers_after(narrow))
        full_headers = " ".join(headers_after(full))
        for h in left:
            check(h in full_headers, f"{what}: column {h!r} named as left out is no column")
        rc4, at_back, _ = run(args, columns=back)
        check(not any(NOTE_RE.search(n) and int(NOTE_RE.search(n).group(3)) == back and
                      NOTE_RE.search(n).group(2) == m.group(2) for n in notes_of(at_back)),
              f"{what}: COLUMNS={back} still leaves out {m.group(2)}")

# ops: the dropped columns are the least important ones; p50 and whole names stay
rc, narrow, _ = run(["ops", "n.etdp", "--pte", "n.pte"], columns=W)
hdr = headers_after(narrow)[0].split()
check("name" in hdr and "p50" in hdr and "unit" in hdr, f"ops at {W}: header {hdr} lost name/p50/unit")
check("p10" not in hdr and "min" not in hdr, f"ops at {W}: p10/min kept while others went")
check(any(n.startswith(f"columns left out to fit {W} terminal columns: ") and "p10" in n and
          "min" in n for n in notes_of(narrow)), f"ops at {W}: the note does not name p10 and min")
# names up to 28 characters stay whole (tests/data/MANIFEST.md: the program's first method
# 'forward' runs Method::execute and DELEGATE_CALLs to EthosUBackend)
for name in ["Method::execute", "DELEGATE_CALL"]:
    check(re.search(r"(^|\s)" + re.escape(name) + r"(\s|$)", narrow, re.M) is not None,
          f"ops at {W}: {name} was cut")
rc, narrow100, _ = run(["ops", "k.etdp", "--pte", "k.pte", "--top", "5"], columns=100)
check("Number of HVX threads used" in narrow100, "ops at 100 columns cut names below 28 characters")

# the width: COLUMNS, never for -o FILE, an unlimited width when COLUMNS is wide
rc, full, _ = run(["ops", "k.etdp", "--pte", "k.pte", "--top", "5"])
rc, w400, _ = run(["ops", "k.etdp", "--pte", "k.pte", "--top", "5"], columns=400)
check(w400 == full and "columns left out" not in full, "COLUMNS=400 differs from unlimited width")
o = os.path.join(T, "o.txt")
run(["ops", "k.etdp", "--pte", "k.pte", "--top", "5", "-o", o], columns=W)
with open(o, encoding="utf-8") as f:
    check(f.read() == full, "-o FILE was narrowed by COLUMNS")

# notes and prose wrap: every line of a note fits, its continuation lines are indented
for what, args in [("summary", ["summary", "k.etdp", "--pte", "k.pte"]),
                   ("ops", ["ops", "k.etdp", "--pte", "k.pte", "--top", "3"]),
                   ("explain", ["explain", "k.etdp", "--pte", "k.pte"])]:
    rc, narrow, _ = run(args, columns=W)
    rc, full, _ = run(args)
    nn, fn = notes_of(narrow), notes_of(full)
    fn = [n for n in fn if "columns left out" not in n]
    nn = [n for n in nn if "columns left out" not in n]
    check(nn == fn, f"{what}: the wrapped notes are not the notes")
    check(any(len(l) > W for l in full.splitlines() if l.startswith("note: ") or
              l.startswith("  ")) or what == "ops",
          f"{what}: no note or prose line longer than {W} to wrap (test premise)")
# summary's ambiguity note (tests/data/MANIFEST.md: the kv_forward dump fits 2 methods)
rc, narrow, _ = run(["summary", "k.etdp", "--pte", "k.pte"], columns=W)
amb = [n for n in notes_of(narrow) if n.startswith("method unknown for 10 run(s)")]
check(len(amb) == 1 and "--method NAME settles it" in amb[0], "summary: the method-unknown note did not wrap whole")
lines = narrow.splitlines()
at = [i for i, l in enumerate(lines) if l.startswith("note: method unknown for 10 run(s)")]
check(len(at) == 1 and len(lines[at[0]]) <= W and lines[at[0] + 1].startswith("      ") and
      lines[at[0] + 1][6] != " ", "summary: the method-unknown note is not wrapped under its text")

shutil.rmtree(T)
for f in fails:
    print("FAIL:", f)
print(f"cli_conventions: {passed} passed, {len(fails)} failed")
sys.exit(1 if fails else 0)
