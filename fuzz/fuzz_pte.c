/* fuzz_pte.c - fuzz target for the program reader (.pte and .bpte) and the model's use of it.
 *
 * The input is read as a program. When it is accepted, every accessor is called on every plan,
 * chain, instruction, stack frame, operator, delegate and compile spec (and one past the end of
 * each), then the ETDumps compiled into the target (see fuzz/CMakeLists.txt) are modelled against
 * it, with the method inferred and forced, and their events written as JSON and as a table into
 * memory. When it is rejected, the error must be a located ETP_E_INPUT (fuzz_common.h). */
#include "fuzz_common.h"
#include "etprof_qnn.h"
#include "sniff.h"

#define MAX_DUMPS 8

static etp_blob dump_blob[MAX_DUMPS];
static etp_dump *dump[MAX_DUMPS];
static fz_input dump_in[MAX_DUMPS];
static size_t ndump;

static void load_dumps(void) {
    static bool loaded;
    if (loaded) return;
    loaded = true;
    for (size_t k = 0; k < etprof_fuzz_dump_count && k < MAX_DUMPS; k++) {
        etp_error err = {0};
        etp_blob_borrow(&dump_blob[k], etprof_fuzz_dump_data[k], etprof_fuzz_dump_size[k],
                        etprof_fuzz_dump_name[k]);
        if (etp_dump_open(&dump[k], &dump_blob[k], &err))
            fz_die("the built-in ETDump %s does not open: %s", etprof_fuzz_dump_name[k], err.msg);
        dump_in[k] = (fz_input){etprof_fuzz_dump_data[k], etprof_fuzz_dump_size[k]};
        ndump = k + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    load_dumps();
    char what[160];
    etp_sniff(data, size, what, sizeof what);
    etp_blob blob;
    etp_blob_borrow(&blob, data, size, "fuzz.pte");
    etp_error err = {0};
    etp_program *p = NULL;
    int rc = etp_program_open(&p, &blob, &err);
    if (rc) {
        FZ_ASSERT(p == NULL, "etp_program_open failed but returned a program");
        fz_check_rejection("etp_program_open", rc, &err, blob.name, size, false);
        return 0;
    }
    etprof_fuzz_accepted++;
    fz_input in = {data, size};
    fz_walk_program(&in, p);
    /* the QNN compile spec reader: any spec that does not verify is counted, with a located error */
    etp_qnn_soc soc;
    etp_qnn_program_soc(p, &blob, &soc);
    FZ_ASSERT(!soc.unreadable || (soc.error.code == ETP_E_INPUT && soc.error.path[0] &&
                                  soc.error.offset >= 0 && (uint64_t)soc.error.offset < size),
              "an unreadable qnn_compile_spec without a located error inside the file");
    FZ_ASSERT(soc.present == (soc.specs > 0), "qnn_soc.present disagrees with its count");
    /* the newer programs' device fields, read when asked (a malformed list is -1, never a crash) */
    for (uint32_t pl = 0; pl < etp_program_get_info(p)->plan_count; pl++) {
        etp_buffer_device bd[4];
        char note[600];
        int nb = etp_program_buffer_devices(p, pl, bd, 4);
        FZ_ASSERT(nb >= -1, "etp_program_buffer_devices below -1");
        bool said = etp_program_device_note(p, pl, note, sizeof note);
        FZ_ASSERT(said == (note[0] != 0) && strlen(note) < sizeof note, "device note");
        FZ_ASSERT(nb == 0 || said, "buffers off the CPU (or a malformed list) not said");
    }
    for (size_t k = 0; k < ndump; k++)
        fz_models(&dump_in[k], dump[k], false, &in, &p, 1, (unsigned)(size + k));
    /* The analyses and writers with the fuzzed program, over one fixed dump chosen by the size. */
    if (ndump) fz_pipeline(dump[size % ndump], p, (unsigned)size);
    etp_program_close(p);
    return 0;
}
