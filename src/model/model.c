/* model.c - classifies each event, pairs it with its wrapper (OPERATOR_CALL, DELEGATE_CALL,
 * Method::execute), resolves the method that ran and links events to their instruction, operator
 * and backend, and decides the unit of every value.
 *
 * Events are written when their scope ends, so children come before their parent. Pairing is by
 * (chain_index, instruction_id): a wrapper claims every earlier, still unclaimed event of the same
 * instruction. Delegate events with no real timestamps (QNN: start 0) can only be linked this way.
 */
#include "etprof.h"
#include "etdump_int.h"
#include "model_int.h"
#include "fb.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIG_CACHE 64
#define ICACHE 1024 /* resolved instructions cached, direct-mapped by (plan, chain, instruction) */

/* The pages of the mapped dump given back so far: the hull of the blocks a pass is done with. */
typedef struct release_state {
    uint32_t hull_lo, hull_hi;
    bool have_hull;
    etp__released released;
} release_state;

static void release_block(const etp_dump *d, release_state *rs, uint32_t lo, uint32_t hi) {
    if (!rs->have_hull) {
        rs->hull_lo = lo;
        rs->hull_hi = hi;
        rs->have_hull = true;
    } else {
        if (lo < rs->hull_lo) rs->hull_lo = lo;
        if (hi > rs->hull_hi) rs->hull_hi = hi;
    }
    etp__dump_release(d, &rs->released, rs->hull_lo, rs->hull_hi);
}

/* What the program says about one instruction of one plan. */
typedef struct instr_ent {
    int32_t plan, chain, instr; /* plan -1: empty */
    bool found;                 /* etp_program_instruction() found it */
    bool backend_qnn;           /* backend is "QnnBackend" */
    etp_instr_kind kind;
    const char *op_name, *op_overload, *backend;
} instr_ent;

#define MAX_CAND 16

struct etp_model {
    const etp_dump *dump;
    const etp_program *prog;
    etp_model_opts opts;
    int forced_plan;
    /* per-block scratch */
    etp_mevent *ev;
    uint32_t cap;
    int32_t *next;      /* pending-list links */
    uint64_t *hkeys;    /* hash: the (chain, instr) key with bit 63 set (0 = empty) */
    int32_t *hhead;     /* hash: head of the pending list */
    uint32_t hcap;
    uint64_t charged;   /* bytes of the process's memory budget this scratch holds */
    uint32_t event_charge; /* charged per event beyond the scratch (model_int.h) */
    uint32_t split_from;   /* blocks from here are verified by this model's reader (a split,
                              etp__model_set_split), UINT32_MAX: none */
    bool taken;            /* blocks before the split are verified by this model's reader
                              (etp__model_set_taken) */
    uint32_t hmask;     /* slots in use for the current block - 1 */
    uint32_t *hused;    /* hash: the slots filled for the current block (cleared for the next) */
    uint32_t nused;
    char *arena;
    size_t arena_cap, arena_len;
    /* The last block decoded, as the template of the next (a replica: docs/analyses.md "Repeated
     * runs"): valid when tmpl_ok; each event's label source (LS_*) in tmpl_src, and what the
     * block's view decided. */
    bool tmpl_ok, tmpl_named, replica_off;
    uint32_t tmpl_n;
    uint32_t last_block; /* the block of the last call that succeeded, UINT32_MAX: none */
    uint32_t repeat_of;  /* the last call was a replica of block repeat_of, else UINT32_MAX */
    bool unit_change;    /* a replica event's unit differs from the block before's */
    uint8_t *tmpl_src;
    uint8_t *urule; /* each event's unit rule (unit_rule) */
    uint32_t *tpos; /* each event's start and end time fields (positions, 0: absent) */
    etp_block_view tmpl_bv;
    struct esc_str *esc; /* escaped copies of this block's labels that hold a NUL (esc_label) */
    /* Long labels, by position (long_label): the same string is read once however many events
     * (of any block) share it; escaped copies of those in esc_keep. */
    struct long_memo {
        const char *ptr, *label;
    } *lmemo;
    uint32_t lmemo_cap, lmemo_n;
    struct esc_str *esc_keep;
    struct {
        uint64_t sig;
        int plan;
        uint32_t candidates;
        uint32_t cand[MAX_CAND]; /* the first MAX_CAND fitting plans */
        bool used;
    } cache[SIG_CACHE];
    /* The current block's fitting plans when several fit (bv->plan -1), and their names. */
    uint32_t cand[MAX_CAND], ncand;
    const char *cand_names[MAX_CAND];
    uint32_t cache_next;
    instr_ent *icache;  /* ICACHE entries */
    /* Event table positions of the last block decoded, and what was given back before it */
    uint32_t blk_lo, blk_hi;
    bool have_blk;
    release_state rs;
    bool no_units;      /* etp_model_opts.kinds_only */
    uint32_t mismatch_blocks;  /* blocks the program could not explain (ignored) */
    uint32_t mismatch_last;    /* the highest of them counted */
    /* Telling apart methods of the same structure (refine_candidates): each plan's declared
     * tensors (built on first use), and an index of the printable strings of delegate blobs. */
    struct plan_tensors {
        bool built;
        uint32_t n;
        etp_tensor_meta *t;
    } *ptens;
    struct blob_index {
        const uint8_t *ptr;
        size_t len;
        uint64_t *slot; /* (offset + 1) << 24 | length; 0 = empty */
        uint32_t mask;
    } bidx[4];
    uint32_t bidx_next;
    char mismatch_first[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 8];
    /* --method against the evidence (method_evidence): blocks whose files name another method */
    uint32_t conflict_blocks, conflict_last;
    char conflict_first[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 8];
};

static const char *const kind_names[ETP_KIND_COUNT_] = {
    "none",   "framework",   "operator_call",      "kernel",       "delegate_call",
    "delegate_internal", "instruction", "debug_intermediate", "debug_output", "allocation",
    "other",
};

static const char *const basis_names[ETP_MB_COUNT_] = {
    "none", "option", "structure", "only_method", "program_check", "debug_tensors",
    "delegate_payload",
};

const char *etp_method_basis_name(etp_method_basis b) {
    return (unsigned)b < ETP_MB_COUNT_ ? basis_names[b] : "none";
}

const char *etp_kind_name(etp_kind k) {
    return (unsigned)k < ETP_KIND_COUNT_ ? kind_names[k] : "none";
}

etp_kind etp_kind_parse(const char *s) {
    for (int k = 1; k < ETP_KIND_COUNT_; k++)
        if (strcmp(s, kind_names[k]) == 0) return (etp_kind)k;
    return ETP_KIND_NONE;
}

static const char *const unit_names[ETP_UNIT_COUNT_] = {"", "ns", "us", "ticks", "cycles",
                                                         "count", "bytes", "raw"};

const char *etp_unit_name(etp_unit u) {
    return (unsigned)u < ETP_UNIT_COUNT_ ? unit_names[u] : "";
}

bool etp_unit_is_time(etp_unit u) { return u == ETP_UNIT_NS || u == ETP_UNIT_US; }

double etp_unit_to_ns(etp_unit u, double v) { return u == ETP_UNIT_US ? v * 1000.0 : v; }

void etp_model_opts_init(etp_model_opts *o) {
    memset(o, 0, sizeof *o);
    o->tick_ns = 1.0;
}

int etp_model_open(etp_model **out, const etp_dump *dump, const etp_program *prog,
                   const etp_model_opts *opts, etp_error *err) {
    *out = NULL;
    etp_model *m = calloc(1, sizeof *m);
    if (!m) {
        etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
        return ETP_E_INTERNAL;
    }
    m->dump = dump;
    m->prog = prog;
    if (opts) m->opts = *opts;
    else etp_model_opts_init(&m->opts);
    m->no_units = m->opts.kinds_only;
    m->forced_plan = -1;
    m->event_charge = ETP_MEM_PER_EVENT;
    m->split_from = UINT32_MAX;
    m->last_block = m->repeat_of = UINT32_MAX;
    const char *nr = getenv("ETPROF_TEST_NO_REPLICA");
    m->replica_off = nr && *nr && strcmp(nr, "0") != 0;
    if (prog) {
        m->icache = malloc(ICACHE * sizeof *m->icache);
        if (!m->icache) {
            free(m);
            etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
            return ETP_E_INTERNAL;
        }
        for (uint32_t i = 0; i < ICACHE; i++) m->icache[i].plan = -1;
    }
    if (m->opts.method) {
        if (!prog) {
            free(m->icache);
            free(m);
            etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL, "--method needs --pte");
            return ETP_E_USAGE;
        }
        m->forced_plan = etp_program_find_plan(prog, m->opts.method);
        if (m->forced_plan < 0) {
            char names[200] = "";
            size_t n = 0;
            for (uint32_t i = 0; i < etp_program_get_info(prog)->plan_count && n < 150; i++) {
                etp_plan_info pi;
                etp_program_plan(prog, i, &pi);
                int w = snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                                 pi.name.ptr ? pi.name.ptr : "?");
                if (w > 0) n += (size_t)w;
            }
            free(m->icache);
            free(m);
            etp_error_set(err, ETP_E_USAGE, NULL, -1, NULL,
                          "the program has no method \"%s\" (it has: %s%s)", opts->method, names,
                          n >= 150 ? ", ..." : "");
            return ETP_E_USAGE;
        }
    }
    *out = m;
    return ETP_OK;
}

void etp_model_close(etp_model *m) {
    if (!m) return;
    etp__model_release_scratch(m);
    free(m->icache);
    if (m->ptens) {
        for (uint32_t p = 0; p < etp_program_get_info(m->prog)->plan_count; p++) free(m->ptens[p].t);
        free(m->ptens);
    }
    for (unsigned b = 0; b < 4; b++) free(m->bidx[b].slot);
    free(m);
}

int etp__model_clone(const etp_model *m, etp_model **out, etp_error *err) {
    int rc = etp_model_open(out, m->dump, m->prog, &m->opts, err);
    if (!rc) (*out)->event_charge = m->event_charge;
    return rc;
}

void etp__model_absorb(etp_model *m, const etp_model *later) {
    if (later->conflict_blocks) {
        if (!m->conflict_blocks)
            memcpy(m->conflict_first, later->conflict_first, sizeof m->conflict_first);
        m->conflict_blocks += later->conflict_blocks;
        if (later->conflict_last > m->conflict_last) m->conflict_last = later->conflict_last;
    }
    if (!later->mismatch_blocks) return;
    if (!m->mismatch_blocks) memcpy(m->mismatch_first, later->mismatch_first, sizeof m->mismatch_first);
    m->mismatch_blocks += later->mismatch_blocks;
    if (later->mismatch_last > m->mismatch_last) m->mismatch_last = later->mismatch_last;
}

const etp_dump *etp_model_dump(const etp_model *m) { return m->dump; }
const etp_program *etp_model_program(const etp_model *m) { return m->prog; }

uint32_t etp_model_mismatch(const etp_model *m, const char **first) {
    if (first) *first = m->mismatch_first;
    return m->mismatch_blocks;
}

