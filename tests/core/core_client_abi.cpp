// SPDX-License-Identifier: BSD-3-Clause
// tests/core/core_client_abi.cpp: what C++ clients that wrap GASNet-EX behind their own
// header (Realm's gasnetex_wrapper) take for granted beyond the spec's names: the values
// they copy into that header (flags, ops, types, sentinels), the C library declarations
// that arrive with gasnetex.h (stdio, stdlib, string), GASNet's static helper functions
// they take the address of, and gex_AM_LUB* answered before gex_Client_Init with the
// value it has after. Only GASNet headers are included here, on purpose.
#include <gasnetex.h>
#include <gasnet_tools.h>

// values a wrapper header repeats without including gasnetex.h (it checks them in its .cc)
static_assert(GASNET_OK == 0 && GASNET_ERR_NOT_READY == 10004, "error codes");
static_assert(GEX_FLAG_IMMEDIATE == (1u << 0), "GEX_FLAG_IMMEDIATE");
static_assert(GEX_FLAG_AM_PREPARE_LEAST_CLIENT == (1u << 11), "GEX_FLAG_AM_PREPARE_LEAST_CLIENT");
static_assert(GEX_FLAG_AM_PREPARE_LEAST_ALLOC == (1u << 12), "GEX_FLAG_AM_PREPARE_LEAST_ALLOC");
static_assert(GEX_DT_U64 == (1u << 3), "GEX_DT_U64");
static_assert(GEX_OP_ADD == (1u << 3), "GEX_OP_ADD");
static_assert(GEX_EP_CAPABILITY_RMA == (1u << 0), "GEX_EP_CAPABILITY_RMA");
static_assert(sizeof(gex_EP_Index_t) == 2 && sizeof(gex_Rank_t) == 4 && sizeof(gex_Flags_t) == 4 &&
              sizeof(gex_DT_t) == 4 && sizeof(gex_OP_t) == 4 && sizeof(gex_AM_Arg_t) == 4 &&
              sizeof(gex_EP_Capabilities_t) == 4, "scalar type sizes");
static_assert(sizeof(gex_Client_t) == sizeof(void *) && sizeof(gex_EP_t) == sizeof(void *) &&
              sizeof(gex_TM_t) == sizeof(void *) && sizeof(gex_Segment_t) == sizeof(void *) &&
              sizeof(gex_MK_t) == sizeof(void *) && sizeof(gex_Event_t) == sizeof(void *) &&
              sizeof(gex_AM_SrcDesc_t) == sizeof(void *), "handles are pointer-sized");

// the static helpers a client names only to silence unused-function warnings
static const void *const helper_fns[] = { (const void *)_gasneti_threadkey_init,
                                          (const void *)_gasnett_trace_printf_noop };

#define CHECK(c)                                                                       \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);               \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    // run-time sentinels (pointer casts are not constant expressions)
    CHECK((uintptr_t)GEX_EVENT_INVALID == 0 && (uintptr_t)GEX_EVENT_NO_OP == 1);
    CHECK((uintptr_t)GEX_EVENT_NOW == 1 && (uintptr_t)GEX_EVENT_DEFER == 2 &&
          (uintptr_t)GEX_EVENT_GROUP == 3);
    CHECK((uintptr_t)GEX_MK_INVALID == 0 && (uintptr_t)GEX_MK_HOST == 1);
    CHECK((uintptr_t)GEX_EP_INVALID == 0 && (uintptr_t)GEX_SEGMENT_INVALID == 0);
    CHECK(helper_fns[0] && helper_fns[1]);

    size_t early = gex_AM_LUBRequestMedium(); // before init, as Realm's wrapper asks it
    CHECK(early >= 512);
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    CHECK(gex_Client_Init(&client, &ep, &tm, "core_client_abi", &argc, &argv, 0) == GASNET_OK);
    CHECK(gex_AM_LUBRequestMedium() == early && gex_AM_LUBReplyMedium() == early);
    CHECK(gex_AM_LUBRequestLong() >= 512 && gex_AM_LUBReplyLong() >= 512);
    char *msg = (char *)malloc(64);
    CHECK(msg != NULL);
    snprintf(msg, 64, "rank %u ok", (unsigned)gex_TM_QueryRank(tm));
    CHECK(strlen(msg) > 5);
    printf("%s\n", msg);
    free(msg);
    gasnet_exit(0);
    return 0;
}
