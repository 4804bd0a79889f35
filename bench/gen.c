/* etprof-gen: writes large, realistic ExecuTorch ETDump files (.etdp) for benchmarking and
 * testing etprof, plus an optional matching minimal program (.pte).
 *
 * The event shapes follow what the ExecuTorch runtime writes (see ../shared/docs/etdump-format.md
 * sections 1 and 5 and qnn-profiling.md sections 2.3-2.5, 3.1, 4.2): "Default" block with
 * Method::init then Program::load_method, one "Execute" block per execute() with events in
 * scope-end order, QNN HTP events as string-id delegate events with start 0 / end = value,
 * XNNPACK-style delegate events laid back to back in ns, portable CPU kernels as
 * native_call_<op>.out + OPERATOR_CALL pairs. Values are pseudo-random (splitmix64) and fully
 * determined by --seed; the layout choices of the writer are described in bench/README.md.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "fbb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FLATBUFFER_MAX 2147483647ull /* flatc / verifiers refuse buffers of 2 GiB and more */
#define FLUSH_BYTES (8u << 20)

/* ---- small helpers ----------------------------------------------------------------------- */

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("etprof-gen: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* Report a builder failure; errno is meaningful only for write errors. */
static void die_fbb(const char *what, const fbb *b) {
  if (b->failed == FBB_ERR_WRITE)
    die("%s: %s: %s", what, fbb_strerror(b->failed), strerror(errno));
  die("%s: %s", what, fbb_strerror(b->failed));
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p)
    die("out of memory");
  return p;
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q)
    die("out of memory");
  return q;
}