uint32_t etp_model_method_conflict(const etp_model *m, const char **first) {
    if (first) *first = m->conflict_first;
    return m->conflict_blocks;
}

/* Bytes of per-block scratch a block of n events takes: the events, their pending-list links,
 * the places of their times, their label sources and unit rules, their int labels (arena) and
 * the (chain, instruction) hash of at most 4n slots. */
static uint64_t scratch_bytes(uint32_t n, uint32_t hc) {
    return (uint64_t)n * (sizeof(etp_mevent) + sizeof(int32_t) + 2 * sizeof(uint32_t) + 2 + 12) +
           (uint64_t)hc * (sizeof(uint64_t) + sizeof(int32_t) + sizeof(uint32_t));
}

const char *etp__model_dump_name(const etp_model *m) { return m->opts.dump_name; }


int etp__budget_blocks(const etp_dump *d, const char *name, uint64_t n, uint32_t per,
                       const char *what, uint32_t (*block_of)(const void *ctx, uint64_t k),
                       const void *ctx, etp_error *err) {
    uint64_t budget = etp__mem_budget(), held = 0;
    if (n == 0 || etp__mem_take(n * per, budget, &held)) return ETP_OK;
    /* the item whose charge passes the budget */
    uint64_t k = held < budget ? (budget - held) / per : 0;
    if (k >= n) k = n - 1;
    uint32_t bi = block_of ? block_of(ctx, k) : (uint32_t)k;
    if (!d) {
        etp_error_set(err, ETP_E_INPUT, name, -1, NULL,
                      "%llu %s would take %.1f MiB, over the memory budget of %.1f MiB "
                      "(docs/verifier.md \"Memory\"): set ETPROF_MEMORY_BUDGET=MiB (0: no "
                      "limit) to allow more memory",
                      (unsigned long long)n, what, (double)(n * per) / 1048576.0,
                      (double)budget / 1048576.0);
        return ETP_E_INPUT;
    }
    char path[48], also[48] = "";
    snprintf(path, sizeof path, "run_data[%u]", bi);
    if (held) snprintf(also, sizeof also, " (%.1f MiB already in use)", held / 1048576.0);
    /* fewer than 16 bytes of file a block: run_data entries sharing RunData tables */
    uint64_t blocks = etp_dump_get_info(d)->block_count;
    bool shared = blocks && etp__dump_buffer_size(d) / blocks < 16;
    etp_error_set(err, ETP_E_INPUT, name, etp__dump_block_offset(d, bi), path,
                  "%llu %s would take %.1f MiB, over the memory budget of %.1f MiB%s "
                  "(docs/verifier.md \"Memory\"): set ETPROF_MEMORY_BUDGET=MiB (0: no limit) to "
                  "allow more memory%s",
                  (unsigned long long)n, what, (double)(n * per) / 1048576.0,
                  (double)budget / 1048576.0, also,
                  shared ? " (run_data entries sharing RunData tables?)" : "");
    return ETP_E_INPUT;
}

void etp__model_set_event_charge(etp_model *m, uint32_t bytes) { m->event_charge = bytes; }
void etp__model_set_split(etp_model *m, uint32_t from) { m->split_from = from; }
void etp__model_set_taken(etp_model *m, bool taken) { m->taken = taken; }

void etp__model_budget_error(const etp_model *m, uint32_t block, uint32_t index, uint64_t rows,
                             uint64_t budget, uint64_t held, etp_error *err) {
    char path[64];
    snprintf(path, sizeof path, "run_data[%u].events[%u]", block, index);
    int64_t off = etp__dump_events_offset(m->dump, block);
    if (off >= 0) off += 4 + 4 * (int64_t)index; /* the element's uoffset */
    etp_error_set(err, ETP_E_INPUT, m->opts.dump_name, off, path,
                  "%llu distinct events (rows) would take the memory in use (%.1f MiB: the "
                  "block's events and the rows so far) past the memory budget of %.1f MiB "
                  "(docs/verifier.md \"Memory\"): set ETPROF_MEMORY_BUDGET=MiB (0: no limit) to "
                  "allow more memory",
                  (unsigned long long)rows, (double)held / 1048576.0,
                  (double)budget / 1048576.0);
}

static int reserve(etp_model *m, uint32_t block, uint32_t n, etp_error *err) {
    uint32_t hc = 64;
    while (hc < 2 * n) hc *= 2;
    /* doubling for a run of growing blocks, else the exact need (one large block) */
    uint32_t cap = m->cap;
    if (n > m->cap) {
        cap = m->cap ? m->cap : 64;
        if ((uint64_t)cap * 2 >= n && cap <= UINT32_MAX / 2) cap *= 2;
        if (cap < n) cap = n;
    }
    /* The memory budget (docs/verifier.md "Memory"): what this block materialises, charged
     * before anything is allocated, against one budget for the process. */
    uint64_t need = scratch_bytes(cap, hc > m->hcap ? hc : m->hcap) +
                    (uint64_t)cap * m->event_charge;
    if (need > m->charged) {
        uint64_t budget = etp__mem_budget(), held = 0;
        if (!etp__mem_take(need - m->charged, budget, &held)) {
            char path[48];
            snprintf(path, sizeof path, "run_data[%u].events", block);
            /* a block beyond the old rule (64 MiB + 8 x the file) cannot come from a real
             * writer: name the likely cause */
            bool shared = scratch_bytes(n, hc) > ETP_MODEL_BUDGET_BASE +
                                                     ETP_MODEL_BUDGET_PER_BYTE *
                                                         etp__dump_buffer_size(m->dump);
            char also[48] = "";
            if (held > m->charged)
                snprintf(also, sizeof also, " (%.1f MiB already in use)",
                         (held - m->charged) / 1048576.0);
            etp_error_set(err, ETP_E_INPUT, m->opts.dump_name,
                          etp__dump_events_offset(m->dump, block), path,
                          "%u events in one block would take %.1f MiB to decode, over the "
                          "memory budget of %.1f MiB%s (docs/verifier.md \"Memory\"): %s",
                          n, (double)need / 1048576.0, (double)budget / 1048576.0, also,
                          shared ? "tables shared by many references?"
                                 : "set ETPROF_MEMORY_BUDGET=MiB (0: no limit) to allow more "
                                   "memory, or write smaller blocks");
            return ETP_E_INPUT;
        }
        m->charged = need;
    }
    if (n > m->cap) {
        etp_mevent *ev = realloc(m->ev, (size_t)cap * sizeof *ev);
        if (ev) {
            /* new slots start zeroed: etp__dump_event_reuse() relies on it */
            memset(ev + m->cap, 0, (size_t)(cap - m->cap) * sizeof *ev);
            m->ev = ev;
        }
        int32_t *nx = realloc(m->next, (size_t)cap * sizeof *nx);
        if (nx) m->next = nx;
        uint8_t *ts = realloc(m->tmpl_src, cap);
        if (ts) m->tmpl_src = ts;
        uint8_t *ur = realloc(m->urule, cap);
        if (ur) m->urule = ur;
        uint32_t *tp = realloc(m->tpos, (size_t)cap * 2 * sizeof *tp);
        if (tp) m->tpos = tp;
        if (!ev || !nx || !ts || !ur || !tp) goto oom;
        m->cap = cap;
    }
    if (hc > m->hcap) {
        free(m->hkeys);
        free(m->hhead);
        free(m->hused);
        m->hkeys = calloc(hc, sizeof *m->hkeys);
        m->hhead = malloc((size_t)hc * sizeof *m->hhead);
        m->hused = malloc((size_t)hc * sizeof *m->hused);
        m->nused = 0;
        if (!m->hkeys || !m->hhead || !m->hused) {
            m->hcap = 0;
            goto oom;
        }
        m->hcap = hc;
    }
    m->hmask = hc - 1;
    /* empty the slots the previous block filled (usually a few instructions' worth) */
    for (uint32_t k = 0; k < m->nused; k++) m->hkeys[m->hused[k]] = 0;
    m->nused = 0;
    size_t arena_need = (size_t)n * 12 + 16;
    if (arena_need > m->arena_cap) {
        char *a = realloc(m->arena, arena_need);
        if (!a) goto oom;
        m->arena = a;
        m->arena_cap = arena_need;
    }
    m->arena_len = 0;
    return ETP_OK;
oom:
    etp_error_set(err, ETP_E_INTERNAL, NULL, -1, NULL, "out of memory");
    return ETP_E_INTERNAL;
}

/* Pending lists keyed by (chain, instr). */
static uint32_t key_of(int32_t chain, int32_t instr) {
    return ((uint32_t)chain << 20) ^ (uint32_t)instr ^ 0x9e3779b9u;
}
static int32_t *pending_head(etp_model *m, int32_t chain, int32_t instr, bool create) {
    uint64_t k = ((uint64_t)(uint32_t)chain << 32) | (uint32_t)instr;
    uint32_t mask = m->hmask, h = (key_of(chain, instr) * 2654435761u) & mask;
    uint64_t tag = k | (UINT64_C(1) << 63); /* the whole key: distinct keys never merge */
    for (;;) {
        if (m->hkeys[h] == 0) {
            if (!create) return NULL;
            m->hused[m->nused++] = h;
            m->hkeys[h] = tag;
            m->hhead[h] = -1;
            return &m->hhead[h];
        }
        if (m->hkeys[h] == tag) return &m->hhead[h];
        h = (h + 1) & mask;
    }
}

/* strcmp(s.ptr, lit) == 0, using the known length (a name may hold a NUL before its end). */
static inline bool is_name_n(etp_str s, const char *lit, size_t n) {
    return s.ptr && s.len >= n && s.ptr[n] == 0 && memcmp(s.ptr, lit, n) == 0;
}
#define is_name(s, lit) is_name_n((s), (lit), sizeof(lit) - 1)

/* The program's view of (plan, chain, instr), cached. chain and instr are >= 0. */
static const instr_ent *instr_info(etp_model *m, int plan, int32_t chain, int32_t instr) {
    uint32_t h = (uint32_t)plan * 0x9E3779B1u ^ (uint32_t)chain * 0x85EBCA77u ^
                 (uint32_t)instr * 0xC2B2AE3Du;
    instr_ent *c = &m->icache[(h ^ (h >> 15)) & (ICACHE - 1)];
    if (c->plan == plan && c->chain == chain && c->instr == instr) return c;
    memset(c, 0, sizeof *c);
    c->plan = plan;
    c->chain = chain;
    c->instr = instr;
    etp_instruction ins;
    c->found = etp_program_instruction(m->prog, (uint32_t)plan, (uint32_t)chain, (uint32_t)instr,
                                       &ins);
    if (!c->found) return c;
    c->kind = ins.kind;
    if (ins.kind == ETP_INSTR_KERNEL && ins.index >= 0) {
        etp_operator op;
        if (etp_program_operator(m->prog, (uint32_t)plan, (uint32_t)ins.index, &op)) {
            c->op_name = op.name.ptr;
            c->op_overload = op.overload.ptr;
        }
    } else if (ins.kind == ETP_INSTR_DELEGATE && ins.index >= 0) {
        etp_delegate dl;
        if (etp_program_delegate(m->prog, (uint32_t)plan, (uint32_t)ins.index, &dl)) {
            c->backend = dl.id.ptr;
            c->backend_qnn = dl.id.ptr && strcmp(dl.id.ptr, "QnnBackend") == 0;
        }
    }
    return c;
}

