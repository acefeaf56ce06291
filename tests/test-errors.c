/* test-errors.c - error names, strings, last error and detail. */
#include "test.h"

GR_TEST(error_names_and_strings_cover_every_code)
{
    CHECK(strcmp(grGetErrorName(grSuccess), "grSuccess") == 0);
    CHECK(strcmp(grGetErrorName(grErrorInvalidValue), "grErrorInvalidValue") == 0);
    CHECK(strcmp(grGetErrorName(grErrorStreamCaptureInvalidated), "grErrorStreamCaptureInvalidated") == 0);
    CHECK(strcmp(grGetErrorString(grErrorInvalidValue), "invalid argument") == 0);
    CHECK(strcmp(grGetErrorName((grError_t)9999), "unrecognized error code") == 0);
    CHECK(strcmp(grGetErrorString((grError_t)9999), "unrecognized error code") == 0);
    for (int e = grSuccess; e <= grErrorUnknown; e++) {
        CHECK(strncmp(grGetErrorName((grError_t)e), "gr", 2) == 0);
        CHECK(strlen(grGetErrorString((grError_t)e)) > 0);
    }
}

GR_TEST(last_error_is_sticky_until_get_and_detail_names_the_call)
{
    CHECK_EQ(grGetLastError(), grSuccess);
    CHECK(strcmp(grGetLastErrorDetail(), "") == 0);
    CHECK_REFUSED(grErrorInvalidDevice, grSetDevice, -7);
    CHECK_EQ(grPeekAtLastError(), grErrorInvalidDevice);
    CHECK_EQ(grPeekAtLastError(), grErrorInvalidDevice);
    /* A successful call keeps the last error, as in CUDA. */
    CHECK_OK(grSetDevice(0));
    CHECK_EQ(grGetLastError(), grErrorInvalidDevice);
    CHECK_EQ(grGetLastError(), grSuccess);
    /* The sentence survives grGetLastError so the caller can still explain. */
    CHECK_DETAIL_HAS("grSetDevice");
}
