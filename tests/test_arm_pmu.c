/* test_arm_pmu.c - the Arm runner's Ethos-U PMU report (etprof_arm_pmu.h).
 *
 * The logs are written here line by line in the forms the runner's performance monitor prints
 * (docs/backends.md "Arm Ethos-U: the runner's PMU report": the newer lines with "(x per
 * inference)", the older ones without, the Ethos-U85 event list, a uint32 total printed with %d),
 * behind the ET_LOG prefixes of the Arm runner and of the POSIX PAL. Every expected value is the
 * number written into the log, or a division of two of them done by hand here. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "etprof.h"
#include "etprof_arm_pmu.h"

#define P "I [executorch:arm_perf_monitor.cpp:190 StopMeasurements()] "

/* A U55 report of the newer runners: 10 inferences. */
static const char NEW_U55[] =
    "I [executorch:arm_executor_runner.cpp:612 main()] Model executed successfully.\n"
    P "NPU Inferences : 10\n"
    P "NPU delegations: 20 (2.00 per inference)\n"
    P "Profiler report, CPU cycles per operator:\n"
    P "ethos-u : cycle_cnt : 1800000 cycles (180000.00 per inference)\n"
    P "Operator(s) total: 1800000 CPU cycles (180000.00 per inference)\n"
    P "Inference runtime: 2000000 CPU cycles total (200000.00 per inference)\n"
    P "NOTE: CPU cycle values and ratio calculations require FPGA and identical CPU/NPU frequency\n"
    P "Inference CPU ratio: 25.00 %\n"
    P "Inference NPU ratio: 75.00 %\n"
    P "cpu_wait_for_npu_cntr : 1500000 CPU cycles (150000.00 per inference)\n"
    P "Ethos-U PMU report:\n"
    P "ethosu_pmu_cycle_cntr :  1234560 (123456.00 per inference)\n"
    P "ethosu_pmu_cntr0 : 4000 (400.00 per inference)\n"
    P "ethosu_pmu_cntr1 : 2500 (250.00 per inference)\n"
    P "ethosu_pmu_cntr2 : 1000 (100.00 per inference)\n"
    P "ethosu_pmu_cntr3 : 30000 (3000.00 per inference)\n"
    P "Ethos-U PMU Events:[ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED, "
    "ETHOSU_PMU_AXI1_RD_DATA_BEAT_RECEIVED, ETHOSU_PMU_AXI0_WR_DATA_BEAT_WRITTEN, "
    "ETHOSU_PMU_NPU_IDLE]\n"
    "#[RUN THIS]\n"
    "# Writing etdump.bin [base64]\n";

static void new_u55(void) {
    etp_arm_pmu_report r;
    etp_arm_pmu_parse(NEW_U55, sizeof NEW_U55 - 1, 0, &r);
    CHECK(r.present);
    CHECK_EQ_U(r.reports, 1);
    CHECK_EQ_U(r.line, 2);
    CHECK_EQ_U(r.inferences, 10);
    CHECK(r.has_delegations && r.delegations == 20);
    CHECK(r.has_backend && r.backend_cycles == 1800000);
    CHECK(r.has_runtime && r.runtime_cycles == 2000000 && !r.runtime_wrapped);
    CHECK(r.has_wait && r.wait_cycles == 1500000);
    CHECK(r.has_npu_cycles && r.npu_cycles == 1234560);
    CHECK_EQ_U(r.n_counters, 4);
    CHECK(r.events_named);
    CHECK_EQ_S(r.counters[0].event, "AXI0_RD_DATA_BEAT_RECEIVED");
    CHECK_EQ_S(r.counters[3].event, "NPU_IDLE");
    CHECK_EQ_U(r.counters[0].total, 4000);
    CHECK_EQ_U(r.counters[3].total, 30000);
    CHECK(r.counters[0].unit == ETP_APU_BEATS && r.counters[2].unit == ETP_APU_BEATS);
    CHECK(r.counters[3].unit == ETP_APU_NPU_CYCLES);
    CHECK(r.npu && strcmp(r.npu, "Ethos-U55 or U65") == 0);
    CHECK_EQ_U(r.bad_lines, 0);
    /* by hand: 1234560 / 10; 100 * 1500000 / 2000000 */
    CHECK_NEAR(etp_arm_pmu_per_inference(&r, r.npu_cycles), 123456.0, 1e-9);
    CHECK_NEAR(etp_arm_pmu_npu_share(&r), 75.0, 1e-12);
    /* a report after the line given is not read */
    etp_arm_pmu_report cut;
    etp_arm_pmu_parse(NEW_U55, sizeof NEW_U55 - 1, 2, &cut);
    CHECK(!cut.present);
    etp_arm_pmu_parse(NEW_U55, sizeof NEW_U55 - 1, 3, &cut);
    CHECK(cut.present && cut.inferences == 10 && !cut.has_delegations && !cut.has_npu_cycles);
}