static char *xfmt(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    die("format error");
  char *s = xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* splitmix64: the whole output is a function of the seed. */
static uint64_t sm64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double urand(uint64_t *s) { return (double)(sm64(s) >> 11) * (1.0 / 9007199254740992.0); }
static double uni(uint64_t *s, double lo, double hi) { return lo + (hi - lo) * urand(s); }
static uint64_t rnd(double x) { return x <= 0 ? 0 : (uint64_t)(x + 0.5); }
static uint64_t stream_seed(uint64_t seed, uint64_t stream) {
  uint64_t s = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
  return sm64(&s);
}

/* ---- the model: what the generated program looks like ------------------------------------ */

enum { STYLE_QNN, STYLE_CPU, STYLE_MIXED };
enum { INS_KERNEL, INS_QNN, INS_XNN };

typedef struct {
  const char *ns, *op; /* operator namespace and name: ns::op, overload "out" */
  double lo, hi;       /* native_call duration range in ns (warm) */
} cpu_kind;

/* Portable-CPU kernels of a small transformer; durations are host ns. */
static const cpu_kind CPU_KINDS[] = {
    {"aten", "embedding", 3000, 12000},           /* 0 */
    {"aten", "native_layer_norm", 4000, 25000},   /* 1 */
    {"aten", "permute_copy", 800, 20000},         /* 2 */
    {"aten", "addmm", 20000, 400000},             /* 3 */
    {"aten", "view_copy", 300, 3000},             /* 4 */
    {"aten", "bmm", 15000, 150000},               /* 5 */
    {"aten", "mul", 1000, 12000},                 /* 6 */
    {"aten", "_softmax", 5000, 60000},            /* 7 */
    {"aten", "add", 1000, 15000},                 /* 8 */
    {"aten", "gelu", 6000, 80000},                /* 9 */
    {"aten", "expand_copy", 800, 8000},           /* 10 */
    {"aten", "argmax", 2000, 9000},               /* 11 */
    {"quantized_decomposed", "quantize_per_tensor", 1500, 9000},   /* 12 */
    {"quantized_decomposed", "dequantize_per_tensor", 1200, 8000}, /* 13 */
};
/* One transformer layer as portable kernels (linear = permute_copy + addmm). */
static const unsigned char CPU_LAYER[] = {1, 2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 2, 10, 5, 6,
                                          7, 5, 2, 4, 2, 3, 8, 1, 2, 3, 9, 2, 3, 8};

typedef struct {
  const char *fx; /* torch.fx base name of the edge-dialect node */
  double lo, hi;  /* HTP busy cycles (warm) */
  int foldable;   /* reshapes and copies are often folded to 0 cycles */
} qnn_kind;

static const qnn_kind QNN_KINDS[] = {
    {"aten_index_tensor", 1000, 1700, 0},      /* 0 */
    {"aten_select_copy_int", 100, 650, 1},     /* 1 */
    {"aten_embedding_default", 1000, 1700, 0}, /* 2 */
    {"aten_rms_norm_default", 900, 2100, 0},   /* 3 */
    {"aten_mul_tensor", 200, 800, 0},          /* 4 */
    {"aten_view_copy_default", 100, 650, 1},   /* 5 */
    {"aten_permute_copy_default", 100, 650, 1},/* 6 */
    {"aten_linear_default", 1400, 4200, 0},    /* 7 */
    {"aten_add_tensor", 200, 800, 0},          /* 8 */
    {"aten_sub_tensor", 200, 800, 0},          /* 9 */
    {"aten_cat_default", 150, 600, 0},         /* 10 */
    {"aten_slice_copy_tensor", 100, 650, 1},   /* 11 */
    {"aten_matmul_default", 700, 2600, 0},     /* 12 */
    {"aten__softmax_default", 500, 1500, 0},   /* 13 */
    {"aten_sigmoid_default", 300, 900, 0},     /* 14 */
    {"aten_squeeze_copy_dims", 100, 650, 1},   /* 15 */
};
static const unsigned char QNN_PROLOGUE[] = {0, 1, 0, 1, 2};
/* One llama decoder layer as HTP sees it (kv cache, rope, SwiGLU). */
static const unsigned char QNN_LAYER[] = {3, 4, 5, 7, 7,  7, 5, 5,  5, 6, 6,  4,  4,  9, 4, 4,
                                          8, 10, 10, 10, 11, 12, 4, 8, 13, 12, 6, 5, 7, 8, 3,
                                          4, 7, 14, 4, 7, 4, 7, 8};
static const unsigned char QNN_EPILOGUE[] = {3, 4, 7, 15};

typedef struct {
  const char *name;
  double lo, hi; /* microseconds, as XNNPACK reports them */
} xnn_kind;

static const xnn_kind XNN_KINDS[] = {
    {"Convert (NC, F32, QD8)", 2, 6},                   /* 0 */
    {"Fully Connected (NC, QD8, F32, QC8W)", 30, 400},  /* 1 */
    {"Add (ND, F32)", 2, 10},                           /* 2 */
    {"Multiply (ND, F32)", 2, 10},                      /* 3 */
    {"Transpose (ND, X32)", 3, 20},                     /* 4 */
    {"Batch Matrix Multiply (NC, F32)", 10, 80},        /* 5 */
    {"Softmax (NC, F32)", 5, 30},                       /* 6 */
    {"Copy (NC, X32)", 1, 5},                           /* 7 */
};
static const unsigned char XNN_SEQ[] = {0, 1, 2, 0, 1, 3, 4, 5, 6, 5, 4, 7,
                                        0, 1, 2, 0, 1, 3, 0, 1, 2, 7, 0, 1};

/* QNN top-level events, in the order QnnProfiler logs them (the nodes follow Q_CYC). */
enum { Q_HVX, Q_RPC, Q_QACC, Q_YIELD, Q_VTCM, Q_PWR, Q_CYC, Q_ACCUS, Q_EXCL, Q_QEXEC, Q_N };
static const char *const QNAME[Q_N] = {
    "Number of HVX threads used (count)",
    "RPC (execute) time (us)",
    "QNN accelerator (execute) time (us)",
    "Num times yield occured (count)",
    "Time for initial VTCM acquire (us)",
    "Time for HVX + HMX power on and acquire (us)",
    "Accelerator (execute) time (cycles)",
    "Accelerator (execute) time (us)",
    "Accelerator (execute excluding wait) time (us)",
    "QNN (execute) time (us)",
};

typedef struct {
  char *ev;  /* "native_call_<op>.out" */
  uint32_t ev_len;
  uint32_t op_index; /* into program operators */
  double base_ns;
  int slow;
} kernel_t;

typedef struct {
  char *name; /* full delegate string, e.g. "aten_mul_tensor_3:OpId_57 (cycles)" */
  uint32_t len;
  double base; /* cycles (QNN) or us (XNNPACK); 0 = folded */
  int slow;
} dnode_t;

typedef struct {
  int kind;     /* INS_* */
  uint32_t idx; /* kernel index for INS_KERNEL, delegate index otherwise */
} instr_t;

typedef struct {
  instr_t *ins;
  size_t nins;
  kernel_t *kern;
  size_t nkern;
  const cpu_kind *opers[sizeof CPU_KINDS / sizeof CPU_KINDS[0]]; /* distinct operators used */
  size_t nopers;
  dnode_t *qn; /* QNN graph nodes, in execution order */
  size_t nqn;
  dnode_t *xn; /* XNNPACK partition ops */
  size_t nxn;
  const char *plan_name;
  const char *delegates[2];
  size_t ndelegates;
} program_t;

typedef struct {
  int style;
  uint64_t target;   /* bytes, 0 if --blocks */
  long long blocks;  /* Execute blocks, -1 if --size */
  uint64_t seed;
  long nodes;
  char *slow_pat;
  double slow_fac;
  const char *pte;
  const char *out;
  int quiet;
} opts_t;

typedef struct {
  const char *name, *dstr;
  uint32_t name_len, dstr_len;
  int32_t chain, instr;
  uint64_t start, end;
} ev_t;

typedef struct {
  opts_t o;
  program_t P;
  ev_t *ev;
  size_t nev, evcap;
  uint64_t *scratch; /* per-node values */
  uint64_t now;      /* host clock, ns */
  uint64_t rng;      /* stream of the block being generated */
  uint64_t events_total;
  /* slow flags for the fixed names */
  int m_opcall, m_delcall, m_mexec, m_init, m_load, m_q[Q_N];
} gen_t;

static int slow_match(const opts_t *o, const char *name) {
  return o->slow_pat && strstr(name, o->slow_pat) != NULL;
}

static void add_kernel(program_t *P, const opts_t *o, uint64_t *rng, unsigned kind) {
  const cpu_kind *k = &CPU_KINDS[kind];
  size_t oi = 0;
  while (oi < P->nopers && P->opers[oi] != k)
    oi++;
  if (oi == P->nopers)
    P->opers[P->nopers++] = k;
  kernel_t *kr = &P->kern[P->nkern];
  kr->ev = xfmt("native_call_%s.out", k->op);
  kr->ev_len = (uint32_t)strlen(kr->ev);
  kr->op_index = (uint32_t)oi;
  kr->base_ns = uni(rng, k->lo, k->hi);
  kr->slow = slow_match(o, kr->ev);
  P->ins[P->nins].kind = INS_KERNEL;
  P->ins[P->nins].idx = (uint32_t)P->nkern;
  P->nins++;
  P->nkern++;
}

/* n CPU kernels following the transformer template, starting at layer position *pos. */
static void add_cpu_run(program_t *P, const opts_t *o, uint64_t *rng, size_t n, size_t *pos) {
  for (size_t i = 0; i < n; i++) {
    add_kernel(P, o, rng, CPU_LAYER[*pos % sizeof CPU_LAYER]);
    (*pos)++;
  }
}

static void build_qnn_graph(program_t *P, const opts_t *o, uint64_t *rng, size_t total) {
  /* total node events = Input + named + 3 unnamed system ops + OpId_0 + Output */
  size_t named = total - 6;
  size_t nk = sizeof QNN_KINDS / sizeof QNN_KINDS[0];
  unsigned *count = calloc(nk, sizeof *count);
  if (!count)
    die("out of memory");
  P->qn = xmalloc(total * sizeof *P->qn);
  P->nqn = 0;
  /* positions (among the named nodes) after which an unnamed system op is inserted */
  size_t sys_at[3];
  for (int i = 0; i < 3; i++)
    sys_at[i] = named ? (size_t)(uni(rng, 0.1 + 0.3 * i, 0.35 + 0.3 * i) * (double)named) : 0;
  unsigned opid = 9;

  dnode_t *d = &P->qn[P->nqn++];
  d->name = xfmt("Input OpId_2 (cycles)");
  d->base = uni(rng, 6000, 8000);

  size_t prol = sizeof QNN_PROLOGUE, epil = sizeof QNN_EPILOGUE;
  for (size_t i = 0; i < named; i++) {
    unsigned kind;
    if (named >= prol + epil && i < prol)
      kind = QNN_PROLOGUE[i];
    else if (named >= prol + epil && i >= named - epil)
      kind = QNN_EPILOGUE[i - (named - epil)];
    else
      kind = QNN_LAYER[(i - (named >= prol + epil ? prol : 0)) % sizeof QNN_LAYER];
    const qnn_kind *k = &QNN_KINDS[kind];
    d = &P->qn[P->nqn++];
    if (count[kind])
      d->name = xfmt("%s_%u:OpId_%u (cycles)", k->fx, count[kind], opid);
    else
      d->name = xfmt("%s:OpId_%u (cycles)", k->fx, opid);
    count[kind]++;
    opid += 1 + (unsigned)(sm64(rng) % 3);
    double base = uni(rng, k->lo, k->hi);
    double fold = urand(rng);
    d->base = (k->foldable && fold < 0.35) ? 0 : base;
    for (int s = 0; s < 3; s++) {
      if (sys_at[s] == i) {
        d = &P->qn[P->nqn++];
        d->name = xfmt("OpId_%u (cycles)", opid);
        opid += 1 + (unsigned)(sm64(rng) % 3);
        d->base = uni(rng, 300, 1200);
      }
    }
  }
  d = &P->qn[P->nqn++];
  d->name = xfmt("OpId_0 (cycles)");
  d->base = 0;
  d = &P->qn[P->nqn++];
  d->name = xfmt("Output OpId_3 (cycles)");
  d->base = uni(rng, 15000, 19000);
  for (size_t i = 0; i < P->nqn; i++) {
    P->qn[i].len = (uint32_t)strlen(P->qn[i].name);
    P->qn[i].slow = slow_match(o, P->qn[i].name);
  }
  free(count);
}

static void build_xnn_partition(program_t *P, const opts_t *o, uint64_t *rng) {
  unsigned cnt[sizeof XNN_KINDS / sizeof XNN_KINDS[0]] = {0};
  P->nxn = sizeof XNN_SEQ;
  P->xn = xmalloc(P->nxn * sizeof *P->xn);
  for (size_t i = 0; i < P->nxn; i++) {
    const xnn_kind *k = &XNN_KINDS[XNN_SEQ[i]];
    dnode_t *d = &P->xn[i];
    d->name = xfmt("%s #%u", k->name, ++cnt[XNN_SEQ[i]]); /* XNNProfiler's "{name} #{count}" */
    d->len = (uint32_t)strlen(d->name);
    d->base = uni(rng, k->lo, k->hi);
    d->slow = slow_match(o, d->name);
  }
}

static void build_program(gen_t *g) {
  program_t *P = &g->P;
  const opts_t *o = &g->o;
  uint64_t rng = stream_seed(o->seed, UINT64_MAX);
  size_t pos = 0;
  memset(P, 0, sizeof *P);
  switch (o->style) {
  case STYLE_QNN:
    P->plan_name = "kv_forward";
    P->delegates[P->ndelegates++] = "QnnBackend";
    P->ins = xmalloc(sizeof *P->ins);
    P->ins[P->nins++] = (instr_t){INS_QNN, 0};
    build_qnn_graph(P, o, &rng, (size_t)o->nodes);
    break;
  case STYLE_CPU: {
    size_t n = (size_t)o->nodes;
    P->plan_name = "forward";
    P->ins = xmalloc(n * sizeof *P->ins);
    P->kern = xmalloc(n * sizeof *P->kern);
    add_kernel(P, o, &rng, 0); /* embedding */
    if (n > 1)
      add_kernel(P, o, &rng, 8); /* + positional embedding */
    if (n > 5) {
      add_cpu_run(P, o, &rng, n - 5, &pos);
      add_kernel(P, o, &rng, 1);
      add_kernel(P, o, &rng, 2);
      add_kernel(P, o, &rng, 3); /* lm head */
    } else {
      add_cpu_run(P, o, &rng, n - P->nkern, &pos);
    }
    break;
  }
  case STYLE_MIXED: {
    /* CPU prologue, QNN partition, CPU middle, XNNPACK partition, CPU epilogue */
    size_t ncpu = (size_t)o->nodes / 5;
    if (ncpu < 8)
      ncpu = 8;
    size_t pre = ncpu * 4 / 10, mid = ncpu * 3 / 10, tail = ncpu - pre - mid;
    P->plan_name = "forward";
    P->delegates[P->ndelegates++] = "QnnBackend";
    P->delegates[P->ndelegates++] = "XnnpackBackend";
    P->ins = xmalloc((ncpu + 2) * sizeof *P->ins);
    P->kern = xmalloc(ncpu * sizeof *P->kern);
    add_kernel(P, o, &rng, 0);  /* embedding */
    add_kernel(P, o, &rng, 12); /* quantize for the NPU */
    add_cpu_run(P, o, &rng, pre - 2, &pos);
    P->ins[P->nins++] = (instr_t){INS_QNN, 0};
    add_kernel(P, o, &rng, 13); /* dequantize */
    add_cpu_run(P, o, &rng, mid - 1, &pos);
    P->ins[P->nins++] = (instr_t){INS_XNN, 1};
    add_cpu_run(P, o, &rng, tail - 1, &pos);
    add_kernel(P, o, &rng, 11); /* argmax */
    build_qnn_graph(P, o, &rng, (size_t)o->nodes);
    build_xnn_partition(P, o, &rng);
    break;
  }
  }
  g->scratch = xmalloc((P->nqn + P->nxn + 1) * sizeof *g->scratch);
  g->m_opcall = slow_match(o, "OPERATOR_CALL");
  g->m_delcall = slow_match(o, "DELEGATE_CALL");
  g->m_mexec = slow_match(o, "Method::execute");
  g->m_init = slow_match(o, "Method::init");
  g->m_load = slow_match(o, "Program::load_method");
  for (int i = 0; i < Q_N; i++)
    g->m_q[i] = slow_match(o, QNAME[i]);
}

static void free_gen(gen_t *g) {
  program_t *P = &g->P;
  for (size_t i = 0; i < P->nkern; i++)
    free(P->kern[i].ev);
  for (size_t i = 0; i < P->nqn; i++)
    free(P->qn[i].name);
  for (size_t i = 0; i < P->nxn; i++)
    free(P->xn[i].name);
  free(P->kern);
  free(P->qn);
  free(P->xn);
  free(P->ins);
  free(g->ev);
  free(g->scratch);
  free(g->o.slow_pat);
}

/* ---- event generation ---------------------------------------------------------------------
 * --slow semantics: an event whose name (or delegate string) contains PATTERN, and everything
 * nested in it, runs FACTOR times longer; the enclosing events grow by the added time. All
 * random draws happen in the same order whatever --slow says, so the other events keep their
 * durations and values. */

static double fac(const gen_t *g, int match, double inherited) {
  return match ? g->o.slow_fac : inherited;
}

static ev_t *push(gen_t *g) {
  if (g->nev == g->evcap) {
    g->evcap = g->evcap ? 2 * g->evcap : 4096;
    g->ev = xrealloc(g->ev, g->evcap * sizeof *g->ev);
  }
  ev_t *e = &g->ev[g->nev++];
  memset(e, 0, sizeof *e);
  return e;
}

static void push_rt(gen_t *g, const char *name, int32_t chain, int32_t instr, uint64_t s,
                    uint64_t e) {
  ev_t *v = push(g);
  v->name = name;
  v->name_len = (uint32_t)strlen(name);
  v->chain = chain;
  v->instr = instr;
  v->start = s;
  v->end = e;
}

static void push_rtn(gen_t *g, const char *name, uint32_t len, int32_t chain, int32_t instr,
                     uint64_t s, uint64_t e) {
  ev_t *v = push(g);
  v->name = name;
  v->name_len = len;
  v->chain = chain;
  v->instr = instr;
  v->start = s;
  v->end = e;
}

static void push_dl(gen_t *g, const char *dstr, uint32_t len, int32_t instr, uint64_t s,
                    uint64_t e) {
  ev_t *v = push(g);
  v->dstr = dstr;
  v->dstr_len = len;
  v->chain = 0;
  v->instr = instr;
  v->start = s;
  v->end = e;
}

static void gen_default_block(gen_t *g) {
  uint64_t *r = &g->rng;
  double pre = uni(r, 1000, 2500), post = uni(r, 2000, 5000);
  /* Method::init includes the backends' init: a QNN context load takes milliseconds */
  double init = g->o.style == STYLE_CPU ? uni(r, 15000, 60000) : uni(r, 4.5e6, 7e6);
  double gap = uni(r, 2e5, 2e6);
  double fL = fac(g, g->m_load, 1.0), fI = fac(g, g->m_init, fL);
  uint64_t t0 = g->now;
  uint64_t is = t0 + rnd(pre * fL), ie = is + rnd(init * fI), le = ie + rnd(post * fL);
  push_rt(g, "Method::init", -1, 0, is, ie);
  push_rt(g, "Program::load_method", -1, 0, t0, le);
  g->now = le + rnd(gap);
}

/* QNN delegate events for one execute of the HTP graph; returns the DELEGATE_CALL length. */
static uint64_t gen_qnn(gen_t *g, int32_t instr, int cold, double fD) {
  const program_t *P = &g->P;
  uint64_t *r = &g->rng;
  size_t n = P->nqn;
  double cold_mul = cold ? uni(r, 1.28, 1.38) : 1.0;
  double eglob = uni(r, 0.96, 1.04);
  double ratio = uni(r, 2.3, 2.5) * uni(r, 1760, 1840); /* cycles per us of excl-wait time */
  double vtcm = cold ? uni(r, 470, 560) : uni(r, 55, 205);    /* 19.2 MHz ticks */
  double pwr = cold ? uni(r, 5600, 6300) : uni(r, 8, 14);     /* 19.2 MHz ticks */
  double w = uni(r, 6, 36);
  double x = 240 + (double)(n + Q_N) * uni(r, 0.25, 0.45) + (cold ? uni(r, 150, 250) : 0);
  double y = uni(r, 340, 700) + (cold ? uni(r, 1500, 2000) : 0);
  double z = uni(r, 60, 250) + (cold ? uni(r, 600, 800) : 0);
  double ovh_ns = uni(r, 200, 350) * (double)(n + Q_N) + uni(r, 20000, 60000);
  const int *m = g->m_q;
  double fQ = fac(g, m[Q_QEXEC], fD), fR = fac(g, m[Q_RPC], fQ), fA = fac(g, m[Q_QACC], fR);
  double fU = fac(g, m[Q_ACCUS], fA), fV = fac(g, m[Q_VTCM], fU), fP = fac(g, m[Q_PWR], fU);
  double fE = fac(g, m[Q_EXCL], fU), fC = fac(g, m[Q_CYC], fE);

  uint64_t cyc = 0;
  for (size_t i = 0; i < n; i++) {
    double j = uni(r, 0.93, 1.07);
    const dnode_t *d = &P->qn[i];
    uint64_t v = d->base > 0 ? rnd(d->base * cold_mul * eglob * j * fac(g, d->slow, fC)) : 0;
    g->scratch[i] = v;
    cyc += v;
  }
  uint64_t excl = rnd((double)cyc / ratio);
  uint64_t vt = rnd(vtcm * fV), pw = rnd(pwr * fP);
  uint64_t accus = excl + rnd((double)vt / 19.2 + (double)pw / 19.2 + w * fU);
  uint64_t qacc = accus + rnd(x * fA);
  uint64_t rpc = qacc + rnd(y * fR);
  uint64_t qexec = rpc + rnd(z * fQ);

  uint64_t v[Q_N] = {4, rpc, qacc, 0, vt, pw, cyc, accus, excl, qexec};
  for (int q = Q_HVX; q <= Q_CYC; q++)
    push_dl(g, QNAME[q], (uint32_t)strlen(QNAME[q]), instr, 0, v[q]);
  for (size_t i = 0; i < n; i++)
    push_dl(g, P->qn[i].name, P->qn[i].len, instr, 0, g->scratch[i]);
  for (int q = Q_ACCUS; q < Q_N; q++)
    push_dl(g, QNAME[q], (uint32_t)strlen(QNAME[q]), instr, 0, v[q]);
  return qexec * 1000 + rnd(ovh_ns * fD);
}

/* XNNPACK delegate events: ops back to back from the delegate start, us converted to ns. */
static uint64_t gen_xnn(gen_t *g, int32_t instr, uint64_t dstart, int cold, double fD) {
  const program_t *P = &g->P;
  uint64_t *r = &g->rng;
  double pre = uni(r, 2000, 8000), post = uni(r, 5000, 20000);
  double eglob = uni(r, 0.95, 1.05) * (cold ? uni(r, 1.3, 1.6) : 1.0);
  uint64_t t = dstart + rnd(pre * fD);
  for (size_t i = 0; i < P->nxn; i++) {
    const dnode_t *d = &P->xn[i];
    uint64_t us = rnd(d->base * eglob * uni(r, 0.9, 1.1) * fac(g, d->slow, fD));
    if (us == 0)
      us = 1;
    push_dl(g, d->name, d->len, instr, t, t + us * 1000);
    t += us * 1000;
  }
  return t + rnd(post * fD) - dstart;
}

static void gen_execute_block(gen_t *g, long long k) {
  const program_t *P = &g->P;
  uint64_t *r = &g->rng;
  int cold = k == 1;
  double fM = fac(g, g->m_mexec, 1.0);
  double fO = fac(g, g->m_opcall, fM), fD = fac(g, g->m_delcall, fM);
  double eglob = uni(r, 0.96, 1.04) * (cold ? uni(r, 1.1, 1.25) : 1.0);
  double head = uni(r, 300, 900), tail = uni(r, 200, 600);
  double gap;
  switch (g->o.style) {
  case STYLE_QNN: gap = uni(r, 1.5e5, 9e5); break; /* sampling + tokenizer between tokens */
  case STYLE_CPU: gap = uni(r, 5e3, 5e4); break;
  default: gap = uni(r, 1e5, 6e5); break;
  }
  uint64_t t0 = g->now;
  uint64_t t = t0 + rnd(head * fM);
  for (size_t i = 0; i < P->nins; i++) {
    const instr_t *in = &P->ins[i];
    int32_t id = (int32_t)i;
    double lead = uni(r, 20, 200);
    t += rnd(lead * fM);
    if (in->kind == INS_KERNEL) {
      const kernel_t *kr = &P->kern[in->idx];
      double pre = uni(r, 60, 300), post = uni(r, 50, 200), jit = uni(r, 0.9, 1.1);
      double fN = fac(g, kr->slow, fO);
      uint64_t ns = t + rnd(pre * fO);
      uint64_t ne = ns + rnd(kr->base_ns * eglob * jit * fN) + 1;
      uint64_t oe = ne + rnd(post * fO);
      push_rtn(g, kr->ev, kr->ev_len, 0, id, ns, ne);
      push_rt(g, "OPERATOR_CALL", 0, id, t, oe);
      t = oe;
    } else {
      uint64_t dur = in->kind == INS_QNN ? gen_qnn(g, id, cold, fD) : gen_xnn(g, id, t, cold, fD);
      push_rt(g, "DELEGATE_CALL", 0, id, t, t + dur);
      t += dur;
    }
  }
  uint64_t end = t + rnd(tail * fM);
  push_rt(g, "Method::execute", -1, 0, t0, end);
  g->now = end + rnd(gap);
}

/* Generate block k (0 = "Default") into g->ev. */
static const char *gen_block(gen_t *g, long long k) {
  g->nev = 0;
  g->rng = stream_seed(g->o.seed, (uint64_t)k);
  if (k == 0) {
    gen_default_block(g);
    return "Default";
  }
  gen_execute_block(g, k);
  return "Execute";
}

/* ---- encoding ---------------------------------------------------------------------------- */

/* RunData { name:0, bundled_input_index:1 (never written), allocators:2, events:3 } followed by
 * its name, the events vector, and per event: Event { profile_event:0 } then its ProfileEvent
 * { name:0, chain_index:1, instruction_id:2, delegate_debug_id_int:3, delegate_debug_id_str:4,
 * delegate_debug_metadata:5, start_time:6, end_time:7 } and that event's strings. */
static uint64_t encode_block(fbb *b, const char *name, const ev_t *ev, size_t n) {
  fbb_table_begin(b);
  fbb_add_offset(b, 0);
  if (n)
    fbb_add_offset(b, 3);
  uint64_t rd = fbb_table_end(b);
  uint64_t s_name = fbb_slot(b, 0), s_events = fbb_slot(b, 3);
  fbb_patch(b, s_name, fbb_string(b, name, strlen(name)));
  if (!n)
    return rd;
  uint64_t vec = fbb_vec_offsets(b, n);
  fbb_patch(b, s_events, vec);
  for (size_t i = 0; i < n; i++) {
    const ev_t *e = &ev[i];
    fbb_table_begin(b);
    fbb_add_offset(b, 0);
    uint64_t et = fbb_table_end(b);
    uint64_t s_pe = fbb_slot(b, 0);
    fbb_patch(b, vec + 4 + 4 * (uint64_t)i, et);

    fbb_table_begin(b);
    if (e->name)
      fbb_add_offset(b, 0);
    fbb_add_i32(b, 1, e->chain, 0);
    fbb_add_i32(b, 2, e->instr, -1);
    if (e->dstr) {
      fbb_add_offset(b, 4);
      fbb_add_offset(b, 5); /* delegate events always carry a (possibly empty) metadata vector */
    }
    fbb_add_u64(b, 6, e->start, 0);
    fbb_add_u64(b, 7, e->end, 0);
    uint64_t pe = fbb_table_end(b);
    uint64_t s_n = fbb_slot(b, 0), s_d = fbb_slot(b, 4), s_m = fbb_slot(b, 5);
    fbb_patch(b, s_pe, pe);
    if (e->name)
      fbb_patch(b, s_n, fbb_string(b, e->name, e->name_len));
    if (e->dstr) {
      fbb_patch(b, s_d, fbb_string(b, e->dstr, e->dstr_len));
      fbb_patch(b, s_m, fbb_vec_scalars(b, NULL, 1, 0, 1));
    }
  }
  return rd;
}

/* ---- the .pte ---------------------------------------------------------------------------- */

static uint64_t empty_int_vec(fbb *b) { return fbb_vec_scalars(b, NULL, 4, 0, 4); }

static void write_pte(const gen_t *g, const char *path) {
  const program_t *P = &g->P;
  fbb b;
  if (fbb_init(&b, 0, 1 << 16) != 0)
    die("out of memory");
  fbb_file_header(&b, "ET12", 0);

  /* Program { version:0, execution_plan:1, constant_buffer:2, backend_delegate_data:3, ... } */
  fbb_table_begin(&b);
  fbb_add_offset(&b, 1);
  if (P->ndelegates)
    fbb_add_offset(&b, 3);
  uint64_t root = fbb_table_end(&b);
  uint64_t s_plans = fbb_slot(&b, 1), s_bdd = fbb_slot(&b, 3);
  fbb_set_root(&b, root);
  uint64_t plans = fbb_vec_offsets(&b, 1);
  fbb_patch(&b, s_plans, plans);

  /* ExecutionPlan { name:0, container_meta_type:1, values:2, inputs:3, outputs:4, chains:5,
   *                 operators:6, delegates:7, non_const_buffer_sizes:8 } */
  fbb_table_begin(&b);
  fbb_add_offset(&b, 0);
  fbb_add_offset(&b, 2);
  fbb_add_offset(&b, 3);
  fbb_add_offset(&b, 4);
  fbb_add_offset(&b, 5);
  fbb_add_offset(&b, 6);
  if (P->ndelegates)
    fbb_add_offset(&b, 7);
  fbb_add_offset(&b, 8);
  uint64_t plan = fbb_table_end(&b);
  uint64_t sp[9];
  for (unsigned i = 0; i < 9; i++)
    sp[i] = fbb_slot(&b, i);
  fbb_patch(&b, plans + 4, plan);
  fbb_patch(&b, sp[0], fbb_string(&b, P->plan_name, strlen(P->plan_name)));
  fbb_patch(&b, sp[2], fbb_vec_offsets(&b, 0));
  fbb_patch(&b, sp[3], empty_int_vec(&b));
  fbb_patch(&b, sp[4], empty_int_vec(&b));

  /* chains: one Chain { inputs:0, outputs:1, instructions:2, stacktrace:3 } */
  uint64_t chains = fbb_vec_offsets(&b, 1);
  fbb_patch(&b, sp[5], chains);
  fbb_table_begin(&b);
  fbb_add_offset(&b, 0);
  fbb_add_offset(&b, 1);
  fbb_add_offset(&b, 2);
  uint64_t chain = fbb_table_end(&b);
  uint64_t sc0 = fbb_slot(&b, 0), sc1 = fbb_slot(&b, 1), sc2 = fbb_slot(&b, 2);
  fbb_patch(&b, chains + 4, chain);
  fbb_patch(&b, sc0, empty_int_vec(&b));
  fbb_patch(&b, sc1, empty_int_vec(&b));
  uint64_t instrs = fbb_vec_offsets(&b, P->nins);
  fbb_patch(&b, sc2, instrs);
  for (size_t i = 0; i < P->nins; i++) {
    const instr_t *in = &P->ins[i];
    /* Instruction { instr_args_type:0 (u8 union tag), instr_args:1 }; tags: 1 KernelCall,
     * 2 DelegateCall. KernelCall { op_index:0, args:1 }, DelegateCall { delegate_index:0, args:1 } */
    fbb_table_begin(&b);
    fbb_add_u8(&b, 0, in->kind == INS_KERNEL ? 1 : 2, 0);
    fbb_add_offset(&b, 1);
    uint64_t it = fbb_table_end(&b);
    uint64_t s_args = fbb_slot(&b, 1);
    fbb_patch(&b, instrs + 4 + 4 * (uint64_t)i, it);
    uint32_t index = in->kind == INS_KERNEL ? P->kern[in->idx].op_index : in->idx;
    fbb_table_begin(&b);
    fbb_add_i32(&b, 0, (int32_t)index, 0);
    fbb_add_offset(&b, 1);
    uint64_t call = fbb_table_end(&b);
    uint64_t s_a = fbb_slot(&b, 1);
    fbb_patch(&b, s_args, call);
    fbb_patch(&b, s_a, empty_int_vec(&b));
  }

  /* operators: Operator { name:0, overload:1 } */
  uint64_t ops = fbb_vec_offsets(&b, P->nopers);
  fbb_patch(&b, sp[6], ops);
  for (size_t i = 0; i < P->nopers; i++) {
    fbb_table_begin(&b);
    fbb_add_offset(&b, 0);
    fbb_add_offset(&b, 1);
    uint64_t ot = fbb_table_end(&b);
    uint64_t s0 = fbb_slot(&b, 0), s1 = fbb_slot(&b, 1);
    fbb_patch(&b, ops + 4 + 4 * (uint64_t)i, ot);
    char *nm = xfmt("%s::%s", P->opers[i]->ns, P->opers[i]->op);
    fbb_patch(&b, s0, fbb_string(&b, nm, strlen(nm)));
    fbb_patch(&b, s1, fbb_string(&b, "out", 3));
    free(nm);
  }

  /* delegates: BackendDelegate { id:0, processed:1, compile_specs:2 };
   * processed = BackendDelegateDataReference { location:0 (INLINE = 0), index:1 } */
  if (P->ndelegates) {
    uint64_t dels = fbb_vec_offsets(&b, P->ndelegates);
    fbb_patch(&b, sp[7], dels);
    for (size_t i = 0; i < P->ndelegates; i++) {
      fbb_table_begin(&b);
      fbb_add_offset(&b, 0);
      fbb_add_offset(&b, 1);
      fbb_add_offset(&b, 2);
      uint64_t dt = fbb_table_end(&b);
      uint64_t s0 = fbb_slot(&b, 0), s1 = fbb_slot(&b, 1), s2 = fbb_slot(&b, 2);
      fbb_patch(&b, dels + 4 + 4 * (uint64_t)i, dt);
      fbb_patch(&b, s0, fbb_string(&b, P->delegates[i], strlen(P->delegates[i])));
      fbb_table_begin(&b);
      fbb_add_u32(&b, 1, (uint32_t)i, 0);
      fbb_patch(&b, s1, fbb_table_end(&b));
      fbb_patch(&b, s2, fbb_vec_offsets(&b, 0));
    }
  }
  int64_t ncbs[1] = {0};
  fbb_patch(&b, sp[8], fbb_vec_scalars(&b, ncbs, 8, 1, 8));

  /* backend_delegate_data: one empty BackendDelegateInlineData { data:0 (force_align 16) } each */
  if (P->ndelegates) {
    uint64_t bdd = fbb_vec_offsets(&b, P->ndelegates);
    fbb_patch(&b, s_bdd, bdd);
    for (size_t i = 0; i < P->ndelegates; i++) {
      fbb_table_begin(&b);
      fbb_add_offset(&b, 0);
      uint64_t t = fbb_table_end(&b);
      uint64_t s0 = fbb_slot(&b, 0);
      fbb_patch(&b, bdd + 4 + 4 * (uint64_t)i, t);
      fbb_patch(&b, s0, fbb_vec_scalars(&b, NULL, 1, 0, 16));
    }
  }
  fbb_align(&b, 8, 0);
  if (b.failed)
    die_fbb(path, &b);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    die("%s: %s", path, strerror(errno));
  if (fbb_flush_fd(&b, fd) != 0)
    die_fbb(path, &b);
  if (close(fd) != 0)
    die("%s: close failed: %s", path, strerror(errno));
  fbb_free(&b);
}

/* ---- command line ------------------------------------------------------------------------ */

static void usage(FILE *f) {
  fputs("usage: etprof-gen --style qnn-llm|cpu|mixed (--size SIZE | --blocks N) [options] -o OUT.etdp\n"
        "\n"
        "Writes a large, realistic ExecuTorch ETDump (size-prefixed FlatBuffer, \"ED00\").\n"
        "\n"
        "  --style S        qnn-llm: Default + Execute blocks of one QNN HTP graph (kv_forward)\n"
        "                   cpu:     portable CPU kernels, native_call_<op>.out + OPERATOR_CALL\n"
        "                   mixed:   CPU kernels + a QNN partition + an XNNPACK partition\n"
        "  --size SIZE      add Execute blocks until the file is about SIZE bytes; suffixes\n"
        "                   k/M/G (10^3, 10^6, 10^9) and Ki/Mi/Gi; at most 2147483647\n"
        "  --blocks N       exactly N Execute blocks (plus the Default block)\n"
        "  --seed S         random seed (default 1); same seed and options = same bytes\n"
        "  --nodes N        qnn-llm, mixed: HTP node events per QNN execute (default 1500, >= 7)\n"
        "                   cpu: kernel instructions per execute (default 2000)\n"
        "                   mixed: also N/5 CPU kernels (at least 8)\n"
        "  --slow PAT:F     events whose name or delegate string contains PAT, and everything\n"
        "                   nested in them, take F times longer; their parents grow to match\n"
        "  --pte OUT.pte    also write a minimal matching program (.pte, \"ET12\")\n"
        "  -o OUT.etdp      output file (required)\n"
        "  -q, --quiet      do not print the statistics line\n"
        "\n"
        "Prints \"events=N blocks=M bytes=B\" on stderr.\n",
        f);
}

static int parse_size(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || v <= 0)
    return -1;
  double mul = 1;
  if (*end == 'k' || *end == 'K')
    mul = 1e3;
  else if (*end == 'M' || *end == 'm')
    mul = 1e6;
  else if (*end == 'G' || *end == 'g')
    mul = 1e9;
  if (mul != 1) {
    end++;
    if (*end == 'i') {
      mul = mul == 1e3 ? 1024.0 : mul == 1e6 ? 1048576.0 : 1073741824.0;
      end++;
    }
  }
  if (*end == 'B')
    end++;
  if (*end)
    return -1;
  v *= mul;
  if (v > (double)FLATBUFFER_MAX)
    return -2;
  *out = (uint64_t)v;
  return 0;
}