static bool ends_with(const char *s, size_t len, const char *suf) {
    size_t n = strlen(suf);
    return len >= n && memcmp(s + len - n, suf, n) == 0;
}

static int64_t parse_u(const char *s, size_t n) {
    int64_t v = 0;
    for (size_t i = 0; i < n && v < (INT64_MAX / 10 - 10); i++) v = v * 10 + (s[i] - '0');
    return v;
}

etp_qnn_class etp_qnn_classify(const char *s, size_t len, int64_t *op_id, uint32_t *name_len) {
    static const char cyc[] = " (cycles)", us[] = " (us)";
    *op_id = -1;
    *name_len = 0;
    if (!s) return ETP_QNN_NONE;
    /* HTP nodes end in " (cycles)"; the LPAI and GPU backends' nodes (sub-events of the EXECUTE
     * event, not of the HTP cycle event) carry their unit the same way, " (us)" for times */
    size_t suf = len >= sizeof cyc - 1 && memcmp(s + len - (sizeof cyc - 1), cyc, sizeof cyc - 1) == 0
                     ? sizeof cyc - 1
                 : len >= sizeof us - 1 && memcmp(s + len - (sizeof us - 1), us, sizeof us - 1) == 0
                     ? sizeof us - 1
                     : 0;
    if (suf) {
        size_t end = len - suf; /* s[0..end) = "<...>OpId_<n>" */
        size_t d = end;
        int64_t v = 0, scale = 1; /* the digits' value, read from the right (up to 18 digits) */
        while (d > 0 && (unsigned char)(s[d - 1] - '0') < 10) {
            d--;
            if (end - d <= 18) {
                v += (s[d] - '0') * scale;
                scale *= 10;
            }
        }
        if (d < end && d >= 5 && memcmp(s + d - 5, "OpId_", 5) == 0) {
            size_t pre = d - 5;
            *op_id = end - d <= 18 ? v : parse_u(s + d, end - d); /* parse_u caps long ones */
            if (pre == 0) return ETP_QNN_NODE_SYS;
            if ((pre == 6 && memcmp(s, "Input ", 6) == 0) ||
                (pre == 7 && memcmp(s, "Output ", 7) == 0)) {
                *name_len = (uint32_t)pre - 1;
                return ETP_QNN_NODE_IO;
            }
            if (s[pre - 1] == ':') {
                *name_len = (uint32_t)pre - 1;
                return ETP_QNN_NODE;
            }
        }
        if (strncmp(s, "Accelerator (execute) time (cycles)", len) == 0 && len == 35)
            return ETP_QNN_TOP;
        if (suf == sizeof cyc - 1) return ETP_QNN_NONE;
    }
    static const char *const tops[] = {
        "Number of HVX threads used (count)",
        "RPC (execute) time (us)",
        "QNN accelerator (execute) time (us)",
        "Num times yield occured (count)",
        "Time for initial VTCM acquire (us)",
        "Time for HVX + HMX power on and acquire (us)",
        "Accelerator (execute) time (us)",
        "Accelerator (execute excluding wait) time (us)",
        "QNN (execute) time (us)",
    };
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++)
        if (strlen(tops[i]) == len && memcmp(tops[i], s, len) == 0) return ETP_QNN_TOP;
    return ETP_QNN_NONE;
}

/* A string from the file may hold NUL bytes (FlatBuffers strings carry their length; the
 * verifier only checks the terminating NUL). The model's labels are C strings, so a label with a
 * NUL inside is given as an escaped copy: NUL as `\0` and, in such labels only, a backslash as
 * `\\`; the event gets ETP_MF_ESCAPED so that rows keyed by label stay apart from a label whose
 * own bytes read the same. Every length taken of a label afterwards is strlen() of that copy:
 * lengths measured in the file are never applied to it. The copies live until the next block
 * (those of long labels, long_label, until the model's scratch is freed). */
struct esc_str {
    struct esc_str *next;
    char s[];
};

static void esc_list_free(struct esc_str **list) {
    for (struct esc_str *e = *list, *n; e; e = n) {
        n = e->next;
        free(e);
    }
    *list = NULL;
}

static void esc_free(etp_model *m) { esc_list_free(&m->esc); }

/* The escaped copy of s (which holds a NUL), kept in `list`; NULL when out of memory. */
static const char *esc_copy(etp_str s, struct esc_str **list) {
    size_t extra = 0;
    for (uint32_t i = 0; i < s.len; i++) extra += s.ptr[i] == 0 || s.ptr[i] == '\\';
    struct esc_str *e = malloc(sizeof *e + (size_t)s.len + extra + 1);
    if (!e) return NULL;
    char *o = e->s;
    for (uint32_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        if (c == 0 || c == '\\') {
            *o++ = '\\';
            *o++ = c ? '\\' : '0';
        } else {
            *o++ = c;
        }
    }
    *o = 0;
    e->next = *list;
    *list = e;
    return e->s;
}

/* Labels at least this long are looked up by position before they are read (long_label). */
#define LONG_LABEL 4096

/* A long label: events that share one string (tables referenced many times, which the verifier
 * allows up to its bound) would otherwise each read it for a NUL, and each escape it, however
 * long it is. Looked up by its position in an open-addressing table that persists across
 * blocks; its escaped copy, if any, lives as long as the table (until the scratch is freed). */
static const char *long_label(etp_model *m, etp_str s, uint32_t *flags) {
    if (m->lmemo_n * 2 >= m->lmemo_cap) {
        uint32_t cap = m->lmemo_cap ? m->lmemo_cap * 2 : 64;
        struct long_memo *t = cap > m->lmemo_cap ? calloc(cap, sizeof *t) : NULL;
        if (t) {
            for (uint32_t k = 0; k < m->lmemo_cap; k++) {
                if (!m->lmemo[k].ptr) continue;
                uint32_t h = (uint32_t)(((uintptr_t)m->lmemo[k].ptr * 0x9E3779B97F4A7C15u) >> 32);
                while (t[h & (cap - 1)].ptr) h++;
                t[h & (cap - 1)] = m->lmemo[k];
            }
            free(m->lmemo);
            m->lmemo = t;
            m->lmemo_cap = cap;
        }
    }
    struct long_memo *slot = NULL;
    if (m->lmemo_n * 2 < m->lmemo_cap) {
        uint32_t h = (uint32_t)(((uintptr_t)s.ptr * 0x9E3779B97F4A7C15u) >> 32);
        for (;; h++) {
            slot = &m->lmemo[h & (m->lmemo_cap - 1)];
            if (!slot->ptr) break;
            if (slot->ptr == s.ptr) {
                if (slot->label != s.ptr) *flags |= ETP_MF_ESCAPED;
                return slot->label;
            }
        }
    }
    const char *l = s.ptr;
    if (memchr(s.ptr, 0, s.len)) {
        if (!(l = esc_copy(s, slot ? &m->esc_keep : &m->esc))) return "?";
        *flags |= ETP_MF_ESCAPED;
    }
    if (slot) {
        slot->ptr = s.ptr;
        slot->label = l;
        m->lmemo_n++;
    }
    return l;
}

static const char *esc_label(etp_model *m, etp_str s, uint32_t *flags) {
    if (!s.ptr) return NULL;
    if (s.len >= LONG_LABEL) return long_label(m, s, flags);
    if (!memchr(s.ptr, 0, s.len)) return s.ptr;
    const char *l = esc_copy(s, &m->esc);
    if (!l) return "?"; /* out of memory: a placeholder rather than the cut name */
    *flags |= ETP_MF_ESCAPED;
    return l;
}

static const char *int_label(etp_model *m, int32_t id) {
    char *p = m->arena + m->arena_len;
    int w = snprintf(p, 12, "%d", id);
    if (w < 0 || w >= 12) return "?";
    m->arena_len += (size_t)w + 1;
    return p;
}

static bool runtime_name(etp_str n) {
    return is_name(n, "OPERATOR_CALL") || is_name(n, "DELEGATE_CALL") ||
           is_name(n, "Method::execute") || is_name(n, "Method::init") ||
           is_name(n, "Program::load_method") || is_name(n, "Method::step") ||
           is_name(n, "JF_CALL") || is_name(n, "MOVE_CALL") || is_name(n, "FREE_CALL");
}

/* A profile event with both a name and a delegate debug id (ETDumpGen never writes one; Python
 * writers do): the Inspector treats it as delegated and names it by its id. The runtime's own
 * scope names keep their meaning. */
static bool named_delegate(const etp_profile_event *p) {
    return p->name.ptr && (p->delegate_debug_id_int != -1 || p->delegate_debug_id_str.ptr) &&
           !runtime_name(p->name);
}

/* Is the block a run? See etp_block_view.is_execute. */
static void decide_run(etp_block_view *bv, const etp_mevent *ev, uint32_t n) {
    bool named = is_name(bv->info.name, "Execute");
    bv->is_execute = bv->method_event >= 0 || named;
    bv->run_by_events = false;
    if (!bv->is_execute) {
        bool load = false, instr = false;
        for (uint32_t i = 0; i < n; i++) {
            const etp_mevent *e = &ev[i];
            if (e->ev.type != ETP_EVENT_PROFILE) continue;
            if (is_name(e->ev.profile.name, "Method::init") ||
                is_name(e->ev.profile.name, "Program::load_method"))
                load = true;
            if (e->chain >= 0 && e->instr >= 0) instr = true;
        }
        bv->is_execute = instr && !load;
    }
    bv->run_by_events = bv->is_execute && !named;
}

static etp_kind base_kind(const etp_event *ev) {
    switch (ev->type) {
    case ETP_EVENT_ALLOCATION: return ETP_KIND_ALLOCATION;
    case ETP_EVENT_DEBUG:
        return ev->debug.has_debug_entry && ev->debug.debug_entry.has_output &&
                       ev->debug.debug_entry.output
                   ? ETP_KIND_DEBUG_OUTPUT
                   : ETP_KIND_DEBUG_INTERMEDIATE;
    case ETP_EVENT_PROFILE: break;
    default: return ETP_KIND_OTHER;
    }
    const etp_profile_event *p = &ev->profile;
    if (named_delegate(p)) return ETP_KIND_DELEGATE_INTERNAL;
    if (!p->name.ptr)
        return (p->delegate_debug_id_int != -1 || p->delegate_debug_id_str.ptr)
                   ? ETP_KIND_DELEGATE_INTERNAL
                   : ETP_KIND_OTHER;
    if (is_name(p->name, "OPERATOR_CALL")) return ETP_KIND_OPERATOR_CALL;
    if (is_name(p->name, "DELEGATE_CALL")) return ETP_KIND_DELEGATE_CALL;
    if (is_name(p->name, "Method::execute") || is_name(p->name, "Method::init") ||
        is_name(p->name, "Program::load_method") || is_name(p->name, "Method::step"))
        return ETP_KIND_FRAMEWORK;
    if (is_name(p->name, "JF_CALL") || is_name(p->name, "MOVE_CALL") ||
        is_name(p->name, "FREE_CALL"))
        return ETP_KIND_INSTRUCTION;
    return ETP_KIND_NONE; /* a named scope: decided by pairing */
}