/* The older runners: no delegations, no "(per inference)", %d for the totals; the POSIX PAL's
 * prefix and CR LF line ends. */
static void old_posix_crlf(void) {
    static const char log[] =
        "I 00:00:02.000100 executorch:arm_perf_monitor.cpp:150] NPU Inferences : 3\r\n"
        "I 00:00:02.000110 executorch:arm_perf_monitor.cpp:155] ethos-u : cycle_cnt : 9000 "
        "cycles\r\n"
        "I 00:00:02.000120 executorch:arm_perf_monitor.cpp:160] Inference runtime: 12000 CPU "
        "cycles total\r\n"
        "I 00:00:02.000130 executorch:arm_perf_monitor.cpp:170] cpu_wait_for_npu_cntr : 6000 CPU "
        "cycles\r\n"
        "I 00:00:02.000140 executorch:arm_perf_monitor.cpp:175] ethosu_pmu_cycle_cntr : 4500\r\n"
        "I 00:00:02.000150 executorch:arm_perf_monitor.cpp:178] ethosu_pmu_cntr0 : 77\r\n";
    etp_arm_pmu_report r;
    etp_arm_pmu_parse(log, sizeof log - 1, 0, &r);
    CHECK(r.present && r.inferences == 3 && r.line == 1);
    CHECK(!r.has_delegations);
    CHECK(r.backend_cycles == 9000 && r.runtime_cycles == 12000 && r.wait_cycles == 6000);
    CHECK(r.npu_cycles == 4500);
    CHECK_EQ_U(r.n_counters, 1);
    CHECK_EQ_U(r.counters[0].total, 77);
    CHECK(!r.events_named && r.counters[0].event[0] == 0 && r.counters[0].unit == ETP_APU_COUNT);
    CHECK(r.npu == NULL);
    CHECK_NEAR(etp_arm_pmu_npu_share(&r), 50.0, 1e-12); /* 100 * 6000 / 12000 */
    CHECK_NEAR(etp_arm_pmu_per_inference(&r, 4500), 1500.0, 1e-12);
}

/* Ethos-U85: seven counters, SRAM/EXT beats and *_ACTIVE cycles. */
static void u85(void) {
    static const char log[] =
        P "NPU Inferences : 1\n"
        P "ethosu_pmu_cntr0 : 10 (10.00 per inference)\n"
        P "ethosu_pmu_cntr1 : 11 (11.00 per inference)\n"
        P "ethosu_pmu_cntr2 : 12 (12.00 per inference)\n"
        P "ethosu_pmu_cntr3 : 13 (13.00 per inference)\n"
        P "ethosu_pmu_cntr4 : 14 (14.00 per inference)\n"
        P "ethosu_pmu_cntr5 : 15 (15.00 per inference)\n"
        P "ethosu_pmu_cntr6 : 16 (16.00 per inference)\n"
        P "Ethos-U PMU Events:[ETHOSU_PMU_SRAM_RD_DATA_BEAT_RECEIVED, "
        "ETHOSU_PMU_SRAM_WR_DATA_BEAT_WRITTEN, ETHOSU_PMU_EXT_RD_DATA_BEAT_RECEIVED, "
        "ETHOSU_PMU_EXT_WR_DATA_BEAT_WRITTEN, ETHOSU_PMU_NPU_IDLE, ETHOSU_PMU_MAC_ACTIVE, "
        "ETHOSU_PMU_WD_ACTIVE]\n";
    etp_arm_pmu_report r;
    etp_arm_pmu_parse(log, sizeof log - 1, 0, &r);
    CHECK(r.present && r.n_counters == 7);
    CHECK(r.npu && strcmp(r.npu, "Ethos-U85") == 0);
    CHECK_EQ_S(r.counters[3].event, "EXT_WR_DATA_BEAT_WRITTEN");
    CHECK_EQ_S(r.counters[5].event, "MAC_ACTIVE");
    CHECK(r.counters[3].unit == ETP_APU_BEATS);
    CHECK(r.counters[4].unit == ETP_APU_NPU_CYCLES && r.counters[5].unit == ETP_APU_NPU_CYCLES &&
          r.counters[6].unit == ETP_APU_NPU_CYCLES);
    CHECK_EQ_U(r.counters[6].total, 16);
    CHECK(isnan(etp_arm_pmu_npu_share(&r))); /* no runtime, no wait */
}

