#!/bin/sh
# Tests for bench/etprof-gen: every generated file is decoded by a second, independent decoder
# (Debian's flatc, against schema/etdump.fbs) and checked with jq for what the generator was
# asked to produce: block and event counts, names and order, field conventions of runtime and
# delegate events, the QNN invariants (node sum == parent, nesting, tick events), determinism,
# and that --slow changes only the targeted events and their parents.
#
# usage: test_gen.sh PATH/TO/etprof-gen SCHEMA_DIR
# Exit 77 (skipped) when flatc or jq is missing.
set -eu

GEN=$1
SCHEMA=$2
for tool in flatc jq cmp od; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool not found (Debian packages flatbuffers-compiler, jq)"
    exit 77
  fi
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
NCHECK=0

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# gen NAME ARGS...: runs the generator into $T/NAME.etdp, keeps its stats line in $T/NAME.stats
gen() {
  name=$1
  shift
  "$GEN" "$@" -o "$T/$name.etdp" 2>"$T/$name.stats" || fail "etprof-gen $* failed: $(cat "$T/$name.stats")"
}

# decode NAME: flatc, the Python Inspector's own decoding path, into $T/NAME.json
decode() {
  flatc --json --strict-json --defaults-json --size-prefixed --raw-binary \
    -o "$T" "$SCHEMA/etdump.fbs" -- "$T/$1.etdp" || fail "flatc cannot decode $1.etdp"
  [ -s "$T/$1.json" ] || fail "flatc produced no JSON for $1.etdp"
}