static etp_instr_kind wrapper_instr(etp_kind k, etp_str name) {
    if (k == ETP_KIND_OPERATOR_CALL) return ETP_INSTR_KERNEL;
    if (k == ETP_KIND_DELEGATE_CALL) return ETP_INSTR_DELEGATE;
    if (k == ETP_KIND_INSTRUCTION) {
        if (is_name(name, "JF_CALL")) return ETP_INSTR_JUMP_FALSE;
        if (is_name(name, "MOVE_CALL")) return ETP_INSTR_MOVE;
        if (is_name(name, "FREE_CALL")) return ETP_INSTR_FREE;
    }
    return ETP_INSTR_NONE;
}

/* Does plan `p` explain every instruction event of the block? */
static bool plan_matches(etp_model *m, uint32_t p, const etp_mevent *ev, uint32_t n,
                         uint32_t *max_instr) {
    *max_instr = 0;
    for (uint32_t i = 0; i < n; i++) {
        const etp_mevent *e = &ev[i];
        if (e->chain < 0 || e->instr < 0) continue;
        etp_instr_kind want = ETP_INSTR_NONE;
        switch (e->kind) {
        case ETP_KIND_OPERATOR_CALL:
        case ETP_KIND_DELEGATE_CALL:
        case ETP_KIND_INSTRUCTION: want = wrapper_instr(e->kind, e->ev.profile.name); break;
        case ETP_KIND_KERNEL: want = ETP_INSTR_KERNEL; break;
        case ETP_KIND_DELEGATE_INTERNAL: want = ETP_INSTR_DELEGATE; break;
        default: continue;
        }
        const instr_ent *ins = instr_info(m, (int)p, e->chain, e->instr);
        if (!ins->found || ins->kind != want) return false;
        if ((uint32_t)e->instr > *max_instr) *max_instr = (uint32_t)e->instr;
    }
    return true;
}

/* A block without instruction events (method-only profiling, or a load-only block) says nothing
 * about which plan ran; a program with a single method can only have run that one. Returns that
 * plan, or -1 when the program has several (the block stays unresolved). */
static int only_plan(const etp_program *prog) {
    return etp_program_get_info(prog)->plan_count == 1 ? 0 : -1;
}

