#!/bin/bash
# gen_pte_facts.sh - decode every .pte/.bpte under tests/data with Debian's flatc and our schemas
# (schema/program.fbs, schema/bundled_program.fbs) and write the facts etprof's program reader
# is tested against to tests/data/pte_facts.json. flatc is the second decoder: nothing here
# reads the program bytes itself (the one exception: the program embedded in a .bpte is written
# back to a temporary file from flatc's JSON, to be decoded by flatc again).
#
# Usage: tests/tools/gen_pte_facts.sh [DATA_DIR [OUT.json]]
#        defaults: tests/data, DATA_DIR/pte_facts.json. Needs flatc, jq, xxd, sha256sum.
#
# Per file: path (relative to DATA_DIR), size, sha256, identifier, and per execution plan:
#   name; counts of chains, values, inputs, outputs, instructions; instruction_kinds (count per
#   union member name); operators ("name.overload", or "name" when overload is empty), in table
#   order; delegates (BackendDelegate.id, in table order); kernel_calls_by_operator;
#   delegate_calls_by_backend; instruction_pattern per chain ("K0 D1 ...": K KernelCall,
#   D DelegateCall, M MoveCall, J JumpFalseCall, F FreeCall, then the instruction index).
# A .bpte adds its test suites and the same facts for the embedded program under "program".
# jq programs below are single-quoted on purpose ($p, $d are jq variables).
# shellcheck disable=SC2016
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${1:-$ROOT/tests/data}
OUT=${2:-$DATA/pte_facts.json}
FLATC=${FLATC:-flatc}
for tool in "$FLATC" jq xxd sha256sum; do
  command -v "$tool" >/dev/null || { echo "gen_pte_facts: error: $tool not found" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# jq: facts of one decoded program (flatc's JSON of a Program).
PROGRAM_FACTS='
def opname: .name + (if (.overload // "") != "" then "." + .overload else "" end);
def tally: group_by(.) | map({(.[0]): length}) | add // {};
def letter: {"KernelCall": "K", "DelegateCall": "D", "MoveCall": "M",
             "JumpFalseCall": "J", "FreeCall": "F"}[.] // "?";
{
  program_version: .version,
  segments: (.segments // [] | length),
  plans: [ (.execution_plan // [])[] as $p | {
    name: $p.name,
    chains: ($p.chains // [] | length),
    values: ($p.values // [] | length),
    inputs: ($p.inputs // [] | length),
    outputs: ($p.outputs // [] | length),
    instructions: ([ ($p.chains // [])[] | (.instructions // [])[] ] | length),
    instruction_kinds: ([ ($p.chains // [])[] | (.instructions // [])[] | .instr_args_type ]
                        | tally),
    operators: [ ($p.operators // [])[] | opname ],
    delegates: [ ($p.delegates // [])[] | .id ],
    kernel_calls_by_operator: ([ ($p.chains // [])[] | (.instructions // [])[]
        | select(.instr_args_type == "KernelCall")
        | ($p.operators[.instr_args.op_index] | opname) ] | tally),
    delegate_calls_by_backend: ([ ($p.chains // [])[] | (.instructions // [])[]
        | select(.instr_args_type == "DelegateCall")
        | $p.delegates[.instr_args.delegate_index].id ] | tally),
    instruction_pattern: [ ($p.chains // [])[] | [ (.instructions // []) | to_entries[]
        | (.value.instr_args_type | letter) + (.key | tostring) ] | join(" ") ]
  } ]
}'

# jq: the bundled program's own facts, and its program bytes as hex (for xxd -r -p).
BUNDLED_FACTS='
{
  bundled_version: .version,
  program_bytes: (.program // [] | length),
  method_test_suites: [ (.method_test_suites // [])[] | {
    method_name,
    test_cases: (.test_cases // [] | length),
    inputs_per_case: [ (.test_cases // [])[] | (.inputs // [] | length) ] | unique,
    expected_outputs_per_case: [ (.test_cases // [])[] | (.expected_outputs // [] | length) ]
                               | unique
  } ]
}'
HEX='def hex2: "0123456789abcdef" as $d | $d[(./16|floor):(./16|floor)+1] + $d[(.%16):(.%16)+1];
     .program | map(hex2) | join("")'

decode() { # schema file outdir
  "$FLATC" --json --strict-json --defaults-json --raw-binary -o "$3" "$1" -- "$2"
}

n=0
while IFS= read -r rel; do
  n=$((n + 1))
  f=$DATA/$rel
  work=$tmp/$n
  mkdir -p "$work"
  size=$(stat -c %s "$f")
  sha=$(sha256sum "$f" | cut -d' ' -f1)
  ident=$(dd if="$f" bs=1 skip=4 count=4 2>/dev/null)
  case "$rel" in
    *.bpte)
      decode "$ROOT/schema/bundled_program.fbs" "$f" "$work"
      j=$(ls "$work"/*.json)
      jq "$BUNDLED_FACTS" "$j" > "$work/bundled.facts"
      jq -r "$HEX" "$j" | xxd -r -p > "$work/embedded.pte"
      mkdir -p "$work/p"
      decode "$ROOT/schema/program.fbs" "$work/embedded.pte" "$work/p"
      jq "$PROGRAM_FACTS" "$work"/p/*.json > "$work/program.facts"
      jq -n --arg file "$rel" --argjson size "$size" --arg sha "$sha" --arg id "$ident" \
            --arg esha "$(sha256sum "$work/embedded.pte" | cut -d' ' -f1)" \
            --arg eid "$(dd if="$work/embedded.pte" bs=1 skip=4 count=4 2>/dev/null)" \
            --slurpfile b "$work/bundled.facts" --slurpfile p "$work/program.facts" \
        '{file: $file, size: $size, sha256: $sha, identifier: $id} + $b[0]
         + {program: ({identifier: $eid, sha256: $esha} + $p[0])}' > "$work/facts.json"
      ;;
    *)
      decode "$ROOT/schema/program.fbs" "$f" "$work"
      jq --arg file "$rel" --argjson size "$size" --arg sha "$sha" --arg id "$ident" \
        "{file: \$file, size: \$size, sha256: \$sha, identifier: \$id} + ($PROGRAM_FACTS)" \
        "$work"/*.json > "$work/facts.json"
      ;;
  esac
  echo "gen_pte_facts: $rel" >&2
done < <(cd "$DATA" && find . -type f \( -name '*.pte' -o -name '*.bpte' \) | sed 's|^\./||' \
         | LC_ALL=C sort)

[ "$n" -gt 0 ] || { echo "gen_pte_facts: error: no .pte/.bpte under $DATA" >&2; exit 1; }
flatc_version=$("$FLATC" --version)
for i in $(seq 1 "$n"); do cat "$tmp/$i/facts.json"; done \
  | jq -s --arg v "$flatc_version" '{
      schema_version: 1,
      generator: "tests/tools/gen_pte_facts.sh",
      decoder: ($v + " with schema/program.fbs and schema/bundled_program.fbs"),
      note: "Decoded by flatc (a second decoder), not by etprof. Paths are relative to tests/data.",
      files: .
    }' > "$OUT"
echo "gen_pte_facts: $n file(s) -> $OUT" >&2