DEFS='
def lab: .profile_event | (.delegate_debug_id_str // .name);
def dur: .profile_event | (.end_time - .start_time);
def qtop: ["Number of HVX threads used (count)", "RPC (execute) time (us)",
  "QNN accelerator (execute) time (us)", "Num times yield occured (count)",
  "Time for initial VTCM acquire (us)", "Time for HVX + HMX power on and acquire (us)",
  "Accelerator (execute) time (cycles)"];
def qtail: ["Accelerator (execute) time (us)", "Accelerator (execute excluding wait) time (us)",
  "QNN (execute) time (us)"];
def v($i): .[$i].profile_event.end_time;
# A QNN group of N node events starting at index i of an events array: names, order, fields,
# node sum == parent, nesting, value ranges. cold: first execute of the method.
def qnn_group($i; $N; $cold):
  .[$i:$i + $N + 10] as $g
  | ($g | map(lab)) as $l
  | ($l[0:7] == qtop) and ($l[$N + 7:$N + 10] == qtail)
  and $l[7] == "Input OpId_2 (cycles)" and $l[$N + 6] == "Output OpId_3 (cycles)"
  and $l[$N + 5] == "OpId_0 (cycles)" and ($g | v($N + 5)) == 0
  and ([$l[8:$N + 5][] | select(test("^aten_[a-z0-9_]+:OpId_[0-9]+ \\(cycles\\)$"))] | length) == $N - 6
  and ([$l[8:$N + 5][] | select(test("^OpId_[1-9][0-9]* \\(cycles\\)$"))] | length) == 3
  and ([$l[7:$N + 7][] | capture("OpId_(?<n>[0-9]+) ").n] | unique | length) == $N
  and ($g | all(.[]; .profile_event | .name == null and .start_time == 0
       and .delegate_debug_metadata == [] and .chain_index == 0 and .delegate_debug_id_int == -1))
  and ($g | map(.profile_event.instruction_id) | unique | length) == 1
  and ([$g[7:$N + 7][] | .profile_event.end_time] | add) == ($g | v(6))
  and ($g | v(0)) == 4 and ($g | v(3)) == 0
  and ($g | v($N + 9)) >= ($g | v(1)) and ($g | v(1)) >= ($g | v(2))
  and ($g | v(2)) >= ($g | v($N + 7)) and ($g | v($N + 7)) >= ($g | v($N + 8))
  and ($g | v($N + 8)) > 0
  and (($g | v(6)) / ($g | v($N + 8))) as $r | ($r > 3700 and $r < 5000)
  and (if $cold then ($g | v(4)) >= 470 and ($g | v(4)) <= 560 and ($g | v(5)) >= 5600 and ($g | v(5)) <= 6300
       else ($g | v(4)) >= 55 and ($g | v(4)) <= 205 and ($g | v(5)) >= 8 and ($g | v(5)) <= 14 end);
# runtime event: name set, no delegate fields
def rt($name; $chain; $instr):
  .profile_event | .name == $name and .chain_index == $chain and .instruction_id == $instr
  and .delegate_debug_id_str == null and .delegate_debug_metadata == null
  and .delegate_debug_id_int == -1 and .start_time < .end_time;
def encloses($a; $b): $a.profile_event.start_time <= $b.profile_event.start_time
  and $b.profile_event.end_time <= $a.profile_event.end_time;
def default_ok:
  .run_data[0].name == "Default" and (.run_data[0].events | length) == 2
  and (.run_data[0].events[0] | rt("Method::init"; -1; 0))
  and (.run_data[0].events[1] | rt("Program::load_method"; -1; 0))
  and encloses(.run_data[0].events[1]; .run_data[0].events[0]);
def common_ok($blocks):
  .version == 0 and (.run_data | length) == $blocks + 1 and default_ok
  and all(.run_data[]; .bundled_input_index == -1 and .allocators == null)
  and all(.run_data[1:][]; .name == "Execute"
          and (.events[-1] | rt("Method::execute"; -1; 0))
          and (.events[-1] as $m | all(.events[:-1][] | select(.profile_event.name != null); encloses($m; .))))
  and ([.run_data[].events[-1].profile_event] | [range(1; length) as $k | .[$k].start_time > .[$k - 1].end_time] | all);
'

# check NAME DESCRIPTION JQ-EXPRESSION: the expression must be true on $T/NAME.json
check() {
  NCHECK=$((NCHECK + 1))
  jq -e "$DEFS $3" "$T/$1.json" >/dev/null || fail "$1: $2"
}

# stats NAME BLOCKS EVENTS: the generator's own stats line agrees with the file
stats() {
  size=$(wc -c <"$T/$1.etdp" | tr -d ' ')
  line=$(cat "$T/$1.stats")
  [ "$line" = "events=$3 blocks=$2 bytes=$size" ] || fail "$1: stats '$line', expected events=$3 blocks=$2 bytes=$size"
  prefix=$(od -An -tu4 -N4 "$T/$1.etdp" | tr -d ' ')
  [ "$prefix" = $((size - 4)) ] || fail "$1: size prefix $prefix, file size $size"
  ident=$(od -An -c -j8 -N4 "$T/$1.etdp" | tr -d ' ')
  [ "$ident" = "ED00" ] || fail "$1: identifier '$ident' at byte 8"
  NCHECK=$((NCHECK + 3))
}

# ---- qnn-llm -------------------------------------------------------------------------------
gen qnn --style qnn-llm --blocks 3 --nodes 40 --seed 7 --pte "$T/qnn.pte"
decode qnn
stats qnn 4 $((2 + 3 * (10 + 40 + 2)))
check qnn "common structure" 'common_ok(3)'
check qnn "Execute blocks hold 52 events" 'all(.run_data[1:][]; (.events | length) == 52)'
check qnn "QNN groups (first execute cold)" \
  '.run_data[1].events | qnn_group(0; 40; true)'
check qnn "QNN groups (later executes warm)" \
  'all(.run_data[2:][]; .events | qnn_group(0; 40; false))'
check qnn "DELEGATE_CALL encloses QNN (execute) time, Method::execute last" \
  'all(.run_data[1:][]; .events as $e | ($e[50] | rt("DELEGATE_CALL"; 0; 0))
     and ($e[50] | dur) >= ($e | v(49)) * 1000 and encloses($e[51]; $e[50]))'
check qnn "first execute is cold (more node cycles)" \
  '(.run_data[1].events | v(6)) > (.run_data[2].events | v(6)) and (.run_data[1].events | v(6)) > (.run_data[3].events | v(6))'