static bool same_str(const char *a, const char *b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

static void resolve_plan(etp_model *m, etp_block_view *bv) {
    const etp_program *prog = m->prog;
    bv->plan = -1;
    bv->candidates = 0;
    bv->method_basis = ETP_MB_NONE;
    m->ncand = 0;
    if (!prog) return;
    if (m->forced_plan >= 0) {
        bv->plan = m->forced_plan;
        bv->candidates = 1;
        bv->method_basis = ETP_MB_OPTION;
        return;
    }
    /* Signature of the instruction structure, for the cache. */
    uint64_t sig = 1469598103934665603ull;
    bool any = false;
    for (uint32_t i = 0; i < bv->n; i++) {
        const etp_mevent *e = &m->ev[i];
        if (e->chain < 0 || e->instr < 0) continue;
        if (e->kind != ETP_KIND_OPERATOR_CALL && e->kind != ETP_KIND_DELEGATE_CALL &&
            e->kind != ETP_KIND_INSTRUCTION && e->kind != ETP_KIND_KERNEL &&
            e->kind != ETP_KIND_DELEGATE_INTERNAL)
            continue;
        any = true;
        sig = (sig ^ (uint64_t)(uint32_t)e->chain) * 1099511628211ull;
        sig = (sig ^ (uint64_t)(uint32_t)e->instr) * 1099511628211ull;
        sig = (sig ^ (uint64_t)e->kind) * 1099511628211ull;
    }
    if (!any) {
        bv->plan = only_plan(prog);
        bv->candidates = bv->plan >= 0 ? 1 : 0;
        if (bv->plan >= 0) bv->method_basis = ETP_MB_ONLY_METHOD;
        return;
    }
    for (uint32_t c = 0; c < SIG_CACHE; c++)
        if (m->cache[c].used && m->cache[c].sig == sig) {
            bv->plan = m->cache[c].plan;
            bv->candidates = m->cache[c].candidates;
            m->ncand = bv->candidates > MAX_CAND ? MAX_CAND : bv->candidates;
            memcpy(m->cand, m->cache[c].cand, sizeof m->cand);
            if (bv->plan >= 0) {
                m->ncand = 0;
                bv->method_basis = ETP_MB_STRUCTURE;
            }
            return;
        }
    /* Every plan whose instructions explain the events. Several may: the files then cannot
     * tell which method ran, and the block's method stays unknown (never the first taken). */
    uint32_t np = etp_program_get_info(prog)->plan_count, cands = 0;
    int only = -1;
    for (uint32_t p = 0; p < np; p++) {
        uint32_t max_instr;
        if (!plan_matches(m, p, m->ev, bv->n, &max_instr)) continue;
        if (cands < MAX_CAND) m->cand[cands] = p;
        cands++;
        only = (int)p;
    }
    bv->plan = cands == 1 ? only : -1;
    bv->candidates = cands;
    if (cands == 1) bv->method_basis = ETP_MB_STRUCTURE;
    m->ncand = cands > 1 ? (cands > MAX_CAND ? MAX_CAND : cands) : 0;
    uint32_t slot = m->cache_next++ % SIG_CACHE;
    m->cache[slot].sig = sig;
    m->cache[slot].plan = bv->plan;
    m->cache[slot].candidates = cands;
    memcpy(m->cache[slot].cand, m->cand, sizeof m->cand);
    m->cache[slot].used = true;
}

/* ---- Program check: are the block's events what plan `plan` would have logged? ---- */

/* The instruction kind an event of this kind stands for, ETP_INSTR_NONE when it says nothing. */
static etp_instr_kind event_wants(const etp_mevent *e) {
    if (e->chain < 0 || e->instr < 0) return ETP_INSTR_NONE;
    switch (e->kind) {
    case ETP_KIND_OPERATOR_CALL:
    case ETP_KIND_DELEGATE_CALL:
    case ETP_KIND_INSTRUCTION: return wrapper_instr(e->kind, e->ev.profile.name);
    case ETP_KIND_KERNEL: return ETP_INSTR_KERNEL;
    case ETP_KIND_DELEGATE_INTERNAL: return ETP_INSTR_DELEGATE;
    default: return ETP_INSTR_NONE;
    }
}

static const char *instr_word(etp_instr_kind k) {
    switch (k) {
    case ETP_INSTR_KERNEL: return "KernelCall";
    case ETP_INSTR_DELEGATE: return "DelegateCall";
    case ETP_INSTR_MOVE: return "MoveCall";
    case ETP_INSTR_JUMP_FALSE: return "JumpFalseCall";
    case ETP_INSTR_FREE: return "FreeCall";
    default: return "instruction";
    }
}

/* A kernel scope "native_call_<op>[.<overload>]" must name the KernelCall's operator: <op> is the
 * operator name after its namespace ("aten::add" -> "add"). Other names are not checked. */
static bool kernel_name_ok(const etp_mevent *e, const instr_ent *ins) {
    static const char pre[] = "native_call_";
    const char *l = e->label;
    if (e->kind != ETP_KIND_KERNEL || !l || strncmp(l, pre, sizeof pre - 1) != 0 || !ins->op_name)
        return true;
    l += sizeof pre - 1;
    const char *op = strrchr(ins->op_name, ':');
    op = op ? op + 1 : ins->op_name;
    size_t n = strlen(op);
    if (strncmp(l, op, n) != 0) return false;
    l += n;
    if (!*l) return true;
    if (*l != '.') return false;
    return !ins->op_overload || !ins->op_overload[0] || strcmp(l + 1, ins->op_overload) == 0;
}

/* The first event of the block plan `plan` does not explain, or -1; `what` says what the
 * program has there. */
static int32_t first_mismatch(etp_model *m, int plan, const etp_block_view *bv, char *what,
                              size_t cap) {
    etp_plan_info pi;
    etp_program_plan(m->prog, (uint32_t)plan, &pi);
    for (uint32_t i = 0; i < bv->n; i++) {
        const etp_mevent *e = &m->ev[i];
        etp_instr_kind want = event_wants(e);
        if (want == ETP_INSTR_NONE) continue;
        const instr_ent *ins = instr_info(m, plan, e->chain, e->instr);
        if (!ins->found) {
            if ((uint32_t)e->chain >= pi.chain_count) {
                snprintf(what, cap, "no chain %d (it has %u)", e->chain, pi.chain_count);
            } else {
                etp_chain_info ci;
                etp_program_chain(m->prog, (uint32_t)plan, (uint32_t)e->chain, &ci);
                snprintf(what, cap, "no instruction %d in chain %d (it has %u)", e->instr, e->chain,
                         ci.instruction_count);
            }
            return (int32_t)i;
        }
        if (ins->kind != want) {
            if (ins->kind == ETP_INSTR_KERNEL)
                snprintf(what, cap, "a KernelCall of %s%s%s there", ins->op_name ? ins->op_name : "?",
                         ins->op_overload && ins->op_overload[0] ? "." : "",
                         ins->op_overload ? ins->op_overload : "");
            else if (ins->kind == ETP_INSTR_DELEGATE)
                snprintf(what, cap, "a DelegateCall (%s) there", ins->backend ? ins->backend : "?");
            else snprintf(what, cap, "a %s there", instr_word(ins->kind));
            return (int32_t)i;
        }
        if (!kernel_name_ok(e, ins)) {
            snprintf(what, cap, "a KernelCall of %s%s%s there", ins->op_name,
                     ins->op_overload && ins->op_overload[0] ? "." : "",
                     ins->op_overload ? ins->op_overload : "");
            return (int32_t)i;
        }
    }
    return -1;
}

/* A whole run (Method::execute) with instruction-level profiling (wrapper events) logs a wrapper
 * for every KernelCall and DelegateCall of chain 0 when the chain has no JumpFalseCall: a run that
 * stops short of the chain's last one was made by a shorter program. Returns the Method::execute
 * event, or -1. */
static int32_t check_complete(etp_model *m, int plan, const etp_block_view *bv, char *what,
                              size_t cap) {
    int32_t max_w = -1;
    bool wrappers = false;
    for (uint32_t i = 0; i < bv->n; i++) {
        const etp_mevent *e = &m->ev[i];
        if (e->kind != ETP_KIND_OPERATOR_CALL && e->kind != ETP_KIND_DELEGATE_CALL) continue;
        if (e->chain != 0) return -1; /* several chains: not checked */
        wrappers = true;
        if (e->instr > max_w) max_w = e->instr;
    }
    if (!wrappers) return -1;
    etp_chain_info ci;
    etp_plan_info pi;
    etp_program_plan(m->prog, (uint32_t)plan, &pi);
    if (pi.chain_count != 1) return -1;
    etp_program_chain(m->prog, (uint32_t)plan, 0, &ci);
    int32_t last = -1;
    for (uint32_t k = 0; k < ci.instruction_count; k++) {
        etp_instruction ins;
        if (!etp_program_instruction(m->prog, (uint32_t)plan, 0, k, &ins)) return -1;
        if (ins.kind == ETP_INSTR_JUMP_FALSE) return -1;
        if (ins.kind == ETP_INSTR_KERNEL || ins.kind == ETP_INSTR_DELEGATE) last = (int32_t)k;
    }
    if (last <= max_w) return -1;
    const instr_ent *ie = instr_info(m, plan, 0, last);
    snprintf(what, cap, "%u instructions in chain 0, the last %s at %d never ran", ci.instruction_count,
             ie->kind == ETP_INSTR_KERNEL ? "KernelCall" : "DelegateCall", last);
    return bv->method_event;
}

/* Checks the block against the plan it was resolved to (or, when none fits, against the plan
 * that explains the most of it) and fails with a located error on a mismatch, unless the
 * options say to go on (the block is then left unresolved and counted). */
static int check_program(etp_model *m, etp_block_view *bv, etp_error *err) {
    if (!m->prog) return ETP_OK;
    bool any = false;
    for (uint32_t i = 0; i < bv->n && !any; i++) any = event_wants(&m->ev[i]) != ETP_INSTR_NONE;
    if (!any) return ETP_OK;
    char what[160] = "";
    int plan = bv->plan;
    int32_t bad = -1;
    if (plan < 0 && m->ncand > 1) {
        /* Ambiguous: the block fits the program if it fits any candidate; the candidates that
         * fail the check are dropped (one left: that is the method). */
        uint32_t keep = 0;
        for (uint32_t c = 0; c < m->ncand; c++) {
            char w[160];
            int p = (int)m->cand[c];
            int32_t b = first_mismatch(m, p, bv, w, sizeof w);
            if (b < 0 && bv->method_event >= 0) b = check_complete(m, p, bv, w, sizeof w);
            if (b < 0) m->cand[keep++] = m->cand[c];
        }
        if (keep == 1) {
            bv->plan = (int)m->cand[0];
            bv->candidates = 1;
            bv->method_basis = ETP_MB_PROGRAM_CHECK;
            m->ncand = 0;
            return ETP_OK;
        }
        if (keep > 1) {
            if (bv->candidates <= MAX_CAND) bv->candidates = keep;
            m->ncand = keep;
            return ETP_OK;
        }
        m->ncand = 0;
    }
    if (plan >= 0) {
        bad = first_mismatch(m, plan, bv, what, sizeof what);
    } else {
        /* no plan fits: name the one that goes furthest */
        uint32_t np = etp_program_get_info(m->prog)->plan_count;
        for (uint32_t p = 0; p < np; p++) {
            char w[160];
            int32_t b = first_mismatch(m, (int)p, bv, w, sizeof w);
            if (b < 0) b = (int32_t)bv->n; /* cannot happen: resolve_plan would have taken it */
            if (b > bad) {
                bad = b;
                plan = (int)p;
                memcpy(what, w, sizeof what);
            }
        }
        if (plan < 0) {
            snprintf(what, sizeof what, "no method at all");
            bad = 0;
            while ((uint32_t)bad < bv->n && event_wants(&m->ev[bad]) == ETP_INSTR_NONE) bad++;
        }
    }
    if (bad < 0 && plan >= 0 && bv->method_event >= 0) bad = check_complete(m, plan, bv, what, sizeof what);
    if (bad < 0) return ETP_OK;
    const etp_mevent *e = &m->ev[bad];
    char path[64];
    snprintf(path, sizeof path, "run_data[%u].events[%d]", bv->block, bad);
    const char *mname = "?";
    if (plan >= 0) {
        etp_plan_info pi;
        etp_program_plan(m->prog, (uint32_t)plan, &pi);
        if (pi.name.ptr) mname = pi.name.ptr;
    }
    etp_error e2 = {0};
    etp_error *out = m->opts.ignore_program_mismatch ? &e2 : err;
    etp_error_set(out, ETP_E_INPUT, m->opts.dump_name, -1, path,
                  "block %u event %d (%.48s, chain %d instruction %d): method %.40s of the program "
                  "has %s: not the program of this dump (check --pte%s, or "
                  "--ignore-program-mismatch)",
                  bv->block, bad, e->label ? e->label : etp_kind_name(e->kind), e->chain, e->instr,
                  mname, what, m->forced_plan >= 0 ? " and --method" : "");
    if (!m->opts.ignore_program_mismatch) return ETP_E_INPUT;
    /* distinct blocks: a block decoded again (a second pass over the runs, e.g. the backend
     * figures) is not counted again; the first pass goes in block order */
    if (!m->mismatch_blocks || bv->block > m->mismatch_last) {
        if (m->mismatch_blocks++ == 0)
            etp_error_format(&e2, m->mismatch_first, sizeof m->mismatch_first);
        m->mismatch_last = bv->block;
    }
    bv->program_mismatch = true;
    bv->plan = -1;
    bv->method_basis = ETP_MB_NONE;
    bv->candidates = 0;
    m->ncand = 0;
    return ETP_OK;
}

/* ---- Telling apart methods of the same instruction structure (docs/cli.md, method resolution) ----
 * A candidate is dropped only on evidence that it did not run, and a signal is used only when
 * at least one candidate passes it (a signal no candidate passes says nothing about which ran). */

static const struct plan_tensors *plan_tensors(etp_model *m, uint32_t plan) {
    uint32_t np = etp_program_get_info(m->prog)->plan_count;
    if (!m->ptens) {
        m->ptens = calloc(np, sizeof *m->ptens);
        if (!m->ptens) return NULL;
    }
    struct plan_tensors *pt = &m->ptens[plan];
    if (!pt->built) {
        pt->built = true;
        uint32_t nv = etp_program_value_count(m->prog, plan);
        pt->t = nv ? malloc((size_t)nv * sizeof *pt->t) : NULL;
        if (nv && !pt->t) return NULL;
        for (uint32_t v = 0; v < nv; v++)
            if (etp_program_value_tensor(m->prog, plan, v, &pt->t[pt->n]) == 1) pt->n++;
    }
    return pt;
}

/* Can tensor `t`, logged at run time, be the declared tensor `d`? Same type and rank; static
 * sizes equal, dynamic-bound sizes within their bounds. */
static bool tensor_fits(const etp_tensor *t, const etp_tensor_meta *d) {
    if (t->scalar_type != d->scalar_type || t->sizes.len != d->sizes.len) return false;
    if (d->shape_dynamism == 2) return true;
    for (uint32_t k = 0; k < t->sizes.len; k++) {
        int64_t a = etp_vec_i64(t->sizes, k), b = etp_vec_i32(d->sizes, k);
        if (d->shape_dynamism == 1 ? (a < 0 || a > b) : a != b) return false;
    }
    return true;
}

/* A tensor the runtime logged itself (no name, no delegate debug id: a method output or an
 * instruction's output), so it is a value of the method that ran. */
static const etp_tensor *framework_tensor(const etp_mevent *e) {
    if (e->ev.type != ETP_EVENT_DEBUG) return NULL;
    const etp_debug_event *d = &e->ev.debug;
    if (d->name.ptr || d->delegate_debug_id_int != -1 || d->delegate_debug_id_str.ptr) return NULL;
    if (!d->has_debug_entry || !d->debug_entry.has_tensor) return NULL;
    return &d->debug_entry.tensor;
}

/* keep[c]: candidate c declares a tensor for every framework-logged tensor of the block.
 * Returns how many tensors were looked at. */
static uint32_t tensors_signal(etp_model *m, const etp_block_view *bv, bool *keep) {
    uint32_t seen = 0;
    for (uint32_t c = 0; c < m->ncand; c++) {
        keep[c] = true;
        const struct plan_tensors *pt = plan_tensors(m, m->cand[c]);
        if (!pt) return 0;
        for (uint32_t i = 0; i < bv->n && keep[c]; i++) {
            const etp_tensor *t = framework_tensor(&m->ev[i]);
            if (!t) continue;
            if (c == 0) seen++;
            bool fits = false;
            for (uint32_t k = 0; k < pt->n && !fits; k++) fits = tensor_fits(t, &pt->t[k]);
            keep[c] = fits;
        }
    }
    return seen;
}

static uint64_t span_hash(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* An index of a delegate blob's printable strings (runs of 0x20..0x7e), built once per blob. */
static const struct blob_index *blob_index(etp_model *m, const uint8_t *ptr, size_t len) {
    for (unsigned b = 0; b < 4; b++)
        if (m->bidx[b].slot && m->bidx[b].ptr == ptr && m->bidx[b].len == len) return &m->bidx[b];
    if (len >= (size_t)1 << 39) return NULL; /* offsets must fit the slot encoding */
    struct blob_index *bi = &m->bidx[m->bidx_next++ % 4];
    free(bi->slot);
    memset(bi, 0, sizeof *bi);
    size_t runs = 0;
    for (size_t i = 0; i < len;) {
        if (ptr[i] < 0x20 || ptr[i] > 0x7e) { i++; continue; }
        size_t j = i;
        while (j < len && ptr[j] >= 0x20 && ptr[j] <= 0x7e) j++;
        if (j - i >= 2 && j - i < (1u << 24)) runs++;
        i = j;
    }
    uint32_t cap = 16;
    while (cap < 2 * runs && cap < (1u << 30)) cap *= 2;
    if (cap < 2 * runs) return NULL;
    bi->slot = calloc(cap, sizeof *bi->slot);
    if (!bi->slot) return NULL;
    bi->ptr = ptr;
    bi->len = len;
    bi->mask = cap - 1;
    for (size_t i = 0; i < len;) {
        if (ptr[i] < 0x20 || ptr[i] > 0x7e) { i++; continue; }
        size_t j = i;
        while (j < len && ptr[j] >= 0x20 && ptr[j] <= 0x7e) j++;
        if (j - i >= 2 && j - i < (1u << 24)) {
            uint32_t h = (uint32_t)span_hash(ptr + i, j - i) & bi->mask;
            while (bi->slot[h]) h = (h + 1) & bi->mask;
            bi->slot[h] = ((uint64_t)(i + 1) << 24) | (uint64_t)(j - i);
        }
        i = j;
    }
    return bi;
}

/* 1 the blob holds `name` (as one of its strings, or inside one), 0 it does not, -1 cannot tell
 * (the search budget is spent). */
static int blob_has(const struct blob_index *bi, const char *name, size_t n, uint32_t *budget) {
    uint32_t h = (uint32_t)span_hash((const uint8_t *)name, n) & bi->mask;
    for (; bi->slot[h]; h = (h + 1) & bi->mask) {
        size_t off = (size_t)(bi->slot[h] >> 24) - 1, l = (size_t)(bi->slot[h] & 0xffffff);
        if (l == n && memcmp(bi->ptr + off, name, n) == 0) return 1;
    }
    if (*budget == 0) return -1;
    (*budget)--;
    /* not one whole string: it may still sit inside a longer run */
    for (size_t i = 0; i + n <= bi->len; i++) {
        const uint8_t *q = memchr(bi->ptr + i, (unsigned char)name[0], bi->len - n + 1 - i);
        if (!q) break;
        i = (size_t)(q - bi->ptr);
        if (memcmp(q, name, n) == 0) return 1;
    }
    return 0;
}

/* The QNN node name of event i (its length in *nl) and the delegate blob candidate plan `plan`
 * runs at its instruction; NULL when the event is no named QNN node or the plan has no blob there. */
static const char *node_blob(etp_model *m, uint32_t i, uint32_t plan, uint32_t *nl,
                             const uint8_t **ptr, size_t *len) {
    const etp_mevent *e = &m->ev[i];
    const etp_profile_event *p = &e->ev.profile;
    if (e->ev.type != ETP_EVENT_PROFILE || e->kind != ETP_KIND_DELEGATE_INTERNAL || p->name.ptr ||
        !p->delegate_debug_id_str.ptr || (e->flags & ETP_MF_ESCAPED))
        return NULL;
    int64_t op;
    *nl = 0;
    if (etp_qnn_classify(p->delegate_debug_id_str.ptr, p->delegate_debug_id_str.len, &op, nl) !=
            ETP_QNN_NODE || *nl == 0)
        return NULL;
    int32_t ch = e->chain, in = e->instr;
    if ((ch < 0 || in < 0) && e->parent >= 0) {
        ch = m->ev[e->parent].chain;
        in = m->ev[e->parent].instr;
    }
    etp_instruction ins;
    if (ch < 0 || in < 0 || !etp_program_instruction(m->prog, plan, (uint32_t)ch, (uint32_t)in, &ins) ||
        ins.kind != ETP_INSTR_DELEGATE || ins.index < 0 ||
        !etp_program_delegate_payload(m->prog, plan, (uint32_t)ins.index, ptr, len))
        return NULL;
    return p->delegate_debug_id_str.ptr;
}

/* keep[c]: the delegate blob candidate c runs at each QNN node event's instruction holds the
 * node's name (a QNN context binary keeps every graph's node names). Used only when the
 * candidates run different blobs (checked first: shared blobs are never indexed). Returns how
 * many node events were looked at. */
static uint32_t payload_signal(etp_model *m, const etp_block_view *bv, bool *keep) {
    bool differ = false;
    for (uint32_t i = 0; i < bv->n && !differ; i++) {
        const uint8_t *p0 = NULL, *p;
        size_t l0 = 0, l;
        uint32_t nl;
        for (uint32_t c = 0; c < m->ncand && !differ; c++) {
            if (!node_blob(m, i, m->cand[c], &nl, &p, &l)) continue;
            if (!p0) {
                p0 = p;
                l0 = l;
            } else differ = p != p0 || l != l0;
        }
    }
    if (!differ) return 0;
    uint32_t seen = 0;
    for (uint32_t c = 0; c < m->ncand; c++) {
        keep[c] = true;
        uint32_t budget = 64;
        for (uint32_t i = 0; i < bv->n && keep[c]; i++) {
            const uint8_t *ptr;
            size_t len;
            uint32_t nl;
            const char *name = node_blob(m, i, m->cand[c], &nl, &ptr, &len);
            if (!name) continue;
            const struct blob_index *bi = blob_index(m, ptr, len);
            if (!bi) return 0;
            if (c == 0) seen++;
            int has = blob_has(bi, name, nl, &budget);
            if (has == 0) keep[c] = false;
            if (has < 0) break; /* cannot tell: keep it */
        }
    }
    return seen;
}

/* An ambiguous block: drop the candidates a signal rules out (when it rules out some but not
 * all). One left: that is the method, and bv->method_basis names the signal. */
static void refine_candidates(etp_model *m, etp_block_view *bv) {
    bool keep[MAX_CAND];
    static const etp_method_basis basis[2] = {ETP_MB_DEBUG_TENSORS, ETP_MB_DELEGATE_PAYLOAD};
    for (int s = 0; s < 2 && m->ncand > 1; s++) {
        uint32_t seen = s == 0 ? tensors_signal(m, bv, keep) : payload_signal(m, bv, keep);
        if (!seen) continue;
        uint32_t k = 0;
        for (uint32_t c = 0; c < m->ncand; c++)
            if (keep[c]) m->cand[k++] = m->cand[c];
        if (k == 0) continue; /* no candidate passes: the signal says nothing (cand untouched) */
        m->ncand = k;
        bv->candidates = k;
        if (k == 1) {
            bv->plan = (int)m->cand[0];
            bv->method_basis = basis[s];
            m->ncand = 0;
        }
    }
}

/* What a signal says, for the --method warning. */
static const char *basis_words(etp_method_basis b) {
    switch (b) {
    case ETP_MB_STRUCTURE: return "its instruction events fit only that method";
    case ETP_MB_PROGRAM_CHECK: return "the other methods fail the program check";
    case ETP_MB_DEBUG_TENSORS: return "the tensor types and shapes the runtime logged are that method's";
    case ETP_MB_DELEGATE_PAYLOAD: return "its QNN node names are in that method's delegate blob";
    default: return "the files";
    }
}

/* --method given: would the files alone name another method for this block? The block is
 * resolved again without the option (the signature cache only ever holds unforced results);
 * when that names one method and it is not the option's, the block is counted and the first
 * such block's one-line reason kept. With opts.strict_method it is a located error instead.
 * A flag the files agree with, or one they cannot judge (ambiguous), is silent. */
static int method_evidence(etp_model *m, etp_block_view *bv, etp_error *err) {
    int forced = m->forced_plan;
    etp_block_view ev = *bv;
    m->forced_plan = -1;
    resolve_plan(m, &ev);
    if (ev.plan < 0 && m->ncand > 1) refine_candidates(m, &ev);
    m->forced_plan = forced;
    m->ncand = 0;
    if (ev.plan < 0 || ev.plan == forced || ev.method_basis == ETP_MB_ONLY_METHOD) return ETP_OK;
    etp_plan_info a, b;
    etp_program_plan(m->prog, (uint32_t)forced, &a);
    etp_program_plan(m->prog, (uint32_t)ev.plan, &b);
    etp_error e2 = {0};
    etp_error *out = m->opts.strict_method ? err : &e2;
    etp_error_set(out, ETP_E_INPUT, m->opts.dump_name, -1, NULL,
                  "--method %.60s contradicts the files: block %u (%.40s) ran %.60s (%s: %s)%s",
                  a.name.ptr ? a.name.ptr : "?", bv->block,
                  bv->info.name.ptr ? bv->info.name.ptr : "?", b.name.ptr ? b.name.ptr : "?",
                  etp_method_basis_name(ev.method_basis), basis_words(ev.method_basis),
                  m->opts.strict_method ? " (--strict)" : "");
    if (m->opts.strict_method) return ETP_E_INPUT;
    if (!m->conflict_blocks || bv->block > m->conflict_last) {
        if (m->conflict_blocks++ == 0)
            etp_error_format(&e2, m->conflict_first, sizeof m->conflict_first);
        m->conflict_last = bv->block;
    }
    return ETP_OK;
}

/* How an event's unit is decided, from what does not depend on its times: its label and
 * identity (decide_unit() then reads the times). A replica keeps its template's rule. */
enum {
    UR_HOST = 0,     /* host time (PAL ticks) */
    UR_LABEL = 1,    /* a delegate's own value, labelled by a string: its suffix, below */
    UR_DELEGATE = 2, /* a delegate's own value without a string label */
    UR_WHO = 3,
    US_NONE = 0 << 2, /* the label's unit suffix */
    US_US = 1 << 2,
    US_US_QTIMER = 2 << 2, /* " (us)" counted in 19.2 MHz QTimer ticks */
    US_CYCLES = 3 << 2,
    US_COUNT = 4 << 2,
    US_BYTES = 5 << 2,
    US_MASK = 7 << 2,
    UR_QNN_CLASS = 32,   /* the label has a QNN class */
    UR_QNN_BACKEND = 64, /* the event is inside a QNN delegate's instruction */
};

/* e's rule; sets its QNN class fields from its label (etp_qnn_classify). A replica keeps both
 * (its template's). */
static uint8_t unit_rule(etp_mevent *e, bool qnn_backend) {
    if (e->ev.type != ETP_EVENT_PROFILE) return UR_HOST;
    const etp_profile_event *p = &e->ev.profile;
    /* logged by a delegate with its own value/unit (a named one too: named_delegate()) */
    bool delegate_value = !p->name.ptr || e->ev_name;
    bool str_label = p->delegate_debug_id_str.ptr && (!p->name.ptr || p->delegate_debug_id_int == -1);
    if (!delegate_value) return UR_HOST;
    if (!str_label) return UR_DELEGATE;
    /* the label is this string (escaped when it holds a NUL): classify what is shown */
    const char *n = e->label;
    size_t len = e->flags & ETP_MF_ESCAPED ? strlen(n) : p->delegate_debug_id_str.len;
    e->qnn = etp_qnn_classify(n, len, &e->qnn_op_id, &e->qnn_name_len);
    uint8_t r = UR_LABEL | (e->qnn != ETP_QNN_NONE ? UR_QNN_CLASS : 0) |
                (qnn_backend ? UR_QNN_BACKEND : 0);
    if (ends_with(n, len, " (us)")) {
        bool qtimer = is_name(p->delegate_debug_id_str, "Time for initial VTCM acquire (us)") ||
                      is_name(p->delegate_debug_id_str, "Time for HVX + HMX power on and acquire (us)");
        return r | (qtimer ? US_US_QTIMER : US_US);
    }
    if (ends_with(n, len, " (cycles)")) return r | US_CYCLES;
    if (ends_with(n, len, " (count)")) return r | US_COUNT;
    if (ends_with(n, len, " (bytes)")) return r | US_BYTES;
    return r | US_NONE;
}

/* e's unit, value and time flags, by its rule (unit_rule) and its times. Inlined into the
 * per-event loops of repeated blocks (a call per event costs more than it saves). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void decide_unit(etp_model *m, etp_mevent *e, uint8_t rule) {
    e->unit = ETP_UNIT_NONE;
    e->value = NAN;
    if (e->ev.type == ETP_EVENT_ALLOCATION) {
        e->unit = ETP_UNIT_BYTES;
        e->value = (double)e->ev.allocation.allocation_size;
        return;
    }
    if (e->ev.type != ETP_EVENT_PROFILE) return;
    const etp_profile_event *p = &e->ev.profile;
    uint64_t s = p->start_time, t = p->end_time;
    double raw;
    if (s <= t) raw = (double)(t - s);
    else if (s <= UINT32_MAX && t <= UINT32_MAX) {
        raw = (double)((UINT64_C(1) << 32) - s + t);
        e->flags |= ETP_MF_WRAPPED;
    } else {
        e->flags |= ETP_MF_BAD_TIME;
        raw = NAN;
    }
    if (s == 11223344 && t == 11223344) e->flags |= ETP_MF_MINIMAL_PAL;
    if ((rule & UR_WHO) == UR_LABEL) {
        if ((rule & (UR_QNN_CLASS | UR_QNN_BACKEND)) || s == 0) {
            e->flags |= ETP_MF_NOT_WALL;
            e->value = raw;
            switch (rule & US_MASK) {
            case US_US_QTIMER:
                e->value = raw / 19.2;
                e->flags |= ETP_MF_QTIMER;
                /* fall through */
            case US_US: e->unit = ETP_UNIT_US; return;
            case US_CYCLES:
                e->unit = ETP_UNIT_CYCLES;
                if (e->qnn >= ETP_QNN_NODE || e->qnn == ETP_QNN_TOP) e->flags |= ETP_MF_AGGREGATE;
                return;
            case US_COUNT: e->unit = ETP_UNIT_COUNT; return;
            case US_BYTES: e->unit = ETP_UNIT_BYTES; return;
            default:
                if ((rule & UR_QNN_BACKEND) || s == 0) {
                    e->unit = ETP_UNIT_RAW;
                    return;
                }
                e->value = NAN;
            }
        }
    } else if ((rule & UR_WHO) == UR_DELEGATE && s == 0) {
        e->flags |= ETP_MF_NOT_WALL;
        e->unit = ETP_UNIT_RAW;
        e->value = raw;
        return;
    }
    /* Host time in PAL ticks (delegates with real timestamps included). */
    if (s == 0 && t == 0) e->flags |= ETP_MF_NO_CLOCK;
    if (m->opts.tick_ns > 0) {
        e->unit = ETP_UNIT_NS;
        e->value = raw * m->opts.tick_ns;
        e->flags |= ETP_MF_FROM_TICKS;
    } else {
        e->unit = ETP_UNIT_TICKS;
        e->value = raw;
    }
}

