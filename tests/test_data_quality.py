#!/usr/bin/env python3
"""Data that used to be dropped or hidden without a word (issue 10.5), on
tests/data/flatc-built/odd_blocks.etdp, built by flatc from odd_blocks.json (a dump as a Python
writer makes it). Every expected value is read off odd_blocks.json by hand:

  - blocks: "Default" (Method::init, Program::load_method: a load block), 2 x "forward_run"
    (OPERATOR_CALL / DELEGATE_CALL events of instructions 0-2, no Method::execute), "setup"
    (one event of chain -1: not a run);
  - instruction 1 holds {name "xnn_conv", delegate_debug_id_int 7}: 200..260 and 1200..1280,
    i.e. 60 and 80 ns -> p50 70 ns = 0.07 us, count 2;
  - instruction 2's native_call_mul.out: block 1 start 5000000000 > end 4999999000, both above
    2^32 (no 32-bit wrap): no duration; block 2: 500 ns. count 2, bad_time_count 1, p50 0.5 us.

  - synthetic/synth_qnn_mixed_small_3x.etdp: QNN (execute) time (us) longer than its
    DELEGATE_CALL in every run (ratios from flatc's decoding): flagged as impossible nesting.
  - flatc-built/host_scopes.etdp: `inner` inside `outer` in some runs only (read off flatc's
    decoding): flagged as a row whose parent varies, in every view.
  - flatc-built/units_vary.etdp: one delegate event logged raw (start 0) in two runs and with
    host times in one: a row per unit, flagged in every view.

usage: test_data_quality.py ETPROF DATA_DIR SCHEMA_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ETPROF, DATA, SCHEMA = sys.argv[1], sys.argv[2], sys.argv[3]
DUMP = DATA + '/flatc-built/odd_blocks.etdp'
fails = 0


def run(*args):
    p = subprocess.run([ETPROF, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit('FAIL: etprof %s exited %d: %s' % (' '.join(args), p.returncode, p.stderr))
    return p.stdout


def check(what, cond):
    global fails
    if not cond:
        print('FAIL:', what)
        fails += 1
    else:
        print('ok:', what)


def check_quality(view, dq):
    groups = {(g['name'], g['reason']): g for g in dq['blocks']}
    fr = groups.get(('forward_run', 'run'))
    check(view + ': 2 forward_run blocks counted as runs by their events',
          fr is not None and fr['blocks'] == 2 and fr['counted_as_runs'] and fr['by_events']
          and fr['events'] == 12)
    st = groups.get(('setup', 'not_a_run'))
    check(view + ': the setup block listed as skipped with the option that includes it',
          st is not None and st['blocks'] == 1 and not st['counted_as_runs']
          and st['include_with'] == '--block setup')
    df = groups.get(('Default', 'load'))
    check(view + ': the Default block is a load block', df is not None and df['blocks'] == 1)
    check(view + ': 1 bad-time event', dq['bad_time_events'] == 1)
    bad = dq['bad_time_rows']
    check(view + ': the bad-time row is native_call_mul.out, instruction 2, 1 of 2',
          len(bad) == 1 and bad[0]['name'] == 'native_call_mul.out'
          and bad[0]['instruction_id'] == 2 and bad[0]['count'] == 2
          and bad[0]['bad_time_count'] == 1)
    check(view + ': one delegate row named by its id', dq['named_delegate_rows'] == 1)


def check_notes(view, notes):
    text = '\n'.join(notes)
    check(view + ': notes say forward_run was counted as runs',
          '2 block(s) named "forward_run" counted as runs' in text)
    check(view + ': notes name the skipped block and --block',
          'named "setup"' in text and '--block "setup"' in text)
    check(view + ': notes warn of the event that ends before it starts',
          '1 event(s) in 1 row(s) end before they start' in text
          and 'native_call_mul.out (instruction 2) 1' in text)


s = json.loads(run('summary', DUMP, '-f', 'json'))
check('summary: 2 runs', s['runs'] == 2 and s['methods'][0]['runs'] == 2)
check_quality('summary', s['data_quality'])
check_notes('summary', s['notes'])

o = json.loads(run('ops', DUMP, '-f', 'json'))
rows = {(r['instruction_id'], r['name']): r for r in o['rows']}
d7 = rows.get((1, '7'))
check('ops: the name+id event is delegate_internal, named 7, event_name xnn_conv',
      d7 is not None and d7['kind'] == 'delegate_internal' and d7['event_name'] == 'xnn_conv'
      and d7['count'] == 2 and abs(d7['p50'] - 0.07) < 1e-9)
check('ops: no row keeps the name xnn_conv as identity', (1, 'xnn_conv') not in rows)
mul = rows.get((2, 'native_call_mul.out'))
check('ops: native_call_mul.out counts its bad-time event',
      mul is not None and mul['count'] == 2 and mul['bad_time_count'] == 1
      and abs(mul['p50'] - 0.5) < 1e-9)
check('ops: other rows have bad_time_count 0',
      all(r['bad_time_count'] == 0 for k, r in rows.items() if k != (2, 'native_call_mul.out')))
check_notes('ops', o['notes'])

e = json.loads(run('explain', DUMP, '-f', 'json'))
check_quality('explain', e['data_quality'])
check_notes('explain', e['notes'])

t = json.loads(run('tree', DUMP, '-f', 'json'))
check_quality('tree', t['data_quality'])
check_notes('tree', t['notes'])

for view in ('summary', 'tree', 'explain'):
    out = run(view, DUMP)
    check_notes(view + ' (text)', [out.replace('\n  ', ' ')])

html = run('report', DUMP)
check('report: notes say forward_run was counted as runs',
      '2 block(s) named &quot;forward_run&quot; counted as runs' in html
      or '2 block(s) named "forward_run" counted as runs' in html)
check('report: the data block carries data_quality', '"bad_time_events":1' in html)

# ---- impossible nesting: synthetic/synth_qnn_mixed_small_3x.etdp -------------------------------
# Expected from flatc's own decoding: per Execute block, "QNN (execute) time (us)" (start 0, end =
# us, x 1000 ns) over the DELEGATE_CALL of instruction 2 (host ticks = ns).
QNN = DATA + '/synthetic/synth_qnn_mixed_small_3x.etdp'
flatc = shutil.which('flatc') or '/usr/bin/flatc'
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([flatc, '--json', '--strict-json', '--defaults-json', '--size-prefixed',
                    '--raw-binary', '-o', tmp, SCHEMA + '/etdump.fbs', '--', QNN], check=True)
    doc = json.load(open(os.path.join(tmp, 'synth_qnn_mixed_small_3x.json')))
ratios = []
for b in doc['run_data']:
    if b['name'] != 'Execute':
        continue
    pe = [e['profile_event'] for e in b['events'] if e.get('profile_event')]
    dc = [p for p in pe if p.get('name') == 'DELEGATE_CALL' and p['instruction_id'] == 2][0]
    q = [p for p in pe if p.get('delegate_debug_id_str') == 'QNN (execute) time (us)'][0]
    ratios.append((int(q['end_time']) - int(q['start_time'])) * 1000.0
                  / (int(dc['end_time']) - int(dc['start_time'])))
want = max(ratios)  # 504000 / 3807 = 132.39 in the third run
check('flatc: every run nests QNN (execute) time impossibly', len(ratios) == 3
      and all(x > 1 for x in ratios))
for view in ('summary', 'tree', 'explain'):
    j = json.loads(run(view, QNN, '-f', 'json'))
    nest = j['data_quality']['impossible_nesting']
    check(view + ': QNN (execute) time flagged, max ratio %.4f from flatc' % want,
          len(nest) == 1 and nest[0]['name'] == 'QNN (execute) time (us)'
          and nest[0]['instruction_id'] == 2 and nest[0]['parent'] == 'DELEGATE_CALL'
          and nest[0]['events'] == 3 and abs(nest[0]['max_ratio'] - want) < 1e-9 * want
          and nest[0]['suspect'] == 'tick_rate_unit_or_clock')
    check(view + ': a note names the impossible nesting',
          any(n.startswith('impossible nesting: QNN (execute) time (us) (instruction 2) is up to '
                           '%.1fx' % want) for n in j['notes']))
o = json.loads(run('ops', QNN, '-f', 'json'))
check('ops: a note names the impossible nesting',
      any(n.startswith('impossible nesting: QNN (execute) time (us)') for n in o['notes']))
check('ops (text): the note is shown', 'impossible nesting: QNN (execute) time (us)'
      in run('ops', QNN))
check('report: the note is shown', 'impossible nesting: QNN (execute) time (us)'
      in run('report', QNN))
check('odd_blocks: nothing nests impossibly',
      json.loads(run('summary', DUMP, '-f', 'json'))['data_quality']['impossible_nesting'] == [])

# Nesting that varies between runs: flatc-built/host_scopes.etdp (built by flatc from
# host_scopes.json). Which scope encloses which in each run is read off flatc's decoding.
HOST = DATA + '/flatc-built/host_scopes.etdp'
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([flatc, '--json', '--strict-json', '--defaults-json', '--size-prefixed',
                    '--raw-binary', '-o', tmp, SCHEMA + '/etdump.fbs', '--', HOST], check=True)
    doc = json.load(open(os.path.join(tmp, 'host_scopes.json')))
inside = []  # per run: is inner within outer?
for b in doc['run_data']:
    pe = {e['profile_event']['name']: e['profile_event'] for e in b['events']}
    i, o = pe['inner'], pe['outer']
    inside.append(int(o['start_time']) <= int(i['start_time'])
                  and int(i['end_time']) <= int(o['end_time']))
check('flatc: inner is inside outer in some runs only (%s)' % inside,
      any(inside) and not all(inside))
first = 'outer' if inside[0] else 'DELEGATE_CALL'
for view in ('summary', 'tree', 'explain'):
    j = json.loads(run(view, HOST, '-f', 'json'))
    pv = j['data_quality']['parent_varies']
    check(view + ': inner (only) flagged, shown under its first run\'s parent (%s)' % first,
          [(x['name'], x['shown_under'], x['count']) for x in pv] == [('inner', first, len(inside))])
    check(view + ': a note names it',
          any(n.startswith('the nesting varies between runs: 1 row(s)') and
              'inner (instruction 0) shown under ' + first in n for n in j['notes']))
check('ops: the note', any(n.startswith('the nesting varies between runs')
                           for n in json.loads(run('ops', HOST, '-f', 'json'))['notes']))
check('report: the note', 'the nesting varies between runs' in run('report', HOST))
tree = {}
def walk(n):
    tree[n['name']] = n
    for c in n.get('children', []):
        walk(c)
for m in json.loads(run('tree', HOST, '-f', 'json'))['methods']:
    for n in m['roots']:
        walk(n)
check('tree: no share of a parent that is not inner\'s in every run',
      tree['inner']['share_of_parent'] is None and tree['outer']['share_of_parent'] is not None)
# host_scopes_halves.etdp: the same runs, inner inside outer in the first two only (by hand
# from host_scopes_halves.json), so each half of a two-thread pass sees one nesting
HALVES = DATA + '/flatc-built/host_scopes_halves.etdp'
for threads in ('1', '2'):
    p = subprocess.run([ETPROF, 'summary', HALVES, '-f', 'json'], capture_output=True, text=True,
                       env=dict(os.environ, ETPROF_THREADS=threads))
    check('host_scopes_halves, %s thread(s): inner flagged, shown under outer' % threads,
          p.returncode == 0 and [(x['name'], x['shown_under']) for x in
                                 json.loads(p.stdout)['data_quality']['parent_varies']]
          == [('inner', 'outer')])
# One event logged with different units: flatc-built/units_vary.etdp (from units_vary.json, by
# hand): delegate event id 7 inside the DELEGATE_CALL of instruction 0, start 0 / end 500 in run
# 1 and 0 / 700 in run 3 (a value without a unit: raw), host times 2010..2020 in run 2 (10 ns).
UV = DATA + '/flatc-built/units_vary.etdp'
rows = [r for r in json.loads(run('ops', UV, '-f', 'json', '--all'))['rows'] if r['name'] == '7']
by = {r['unit']: r for r in rows}
check('units_vary: one row per unit (raw, us)', sorted(by) == ['raw', 'us'])
check('units_vary: raw row = runs 1 and 3 only (count 2, min 500, max 700, total 1200)',
      'raw' in by and (by['raw']['count'], by['raw']['min'], by['raw']['max'], by['raw']['total'])
      == (2, 500, 700, 1200))
check('units_vary: time row = run 2 only (count 1, 10 ns = 0.01 us)',
      'us' in by and by['us']['count'] == 1 and abs(by['us']['total'] - 0.01) < 1e-12)
for view in ('summary', 'tree', 'explain'):
    j = json.loads(run(view, UV, '-f', 'json'))
    check(view + ': data_quality.unit_varies lists both rows',
          sorted((x['name'], x['instruction_id'], x['unit'], x['count'])
                 for x in j['data_quality']['unit_varies']) == [('7', 0, 'raw', 2), ('7', 0, 'time', 1)])
    check(view + ': a note says units differ between runs',
          any(n.startswith('units differ between runs: 2 row(s)') for n in j['notes']))
check('ops (text): the note is shown', 'units differ between runs' in run('ops', UV))
check('report: the note is shown', 'units differ between runs' in run('report', UV))
d = json.loads(run('diff', UV, UV, '-f', 'json'))
check('diff of the dump with itself: the two rows of 7 pair by unit, none added or removed',
      sorted(o['unit'] for o in d['ops'] if o['name'] == '7') == ['raw', 'us']
      and d['added'] == [] and d['removed'] == [])
# The QNN "(us)" note is about time rows QNN reported (start 0, a " (us)" label): a raw delegate
# value is none (units_vary has no QNN event), a QNN dump has them
check('units_vary: no QNN "(us)" note in ops or tree, nor in explain\'s units answer',
      'QNN "(us)"' not in run('ops', UV) and 'QNN "(us)"' not in run('tree', UV)
      and not any('QNN values carry their unit' in f['answer']
                  for f in json.loads(run('explain', UV, '-f', 'json'))['findings']))
check('synth_qnn_mixed_small_3x: the QNN "(us)" note is there', 'QNN "(us)"' in run('ops', QNN))
check('odd_blocks: no unit varies',
      json.loads(run('summary', DUMP, '-f', 'json'))['data_quality']['unit_varies'] == [])
check('odd_blocks: no nesting varies',
      json.loads(run('summary', DUMP, '-f', 'json'))['data_quality']['parent_varies'] == [])

sys.exit(1 if fails else 0)