check qnn "node names are the same in every execute" \
  '[.run_data[1:][] | [.events[] | lab]] | unique | length == 1'

# ---- cpu -----------------------------------------------------------------------------------
gen cpu --style cpu --blocks 2 --nodes 60 --seed 3 --pte "$T/cpu.pte"
decode cpu
stats cpu 3 $((2 + 2 * (2 * 60 + 1)))
check cpu "common structure" 'common_ok(2)'
check cpu "Execute blocks hold 121 events" 'all(.run_data[1:][]; (.events | length) == 121)'
check cpu "native_call/OPERATOR_CALL pairs, instruction ids 0..59, nested and sequential" '
  all(.run_data[1:][]; .events as $e | all(range(0; 60) as $i |
    ($e[2 * $i].profile_event.name | test("^native_call_[a-z_]+\\.out$"))
    and ($e[2 * $i] | rt($e[2 * $i].profile_event.name; 0; $i))
    and ($e[2 * $i + 1] | rt("OPERATOR_CALL"; 0; $i))
    and encloses($e[2 * $i + 1]; $e[2 * $i])
    and ($i == 0 or $e[2 * $i - 1].profile_event.end_time <= $e[2 * $i + 1].profile_event.start_time); .))'
check cpu "no delegate events" '[.run_data[].events[] | select(.profile_event.delegate_debug_id_str != null)] | length == 0'

# ---- mixed ---------------------------------------------------------------------------------
# --nodes 40: 40 HTP node events, max(8, 40/5) = 8 CPU kernels, 24 XNNPACK ops
gen mixed --style mixed --blocks 2 --nodes 40 --seed 11 --pte "$T/mixed.pte"
decode mixed
stats mixed 3 $((2 + 2 * (2 * 8 + (10 + 40 + 1) + (24 + 1) + 1)))
check mixed "common structure" 'common_ok(2)'
check mixed "instruction sequence: kernels and two DELEGATE_CALLs, ids 0..9" '
  all(.run_data[1:][]; [.events[].profile_event | select(.name == "OPERATOR_CALL" or .name == "DELEGATE_CALL")]
    | map(.instruction_id) == [range(0; 10)] and ([.[] | select(.name == "DELEGATE_CALL")] | length) == 2)'
check mixed "QNN group right before the first DELEGATE_CALL, same instruction" '
  all(.run_data[1:][]; .events as $e | ($e | map(lab) | index("DELEGATE_CALL")) as $d
    | ($e | qnn_group($d - 50; 40; false) or qnn_group($d - 50; 40; true))
    and $e[$d - 50].profile_event.instruction_id == $e[$d].profile_event.instruction_id)'
check mixed "XNNPACK events: inside the second DELEGATE_CALL, back to back, whole us" '
  all(.run_data[1:][]; .events as $e | ([$e | map(lab) | indices("DELEGATE_CALL")[]] | .[1]) as $d
    | $e[$d - 24:$d] as $x
    | all($x[]; (lab | test(" #[0-9]+$")) and .profile_event.instruction_id == $e[$d].profile_event.instruction_id
          and .profile_event.delegate_debug_metadata == [] and .profile_event.name == null
          and encloses($e[$d]; .) and ((dur) % 1000) == 0 and dur > 0)
    and all(range(1; 24) as $k | $x[$k].profile_event.start_time == $x[$k - 1].profile_event.end_time; .))'

# ---- determinism ---------------------------------------------------------------------------
gen qnn_again --style qnn-llm --blocks 3 --nodes 40 --seed 7
cmp -s "$T/qnn.etdp" "$T/qnn_again.etdp" || fail "same seed gave different bytes (qnn-llm)"
gen mixed_again --style mixed --blocks 2 --nodes 40 --seed 11
cmp -s "$T/mixed.etdp" "$T/mixed_again.etdp" || fail "same seed gave different bytes (mixed)"
gen qnn_other --style qnn-llm --blocks 3 --nodes 40 --seed 8
if cmp -s "$T/qnn.etdp" "$T/qnn_other.etdp"; then fail "different seeds gave identical bytes"; fi
NCHECK=$((NCHECK + 3))

