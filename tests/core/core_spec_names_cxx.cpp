// SPDX-License-Identifier: BSD-3-Clause
// tests/core/core_spec_names_cxx.cpp: the public headers as C++ (UPC++, Legion/Realm and other
// clients are C++): every public header compiles with -Wall -Wextra -Werror -pedantic under
// C++11, its names have C linkage, the spec's types are the documented ones, and a small
// program (AM, RMA, atomics, VIS, collectives) runs with its data checked.
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <rivet.h>
#ifdef __has_include
#if __has_include(<gasnet.h>)
#include <gasnet.h>
#endif
#if __has_include(<gasnet_tools.h>)
#include <gasnet_tools.h>
#endif
#endif

#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <type_traits>

static_assert(std::is_same<gex_Rank_t, uint32_t>::value, "gex_Rank_t");
static_assert(std::is_same<gex_AM_Index_t, uint8_t>::value, "gex_AM_Index_t");
static_assert(std::is_same<gex_AM_Arg_t, int32_t>::value, "gex_AM_Arg_t");
static_assert(std::is_unsigned<gex_RMA_Value_t>::value &&
              sizeof(gex_RMA_Value_t) == SIZEOF_GEX_RMA_VALUE_T, "gex_RMA_Value_t");
static_assert(std::is_integral<gex_Flags_t>::value && std::is_integral<gex_EC_t>::value &&
              std::is_integral<gex_DT_t>::value && std::is_integral<gex_OP_t>::value &&
              std::is_integral<gex_TI_t>::value && std::is_unsigned<gex_EP_Index_t>::value,
              "integer types");
static_assert(std::is_same<gex_Addr_t, void *>::value, "gex_Addr_t");
static_assert(std::is_scalar<gex_Event_t>::value && std::is_scalar<gex_TM_t>::value &&
              std::is_scalar<gex_EP_t>::value && std::is_scalar<gex_Client_t>::value &&
              std::is_scalar<gex_Segment_t>::value && std::is_scalar<gex_Token_t>::value &&
              std::is_scalar<gex_AD_t>::value && std::is_scalar<gex_MK_t>::value &&
              std::is_scalar<gex_AM_SrcDesc_t>::value, "opaque scalar handle types");
static_assert(std::is_same<decltype(GEX_EVENT_NOW), gex_Event_t *>::value &&
              std::is_same<decltype(GEX_EVENT_INVALID), gex_Event_t>::value, "event constants");
static_assert(std::is_const<gex_RankInfo_t>::value, "gex_RankInfo_t is const-qualified");
static_assert(std::is_same<decltype(&gex_RMA_GetNB),
                           gex_Event_t (*)(gex_TM_t, void *, gex_Rank_t, void *, size_t,
                                           gex_Flags_t)>::value, "gex_RMA_GetNB argument order");
static_assert(GEX_AM_INDEX_BASE <= 128 && GEX_VIS_MAX_PEERCOMPLETION >= 127, "limits");

// C linkage: a function pointer of the C declaration's type, through an extern "C" typedef.
extern "C" typedef int c_put_fn(gex_TM_t, gex_Rank_t, void *, const void *, size_t, gex_Flags_t);
static c_put_fn *const put_ptr = &gex_RMA_PutBlocking;

static gex_TM_t tm;
static gex_Rank_t me, n;
static volatile int got;

#define CHECK(c, ...)                                                          \
    do {                                                                       \
        if (!(c)) {                                                            \
            std::fprintf(stderr, "FAIL rank %u line %d: %s: ", (unsigned)me,   \
                         __LINE__, #c);                                        \
            std::fprintf(stderr, __VA_ARGS__);                                 \
            std::fprintf(stderr, "\n");                                        \
            gasnet_exit(1);                                                    \
        }                                                                      \
    } while (0)

extern "C" {
static void h_med(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t a0, gex_AM_Arg_t a1)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    const unsigned char *p = static_cast<const unsigned char *>(buf);
    CHECK(nb == 100 && a0 == 7 && a1 == static_cast<gex_AM_Arg_t>(ti.gex_srcrank), "medium");
    for (size_t i = 0; i < nb; i++) CHECK(p[i] == static_cast<unsigned char>(i + a1), "byte %zu", i);
    gex_AM_ReplyShort(t, GEX_AM_INDEX_BASE + 1, 0);
}
static void h_rep(gex_Token_t t)
{
    (void)t;
    got = got + 1;
}
}

// GASNet-EX 2025.8.0 names in C++ (GASNet's testcxx, testtoolscxx, testlegacycxx): versions
// and flags in #if, constants of their typedef's type, gasnet_fwd.h, the tools additions.
#include <gasnet_fwd.h> // again, after gasnetex.h: nothing is defined twice
#if GASNET_RELEASE_VERSION_MAJOR != 2025 || GEX_SPEC_VERSION_MINOR != 19 || \
    GEX_FLAG_PEER_NEVER_SELF == GEX_FLAG_PEER_NEVER_NBRHD || !PLATFORM_COMPILER_VERSION_GE(4, 0, 0)
#error "versions, flags in #if, PLATFORM_COMPILER_VERSION_GE"
#endif
static_assert(std::is_same<decltype(GEX_FLAG_IMMEDIATE), unsigned int>::value &&
              std::is_same<decltype(GEX_OP_FADD), unsigned int>::value &&
              std::is_same<decltype(GEX_TI_ALL), unsigned int>::value, "constants' types");
static_assert(std::is_same<decltype(gasnett_nsleep(0)), int>::value, "gasnett_nsleep returns int");

static int cxx_fallthrough(int x)
{
    int r = 0;
    switch (x) {
    case 0:
        r = 1;
        GASNETT_FALLTHROUGH
    case 1:
        r += 2;
        break;
    default:
        break;
    }
    return r;
}