static const char *need(int argc, char **argv, int *i) {
  if (*i + 1 >= argc)
    die("%s needs a value (see --help)", argv[*i]);
  return argv[++*i];
}

static void parse_args(opts_t *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->style = -1;
  o->blocks = -1;
  o->seed = 1;
  o->nodes = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--style")) {
      const char *v = need(argc, argv, &i);
      if (!strcmp(v, "qnn-llm") || !strcmp(v, "qnn"))
        o->style = STYLE_QNN;
      else if (!strcmp(v, "cpu"))
        o->style = STYLE_CPU;
      else if (!strcmp(v, "mixed"))
        o->style = STYLE_MIXED;
      else
        die("unknown style '%s' (qnn-llm, cpu or mixed)", v);
    } else if (!strcmp(a, "--size")) {
      const char *v = need(argc, argv, &i);
      int rc = parse_size(v, &o->target);
      if (rc == -2)
        die("--size %s: a FlatBuffer must stay below 2 GiB (at most 2147483647 bytes)", v);
      if (rc)
        die("--size %s: expected a number with an optional k/M/G or Ki/Mi/Gi suffix", v);
    } else if (!strcmp(a, "--blocks")) {
      const char *v = need(argc, argv, &i);
      char *end;
      o->blocks = strtoll(v, &end, 10);
      if (*end || o->blocks < 1)
        die("--blocks %s: expected a positive integer", v);
    } else if (!strcmp(a, "--seed")) {
      const char *v = need(argc, argv, &i);
      char *end;
      o->seed = strtoull(v, &end, 0);
      if (*end || !*v)
        die("--seed %s: expected an integer", v);
    } else if (!strcmp(a, "--nodes")) {
      const char *v = need(argc, argv, &i);
      char *end;
      o->nodes = strtol(v, &end, 10);
      if (*end || o->nodes < 1 || o->nodes > 10000000)
        die("--nodes %s: expected an integer between 1 and 10000000", v);
    } else if (!strcmp(a, "--slow")) {
      const char *v = need(argc, argv, &i);
      const char *colon = strrchr(v, ':');
      char *end;
      if (!colon || colon == v)
        die("--slow %s: expected PATTERN:FACTOR", v);
      o->slow_fac = strtod(colon + 1, &end);
      if (*end || !(o->slow_fac > 0) || o->slow_fac > 1e6)
        die("--slow %s: FACTOR must be a positive number", v);
      size_t n = (size_t)(colon - v);
      char *pat = xmalloc(n + 1);
      memcpy(pat, v, n);
      pat[n] = 0;
      o->slow_pat = pat;
    } else if (!strcmp(a, "--pte")) {
      o->pte = need(argc, argv, &i);
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      o->out = need(argc, argv, &i);
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      o->quiet = 1;
    } else {
      fprintf(stderr, "etprof-gen: unknown argument '%s'\n\n", a);
      usage(stderr);
      exit(2);
    }
  }
  if (o->style < 0 || !o->out || (o->blocks < 0 && !o->target)) {
    usage(stderr);
    exit(2);
  }
  if (o->blocks > 0 && o->target)
    die("give either --size or --blocks, not both");
  if (o->nodes < 0)
    o->nodes = o->style == STYLE_CPU ? 2000 : 1500;
  if (o->style != STYLE_CPU && o->nodes < 7)
    die("--nodes must be at least 7 for %s (Input, Output, OpId_0, 3 system ops, 1 named op)",
        o->style == STYLE_QNN ? "qnn-llm" : "mixed");
}