/* A uint32 total printed with %d; a runtime of 0 ("?.??" ratios); several reports. */
static void wrapped_zero_several(void) {
    static const char neg[] = P "NPU Inferences : 2\n"
                              P "Inference runtime: -294967296 CPU cycles total\n";
    etp_arm_pmu_report r;
    etp_arm_pmu_parse(neg, sizeof neg - 1, 0, &r);
    CHECK(r.has_runtime && r.runtime_wrapped);
    CHECK_EQ_U(r.runtime_cycles, 4000000000u); /* 2^32 - 294967296 */
    static const char zero[] = P "NPU Inferences : 2\n"
                               P "Inference runtime: 0 CPU cycles total (0.00 per inference)\n"
                               P "Inference CPU ratio: ?.?? %\n"
                               P "cpu_wait_for_npu_cntr : 0 CPU cycles (0.00 per inference)\n";
    etp_arm_pmu_parse(zero, sizeof zero - 1, 0, &r);
    CHECK(r.has_runtime && r.runtime_cycles == 0 && r.has_wait);
    CHECK(isnan(etp_arm_pmu_npu_share(&r)));
    CHECK_EQ_U(r.bad_lines, 0);
    static const char two[] = P "NPU Inferences : 5\n"
                              P "ethosu_pmu_cycle_cntr : 50\n"
                              "some other output\n"
                              P "NPU Inferences : 7\n"
                              P "ethosu_pmu_cntr1 : 70\n";
    etp_arm_pmu_parse(two, sizeof two - 1, 0, &r);
    CHECK(r.present && r.reports == 2 && r.line == 4 && r.inferences == 7);
    CHECK(!r.has_npu_cycles); /* the first report's line is not the second's */
    CHECK(r.n_counters == 2 && r.counters[1].total == 70 && r.counters[0].total == 0);
    etp_arm_pmu_parse(two, sizeof two - 1, 4, &r); /* up to the line before the second */
    CHECK(r.present && r.reports == 1 && r.line == 1 && r.inferences == 5 && r.npu_cycles == 50);
}

/* Lines with a key but no number, out of range, or before any report. */
static void malformed(void) {
    static const char log[] =
        P "ethosu_pmu_cycle_cntr : 99\n" /* before the report: not read */
        P "NPU Inferences : 4\n"
        P "ethosu_pmu_cntr1 : abc\n"
        P "ethosu_pmu_cntr2 : 99999999999999999999999\n"
        P "ethosu_pmu_cntr9 : 5\n"
        P "Inference runtime: -5000000000 CPU cycles total\n"
        P "ethosu_pmu_cntr0 : 12x\n"
        P "ethosu_pmu_cycle_cntr : 8\n";
    etp_arm_pmu_report r;
    etp_arm_pmu_parse(log, sizeof log - 1, 0, &r);
    CHECK(r.present && r.inferences == 4 && r.line == 2);
    CHECK_EQ_U(r.bad_lines, 5);
    CHECK_EQ_U(r.first_bad_line, 3);
    CHECK(!r.has_runtime);
    CHECK_EQ_U(r.n_counters, 0);
    CHECK(r.has_npu_cycles && r.npu_cycles == 8);
    /* nothing: no report, an empty text, NULL */
    etp_arm_pmu_parse("hello\nworld\n", 12, 0, &r);
    CHECK(!r.present);
    etp_arm_pmu_parse("", 0, 0, &r);
    CHECK(!r.present);
    etp_arm_pmu_parse(NULL, 5, 0, &r);
    CHECK(!r.present);
    /* a line without a newline at the end of the text, and a NUL byte inside the text */
    static const char tail[] = P "NPU Inferences : 6";
    etp_arm_pmu_parse(tail, sizeof tail - 1, 0, &r);
    CHECK(r.present && r.inferences == 6);
    static const char nul[] = P "NPU Inferences : 6\n" P "ethosu_pmu_cntr0 : 1\0" "2\n";
    etp_arm_pmu_parse(nul, sizeof nul - 1, 0, &r);
    CHECK(r.present && r.bad_lines == 1 && r.n_counters == 0);
}

/* The notes a reader needs: each one only when its case is there. */
typedef struct notes {
    int n;
    char all[4096];
} notes;
static void emit(void *ctx, const char *text) {
    notes *s = ctx;
    s->n++;
    strncat(s->all, text, sizeof s->all - strlen(s->all) - 2);
    strcat(s->all, "|");
}

