/* check.h - the tiny assertion kit shared by etprof's C tests.
 * A test program calls CHECK*(...) as often as it likes and ends with `return check_done();`,
 * which prints "N passed, M failed" and returns non-zero when anything failed. */
#ifndef ETPROF_TESTS_CHECK_H
#define ETPROF_TESTS_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_pass_, check_fail_;

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        if (cond) check_pass_++;                                                                  \
        else {                                                                                    \
            check_fail_++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
        }                                                                                         \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                      \
    do {                                                                                          \
        if (cond) check_pass_++;                                                                  \
        else {                                                                                    \
            check_fail_++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
        }                                                                                         \
    } while (0)

#define CHECK_EQ_I(a, b)                                                                          \
    do {                                                                                          \
        long long ca_ = (long long)(a), cb_ = (long long)(b);                                     \
        CHECK_MSG(ca_ == cb_, "%s = %lld, expected %s = %lld", #a, ca_, #b, cb_);                 \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                          \
    do {                                                                                          \
        unsigned long long ca_ = (unsigned long long)(a), cb_ = (unsigned long long)(b);          \
        CHECK_MSG(ca_ == cb_, "%s = %llu, expected %s = %llu", #a, ca_, #b, cb_);                 \
    } while (0)

#define CHECK_EQ_S(a, b)                                                                          \
    do {                                                                                          \
        const char *ca_ = (a), *cb_ = (b);                                                        \
        CHECK_MSG(ca_ && cb_ && strcmp(ca_, cb_) == 0, "%s = \"%s\", expected \"%s\"", #a,        \
                  ca_ ? ca_ : "(null)", cb_ ? cb_ : "(null)");                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                     \
    do {                                                                                          \
        double ca_ = (double)(a), cb_ = (double)(b);                                              \
        CHECK_MSG((ca_ - cb_) <= (tol) && (cb_ - ca_) <= (tol), "%s = %.17g, expected %.17g",     \
                  #a, ca_, cb_);                                                                  \
    } while (0)

static inline int check_done(void) {
    printf("%d passed, %d failed\n", check_pass_, check_fail_);
    return check_fail_ ? 1 : 0;
}
#endif