# ---- --slow ----------------------------------------------------------------------------------
# QNN: nodes whose name contains aten_linear x3; every other node and the count/tick events keep
# their values; the cycles parent is still the node sum and every parent grows.
gen qnn_slow --style qnn-llm --blocks 3 --nodes 40 --seed 7 --slow aten_linear:3
decode qnn_slow
check qnn_slow "QNN invariants still hold" \
  'common_ok(3) and (.run_data[1].events | qnn_group(0; 40; true)) and all(.run_data[2:][]; .events | qnn_group(0; 40; false))'
NCHECK=$((NCHECK + 1))
jq -e --slurpfile base "$T/qnn.json" "$DEFS"'
  .run_data[0] == $base[0].run_data[0]
  and all(range(1; 4) as $b | .run_data[$b].events as $s | $base[0].run_data[$b].events as $o
    | ($s | map(lab)) == ($o | map(lab))
    and ([range(7; 47) as $i | select($s[$i] | lab | test("aten_linear"))] | length) > 0
    and all(range(7; 47) as $i | ($s[$i] | lab) as $n | ($s | v($i)) as $x | ($o | v($i)) as $y
          | if ($n | test("aten_linear")) then ($x - 3 * $y) | (. <= 2 and . >= -2) else $x == $y end; .)
    and all((0, 3, 4, 5) as $k | ($s | v($k)) == ($o | v($k)); .)
    and all((6, 1, 2, 47, 48, 49) as $k | ($s | v($k)) > ($o | v($k)); .)
    and ($s[50] | dur) > ($o[50] | dur) and ($s[51] | dur) > ($o[51] | dur); .)' \
  "$T/qnn_slow.json" >/dev/null || fail "qnn_slow: --slow aten_linear:3 changed the wrong events"

# CPU: native_call_addmm x2; OPERATOR_CALL of those grows by exactly the same amount, other
# kernels keep their durations, Method::execute grows by the sum.
gen cpu_slow --style cpu --blocks 2 --nodes 60 --seed 3 --slow native_call_addmm:2
decode cpu_slow
NCHECK=$((NCHECK + 1))
jq -e --slurpfile base "$T/cpu.json" "$DEFS"'
  .run_data[0] == $base[0].run_data[0]
  and all(range(1; 3) as $b | .run_data[$b].events as $s | $base[0].run_data[$b].events as $o
    | ($s | map(lab)) == ($o | map(lab))
    and ([range(0; 60) as $i | select($s[2 * $i] | lab | startswith("native_call_addmm"))] | length) > 0
    and all(range(0; 60) as $i | ($s[2 * $i] | dur) as $x | ($o[2 * $i] | dur) as $y
          | if ($s[2 * $i] | lab | startswith("native_call_addmm"))
            then (($x - 1) - 2 * ($y - 1)) | (. <= 2 and . >= -2) else $x == $y end
          and ($s[2 * $i + 1] | dur) - ($o[2 * $i + 1] | dur) == $x - $y; .)
    and ($s[-1] | dur) - ($o[-1] | dur)
        == ([range(0; 60) as $i | ($s[2 * $i] | dur) - ($o[2 * $i] | dur)] | add); .)' \
  "$T/cpu_slow.json" >/dev/null || fail "cpu_slow: --slow native_call_addmm:2 changed the wrong events"

# ---- --size ----------------------------------------------------------------------------------
gen sized --style cpu --size 3M --nodes 200 --seed 5
decode sized
size=$(wc -c <"$T/sized.etdp" | tr -d ' ')
[ "$size" -ge 2850000 ] && [ "$size" -le 3150000 ] || fail "--size 3M gave $size bytes"
blocks=$(sed -n 's/.*blocks=\([0-9]*\).*/\1/p' "$T/sized.stats")
events=$(sed -n 's/^events=\([0-9]*\).*/\1/p' "$T/sized.stats")
check sized "block and event counts agree with the stats line" \
  "(.run_data | length) == $blocks and ([.run_data[].events | length] | add) == $events and common_ok($blocks - 1)"
