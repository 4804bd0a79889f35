#!/bin/sh
# gen_stories_qhas.sh ETPROF ETDUMP [exact] > stories260k_kv_qhas.json   (compact JSON, one line)
#
# Writes a QHAS (QNN HTP analysis summary, artifact_type "QHAS") fixture whose QNN op names and
# OpIds match the HTP node events of ETDUMP (tests/data/fake-qnn-backend/
# stories260k_qnn_kv_forward_1x.etdp), so that `etprof qnn ETDUMP --qhas F` has a join to check.
# Written from the documented format (docs/qnn-inputs.md), not copied from any real file.
#
# The HTP node events are taken in event order (`etprof events --format json`); the node at
# 0-based position i becomes QNN op i, with these deliberate differences:
#   positions 5, 6, 7   left out of the QHAS                       -> 3 ETDump-only nodes
#   positions 10..14    QHAS cycles = ETDump cycles + 1000         -> 5 ops whose cycles differ
#   position 20         another OpId (+100000), the same name      -> 1 match by name only
#   position 30         the same OpId, the name + "_renamed"       -> 1 OpId conflict
#   two extra ops qhas_only_a (OpId 900001), qhas_only_b (900002)  -> 2 QNN-only ops
# Every other op has the ETDump node's cycles (as if both came from one run). With "exact" as the
# third argument there are no deliberate differences and no extra ops (a one-run join).
# HTP ops per QNN op: convolutions = an HMX op (3/4 of the cycles, tid 256) + a DMA weights op
# (the rest, tid 256); Input/Output = one DMA slice op; unnamed "OpId_N" system nodes = one
# SystemService op without unit flags; everything else = one HVX op on tid 512 + i % 4. Bytes
# are small deterministic functions of i. The overall summary (utilization, timeline, times,
# peak VTCM) is invented; the resource busy cycles and byte totals are the sums over the ops.
set -eu
ETPROF=${1:?usage: gen_stories_qhas.sh ETPROF ETDUMP}
ETDUMP=${2:?usage: gen_stories_qhas.sh ETPROF ETDUMP}
EXACT=false
[ "${3:-}" = exact ] && EXACT=true
"$ETPROF" events "$ETDUMP" --format json | jq -c --argjson exact "$EXACT" '
def hex: if . < 16 then "0123456789abcdef"[.:.+1]
         else ((. / 16 | floor) | hex) + ("0123456789abcdef"[(. % 16):(. % 16) + 1]) end;
def pad8: ("00000000" + .) | .[-8:];
def opid($hi; $lo): "0x" + ($hi | hex | pad8) + ($lo | hex | pad8);
def inst($i; $k; $name; $type; $id; $htp; $tid; $cyc; $hmx; $hvx; $dma):
  {tid: $tid, op_id: opid(4096 + $i * 4 + $k; $id), htp_op: $htp, qnn_op: $name,
   qnn_op_type: $type, start_cycle: (1000000 + $i * 100), cycles: $cyc,
   hmx: $hmx, hvx: $hvx, dma: $dma,
   dram_read: (64 * ($i % 7)), dram_write: (32 * ($i % 3)),
   vtcm_read: (128 * ($i % 5)), vtcm_write: (128 * ($i % 4))};
[ .events[] | select(.delegate_debug_id_str != null) | .value as $v
  | .delegate_debug_id_str
  | capture("^(?:(?<name>.*):|(?<io>Input|Output) )?OpId_(?<id>[0-9]+) \\(cycles\\)$")
  | {name: (.name // .io), io: .io, id: (.id | tonumber), cycles: $v} ] as $nodes0
| [ range(0; $nodes0 | length) as $i | $nodes0[$i] + {i: $i} ] as $nodes
| ([ $nodes[]
    | select($exact or (.i != 5 and .i != 6 and .i != 7))
    | . as $n
    | (if ($exact | not) and $n.i >= 10 and $n.i <= 14 then $n.cycles + 1000 else $n.cycles end) as $c
    | (if ($exact | not) and $n.i == 20 then $n.id + 100000 else $n.id end) as $id
    | (if $n.name == null then "SystemService_\($n.id)"
       elif ($exact | not) and $n.i == 30 then $n.name + "_renamed" else $n.name end) as $name
    | if $n.io != null then
        [inst($n.i; 0; $name; $name; $id;
              (if $n.io == "Input" then "q::*InputSlice" else "q::*OutputSlice" end);
              256; $c; false; false; true)]
      elif $n.name == null then
        [inst($n.i; 0; $name; "SystemService"; $id; "SystemService"; 256; $c; false; false; false)]
      elif ($n.name | test("convolution")) then
        (($c / 4) | floor) as $w
        | [inst($n.i; 0; $name; "Conv2d"; $id; "q::ConvLayer_s1.opt"; 256; $c - $w; true; false; false),
           inst($n.i; 1; $name; "Conv2d"; $id; "q::ConvLayer.opt.weights_to_vtcm"; 256; $w; false; false; true)]
      else
        [inst($n.i; 0; $name; "ElementWise"; $id; "q::Op"; 512 + ($n.i % 4); $c; false; true; false)]
      end
    | .[] ]
  + if $exact then [] else [ inst(5000; 0; "qhas_only_a"; "ElementWise"; 900001; "q::Op"; 513; 700; false; true; false),
      inst(5001; 0; "qhas_only_b"; "ElementWise"; 900002; "q::Op"; 514; 300; false; true; false) ] end)
  as $inst
| 560000 as $timeline
| def busy($t): [ $inst[] | select(.tid == $t) | .cycles ] | add // 0;
  def total($k): [ $inst[] | .[$k] ] | add;
  {
    header: {header_version: {major: 1, minor: 0, patch: 0},
             version: {major: 1, minor: 1, patch: 0}, artifact_type: "QHAS"},
    model_id: "stories260k_kv_forward_fixture",
    data: {
      htp_overall_summary: {data: [{
        htp_resources: {data: [
          {type: "HMX", tid: 256}, {type: "HVX", tid: 512}, {type: "HVX", tid: 513},
          {type: "HVX", tid: 514}, {type: "HVX", tid: 515}
          | . + {start_cycle: 1000000, end_cycle: (1000000 + $timeline),
                 timeline_cycles: $timeline, cycles_used: busy(.tid)}
          | . + {utilization: (.cycles_used * 100 / $timeline)}]},
        htp: 0, percent_idle: 9.5, percent_utilization: 90.5, time_us: 654,
        graph_execute_us: 292, inf_per_s: 1529.051987767584, timeline_cycles: $timeline,
        total_dram_read: total("dram_read"), total_dram_write: total("dram_write"),
        total_dram: (total("dram_read") + total("dram_write")), peak_vtcm_alloc: 2097152,
        total_vtcm_read: total("vtcm_read"), total_vtcm_write: total("vtcm_write"),
        total_vtcm: (total("vtcm_read") + total("vtcm_write")),
        qnn_nodes: ([ $inst[].qnn_op ] | unique | length), htp_nodes: ($inst | length)
      }]},
      htp_op_instances: {data: $inst},
      dominant_path_htp_0: {data: [
        ($inst[0:6][] | {op_id, htp_op, qnn_op, start_cycle, end_cycle: (.start_cycle + .cycles),
                         partial: false, dp_cycles: .cycles, cycles}),
        {op_id: "0x0", htp_op: "Accumulated Idle", qnn_op: "Accumulated Idle", start_cycle: 0,
         end_cycle: 0, partial: false, dp_cycles: 1234, cycles: 1234}
      ]}
    }
  }'