/* ---- main -------------------------------------------------------------------------------- */

/* Size in bytes of a typical (warm) Execute block, from a throwaway build of blocks 0..2. */
static uint64_t estimate_block_size(gen_t *g) {
  fbb t;
  uint64_t saved = g->now;
  if (fbb_init(&t, 0, 1 << 20) != 0)
    die("out of memory");
  uint64_t before = 0;
  for (long long k = 0; k <= 2; k++) {
    before = fbb_pos(&t);
    const char *name = gen_block(g, k);
    encode_block(&t, name, g->ev, g->nev);
    fbb_align(&t, 8, 0);
  }
  uint64_t s = fbb_pos(&t) - before;
  if (t.failed)
    die_fbb("size estimate", &t);
  fbb_free(&t);
  g->now = saved;
  return s;
}

int main(int argc, char **argv) {
  gen_t g;
  memset(&g, 0, sizeof g);
  parse_args(&g.o, argc, argv);
  build_program(&g);
  {
    uint64_t r = stream_seed(g.o.seed, UINT64_MAX - 1);
    g.now = rnd(uni(&r, 5e6, 9e6)); /* PAL ns since init when load_method starts */
  }

  /* Number of run_data slots to reserve in the file head. */
  uint64_t nmax;
  if (g.o.blocks > 0) {
    nmax = (uint64_t)g.o.blocks + 1;
  } else {
    uint64_t s = estimate_block_size(&g);
    nmax = (uint64_t)((double)g.o.target / (0.9 * (double)s)) + 16;
  }
  if (nmax > FLATBUFFER_MAX / 8)
    die("too many blocks");

  /* Head: [size][root uoffset]["ED00"] root vtable, root table, run_data vector (nmax slots;
   * the count is set to the real number of blocks at the end, unused slots stay zero). */
  fbb head, body;
  if (fbb_init(&head, 0, 64 + 4 * nmax) != 0)
    die("out of memory");
  fbb_file_header(&head, "ED00", 1);
  fbb_table_begin(&head);
  fbb_add_offset(&head, 1); /* ETDump { version:0 (0, omitted), run_data:1 } */
  uint64_t root = fbb_table_end(&head);
  uint64_t s_rd = fbb_slot(&head, 1);
  fbb_set_root(&head, root);
  uint64_t vec = fbb_vec_offsets(&head, nmax);
  fbb_patch(&head, s_rd, vec);
  fbb_align(&head, 8, 0);
  uint64_t hsize = fbb_pos(&head);

  if (fbb_init(&body, hsize, FLUSH_BYTES + (1u << 20)) != 0)
    die("out of memory");
  int fd = open(g.o.out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    die("%s: %s", g.o.out, strerror(errno));
  if (lseek(fd, (off_t)hsize, SEEK_SET) < 0)
    die("%s: seek: %s", g.o.out, strerror(errno));

  uint64_t nblocks = 0, last = 0;
  for (long long k = 0;; k++) {
    if (g.o.blocks > 0 && k > g.o.blocks)
      break;
    if (g.o.blocks < 0 && k >= 2 && fbb_pos(&body) + last / 2 >= g.o.target)
      break;
    if ((uint64_t)k >= nmax)
      break;
    uint64_t before = fbb_pos(&body);
    const char *name = gen_block(&g, k);
    uint64_t rd = encode_block(&body, name, g.ev, g.nev);
    fbb_align(&body, 8, 0);
    fbb_patch(&head, vec + 4 + 4 * (uint64_t)k, rd);
    last = fbb_pos(&body) - before;
    g.events_total += g.nev;
    nblocks++;
    if (fbb_pos(&body) > FLATBUFFER_MAX)
      die("output would exceed the 2 GiB FlatBuffer limit after %llu blocks; use fewer blocks",
          (unsigned long long)nblocks);
    if (body.len >= FLUSH_BYTES)
      fbb_flush_fd(&body, fd);
    if (body.failed)
      die_fbb(g.o.out, &body);
    if (head.failed)
      die_fbb("file head", &head);
  }
  if (fbb_flush_fd(&body, fd) != 0)
    die_fbb(g.o.out, &body);
  uint64_t total = body.base;
  fbb_put_u32_at(&head, vec, (uint32_t)nblocks);
  fbb_set_size(&head, total);
  if (head.failed)
    die_fbb("file head", &head);
  size_t done = 0;
  while (done < head.len) {
    ssize_t w = pwrite(fd, head.buf + done, head.len - done, (off_t)done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      die("%s: write failed: %s", g.o.out, strerror(errno));
    done += (size_t)w;
  }
  if (close(fd) != 0)
    die("%s: close failed: %s", g.o.out, strerror(errno));
  if (g.o.pte)
    write_pte(&g, g.o.pte);
  if (!g.o.quiet)
    fprintf(stderr, "events=%llu blocks=%llu bytes=%llu\n", (unsigned long long)g.events_total,
            (unsigned long long)nblocks, (unsigned long long)total);
  fbb_free(&head);
  fbb_free(&body);
  free_gen(&g);
  return 0;
}
