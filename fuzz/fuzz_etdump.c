/* fuzz_etdump.c - fuzz target for the ETDump reader and everything downstream of it.
 *
 * The input is read as an ETDump. When it is accepted, every accessor is called on every block
 * and event, then the model runs over every block without a program and with each program compiled
 * into the target (see fuzz/CMakeLists.txt), with the method inferred and forced, and every event
 * is written as JSON and as a table into memory. When it is rejected, the error must be a located
 * ETP_E_INPUT (fuzz_common.h). */
#include "fuzz_common.h"
#include "b64log.h"
#include "sniff.h"

#define MAX_PROGRAMS 8

static etp_blob prog_blob[MAX_PROGRAMS];
static etp_program *prog[MAX_PROGRAMS];
static fz_input prog_in[MAX_PROGRAMS];
static size_t nprog;

static void load_programs(void) {
    static bool loaded;
    if (loaded) return;
    loaded = true;
    for (size_t k = 0; k < etprof_fuzz_program_count && k < MAX_PROGRAMS; k++) {
        etp_error err = {0};
        etp_blob_borrow(&prog_blob[k], etprof_fuzz_program_data[k], etprof_fuzz_program_size[k],
                        etprof_fuzz_program_name[k]);
        if (etp_program_open(&prog[k], &prog_blob[k], &err))
            fz_die("the built-in program %s does not open: %s", etprof_fuzz_program_name[k], err.msg);
        prog_in[k] = (fz_input){etprof_fuzz_program_data[k], etprof_fuzz_program_size[k]};
        nprog = k + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load_programs();
    /* a serial log or base64 file decodes to bytes outside the input (which the accessor checks
     * below assume): fuzz_b64log.c covers those */
    if (etp_sniff_kind(data, size) != ETP_FILE_ETDUMP && etp__b64log_detect(data, size)) return 0;
    char what[160];
    etp_sniff(data, size, what, sizeof what);
    etp_blob blob;
    etp_blob_borrow(&blob, data, size, "fuzz.etdp");
    etp_error err = {0};
    etp_dump *d = NULL;
    int rc = etp_dump_open(&d, &blob, &err);
    if (rc) {
        FZ_ASSERT(d == NULL, "etp_dump_open failed but returned a dump");
        fz_check_rejection("etp_dump_open", rc, &err, blob.name, size, false);
        return 0;
    }
    etprof_fuzz_accepted++;
    fz_input in = {data, size};
    fz_walk_dump(&in, d);
    fz_models(&in, d, true, prog_in, prog, nprog, (unsigned)size);
    /* The analyses and writers: without a program, and with one chosen by the input's size. */
    fz_pipeline(d, NULL, (unsigned)size);
    if (nprog) fz_pipeline(d, prog[size % nprog], (unsigned)size + 1);
    etp_dump_close(d);
    return 0;
}