/* ---- Repeated runs: a block that repeats the one before it (docs/analyses.md "Repeated runs")
 * The runs of a method log the same events in the same order, only their times differ. When
 * every event of a block equals the previous block's in everything but its times (type, names,
 * delegate ids, chain and instruction, metadata: compared byte for byte) and the blocks agree on
 * being named "Execute", everything the model derives from those (kinds, pairing, labels'
 * sources, the method and its program check, instructions, QNN classes) is the previous
 * block's, and only what depends on the times (unit, value, time flags) is decided again. A
 * block is a template only when nothing about it depends on more than its events: no debug
 * events, no escaped label, no program mismatch. */
enum {
    LS_NONE = 0, /* no label */
    LS_NAME,     /* the event's name */
    LS_ID_STR,   /* its delegate debug id string */
    LS_INT,      /* its delegate debug id number, printed (int_label) */
    LS_MASK = 7,
    LS_EV_NAME = 8,      /* ev_name is the event's name */
};

/* Equal bytes; the same string (blocks that share it) without reading it: otherwise blocks
 * sharing one long name would each compare it in full. */
static bool same_bytes(etp_str a, etp_str b) {
    return (a.ptr == NULL) == (b.ptr == NULL) && a.len == b.len &&
           (a.ptr == b.ptr || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Equal in everything but the times (a profile event's start and end, an allocation's size). */
static bool same_but_times(const etp_event *a, const etp_event *b) {
    if (a->type != b->type) return false;
    switch (a->type) {
    case ETP_EVENT_NONE: return true;
    case ETP_EVENT_ALLOCATION: return a->allocation.allocator_id == b->allocation.allocator_id;
    case ETP_EVENT_PROFILE: {
        const etp_profile_event *x = &a->profile, *y = &b->profile;
        etp_str mx = {(const char *)x->delegate_debug_metadata.ptr, x->delegate_debug_metadata.len};
        etp_str my = {(const char *)y->delegate_debug_metadata.ptr, y->delegate_debug_metadata.len};
        return x->chain_index == y->chain_index && x->instruction_id == y->instruction_id &&
               x->delegate_debug_id_int == y->delegate_debug_id_int && same_bytes(x->name, y->name) &&
               same_bytes(x->delegate_debug_id_str, y->delegate_debug_id_str) && same_bytes(mx, my);
    }
    default: return false; /* debug events are never in a template */
    }
}

/* The label source of a decoded event (pass 1), or -1 when it cannot be repeated. */
static int label_source(const etp_model *m, const etp_mevent *e) {
    if (e->flags & ETP_MF_ESCAPED) return -1;
    if (e->ev.type != ETP_EVENT_PROFILE) return e->ev.type == ETP_EVENT_DEBUG ? -1 : LS_NONE;
    const etp_profile_event *p = &e->ev.profile;
    int src;
    if (!e->label) src = LS_NONE;
    else if (e->label == p->name.ptr) src = LS_NAME;
    else if (e->label == p->delegate_debug_id_str.ptr) src = LS_ID_STR;
    else if (e->label >= m->arena && e->label < m->arena + m->arena_len) src = LS_INT;
    else return -1; /* a placeholder */
    if (e->ev_name) {
        if (e->ev_name != p->name.ptr) return -1;
        src |= LS_EV_NAME;
    }
    return src;
}

/* A repeated event's label and name, from where the template's came (its label source). */
static inline void repeat_labels(etp_model *m, etp_mevent *e, uint8_t src) {
    const etp_profile_event *p = &e->ev.profile;
    switch (src & LS_MASK) {
    case LS_NAME: e->label = p->name.ptr; break;
    case LS_ID_STR: e->label = p->delegate_debug_id_str.ptr; break;
    case LS_INT: e->label = int_label(m, p->delegate_debug_id_int); break;
    default: e->label = NULL; break;
    }
    e->ev_name = src & LS_EV_NAME ? p->name.ptr : NULL;
}

/* Block `block` (bv->info read) as a replica of the template: pass 1 decodes each event into its
 * slot, keeping the template's derived fields, until one differs (false: the caller starts
 * over). lo, hi: the event tables' positions. */
static bool replica_pass(etp_model *m, uint32_t block, etp_block_view *bv, uint32_t *lo,
                         uint32_t *hi) {
    uint32_t n = bv->info.event_count;
    if (n != m->tmpl_n || is_name(bv->info.name, "Execute") != m->tmpl_named) return false;
    etp_mevent *ev = m->ev;
    for (uint32_t i = 0; i < n; i++) {
        etp_mevent *e = &ev[i];
        etp_event x = e->ev;
        uint32_t t = etp__dump_event_reuse(m->dump, block, i, &x, &m->tpos[2 * i]);
        if (!same_but_times(&e->ev, &x)) return false;
        if (t < *lo) *lo = t;
        if (t > *hi) *hi = t;
        e->ev = x;
        repeat_labels(m, e, m->tmpl_src[i]);
    }
    return true;
}

/* Event i of a replica: its unit, value and time flags decided again from its own times (the
 * template's rule); unit_change when the unit is not the block before's (still in the slot). */
static inline void replica_unit(etp_model *m, etp_mevent *e, uint32_t i) {
    etp_unit was = e->unit;
    e->flags = 0;
    decide_unit(m, e, m->urule[i]);
    m->unit_change |= e->unit != was;
}

/* Block `block` laid out as the previous block, `delta` bytes on (etp__dump_same_layout):
 * each event is the previous block's with its positions moved by delta, and its own times. */
static void layout_pass(etp_model *m, uint32_t n, int64_t delta) {
    const uint8_t *buf = etp__dump_bytes(m->dump);
    for (uint32_t i = 0; i < n; i++) {
        etp_mevent *e = &m->ev[i];
        if (e->ev.type != ETP_EVENT_PROFILE) { /* allocations: the same bytes */
            if (!m->no_units) replica_unit(m, e, i);
            continue;
        }
        etp_profile_event *p = &e->ev.profile;
        if (p->name.ptr) p->name.ptr += delta;
        if (p->delegate_debug_id_str.ptr) p->delegate_debug_id_str.ptr += delta;
        if (p->delegate_debug_metadata.ptr) p->delegate_debug_metadata.ptr += delta;
        uint32_t *tp = &m->tpos[2 * i];
        if (tp[0]) {
            tp[0] = (uint32_t)(tp[0] + delta);
            p->start_time = fb_u64(buf + tp[0]);
        }
        if (tp[1]) {
            tp[1] = (uint32_t)(tp[1] + delta);
            p->end_time = fb_u64(buf + tp[1]);
        }
        repeat_labels(m, e, m->tmpl_src[i]);
        if (!m->no_units) replica_unit(m, e, i); /* replica_finish's work, while in cache */
    }
}

/* The rest of a replica: the template's view, and each event's unit and value from its times
 * (`units`: not done yet; layout_pass does it as it goes). */
static void replica_finish(etp_model *m, etp_block_view *bv, bool units) {
    const etp_block_view *t = &m->tmpl_bv;
    bv->plan = t->plan;
    bv->method = t->method;
    bv->candidates = t->candidates;
    bv->is_execute = t->is_execute;
    bv->run_by_events = t->run_by_events;
    bv->method_event = t->method_event;
    bv->n_candidate_names = t->n_candidate_names;
    bv->candidate_names = t->candidate_names;
    bv->method_basis = t->method_basis;
    bv->n = m->tmpl_n;
    bv->events = m->ev;
    if (m->no_units || !units) return; /* no_units: the template's are the pass-1 ones */
    for (uint32_t i = 0; i < bv->n; i++) replica_unit(m, &m->ev[i], i);
}

uint32_t etp__model_repeat_of(const etp_model *m) { return m->repeat_of; }
double etp__model_tick_ns(const etp_model *m) { return m->opts.tick_ns; }

int etp_model_block(etp_model *m, uint32_t block, etp_block_view *bv, etp_error *err) {
    memset(bv, 0, sizeof *bv);
    uint32_t prev_block = m->last_block;
    m->last_block = m->repeat_of = UINT32_MAX;
    m->unit_change = false;
    /* etp_dump_open_opts.background; a split's blocks are verified here, just before they are
     * read (etdump_int.h) */
    int rc = block >= m->split_from ? etp__dump_split_verify(m->dump, block, err)
             : m->taken ? etp__dump_taken_verify(m->dump, block + 1, err)
                        : etp__dump_wait(m->dump, block + 1, err);
    if (rc) return rc;
    bv->block = block;
    bv->method_event = -1;
    etp_dump_block(m->dump, block, &bv->info);
    uint32_t n = bv->info.event_count;
    rc = reserve(m, block, n, err);
    if (rc) return rc;
    /* The previous block is done with once this one is decoded (a replica compares its events
     * with the previous block's): its pages of the mapped file are then given back (a pass over
     * the blocks in order holds little more than the block it is on). */
    bool had_blk = m->have_blk;
    uint32_t prev_lo = m->blk_lo, prev_hi = m->blk_hi;
    m->have_blk = false;
    esc_free(m); /* the previous block's escaped labels */
    etp_mevent *ev = m->ev;
    uint32_t lo = UINT32_MAX, hi = 0;
    int64_t delta;
    bool laid_out = m->tmpl_ok && n && had_blk && n == m->tmpl_n &&
                    is_name(bv->info.name, "Execute") == m->tmpl_named &&
                    etp__dump_same_layout(m->dump, prev_block, block, &delta);
    if (laid_out) {
        layout_pass(m, n, delta);
        lo = (uint32_t)(prev_lo + delta);
        hi = (uint32_t)(prev_hi + delta);
    }
    if (laid_out || (m->tmpl_ok && n && replica_pass(m, block, bv, &lo, &hi))) {
        if (had_blk) release_block(m->dump, &m->rs, prev_lo, prev_hi);
        m->blk_lo = lo;
        m->blk_hi = hi;
        m->have_blk = true;
        replica_finish(m, bv, !laid_out);
        /* a unit that changed (a time decides it: a start of 0) changes the event's row */
        m->repeat_of = m->unit_change ? UINT32_MAX : prev_block;
        m->last_block = block;
        return ETP_OK;
    }
    /* not a replica: decoded in full, and the template of the next block if it can be one */
    m->tmpl_ok = false;
    m->arena_len = 0;
    lo = UINT32_MAX;
    hi = 0;
    bool tmpl = !m->replica_off && n > 0;
    /* Pass 1: decode and give each event its base kind. Every field of an event is assigned
     * here (the slots are reused from block to block). */
    for (uint32_t i = 0; i < n; i++) {
        etp_mevent *e = &ev[i];
        uint32_t t = etp__dump_event_reuse(m->dump, block, i, &e->ev, &m->tpos[2 * i]);
        if (t < lo) lo = t;
        if (t > hi) hi = t;
        e->index = i;
        e->kind = base_kind(&e->ev);
        e->parent = -1;
        e->chain = -1;
        e->instr = -1;
        e->label = NULL;
        e->instr_kind = ETP_INSTR_NONE;
        e->op_name = e->op_overload = e->backend = NULL;
        e->unit = ETP_UNIT_NONE;
        e->value = 0;
        e->flags = 0;
        e->qnn = ETP_QNN_NONE;
        e->qnn_op_id = -1;
        e->qnn_name_len = 0;
        e->ev_name = NULL;
        switch (e->ev.type) {
        case ETP_EVENT_PROFILE: {
            const etp_profile_event *p = &e->ev.profile;
            e->chain = p->chain_index;
            e->instr = p->instruction_id;
            if (e->kind == ETP_KIND_DELEGATE_INTERNAL && p->name.ptr) {
                e->ev_name = esc_label(m, p->name, &e->flags);
                e->label = p->delegate_debug_id_int != -1
                               ? int_label(m, p->delegate_debug_id_int)
                               : esc_label(m, p->delegate_debug_id_str, &e->flags);
            } else if (p->name.ptr) e->label = esc_label(m, p->name, &e->flags);
            else if (p->delegate_debug_id_str.ptr)
                e->label = esc_label(m, p->delegate_debug_id_str, &e->flags);
            else if (p->delegate_debug_id_int != -1) e->label = int_label(m, p->delegate_debug_id_int);
            if (e->kind == ETP_KIND_FRAMEWORK && bv->method_event < 0 &&
                is_name(p->name, "Method::execute"))
                bv->method_event = (int32_t)i;
            break;
        }
        case ETP_EVENT_DEBUG: {
            const etp_debug_event *d = &e->ev.debug;
            e->chain = d->chain_index == UINT64_MAX ? -1 : (int32_t)d->chain_index;
            if (d->chain_index > INT32_MAX && d->chain_index != UINT64_MAX) e->chain = -1;
            e->instr = d->instruction_id;
            if (d->name.ptr) e->label = esc_label(m, d->name, &e->flags);
            else if (d->delegate_debug_id_str.ptr)
                e->label = esc_label(m, d->delegate_debug_id_str, &e->flags);
            else if (d->delegate_debug_id_int != -1) e->label = int_label(m, d->delegate_debug_id_int);
            break;
        }
        default: break;
        }
        if (tmpl) {
            int src = label_source(m, e);
            if (src < 0) tmpl = false;
            else m->tmpl_src[i] = (uint8_t)src;
        }
    }
    if (had_blk) release_block(m->dump, &m->rs, prev_lo, prev_hi);
    if (n) {
        m->blk_lo = lo;
        m->blk_hi = hi;
        m->have_blk = true;
    }
    /* Pass 2: wrappers claim the earlier unclaimed events of their instruction. */
    for (uint32_t i = 0; i < n; i++) {
        etp_mevent *e = &ev[i];
        bool instr_level = e->chain >= 0 && e->instr >= 0;
        if (e->kind == ETP_KIND_OPERATOR_CALL || e->kind == ETP_KIND_DELEGATE_CALL ||
            e->kind == ETP_KIND_INSTRUCTION) {
            if (!instr_level) continue;
            int32_t *head = pending_head(m, e->chain, e->instr, false);
            if (head) {
                for (int32_t j = *head; j >= 0; j = m->next[j]) {
                    etp_mevent *c = &ev[j];
                    c->parent = (int32_t)i;
                    if (c->kind == ETP_KIND_NONE)
                        c->kind = e->kind == ETP_KIND_OPERATOR_CALL ? ETP_KIND_KERNEL
                                  : e->kind == ETP_KIND_DELEGATE_CALL
                                      ? ETP_KIND_DELEGATE_INTERNAL
                                      : ETP_KIND_OTHER;
                }
                *head = -1;
            }
            continue;
        }
        if (e->kind == ETP_KIND_NONE || e->kind == ETP_KIND_DELEGATE_INTERNAL ||
            e->kind == ETP_KIND_DEBUG_INTERMEDIATE) {
            if (!instr_level) continue;
            int32_t *head = pending_head(m, e->chain, e->instr, true);
            m->next[i] = *head;
            *head = (int32_t)i;
        }
    }
    /* Method::execute encloses every instruction-level event without a parent before it. */
    if (bv->method_event >= 0) {
        for (uint32_t i = 0; i < (uint32_t)bv->method_event; i++) {
            etp_mevent *e = &ev[i];
            if (e->parent >= 0 || e->kind == ETP_KIND_FRAMEWORK) continue;
            if (e->kind == ETP_KIND_ALLOCATION) continue;
            e->parent = bv->method_event;
        }
    }
    decide_run(bv, ev, n);
    bv->n = n;
    bv->events = ev;
    /* Which method ran, and what each instruction is. */
    resolve_plan(m, bv);
    rc = check_program(m, bv, err);
    if (rc) return rc;
    if (bv->program_mismatch) tmpl = false; /* counted per block: never repeated */
    if (bv->plan < 0 && m->ncand > 1) refine_candidates(m, bv);
    if (m->forced_plan >= 0 && !bv->program_mismatch && m->prog) {
        rc = method_evidence(m, bv, err);
        if (rc) return rc;
    }
    if (bv->plan >= 0) {
        etp_plan_info pi;
        etp_program_plan(m->prog, (uint32_t)bv->plan, &pi);
        bv->method = pi.name.ptr;
    }
    bv->n_candidate_names = 0;
    bv->candidate_names = NULL;
    if (bv->plan < 0 && m->ncand > 1) {
        for (uint32_t c = 0; c < m->ncand; c++) {
            etp_plan_info pi;
            etp_program_plan(m->prog, m->cand[c], &pi);
            m->cand_names[c] = pi.name.ptr ? pi.name.ptr : "";
        }
        bv->n_candidate_names = m->ncand;
        bv->candidate_names = m->cand_names;
    }
    /* An ambiguous block still learns what an instruction is when every candidate agrees. */
    int ipl = bv->plan >= 0 ? bv->plan : (m->ncand > 1 ? (int)m->cand[0] : -1);
    bool amb = bv->plan < 0 && ipl >= 0;
    const instr_ent *ins = NULL; /* the last lookup: neighbours share their instruction */
    for (uint32_t i = 0; i < n; i++) {
        etp_mevent *e = &ev[i];
        bool qnn_backend = false;
        if (ipl >= 0 && e->chain >= 0 && e->instr >= 0) {
            if (amb) ins = NULL; /* the other candidates' lookups share the cache */
            if (!ins || ins->chain != e->chain || ins->instr != e->instr)
                ins = instr_info(m, ipl, e->chain, e->instr);
            bool agree = true;
            if (amb && ins->found) {
                instr_ent a = *ins;
                for (uint32_t c = 1; c < m->ncand && agree; c++) {
                    const instr_ent *o = instr_info(m, (int)m->cand[c], e->chain, e->instr);
                    agree = o->found && o->kind == a.kind && same_str(o->op_name, a.op_name) &&
                            same_str(o->op_overload, a.op_overload) &&
                            same_str(o->backend, a.backend);
                }
                ins = instr_info(m, ipl, e->chain, e->instr);
            }
            if (ins->found && agree) {
                e->instr_kind = ins->kind;
                e->op_name = ins->op_name;
                e->op_overload = ins->op_overload;
                e->backend = ins->backend;
                qnn_backend = ins->backend_qnn;
            }
        }
        if (e->kind == ETP_KIND_NONE) {
            /* A named scope nothing claimed: the program decides, else it stays "other". */
            if (e->instr_kind == ETP_INSTR_KERNEL) e->kind = ETP_KIND_KERNEL;
            else if (e->instr_kind == ETP_INSTR_DELEGATE) e->kind = ETP_KIND_DELEGATE_INTERNAL;
            else e->kind = ETP_KIND_OTHER;
        }
        if (m->no_units) {
            e->value = NAN;
            continue;
        }
        m->urule[i] = unit_rule(e, qnn_backend);
        decide_unit(m, e, m->urule[i]);
    }
    if (tmpl) {
        m->tmpl_ok = true;
        m->tmpl_n = n;
        m->tmpl_named = is_name(bv->info.name, "Execute");
        m->tmpl_bv = *bv;
    }
    m->last_block = block;
    return ETP_OK;
}

void etp_model_trim(etp_model *m) {
    if (m) etp__model_release_scratch(m);
}

void etp__model_release_scratch(etp_model *m) {
    etp__mem_give(m->charged);
    m->charged = 0;
    free(m->ev);
    free(m->next);
    free(m->tmpl_src);
    m->tmpl_src = NULL;
    free(m->urule);
    m->urule = NULL;
    free(m->tpos);
    m->tpos = NULL;
    m->tmpl_ok = false;
    m->last_block = m->repeat_of = UINT32_MAX;
    free(m->hkeys);
    free(m->hhead);
    free(m->hused);
    free(m->arena);
    esc_free(m);
    esc_list_free(&m->esc_keep);
    free(m->lmemo);
    m->lmemo = NULL;
    m->lmemo_cap = m->lmemo_n = 0;
    m->ev = NULL;
    m->next = NULL;
    m->hkeys = NULL;
    m->hhead = NULL;
    m->hused = NULL;
    m->arena = NULL;
    m->cap = m->hcap = m->nused = 0;
    m->arena_cap = m->arena_len = 0;
}