static void notes_cases(void) {
    etp_arm_pmu_report r;
    etp_arm_pmu_parse(NEW_U55, sizeof NEW_U55 - 1, 0, &r);
    notes s = {0};
    etp_arm_pmu_notes(&r, 10, emit, &s);
    CHECK(strstr(s.all, "Corstone FVP") != NULL); /* the clock caveat */
    CHECK(strstr(s.all, "data beats") != NULL);
    CHECK(strstr(s.all, "inference(s) but the ETDump") == NULL); /* 10 runs = 10 inferences */
    CHECK_EQ_I(s.n, 2);
    notes t = {0};
    etp_arm_pmu_notes(&r, 9, emit, &t);
    CHECK(strstr(t.all, "counts 10 inference(s) but the ETDump holds 9 run(s)") != NULL);
    notes u = {0};
    etp_arm_pmu_notes(&r, 0, emit, &u); /* not compared */
    CHECK_EQ_I(u.n, 2);
    memset(&r, 0, sizeof r);
    notes v = {0};
    etp_arm_pmu_notes(&r, 3, emit, &v);
    CHECK_EQ_I(v.n, 0);
}

/* Two reports compared: matched by log line and name, per inference on each side, the change
 * computed by hand. */
static void compare_cases(void) {
    static const char a[] = P "NPU Inferences : 2\n"
                            P "ethosu_pmu_cycle_cntr : 1000\n"
                            P "ethosu_pmu_cntr0 : 400\n"
                            P "ethosu_pmu_cntr1 : 10\n"
                            P "Ethos-U PMU Events:[ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED, ETHOSU_PMU_NPU_IDLE]\n";
    static const char b[] = P "NPU Inferences : 4\n"
                            P "ethosu_pmu_cycle_cntr : 2200\n"
                            P "ethosu_pmu_cntr0 : 600\n"
                            P "ethosu_pmu_cntr1 : 8\n"
                            P "Inference runtime: 100 CPU cycles total\n"
                            P "Ethos-U PMU Events:[ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED, ETHOSU_PMU_MAC_ACTIVE]\n";
    etp_arm_pmu_report ra, rb;
    etp_arm_pmu_parse(a, sizeof a - 1, 0, &ra);
    etp_arm_pmu_parse(b, sizeof b - 1, 0, &rb);
    etp_arm_pmu_change ch[ETP_ARM_PMU_MAX_CHANGES];
    size_t n = etp_arm_pmu_compare(&ra, &rb, ch, ETP_ARM_PMU_MAX_CHANGES);
    /* cycle counter, cntr0 (same event), cntr1 NPU_IDLE (base only), then cntr1 MAC_ACTIVE and
     * the runtime (new only) */
    CHECK_EQ_U(n, 5);
    CHECK_EQ_S(ch[0].source, "ethosu_pmu_cycle_cntr");
    CHECK_NEAR(ch[0].base_per_inference, 500.0, 1e-12);  /* 1000 / 2 */
    CHECK_NEAR(ch[0].new_per_inference, 550.0, 1e-12);   /* 2200 / 4 */
    CHECK_NEAR(ch[0].change_percent, 10.0, 1e-9);        /* 100 * 50 / 500 */
    CHECK_EQ_S(ch[1].name, "AXI0_RD_DATA_BEAT_RECEIVED");
    CHECK_NEAR(ch[1].change_percent, -25.0, 1e-9);       /* 200 -> 150 */
    CHECK_EQ_S(ch[2].name, "NPU_IDLE");
    CHECK(!isnan(ch[2].base_per_inference) && isnan(ch[2].new_per_inference) &&
          isnan(ch[2].change_percent));
    CHECK_EQ_S(ch[3].name, "MAC_ACTIVE");
    CHECK(isnan(ch[3].base_per_inference) && ch[3].new_per_inference == 2.0);
    CHECK_EQ_S(ch[4].source, "Inference runtime");
    /* one side missing: every figure of the other, its side NaN */
    n = etp_arm_pmu_compare(NULL, &rb, ch, ETP_ARM_PMU_MAX_CHANGES);
    CHECK_EQ_U(n, 4);
    CHECK(isnan(ch[0].base_per_inference) && ch[0].new_per_inference == 550.0);
    CHECK_EQ_U(etp_arm_pmu_compare(NULL, NULL, ch, ETP_ARM_PMU_MAX_CHANGES), 0);
    /* a base of 0: no change computed */
    static const char z[] = P "NPU Inferences : 1\n" P "ethosu_pmu_cycle_cntr : 0\n";
    etp_arm_pmu_report rz;
    etp_arm_pmu_parse(z, sizeof z - 1, 0, &rz);
    n = etp_arm_pmu_compare(&rz, &ra, ch, ETP_ARM_PMU_MAX_CHANGES);
    CHECK(n >= 1 && ch[0].base_per_inference == 0 && isnan(ch[0].change_percent));
    /* the notes: said once when both sides say it, prefixed when one side does */
    notes s = {0};
    etp_arm_pmu_diff_notes(&ra, &rb, emit, &s);
    CHECK(strstr(s.all, "no verdict") != NULL);
    CHECK(strstr(s.all, "|The memory traffic") != NULL); /* both: no prefix */
    CHECK(strstr(s.all, "NEW: The PMU report's CPU cycles") != NULL); /* only NEW has a runtime */
    notes t = {0};
    etp_arm_pmu_diff_notes(NULL, &rb, emit, &t);
    CHECK(strstr(t.all, "Only NEW was read") != NULL);
}