static void check_2025_names()
{
    char buf[256];
    CHECK(gasnett_format_op(nullptr, GEX_OP_ADD | GEX_OP_GET) == sizeof "GEX_OP_ADD|GEX_OP_GET" &&
          gasnett_format_op(buf, GEX_OP_ADD | GEX_OP_GET) && !std::strcmp(buf, "GEX_OP_ADD|GEX_OP_GET"),
          "gasnett_format_op '%s'", buf);
    CHECK(cxx_fallthrough(0) == 3 && cxx_fallthrough(1) == 2, "GASNETT_FALLTHROUGH");
    GASNETT_STATS_DUMP(1);
    CHECK(GASNETT_STATS_INIT(nullptr) == 0, "GASNETT_STATS_INIT");
    gasnet_seginfo_t si = { nullptr, 0 };
    gasnet_memvec_t mv = { si.addr, 0 };
    CHECK(mv.addr == nullptr && !std::strcmp(gasnett_release_version_str(), "2025.8.0") &&
          gasnett_signame_fromval(SIGINT) && gasnett_exe_name()[0] == '/',
          "seginfo/memvec/release/signame/exe_name");
    int x = 1, y = 2;
    GASNETT_UNUSED_ARGS2(x, y);
}

int main(int argc, char **argv)
{
    check_2025_names();
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    CHECK(gex_Client_Init(&client, &ep, &tm, "CXX_CLIENT", &argc, &argv, 0) == GASNET_OK, "init");
    me = gex_TM_QueryRank(tm);
    n = gex_TM_QuerySize(tm);
    gex_AM_Entry_t tab[] = {
        { GEX_AM_INDEX_BASE, reinterpret_cast<gex_AM_Fn_t>(h_med),
          GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, nullptr, "med" },
        { GEX_AM_INDEX_BASE + 1, reinterpret_cast<gex_AM_Fn_t>(h_rep),
          GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, nullptr, "rep" },
    };
    CHECK(gex_EP_RegisterHandlers(ep, tab, 2) == GASNET_OK, "register");
    CHECK(gex_Segment_Attach(&seg, tm, 4 * GASNET_PAGESIZE) == GASNET_OK, "attach");
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

    gex_Rank_t peer = (me + 1) % n;
    unsigned char pay[100];
    for (int i = 0; i < 100; i++) pay[i] = static_cast<unsigned char>(i + static_cast<int>(me));
    CHECK(gex_AM_RequestMedium(tm, peer, GEX_AM_INDEX_BASE, pay, sizeof pay, GEX_EVENT_NOW, 0, 7,
                               static_cast<gex_AM_Arg_t>(me)) == 0, "request");
    GASNET_BLOCKUNTIL(got == 1);

    // RMA: put my rank into the peer's segment, read it back.
    void *peer_base = nullptr;
    CHECK(gex_Segment_QueryBound(tm, peer, &peer_base, nullptr, nullptr) == GASNET_OK, "bound");
    uint64_t v = 0x1234000000000000ull + me, r = 0;
    CHECK(put_ptr(tm, peer, peer_base, &v, sizeof v, 0) == 0, "put");
    CHECK(gex_RMA_GetBlocking(tm, &r, peer, peer_base, sizeof r, 0) == 0 && r == v, "get %llx",
          static_cast<unsigned long long>(r));
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

    // Atomics: everyone adds its rank+1 to rank 0's counter.
    gex_AD_t ad;
    gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET | GEX_OP_SET, 0);
    void *base0 = nullptr;
    gex_Segment_QueryBound(tm, 0, &base0, nullptr, nullptr);
    uint64_t *ctr = static_cast<uint64_t *>(base0) + 8, old = 0;
    if (me == 0) gex_Event_Wait(gex_AD_OpNB_U64(ad, nullptr, 0, ctr, GEX_OP_SET, 0, 0, 0));
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, 0, ctr, GEX_OP_FADD, me + 1, 0, GEX_FLAG_AD_REL));
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, 0, ctr, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
    CHECK(old == static_cast<uint64_t>(n) * (n + 1) / 2, "atomic sum %llu",
          static_cast<unsigned long long>(old));
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    gex_AD_Destroy(ad);

    // Collectives: broadcast and a reduction.
    int32_t x = static_cast<int32_t>(me) + 1, sum = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &sum, &x, GEX_DT_I32, sizeof x, 1, GEX_OP_ADD,
                                          nullptr, nullptr, 0));
    CHECK(sum == static_cast<int32_t>(n * (n + 1) / 2), "reduce %d", sum);
    int32_t b = me == 0 ? 4242 : 0;
    gex_Event_Wait(gex_Coll_BroadcastNB(tm, 0, &b, &b, sizeof b, 0));
    CHECK(b == 4242, "broadcast %d", b);

    // VIS: a 2-piece vector get of what was put above.
    uint64_t parts[2] = { 0, 0 };
    gex_Memvec_t dst[2] = { { &parts[0], 4 }, { reinterpret_cast<char *>(&parts[1]), 4 } };
    gex_Memvec_t src[1] = { { peer_base, 8 } };
    CHECK(gex_VIS_VectorGetBlocking(tm, 2, dst, peer, 1, src, 0) == 0, "vis");
    uint64_t joined = 0;
    std::memcpy(&joined, &parts[0], 4);
    std::memcpy(reinterpret_cast<char *>(&joined) + 4, &parts[1], 4);
    CHECK(joined == v, "vis data %llx", static_cast<unsigned long long>(joined));

    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    if (me == 0) std::printf("core_spec_names_cxx: PASS on %u ranks\n", static_cast<unsigned>(n));
    return 0;
}
