/* fuzz_b64log.c - fuzz target for ETDumps in a serial log or a base64 file (src/read/b64log.c).
 *
 * The input is read twice: by the decoder itself, whose rejection must be a located ETP_E_INPUT
 * (fuzz_common.h) and whose output fits the size it promises; then as a dump by etp_dump_open(),
 * which takes a log in place of an ETDump: a rejection must name the log (alone, or with the
 * dump's place in it) with an offset inside the log, and an accepted dump goes through the
 * analyses and writers. The runner's PMU report is read from the same bytes (etprof_arm_pmu.h):
 * never more counters than kept, a report's line inside the text, every view of it built. An
 * accepted dump is also checked against a fixed program (add.pte, what `summary LOG --pte P`
 * does after its warning that the log's times are ticks): a rejection must name the log, on one
 * line (issue 35.7). */
#include "fuzz_common.h"

#include <math.h>
#include "b64log.h"
#include "etprof_arm_pmu.h"

static void pmu_check(const etp_arm_pmu_report *r, size_t size) {
    if (!r->present) {
        FZ_ASSERT(r->reports == 0 && r->n_counters == 0, "no report, yet counts");
        return;
    }
    FZ_ASSERT(r->line >= 1 && r->line <= (uint64_t)size + 1, "report line %llu",
              (unsigned long long)r->line);
    FZ_ASSERT(r->reports >= 1 && r->n_counters <= ETP_ARM_PMU_COUNTERS, "report counts");
    for (uint32_t k = 0; k < r->n_counters; k++)
        FZ_ASSERT(strlen(r->counters[k].event) < sizeof r->counters[k].event, "event name");
    etp_doc *doc = etp_doc_new("summary", 1, NULL, NULL);
    if (doc) {
        etp_fig_arm_pmu(etp_doc_root(doc), "arm_pmu", r, 3);
        (void)etp_fig_arm_pmu_table(doc, etp_doc_section(doc, "s"), r);
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            (void)etp_doc_render(doc, ETP_FMT_JSON, f, NULL);
            (void)etp_doc_render(doc, ETP_FMT_TABLE, f, NULL);
            fclose(f);
        }
        etp_doc_free(doc);
    }
}