/* The VGF backend's device-time lines (its ET_LOG text), numbers chosen here. */
static void vgf_cases(void) {
    static const char log[] =
        "I 00:00:00.001000 executorch:VGFSetup.cpp:700] VGF timestamp queries enabled: "
        "queue_family=2 valid_bits=36 period_ns=52.083333\r\n"
        "I 00:00:00.002000 executorch:VGFSetup.cpp:790] VGF_DATA_GRAPH_DEVICE_TIME ticks=10 "
        "duration_ns=520.833 duration_ms=0.000521\r\n"
        "unrelated line VGF_DATA_GRAPH_DEVICE_TIME ticks=1 duration_ns=1.0\n" /* not a message */
        "I [executorch:VGFSetup.cpp:790 read_timestamp_queries()] VGF_DATA_GRAPH_DEVICE_TIME "
        "ticks=20 duration_ns=1041.667 duration_ms=0.001042\n"
        "VGF_DATA_GRAPH_DEVICE_TIME ticks=x duration_ns=5\n"
        "VGF_DATA_GRAPH_DEVICE_TIME ticks=3 duration_ns=156\n";
    etp_vgf_device_times t;
    CHECK_EQ_I(etp_vgf_device_times_parse(log, sizeof log - 1, &t), ETP_OK);
    CHECK_EQ_U(t.n, 3);
    CHECK_EQ_U(t.first_line, 2);
    CHECK(t.has_period && t.valid_bits == 36 && !t.fallback_period);
    CHECK_NEAR(t.period_ns, 52.083333, 1e-9);
    CHECK(t.n == 3 && t.ticks[0] == 10 && t.ticks[1] == 20 && t.ticks[2] == 3);
    CHECK(t.n == 3 && fabs(t.duration_ns[0] - 520.833) < 1e-9 &&
          fabs(t.duration_ns[1] - 1041.667) < 1e-9 && t.duration_ns[2] == 156.0);
    CHECK_EQ_U(t.bad_lines, 1);
    CHECK_EQ_U(t.first_bad_line, 5);
    etp_vgf_device_times_free(&t);
    CHECK(t.n == 0 && t.duration_ns == NULL);
    static const char fb[] = "I [executorch:VGFSetup.cpp:680 f()] VGF timestampPeriod is 0.000000; "
                             "using fallback 52.0 ns/tick\n";
    CHECK_EQ_I(etp_vgf_device_times_parse(fb, sizeof fb - 1, &t), ETP_OK);
    CHECK(t.fallback_period && t.n == 0);
    etp_vgf_device_times_free(&t);
    CHECK_EQ_I(etp_vgf_device_times_parse(NULL, 3, &t), ETP_OK);
    CHECK(t.n == 0);
    /* many lines: the arrays grow */
    static char big[200 * 64];
    size_t k = 0;
    for (int i = 0; i < 200; i++)
        k += (size_t)snprintf(big + k, sizeof big - k,
                              "VGF_DATA_GRAPH_DEVICE_TIME ticks=%d duration_ns=%d.5\n", i, i);
    CHECK_EQ_I(etp_vgf_device_times_parse(big, k, &t), ETP_OK);
    CHECK(t.n == 200 && t.duration_ns[199] == 199.5 && t.ticks[150] == 150);
    etp_vgf_device_times_free(&t);
}

int main(void) {
    compare_cases();
    vgf_cases();
    new_u55();
    old_posix_crlf();
    u85();
    wrapped_zero_several();
    malformed();
    notes_cases();
    CHECK(strcmp(etp_arm_pmu_unit_name(ETP_APU_BEATS), "beats") == 0);
    CHECK(etp_dump_arm_pmu(NULL) == NULL);
    return check_done();
}
