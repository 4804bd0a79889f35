/* test_zipload.c - libzip missing at run time (src/base/zipload.c): the loader is compiled here with
 * a soname that no system has, so dlopen fails as it would on a machine without libzip4. Opening
 * an ETRecord must then give one ETP_E_IO line naming the file, the library and the package to
 * install, every time (the failure is remembered, not retried into a crash), and never a NULL
 * table used as if loaded. */
#define ETPROF_LIBZIP_SONAME "libetprof-test-no-such-zip.so.99"
#include "../src/base/zipload.c"

#include "check.h"

int main(void) {
    for (int round = 0; round < 2; round++) {
        etp_error err = {0};
        const etp_zipfns *z = etp__zip("model.etrecord", &err);
        CHECK(z == NULL);
        CHECK_EQ_I(err.code, ETP_E_IO);
        CHECK_MSG(strcmp(err.file, "model.etrecord") == 0, "file: %s", err.file);
        CHECK_MSG(strstr(err.msg, "libzip could not be loaded") != NULL, "msg: %s", err.msg);
        CHECK_MSG(strstr(err.msg, "libetprof-test-no-such-zip.so.99") != NULL, "msg: %s", err.msg);
        CHECK_MSG(strstr(err.msg, "apt install libzip4") != NULL, "msg: %s", err.msg);
        CHECK_MSG(strpbrk(err.msg, "\r\n") == NULL, "not one line: %s", err.msg);
    }
    return check_done();
}