static void program_check(const etp_dump *d, size_t size) {
    static etp_blob pb;
    static etp_program *prog;
    etp_error err = {0};
    if (!prog) {
        etp_blob_borrow(&pb, etprof_fuzz_program_data[0], etprof_fuzz_program_size[0],
                        etprof_fuzz_program_name[0]);
        if (etp_program_open(&prog, &pb, &err))
            fz_die("the built-in program %s does not open: %s", etprof_fuzz_program_name[0],
                   err.msg);
    }
    etp_model_opts o;
    etp_model_opts_init(&o);
    o.dump_name = "fuzz.log";
    o.tick_ns = etp_dump_default_tick_ns(d, NULL);
    etp_model *m = NULL;
    int rc = etp_model_open(&m, d, prog, &o, &err);
    FZ_ASSERT(rc == ETP_OK, "etp_model_open with a program failed: %s", err.msg);
    const etp_dump_info *di = etp_dump_get_info(d);
    for (uint32_t b = 0; b < di->block_count; b++) {
        etp_block_view v;
        rc = etp_model_block(m, b, &v, &err);
        if (rc == ETP_OK) continue;
        char line[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 64];
        etp_error_format(&err, line, sizeof line);
        FZ_ASSERT(rc == ETP_E_INPUT && err.code == rc, "program check returned %d: %s", rc, line);
        FZ_ASSERT(strcmp(err.file, "fuzz.log") == 0, "program check error names \"%s\", not the "
                  "log: %s", err.file, line);
        FZ_ASSERT(err.offset >= -1 && err.offset <= (int64_t)size, "offset outside the log: %s",
                  line);
        FZ_ASSERT(strpbrk(line, "\r\n") == NULL, "error message is not one line: %s", line);
        break;
    }
    etp_model_close(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *out = NULL;
    size_t n = 0;
    etp_b64log_info info;
    etp_error err = {0};
    int rc = etp__b64log_decode(data, size, "fuzz.log", &out, &n, &info, &err);
    if (rc) {
        FZ_ASSERT(out == NULL && n == 0, "etp__b64log_decode failed but returned bytes");
        fz_check_rejection("etp__b64log_decode", rc, &err, "fuzz.log", size, false);
    } else {
        FZ_ASSERT(out != NULL && n > 0 && n <= size / 4 * 3 + 3, "decoded %zu bytes from %zu", n,
                  size);
        FZ_ASSERT(info.dumps >= 1 && info.used == 1 && info.line >= 1, "bad decode info");
        free(out);
    }
    (void)etp__b64log_detect(data, size);
    etp_arm_pmu_report pmu;
    etp_arm_pmu_parse((const char *)data, size, 0, &pmu);
    pmu_check(&pmu, size);
    etp_arm_pmu_parse((const char *)data, size, 1 + size % 7, &pmu);
    pmu_check(&pmu, size);
    /* the VGF device-time lines of the same text: every value read, its views built */
    etp_vgf_device_times vt;
    if (etp_vgf_device_times_parse((const char *)data, size, &vt) == ETP_OK) {
        FZ_ASSERT(vt.n == 0 || (vt.duration_ns && vt.ticks && vt.first_line >= 1), "vgf arrays");
        for (uint32_t k = 0; k < vt.n; k++)
            FZ_ASSERT(vt.duration_ns[k] >= 0 && isfinite(vt.duration_ns[k]), "vgf duration");
        etp_doc *vdoc = etp_doc_new("summary", 1, NULL, NULL);
        etp_disp vd;
        if (vdoc && etp_disp_init(&vd, "us", 0, 1) == ETP_OK) {
            etp_fig_vgf_device_times(etp_doc_root(vdoc), "vgf", &vd, &vt, NULL);
            (void)etp_fig_vgf_device_table(vdoc, etp_doc_section(vdoc, "s"), &vd, &vt, NULL);
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                (void)etp_doc_render(vdoc, ETP_FMT_JSON, f, NULL);
                fclose(f);
            }
        }
        etp_doc_free(vdoc);
    }
    etp_vgf_device_times_free(&vt);

    etp_blob blob;
    etp_blob_borrow(&blob, data, size, "fuzz.log");
    etp_dump *d = NULL;
    memset(&err, 0, sizeof err);
    rc = etp_dump_open(&d, &blob, &err);
    if (rc) {
        char line[ETP_ERR_FILE_MAX + ETP_ERR_PATH_MAX + ETP_ERR_MSG_MAX + 64];
        etp_error_format(&err, line, sizeof line);
        FZ_ASSERT(d == NULL, "etp_dump_open failed but returned a dump");
        FZ_ASSERT(rc == ETP_E_INPUT && err.code == rc, "etp_dump_open returned %d: %s", rc, line);
        FZ_ASSERT(err.msg[0] != 0, "empty error message");
        FZ_ASSERT(strncmp(err.file, "fuzz.log", 8) == 0 &&
                      (err.file[8] == 0 || strncmp(err.file + 8, " (", 2) == 0),
                  "error names \"%s\", not the log", err.file);
        FZ_ASSERT(err.offset >= 0 && (uint64_t)err.offset <= size, "offset outside the log: %s",
                  line);
        FZ_ASSERT(strpbrk(line, "\r\n") == NULL, "error message is not one line: %s", line);
        etprof_fuzz_rejected++;
        return 0;
    }
    etprof_fuzz_accepted++;
    if (etp_dump_arm_pmu(d)) pmu_check(etp_dump_arm_pmu(d), size);
    program_check(d, size);
    fz_pipeline(d, NULL, (unsigned)size);
    etp_dump_close(d);
    return 0;
}