NCHECK=$((NCHECK + 1))

# ---- usage errors ----------------------------------------------------------------------------
if "$GEN" >/dev/null 2>&1; then fail "no arguments should fail"; fi
if "$GEN" --style cpu --size 3G -o "$T/x.etdp" 2>/dev/null; then fail "--size 3G should be refused"; fi
if "$GEN" --style qnn-llm --blocks 1 --nodes 3 -o "$T/x.etdp" 2>/dev/null; then fail "--nodes 3 should be refused"; fi
if "$GEN" --style cpu --blocks 1 --slow nocolon -o "$T/x.etdp" 2>/dev/null; then fail "--slow without FACTOR should be refused"; fi
NCHECK=$((NCHECK + 4))

# ---- .pte ------------------------------------------------------------------------------------
for p in qnn cpu mixed; do
  ident=$(od -An -c -j4 -N4 "$T/$p.pte" | tr -d ' ')
  [ "$ident" = "ET12" ] || fail "$p.pte: identifier '$ident' at byte 4"
  NCHECK=$((NCHECK + 1))
done
if [ -f "$SCHEMA/program.fbs" ]; then
  for p in qnn cpu mixed; do
    mkdir -p "$T/pte"
    flatc --json --strict-json --defaults-json --raw-binary -I "$SCHEMA" \
      -o "$T/pte" "$SCHEMA/program.fbs" -- "$T/$p.pte" || fail "flatc cannot decode $p.pte"
  done
  # every runtime call event of the first Execute block resolves through the program
  PTEDEFS='
  def resolves($plan; $want_plan):
    $plan.name == $want_plan and ($plan.chains | length) == 1
    and ([.run_data[1].events[].profile_event | select(.name == "OPERATOR_CALL" or .name == "DELEGATE_CALL")]) as $calls
    | ($calls | length) == ($plan.chains[0].instructions | length)
    and all(.run_data[1].events[].profile_event | select(.name != null and (.name | startswith("native_call_")));
          .name as $n | $plan.chains[0].instructions[.instruction_id]
          | .instr_args_type == "KernelCall"
          and ($plan.operators[.instr_args.op_index] | "native_call_" + (.name | sub("^.*::"; "")) + "." + .overload) == $n)
    and all($calls[] | select(.name == "DELEGATE_CALL");
          $plan.chains[0].instructions[.instruction_id].instr_args_type == "DelegateCall");
  def backends($plan): [.run_data[1].events[].profile_event | select(.name == "DELEGATE_CALL")
    | $plan.delegates[$plan.chains[0].instructions[.instruction_id].instr_args.delegate_index].id];
  '
  NCHECK=$((NCHECK + 3))
  jq -e --slurpfile p "$T/pte/qnn.json" "$DEFS $PTEDEFS"'
    resolves($p[0].execution_plan[0]; "kv_forward") and backends($p[0].execution_plan[0]) == ["QnnBackend"]' \
    "$T/qnn.json" >/dev/null || fail "qnn.pte does not match qnn.etdp"
  jq -e --slurpfile p "$T/pte/cpu.json" "$DEFS $PTEDEFS"'
    resolves($p[0].execution_plan[0]; "forward") and ($p[0].execution_plan[0].operators | all(.name | startswith("aten::")))' \
    "$T/cpu.json" >/dev/null || fail "cpu.pte does not match cpu.etdp"
  jq -e --slurpfile p "$T/pte/mixed.json" "$DEFS $PTEDEFS"'
    resolves($p[0].execution_plan[0]; "forward") and backends($p[0].execution_plan[0]) == ["QnnBackend", "XnnpackBackend"]' \
    "$T/mixed.json" >/dev/null || fail "mixed.pte does not match mixed.etdp"
else
  echo "note: $SCHEMA/program.fbs absent, .pte decoding skipped"
fi

echo "PASS: $NCHECK checks"
