/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_spec_names.c: the public names the GASNet-EX spec (and its later additions,
 * docs/spec-coverage.md) defines. Every function is assigned to a pointer of the exact type
 * the spec gives (so a wrong argument order, type or const-ness fails to compile with
 * -Werror); every constant is used in an expression (static initializers and _Static_assert
 * where the spec promises a constant); documented values and relations are checked; the cheap
 * queries are called and their results checked; the multi-EP, memory-kinds and progress-thread
 * calls return what docs/spec-coverage.md says; VIS peer completion delivers its notification
 * after the data. With an argument, runs one documented error case (tests/core/CMakeLists.txt). */
#include "rv_test.h"

#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>

#include <stddef.h>

static void *threadinfo_of_thread(void *out)
{
    *(gasnet_threadinfo_t *)out = GASNET_GET_THREADINFO();
    return NULL;
}

/* ---- preprocess-time constants ------------------------------------------------------------ */
#if !defined(GASNET_RELEASE_VERSION_MAJOR) || !defined(GASNET_RELEASE_VERSION_MINOR) || \
    !defined(GASNET_RELEASE_VERSION_PATCH) || GASNET_RELEASE_VERSION_MAJOR < 2020
#error "GASNET_RELEASE_VERSION_* missing or not an EX release (YEAR.MONTH.PATCH)"
#endif
#if !defined(GEX_SPEC_VERSION_MAJOR) || !defined(GEX_SPEC_VERSION_MINOR) || \
    (GEX_SPEC_VERSION_MAJOR == 0 && GEX_SPEC_VERSION_MINOR < 13)
#error "GEX_SPEC_VERSION_* missing or older than the 0.13 spec"
#endif
#if GASNET_SPEC_VERSION_MAJOR != 1 || GASNETT_SPEC_VERSION_MAJOR != 1 || \
    GASNET_SPEC_VERSION_MINOR < 8 || GASNETT_SPEC_VERSION_MINOR < 0
#error "GASNET_SPEC_VERSION_* / GASNETT_SPEC_VERSION_*"
#endif
#if !defined(GASNET_HIDDEN_AM_CONCURRENCY_LEVEL) || GASNET_HIDDEN_AM_CONCURRENCY_LEVEL < 0
#error "GASNET_HIDDEN_AM_CONCURRENCY_LEVEL must always be defined"
#endif
#if !defined(GEX_AM_INDEX_BASE) || GEX_AM_INDEX_BASE > 128 || GEX_AM_INDEX_BASE < 1
#error "GEX_AM_INDEX_BASE must be an integer constant of at most 128"
#endif
#if !defined(GASNET_MAXEPS) || GASNET_MAXEPS < 1
#error "GASNET_MAXEPS"
#endif
#if !defined(GASNET_PAGESIZE) || GASNET_PAGESIZE < 1024 || (GASNET_PAGESIZE & (GASNET_PAGESIZE - 1))
#error "GASNET_PAGESIZE must be a power of two"
#endif
#if !defined(SIZEOF_GEX_RMA_VALUE_T) || SIZEOF_GEX_RMA_VALUE_T < 4
#error "SIZEOF_GEX_RMA_VALUE_T must be a preprocess-time constant"
#endif
#if SIZEOF_GASNET_REGISTER_VALUE_T != SIZEOF_GEX_RMA_VALUE_T
#error "SIZEOF_GASNET_REGISTER_VALUE_T is a synonym of SIZEOF_GEX_RMA_VALUE_T"
#endif
#if (defined(GASNET_SEQ) + defined(GASNET_PAR) + defined(GASNET_PARSYNC)) != 1
#error "exactly one of GASNET_SEQ, GASNET_PAR, GASNET_PARSYNC"
#endif
#if (defined(GASNET_SEGMENT_FAST) + defined(GASNET_SEGMENT_LARGE) + \
     defined(GASNET_SEGMENT_EVERYTHING)) != 1
#error "exactly one GASNET_SEGMENT_* mode"
#endif
#if !defined(GASNET_CONDUIT_NAME) || !defined(GASNET_CONDUIT_NAME_STR)
#error "GASNET_CONDUIT_NAME"
#endif
#if (defined(GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM) && GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM != 1) || \
    (defined(GASNET_NATIVE_NP_ALLOC_REP_MEDIUM) && GASNET_NATIVE_NP_ALLOC_REP_MEDIUM != 1) || \
    (defined(GASNET_NATIVE_NP_ALLOC_REQ_LONG) && GASNET_NATIVE_NP_ALLOC_REQ_LONG != 1) ||     \
    (defined(GASNET_NATIVE_NP_ALLOC_REP_LONG) && GASNET_NATIVE_NP_ALLOC_REP_LONG != 1)
#error "GASNET_NATIVE_NP_ALLOC_* are 1 or undefined"
#endif
#if defined(GASNET_HAVE_MK_CLASS_CUDA_UVA) || defined(GASNET_HAVE_MK_CLASS_HIP) || \
    defined(GASNET_HAVE_MK_CLASS_ZE)
#error "this build has no device memory kinds"
#endif
/* GASNet-EX 2025.8.0, spec 0.19: the experimental AM calls carry their revision dates */
#if GASNET_RELEASE_VERSION_MAJOR != 2025 || GASNET_RELEASE_VERSION_MINOR != 8 || \
    GASNET_RELEASE_VERSION_PATCH != 0 || GEX_SPEC_VERSION_MAJOR != 0 || GEX_SPEC_VERSION_MINOR != 19
#error "Rivet implements GASNet-EX release 2025.8.0, spec 0.19"
#endif
#if GASNET_SUPPORTS_AM_COMMIT_V2 != 20240906L || GASNET_SUPPORTS_AM_CANCEL != 20240418L
#error "GASNET_SUPPORTS_AM_COMMIT_V2 / GASNET_SUPPORTS_AM_CANCEL carry their revision dates"
#endif
/* every gex_Token_Info field is reported; NULL argc/argv are accepted */
#if GASNET_SUPPORTS_TI_SRCRANK != 1 || GASNET_SUPPORTS_TI_EP != 1 || GASNET_SUPPORTS_TI_ENTRY != 1 || \
    GASNET_SUPPORTS_TI_IS_REQ != 1 || GASNET_SUPPORTS_TI_IS_LONG != 1 || GASNET_NULL_ARGV_OK != 1
#error "GASNET_SUPPORTS_TI_* / GASNET_NULL_ARGV_OK"
#endif
/* gasnet_config.h comes with gasnetex.h: what configure scripts and GASNet's test.h read */
#if !defined(_INCLUDED_GASNET_CONFIG_H) || HAVE_PTHREAD_H != 1 || HAVE_MMAP != 1 || \
    SIZEOF_VOID_P != 8 && SIZEOF_VOID_P != 4
#error "gasnet_config.h"
#endif
/* Constants are plain integer expressions: the preprocessor evaluates them (GASNet's tests
 * compare flags in #if). */
#if GEX_FLAG_PEER_NEVER_SELF == 0 || GEX_FLAG_PEER_NEVER_NBRHD == 0 || \
    (GEX_FLAG_PEER_NEVER_SELF & GEX_FLAG_PEER_NEVER_NBRHD) || GEX_FLAG_IMMEDIATE != 1 || \
    (GEX_FLAG_AM_REQREP & GEX_FLAG_AM_SHORT) || GEX_FLAG_TM_NO_SCRATCH == 0 ||             \
    GEX_FLAG_HINT_ACCEL_ALL != (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL) ||      \
    GEX_EP_CAPABILITY_ALL == 0 || GEX_TI_ALL != 0x1f || (GEX_EC_ALL & GEX_EC_PUT) == 0 ||   \
    GEX_DT_DBL == 0 || GEX_OP_TO_FETCHING(GEX_OP_ADD) != GEX_OP_FADD ||                      \
    GEX_OP_TO_NONFETCHING(GEX_OP_FCAS) != GEX_OP_CAS || GEX_FLAG_SELF_SEG_OFFSET == 0 ||     \
    GEX_FLAG_AD_FAVOR_REMOTE == 0 || GEX_FLAG_USES_GASNET1 == 0 || GEX_FLAG_GLOBALLY_QUIESCED == 0
#error "a GEX_* constant cannot be evaluated by the preprocessor"
#endif
/* Macros the spec defines as #define'd names. */
#if !defined(GEX_DT_I32) || !defined(GEX_DT_U32) || !defined(GEX_DT_I64) || !defined(GEX_DT_U64) || \
    !defined(GEX_DT_FLT) || !defined(GEX_DT_DBL) || !defined(GEX_DT_USER)
#error "GEX_DT_*"
#endif
#if !defined(GEX_OP_ADD) || !defined(GEX_OP_CSWAP) || !defined(GEX_OP_USER_NC) || \
    !defined(GEX_OP_TO_FETCHING) || !defined(GEX_OP_TO_NONFETCHING)
#error "GEX_OP_*"
#endif
#if !defined(GASNET_BLOCKUNTIL) || !defined(GASNET_INVALID_HANDLE) || !defined(GASNET_HSL_INITIALIZER)
#error "GASNet-1 names kept by the EX spec"
#endif

/* ---- types -------------------------------------------------------------------------------- */
_Static_assert((gex_Rank_t)-1 > 0 && sizeof(gex_Rank_t) == 4, "gex_Rank_t: uint32_t");
_Static_assert((gex_AM_Index_t)-1 == 255, "gex_AM_Index_t: uint8_t");
_Static_assert(sizeof(gex_AM_Arg_t) == 4 && (gex_AM_Arg_t)-1 < 0, "gex_AM_Arg_t: int32_t");
_Static_assert((gex_RMA_Value_t)-1 > 0 && sizeof(gex_RMA_Value_t) == SIZEOF_GEX_RMA_VALUE_T,
               "gex_RMA_Value_t: unsigned, SIZEOF_GEX_RMA_VALUE_T bytes");
_Static_assert((gex_EP_Index_t)-1 > 0, "gex_EP_Index_t is unsigned");
_Static_assert(sizeof(gex_Memvec_t) == sizeof(void *) + sizeof(size_t) &&
               offsetof(gex_Memvec_t, gex_addr) == 0 &&
               offsetof(gex_Memvec_t, gex_len) == sizeof(void *), "gex_Memvec_t layout");
_Static_assert(offsetof(gex_AM_Entry_t, gex_index) < offsetof(gex_AM_Entry_t, gex_fnptr) &&
               offsetof(gex_AM_Entry_t, gex_fnptr) < offsetof(gex_AM_Entry_t, gex_flags) &&
               offsetof(gex_AM_Entry_t, gex_flags) < offsetof(gex_AM_Entry_t, gex_nargs) &&
               offsetof(gex_AM_Entry_t, gex_nargs) < offsetof(gex_AM_Entry_t, gex_cdata) &&
               offsetof(gex_AM_Entry_t, gex_cdata) < offsetof(gex_AM_Entry_t, gex_name),
               "gex_AM_Entry_t field order (positional initializers)");
_Static_assert(_Generic((gex_Addr_t)0, void *: 1, default: 0), "gex_Addr_t is void *");
_Static_assert(_Generic(((gex_EP_Location_t *)0)->gex_rank, gex_Rank_t: 1, default: 0) &&
               _Generic(((gex_EP_Location_t *)0)->gex_ep_index, gex_EP_Index_t: 1, default: 0),
               "gex_EP_Location_t fields");
_Static_assert(_Generic(((gex_Token_Info_t *)0)->gex_srcrank, gex_Rank_t: 1, default: 0) &&
               _Generic(((gex_Token_Info_t *)0)->gex_ep, gex_EP_t: 1, default: 0) &&
               _Generic(((gex_Token_Info_t *)0)->gex_entry, const gex_AM_Entry_t *: 1, default: 0),
               "gex_Token_Info_t fields");
_Static_assert(_Generic(((gex_MK_Create_args_t *)0)->gex_flags, uint64_t: 1, default: 0) &&
               _Generic(((gex_MK_Create_args_t *)0)->gex_class, gex_MK_Class_t: 1, default: 0) &&
               _Generic(((gex_MK_Create_args_t *)0)->gex_args.gex_class_cuda_uva.gex_CUdevice,
                        int: 1, default: 0),
               "gex_MK_Create_args_t fields");
_Static_assert(GEX_VIS_MAX_PEERCOMPLETION >= 127, "GEX_VIS_MAX_PEERCOMPLETION is at least 127");

/* Gasnet-1 interoperable types are the same types. */
_Static_assert(_Generic((gasnet_node_t)0, gex_Rank_t: 1, default: 0) &&
               _Generic((gasnet_handler_t)0, gex_AM_Index_t: 1, default: 0) &&
               _Generic((gasnet_handlerarg_t)0, gex_AM_Arg_t: 1, default: 0) &&
               _Generic((gasnet_token_t)0, gex_Token_t: 1, default: 0) &&
               _Generic((gasnet_handle_t)0, gex_Event_t: 1, default: 0) &&
               _Generic((gasnet_register_value_t)0, gex_RMA_Value_t: 1, default: 0),
               "GASNet-1 interoperable types");

/* ---- constants usable in static initializers --------------------------------------------- */
static gex_Event_t ev_consts[] = { GEX_EVENT_INVALID, GEX_EVENT_NO_OP, GASNET_INVALID_HANDLE };
static gex_Event_t *const lc_consts[] = { GEX_EVENT_NOW, GEX_EVENT_DEFER, GEX_EVENT_GROUP };
static const gex_Rank_t rank_invalid = GEX_RANK_INVALID;
static gex_HSL_t static_hsl = GEX_HSL_INITIALIZER;
static gasnet_hsl_t static_hsl1 = GASNET_HSL_INITIALIZER;
static const gex_Client_t  inv_client = GEX_CLIENT_INVALID;
static const gex_EP_t      inv_ep = GEX_EP_INVALID;
static const gex_TM_t      inv_tm = GEX_TM_INVALID;
static const gex_Segment_t inv_seg = GEX_SEGMENT_INVALID;
static const gex_MK_t      mk_consts[] = { GEX_MK_INVALID, GEX_MK_HOST };
static const gex_AD_t      inv_ad = GEX_AD_INVALID;
static const gex_AM_SrcDesc_t inv_sd = GEX_AM_SRCDESC_NO_OP;

/* Point-to-point flags (one bit space: any may be ORed together in one call). */
static const gex_Flags_t p2p_flags[] = {
    GEX_FLAG_IMMEDIATE, GEX_FLAG_LC_COPY_YES, GEX_FLAG_LC_COPY_NO, GEX_FLAG_AD_MY_RANK,
    GEX_FLAG_AD_MY_NBRHD, GEX_FLAG_AD_ACQ, GEX_FLAG_AD_REL, GEX_FLAG_RANK_IS_JOBRANK,
    GEX_FLAG_AM_PREPARE_LEAST_CLIENT, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, GEX_FLAG_SELF_SEG_UNKNOWN,
    GEX_FLAG_SELF_SEG_SOME, GEX_FLAG_SELF_SEG_BOUND, GEX_FLAG_SELF_SEG_OFFSET,
    GEX_FLAG_PEER_SEG_UNKNOWN, GEX_FLAG_PEER_SEG_SOME, GEX_FLAG_PEER_SEG_BOUND,
    GEX_FLAG_PEER_SEG_OFFSET, GEX_FLAG_ENABLE_LEAF_LC, GEX_FLAG_PEER_NEVER_SELF,
    GEX_FLAG_PEER_NEVER_NBRHD,
};
/* gex_AD_Create flags (with GEX_FLAG_RANK_IS_JOBRANK's family they may not collide). */
static const gex_Flags_t ad_create_flags[] = {
    GEX_FLAG_AD_FAVOR_MY_RANK, GEX_FLAG_AD_FAVOR_MY_NBRHD, GEX_FLAG_AD_FAVOR_REMOTE,
};
static const gex_Flags_t tm_flags[] = {
    GEX_FLAG_TM_GLOBAL_SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH, GEX_FLAG_TM_SYMMETRIC_SCRATCH,
    GEX_FLAG_TM_NO_SCRATCH, GEX_FLAG_TM_SCRATCH_SIZE_MIN, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED,
    GEX_FLAG_SCRATCH_SEG_OFFSET, GEX_FLAG_RANK_IS_JOBRANK,
};
static const gex_Flags_t client_flags[] = { GEX_FLAG_USES_GASNET1, GEX_FLAG_DEFER_THREADS };
static const gex_Flags_t misc_flags[] = { GEX_FLAG_GLOBALLY_QUIESCED, GEX_FLAG_HINT_ACCEL_AD,
                                          GEX_FLAG_HINT_ACCEL_COLL, GEX_FLAG_HINT_ACCEL_ALL };
static const gex_Flags_t am_cat[] = { GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG };
static const gex_Flags_t am_rr[] = { GEX_FLAG_AM_REQUEST, GEX_FLAG_AM_REPLY };
static const gex_EP_Capabilities_t caps[] = { GEX_EP_CAPABILITY_RMA, GEX_EP_CAPABILITY_AM,
                                              GEX_EP_CAPABILITY_VIS, GEX_EP_CAPABILITY_COLL,
                                              GEX_EP_CAPABILITY_AD };
static const gex_TI_t tis[] = { GEX_TI_SRCRANK, GEX_TI_EP, GEX_TI_ENTRY, GEX_TI_IS_REQ,
                                GEX_TI_IS_LONG };
static const gex_EC_t ecs[] = { GEX_EC_GET, GEX_EC_PUT, GEX_EC_AM, GEX_EC_LC, GEX_EC_RMW };
static const gex_DT_t dts[] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT,
                                GEX_DT_DBL, GEX_DT_USER };
static const gex_OP_t ops[] = {
    GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX, GEX_OP_SUB, GEX_OP_INC, GEX_OP_DEC,
    GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR, GEX_OP_FADD, GEX_OP_FMULT, GEX_OP_FMIN, GEX_OP_FMAX,
    GEX_OP_FSUB, GEX_OP_FINC, GEX_OP_FDEC, GEX_OP_FAND, GEX_OP_FOR, GEX_OP_FXOR, GEX_OP_SET,
    GEX_OP_CAS, GEX_OP_GET, GEX_OP_SWAP, GEX_OP_FCAS, GEX_OP_USER, GEX_OP_USER_NC,
};
static const unsigned thread_roles[] = { GEX_THREAD_ROLE_RCV, GEX_THREAD_ROLE_SND };
static const int mk_classes[] = { GEX_MK_CLASS_HOST, GEX_MK_CLASS_CUDA_UVA, GEX_MK_CLASS_HIP,
                                  GEX_MK_CLASS_ZE };
static const int errs[] = { GASNET_OK, GASNET_ERR_NOT_INIT, GASNET_ERR_RESOURCE,
                            GASNET_ERR_BAD_ARG, GASNET_ERR_NOT_READY,
                            GASNET_ERR_BARRIER_MISMATCH };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Every value non-zero and pairwise disjoint; returns their OR. */
static uint64_t disjoint(const char *what, const void *arr, size_t n, size_t elsz)
{
    uint64_t all = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        memcpy(&v, (const char *)arr + i * elsz, elsz); /* little-endian host: low bytes */
        RVT_CHECK(v != 0, "%s[%zu] is zero", what, i);
        RVT_CHECK((all & v) == 0, "%s[%zu]=0x%" PRIx64 " shares bits with an earlier one (0x%"
                  PRIx64 ")", what, i, v, all);
        all |= v;
    }
    return all;
}
#define DISJOINT(a) disjoint(#a, (a), N_OF(a), sizeof((a)[0]))

static int am_forms_compile(gex_TM_t tm, gex_Token_t t, void *p, gex_Event_t *lc);

/* ---- every function, at the type the spec gives ------------------------------------------- */
typedef void (*any_fn)(void);
static any_fn fns[300];
static size_t nfns;
#define SIG(ret, name, args)               \
    do {                                   \
        ret(*p_) args = &name;             \
        fns[nfns++] = (any_fn)p_;          \
    } while (0)

static void reference_functions(void)
{
    /* system, client, CData */
    SIG(gex_Rank_t, gex_System_QueryJobRank, (void));
    SIG(gex_Rank_t, gex_System_QueryJobSize, (void));
    SIG(int, gex_System_GetVerboseErrors, (void));
    SIG(void, gex_System_SetVerboseErrors, (int));
    SIG(void, gex_System_QueryNbrhdInfo, (gex_RankInfo_t **, gex_Rank_t *, gex_Rank_t *));
    SIG(void, gex_System_QueryHostInfo, (gex_RankInfo_t **, gex_Rank_t *, gex_Rank_t *));
    SIG(void, gex_System_QueryMyPosition, (gex_Rank_t *, gex_Rank_t *, gex_Rank_t *, gex_Rank_t *));
    SIG(uint64_t, gex_System_QueryMaxThreads, (void));
    SIG(int, gex_System_QueryHiddenAMConcurrencyLevel, (void));
    SIG(int, gex_System_QueryProgressThreads,
        (gex_Client_t, unsigned int *, const gex_ProgressThreadInfo_t **, gex_Flags_t));
    SIG(void, gex_Client_SetCData, (gex_Client_t, const void *));
    SIG(void *, gex_Client_QueryCData, (gex_Client_t));
    SIG(void, gex_Segment_SetCData, (gex_Segment_t, const void *));
    SIG(void *, gex_Segment_QueryCData, (gex_Segment_t));
    SIG(void, gex_TM_SetCData, (gex_TM_t, const void *));
    SIG(void *, gex_TM_QueryCData, (gex_TM_t));
    SIG(void, gex_EP_SetCData, (gex_EP_t, const void *));
    SIG(void *, gex_EP_QueryCData, (gex_EP_t));
    SIG(gex_Flags_t, gex_Client_QueryFlags, (gex_Client_t));
    SIG(const char *, gex_Client_QueryName, (gex_Client_t));
    SIG(int, gex_Client_Init, (gex_Client_t *, gex_EP_t *, gex_TM_t *, const char *, int *,
                               char ***, gex_Flags_t));
    /* segments */
    SIG(gex_Client_t, gex_Segment_QueryClient, (gex_Segment_t));
    SIG(gex_Flags_t, gex_Segment_QueryFlags, (gex_Segment_t));
    SIG(void *, gex_Segment_QueryAddr, (gex_Segment_t));
    SIG(uintptr_t, gex_Segment_QuerySize, (gex_Segment_t));
    SIG(int, gex_Segment_QueryBound, (gex_TM_t, gex_Rank_t, void **, void **, uintptr_t *));
    SIG(gex_Event_t, gex_EP_QueryBoundSegmentNB,
        (gex_TM_t, gex_Rank_t, void **, void **, uintptr_t *, gex_Flags_t));
    SIG(int, gex_Segment_Attach, (gex_Segment_t *, gex_TM_t, uintptr_t));
    SIG(int, gex_Segment_Create, (gex_Segment_t *, gex_Client_t, gex_Addr_t, uintptr_t, gex_MK_t,
                                  gex_Flags_t));
    SIG(void, gex_Segment_Destroy, (gex_Segment_t, gex_Flags_t));
    SIG(uintptr_t, gasnet_getMaxLocalSegmentSize, (void));
    SIG(uintptr_t, gasnet_getMaxGlobalSegmentSize, (void));
    /* teams */
    SIG(gex_Client_t, gex_TM_QueryClient, (gex_TM_t));
    SIG(gex_EP_t, gex_TM_QueryEP, (gex_TM_t));
    SIG(gex_Flags_t, gex_TM_QueryFlags, (gex_TM_t));
    SIG(gex_Rank_t, gex_TM_QueryRank, (gex_TM_t));
    SIG(gex_Rank_t, gex_TM_QuerySize, (gex_TM_t));
    SIG(size_t, gex_TM_Split, (gex_TM_t *, gex_TM_t, int, int, void *, size_t, gex_Flags_t));
    SIG(gex_Rank_t, gex_TM_TranslateRankToJobrank, (gex_TM_t, gex_Rank_t));
    SIG(gex_Rank_t, gex_TM_TranslateJobrankToRank, (gex_TM_t, gex_Rank_t));
    SIG(gex_EP_Location_t, gex_TM_TranslateRankToEP, (gex_TM_t, gex_Rank_t, gex_Flags_t));
    SIG(size_t, gex_TM_Create, (gex_TM_t *, size_t, gex_TM_t, gex_EP_Location_t *, size_t,
                                gex_Addr_t *, size_t, gex_Flags_t));
    SIG(int, gex_TM_Destroy, (gex_TM_t, gex_Memvec_t *, gex_Flags_t));
    SIG(gex_TM_t, gex_TM_Pair, (gex_EP_t, gex_EP_Index_t));
    /* endpoints */
    SIG(gex_Client_t, gex_EP_QueryClient, (gex_EP_t));
    SIG(gex_Flags_t, gex_EP_QueryFlags, (gex_EP_t));
    SIG(gex_Segment_t, gex_EP_QuerySegment, (gex_EP_t));
    SIG(gex_EP_Index_t, gex_EP_QueryIndex, (gex_EP_t));
    SIG(int, gex_EP_PublishBoundSegment, (gex_TM_t, gex_EP_t *, size_t, gex_Flags_t));
    SIG(int, gex_EP_Create, (gex_EP_t *, gex_Client_t, gex_EP_Capabilities_t, gex_Flags_t));
    SIG(int, gex_EP_BindSegment, (gex_EP_t, gex_Segment_t, gex_Flags_t));
    SIG(int, gex_EP_RegisterHandlers, (gex_EP_t, gex_AM_Entry_t *, size_t));
    /* memory kinds */
    SIG(int, gex_MK_Create, (gex_MK_t *, gex_Client_t, const gex_MK_Create_args_t *, gex_Flags_t));
    SIG(void, gex_MK_Destroy, (gex_MK_t, gex_Flags_t));
    SIG(gex_MK_Class_t, gex_MK_QueryClass, (gex_MK_t));
    SIG(gex_Client_t, gex_MK_QueryClient, (gex_MK_t));
    SIG(gex_Flags_t, gex_MK_QueryFlags, (gex_MK_t));
    SIG(void *, gex_MK_QueryCData, (gex_MK_t));
    SIG(void, gex_MK_SetCData, (gex_MK_t, const void *));
    /* AM limits and tokens */
    SIG(unsigned int, gex_AM_MaxArgs, (void));
    SIG(size_t, gex_AM_MaxRequestLong, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t,
                                        unsigned int));
    SIG(size_t, gex_AM_MaxReplyLong, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t,
                                      unsigned int));
    SIG(size_t, gex_AM_MaxRequestMedium, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t,
                                          unsigned int));
    SIG(size_t, gex_AM_MaxReplyMedium, (gex_TM_t, gex_Rank_t, const gex_Event_t *, gex_Flags_t,
                                        unsigned int));
    SIG(size_t, gex_Token_MaxReplyLong, (gex_Token_t, const gex_Event_t *, gex_Flags_t,
                                         unsigned int));
    SIG(size_t, gex_Token_MaxReplyMedium, (gex_Token_t, const gex_Event_t *, gex_Flags_t,
                                           unsigned int));
    SIG(size_t, gex_AM_LUBRequestLong, (void));
    SIG(size_t, gex_AM_LUBReplyLong, (void));
    SIG(size_t, gex_AM_LUBRequestMedium, (void));
    SIG(size_t, gex_AM_LUBReplyMedium, (void));
    SIG(gex_TI_t, gex_Token_Info, (gex_Token_t, gex_Token_Info_t *, gex_TI_t));
    /* negotiated payload */
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareRequestMedium, (gex_TM_t, gex_Rank_t, const void *,
        size_t, size_t, gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareReplyMedium, (gex_Token_t, const void *, size_t, size_t,
        gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareRequestLong, (gex_TM_t, gex_Rank_t, const void *, size_t,
        size_t, void *, gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(gex_AM_SrcDesc_t, gex_AM_PrepareReplyLong, (gex_Token_t, const void *, size_t, size_t,
        void *, gex_Event_t *, gex_Flags_t, unsigned int));
    SIG(void *, gex_AM_SrcDescAddr, (gex_AM_SrcDesc_t));
    SIG(size_t, gex_AM_SrcDescSize, (gex_AM_SrcDesc_t));
    SIG(int, gex_AM_CancelRequestMedium, (gex_AM_SrcDesc_t, gex_Flags_t));
    SIG(int, gex_AM_CancelReplyMedium, (gex_AM_SrcDesc_t, gex_Flags_t));
    SIG(int, gex_AM_CancelRequestLong, (gex_AM_SrcDesc_t, gex_Flags_t));
    SIG(int, gex_AM_CancelReplyLong, (gex_AM_SrcDesc_t, gex_Flags_t));
    /* RMA */
    SIG(int, gex_RMA_PutBlocking, (gex_TM_t, gex_Rank_t, void *, const void *, size_t,
                                   gex_Flags_t));
    SIG(int, gex_RMA_PutNBI, (gex_TM_t, gex_Rank_t, void *, const void *, size_t, gex_Event_t *,
                              gex_Flags_t));
    SIG(gex_Event_t, gex_RMA_PutNB, (gex_TM_t, gex_Rank_t, void *, const void *, size_t,
                                     gex_Event_t *, gex_Flags_t));
    SIG(int, gex_RMA_GetBlocking, (gex_TM_t, void *, gex_Rank_t, void *, size_t, gex_Flags_t));
    SIG(int, gex_RMA_GetNBI, (gex_TM_t, void *, gex_Rank_t, void *, size_t, gex_Flags_t));
    SIG(gex_Event_t, gex_RMA_GetNB, (gex_TM_t, void *, gex_Rank_t, void *, size_t, gex_Flags_t));
    SIG(gex_RMA_Value_t, gex_RMA_GetBlockingVal, (gex_TM_t, gex_Rank_t, void *, size_t,
                                                  gex_Flags_t));
    SIG(int, gex_RMA_PutBlockingVal, (gex_TM_t, gex_Rank_t, void *, gex_RMA_Value_t, size_t,
                                      gex_Flags_t));
    SIG(int, gex_RMA_PutNBIVal, (gex_TM_t, gex_Rank_t, void *, gex_RMA_Value_t, size_t,
                                 gex_Flags_t));
    SIG(gex_Event_t, gex_RMA_PutNBVal, (gex_TM_t, gex_Rank_t, void *, gex_RMA_Value_t, size_t,
                                        gex_Flags_t));
    /* events and NBI */
    SIG(void, gex_NBI_BeginAccessRegion, (gex_Flags_t));
    SIG(gex_Event_t, gex_NBI_EndAccessRegion, (gex_Flags_t));
    SIG(int, gex_Event_Test, (gex_Event_t));
    SIG(void, gex_Event_Wait, (gex_Event_t));
    SIG(int, gex_Event_TestSome, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(void, gex_Event_WaitSome, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(int, gex_Event_TestAll, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(void, gex_Event_WaitAll, (gex_Event_t *, size_t, gex_Flags_t));
    SIG(gex_Event_t, gex_Event_QueryLeaf, (gex_Event_t, gex_EC_t));
    SIG(int, gex_NBI_Test, (gex_EC_t, gex_Flags_t));
    SIG(void, gex_NBI_Wait, (gex_EC_t, gex_Flags_t));
    /* HSL */
    SIG(void, gex_HSL_Init, (gex_HSL_t *));
    SIG(void, gex_HSL_Destroy, (gex_HSL_t *));
    SIG(void, gex_HSL_Lock, (gex_HSL_t *));
    SIG(void, gex_HSL_Unlock, (gex_HSL_t *));
    SIG(int, gex_HSL_Trylock, (gex_HSL_t *));
    /* atomics */
    SIG(void, gex_AD_Create, (gex_AD_t *, gex_TM_t, gex_DT_t, gex_OP_t, gex_Flags_t));
    SIG(void, gex_AD_Destroy, (gex_AD_t));
    SIG(gex_Flags_t, gex_AD_QueryFlags, (gex_AD_t));
    SIG(gex_TM_t, gex_AD_QueryTM, (gex_AD_t));
    SIG(gex_DT_t, gex_AD_QueryDT, (gex_AD_t));
    SIG(gex_OP_t, gex_AD_QueryOps, (gex_AD_t));
    SIG(void, gex_AD_SetCData, (gex_AD_t, const void *));
    SIG(void *, gex_AD_QueryCData, (gex_AD_t));
#define AD_SIGS(DT, T)                                                                      \
    SIG(gex_Event_t, gex_AD_OpNB_##DT, (gex_AD_t, T *, gex_Rank_t, void *, gex_OP_t, T, T,  \
                                        gex_Flags_t));                                      \
    SIG(int, gex_AD_OpNBI_##DT, (gex_AD_t, T *, gex_Rank_t, void *, gex_OP_t, T, T, gex_Flags_t));
    AD_SIGS(I32, int32_t)
    AD_SIGS(U32, uint32_t)
    AD_SIGS(I64, int64_t)
    AD_SIGS(U64, uint64_t)
    AD_SIGS(FLT, float)
    AD_SIGS(DBL, double)
    /* VIS */
#define VIS_SIGS(F, R)                                                                          \
    SIG(R, gex_VIS_VectorGet##F, (gex_TM_t, size_t, gex_Memvec_t const[], gex_Rank_t, size_t,   \
                                  gex_Memvec_t const[], gex_Flags_t));                          \
    SIG(R, gex_VIS_VectorPut##F, (gex_TM_t, gex_Rank_t, size_t, gex_Memvec_t const[], size_t,   \
                                  gex_Memvec_t const[], gex_Flags_t));                          \
    SIG(R, gex_VIS_IndexedGet##F, (gex_TM_t, size_t, void *const[], size_t, gex_Rank_t, size_t, \
                                   void *const[], size_t, gex_Flags_t));                        \
    SIG(R, gex_VIS_IndexedPut##F, (gex_TM_t, gex_Rank_t, size_t, void *const[], size_t, size_t, \
                                   void *const[], size_t, gex_Flags_t));                        \
    SIG(R, gex_VIS_StridedGet##F, (gex_TM_t, void *, const ptrdiff_t[], gex_Rank_t, void *,     \
                                   const ptrdiff_t[], size_t, const size_t[], size_t,           \
                                   gex_Flags_t));                                               \
    SIG(R, gex_VIS_StridedPut##F, (gex_TM_t, gex_Rank_t, void *, const ptrdiff_t[], void *,     \
                                   const ptrdiff_t[], size_t, const size_t[], size_t,           \
                                   gex_Flags_t));
    VIS_SIGS(NB, gex_Event_t)
    VIS_SIGS(NBI, int)
    VIS_SIGS(Blocking, int)
    SIG(void, gex_VIS_SetPeerCompletionHandler, (gex_AM_Index_t, const void *, size_t,
                                                 gex_Flags_t));
    /* collectives */
    SIG(gex_Event_t, gex_Coll_BarrierNB, (gex_TM_t, gex_Flags_t));
    SIG(void, gex_Coll_BarrierBlocking, (gex_TM_t, gex_Flags_t));
    SIG(gex_Event_t, gex_Coll_BroadcastNB, (gex_TM_t, gex_Rank_t, void *, const void *, size_t,
                                            gex_Flags_t));
    SIG(gex_Event_t, gex_Coll_ReduceToOneNB, (gex_TM_t, gex_Rank_t, void *, const void *,
        gex_DT_t, size_t, size_t, gex_OP_t, gex_Coll_ReduceFn_t, void *, gex_Flags_t));
    SIG(gex_Event_t, gex_Coll_ReduceToAllNB, (gex_TM_t, void *, const void *, gex_DT_t, size_t,
        size_t, gex_OP_t, gex_Coll_ReduceFn_t, void *, gex_Flags_t));
    /* GASNet-1 names the EX spec keeps in gasnetex.h */
    SIG(const char *, gasnet_ErrorName, (int));
    SIG(const char *, gasnet_ErrorDesc, (int));
    SIG(int, gasnet_AMPoll, (void));
    SIG(gex_Rank_t, gasnet_mynode, (void));
    SIG(gex_Rank_t, gasnet_nodes, (void));
    { void (*p)(int) = &gasnet_exit; fns[nfns++] = (any_fn)p; }
    /* ... and the GASNet-1 names EX programs and GASNet's test harness take from it */
    SIG(void, gasnet_barrier_notify, (int, int));
    SIG(int, gasnet_barrier_wait, (int, int));
    SIG(int, gasnet_barrier_try, (int, int));
    SIG(int, gasnet_barrier, (int, int));
    SIG(int, gasnet_barrier_result, (int *));
    SIG(char *, gasnet_getenv, (const char *));
    SIG(int, gasnet_set_waitmode, (int));
    {
        GASNET_BEGIN_FUNCTION();
        gasnet_threadinfo_t ti = GASNET_GET_THREADINFO(), other = NULL;
        GASNET_POST_THREADINFO(ti);
        pthread_t th;
        RVT_CHECK(pthread_create(&th, NULL, threadinfo_of_thread, &other) == 0 &&
                  pthread_join(th, NULL) == 0, "pthread_create failed");
        RVT_CHECK(ti && ti == GASNET_GET_THREADINFO() && other && other != ti,
                  "GASNET_GET_THREADINFO: %p, again %p, another thread %p", ti,
                  GASNET_GET_THREADINFO(), other);
        char line[256];
        snprintf(line, sizeof line, "%" PRIuSZ " %s %s", (size_t)SIZEOF_INT, GASNET_CORE_NAME_STR,
                 GASNET_CONFIG_STRING);
        RVT_CHECK(SIZEOF_INT == sizeof(int) && SIZEOF_VOID_P == sizeof(void *) &&
                  SIZEOF_LONG == sizeof(long) && SIZEOF_SIZE_T == sizeof(size_t) &&
                  INT_MAX > 0 && line[0] == '4',
                  "configuration names: %s", line);
        RVT_CHECK(MIN(3, 7) == 3 && MAX(3, 7) == 7 && MIN(-1.5, 2.0) == -1.5,
                  "MIN / MAX (clients such as Caffeine use them from gasnetex.h)");
        RVT_CHECK(GASNET_WAIT_SPIN != GASNET_WAIT_BLOCK && GASNET_WAIT_BLOCK != GASNET_WAIT_SPINBLOCK &&
                  (GASNET_BARRIERFLAG_UNNAMED & GASNET_BARRIERFLAG_ANONYMOUS),
                  "GASNET_WAIT_* / GASNET_BARRIERFLAG_UNNAMED");
    }
    {   /* gasnet_hsl_* may be macros or functions: usable as calls on gasnet_hsl_t */
        gasnet_hsl_t l;
        gasnet_hsl_init(&l);
        gasnet_hsl_lock(&l);
        gasnet_hsl_unlock(&l);
        RVT_CHECK(gasnet_hsl_trylock(&l) == 0, "gasnet_hsl_trylock on a free lock failed");
        gasnet_hsl_unlock(&l);
        gasnet_hsl_destroy(&l);
    }
    { int (*p)(gex_TM_t, gex_Token_t, void *, gex_Event_t *) = &am_forms_compile;
      fns[nfns++] = (any_fn)p; }
    for (size_t i = 0; i < nfns; i++) RVT_CHECK(fns[i] != NULL, "function %zu is NULL", i);
}

/* The AM injection forms are macros: this function (never run, only compiled and referenced)
 * uses every family with 0 and 16 arguments and in the count-free variadic form. */
#define A16 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
#define CALL(m, ...) m(__VA_ARGS__) /* expands A16 before m sees its arguments */
static int am_forms_compile(gex_TM_t tm, gex_Token_t t, void *p, gex_Event_t *lc)
{
    int rc = 0;
    rc |= gex_AM_RequestShort0(tm, 0, 200, 0) | CALL(gex_AM_RequestShort16, tm, 0, 200, 0, A16) |
          gex_AM_RequestShort(tm, 0, 200, 0) | CALL(gex_AM_RequestShort, tm, 0, 200, 0, A16);
    rc |= gex_AM_RequestMedium0(tm, 0, 200, p, 8, lc, 0) |
          CALL(gex_AM_RequestMedium16, tm, 0, 200, p, 8, GEX_EVENT_GROUP, 0, A16) |
          CALL(gex_AM_RequestMedium, tm, 0, 200, p, 8, GEX_EVENT_NOW, 0, A16);
    rc |= gex_AM_RequestLong0(tm, 0, 200, p, 8, p, lc, 0) |
          CALL(gex_AM_RequestLong16, tm, 0, 200, p, 8, p, GEX_EVENT_NOW, 0, A16) |
          gex_AM_RequestLong(tm, 0, 200, p, 8, p, GEX_EVENT_NOW, 0, 1);
    rc |= gex_AM_ReplyShort0(t, 200, 0) | CALL(gex_AM_ReplyShort16, t, 200, 0, A16) |
          gex_AM_ReplyShort(t, 200, 0, 1, 2);
    rc |= gex_AM_ReplyMedium0(t, 200, p, 8, GEX_EVENT_NOW, 0) |
          CALL(gex_AM_ReplyMedium16, t, 200, p, 8, lc, 0, A16) | gex_AM_ReplyMedium(t, 200, p, 8, lc, 0);
    rc |= gex_AM_ReplyLong0(t, 200, p, 8, p, GEX_EVENT_NOW, 0) |
          CALL(gex_AM_ReplyLong16, t, 200, p, 8, p, lc, 0, A16) | gex_AM_ReplyLong(t, 200, p, 8, p, lc, 0, 3);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 16);
    CALL(gex_AM_CommitRequestMedium16, sd, 200, 8, A16);
    gex_AM_CommitRequestMedium0(sd, 200, 8);
    gex_AM_CommitRequestMedium(sd, 200, 8, 1);
    rc |= CALL(gex_AM_CommitRequestMedium16_v2, sd, 200, 8, 0, A16) |
          gex_AM_CommitRequestMedium_v2(sd, 200, 8, GEX_FLAG_IMMEDIATE, 1, 2);
    sd = gex_AM_PrepareRequestLong(tm, 0, p, 8, 8, p, lc, 0, 0);
    gex_AM_CommitRequestLong0(sd, 200, 8, p);
    CALL(gex_AM_CommitRequestLong16, sd, 200, 8, p, A16);
    gex_AM_CommitRequestLong(sd, 200, 8, p, 1);
    rc |= gex_AM_CommitRequestLong0_v2(sd, 200, 8, p, 0) |
          CALL(gex_AM_CommitRequestLong_v2, sd, 200, 8, p, 0, A16);
    sd = gex_AM_PrepareReplyMedium(t, NULL, 8, 8, NULL, 0, 0);
    gex_AM_CommitReplyMedium0(sd, 200, 8);
    CALL(gex_AM_CommitReplyMedium16, sd, 200, 8, A16);
    rc |= gex_AM_CommitReplyMedium_v2(sd, 200, 8, 0, 1);
    sd = gex_AM_PrepareReplyLong(t, p, 8, 8, p, GEX_EVENT_NOW, 0, 0);
    gex_AM_CommitReplyLong0(sd, 200, 8, p);
    CALL(gex_AM_CommitReplyLong, sd, 200, 8, p, A16);
    rc |= CALL(gex_AM_CommitReplyLong16_v2, sd, 200, 8, p, 0, A16);
    rc |= gex_AM_CancelRequestMedium(sd, 0) | gex_AM_CancelReplyMedium(sd, 0) |
          gex_AM_CancelRequestLong(sd, 0) | gex_AM_CancelReplyLong(sd, 0);
    return rc;
}

/* ---- AM handlers -------------------------------------------------------------------------- */
enum { H_SHORT = GEX_AM_INDEX_BASE, H_MED, H_LONG, H_PC, H_REPLY };
static volatile unsigned got_short, got_med, got_long, got_reply, got_pc;
static gex_AM_Arg_t short_sum;
static uint8_t pc_payload[4][GEX_VIS_MAX_PEERCOMPLETION];
static size_t pc_len[4];

static void h_short(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                    gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6,
                    gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10,
                    gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13, gex_AM_Arg_t a14,
                    gex_AM_Arg_t a15)
{
    gex_Token_Info_t ti;
    gex_TI_t got = gex_Token_Info(t, &ti, GEX_TI_ALL);
    RVT_CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP),
              "gex_Token_Info lacks the required SRCRANK|EP (0x%x)", (unsigned)got);
    RVT_CHECK(ti.gex_ep == rvt_ep, "gex_Token_Info: gex_ep is not this rank's endpoint");
    if (got & GEX_TI_IS_REQ) RVT_CHECK(ti.gex_is_req == 1, "gex_is_req %d", (int)ti.gex_is_req);
    if (got & GEX_TI_IS_LONG) RVT_CHECK(ti.gex_is_long == 0, "gex_is_long %d", (int)ti.gex_is_long);
    if (got & GEX_TI_ENTRY)
        RVT_CHECK(ti.gex_entry && ti.gex_entry->gex_index == H_SHORT && ti.gex_entry->gex_nargs == 16,
                  "gex_Token_Info: gex_entry does not describe this handler");
    RVT_CHECK(gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 0) >= 512 &&
              gex_Token_MaxReplyLong(t, GEX_EVENT_NOW, 0, 0) >= 512,
              "gex_Token_MaxReply* below 512");
    short_sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15;
    got_short++;
    RVT_OK(gex_AM_ReplyShort(t, H_REPLY, 0, (gex_AM_Arg_t)short_sum));
}

static void h_med(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed)
{
    (void)t;
    RVT_VERIFY(buf, nb, (uint64_t)seed, "AM Medium payload");
    got_med++;
}

static void h_long(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed, gex_AM_Arg_t a1)
{
    (void)t;
    RVT_CHECK(a1 == -7, "AM Long second argument %d", (int)a1);
    RVT_VERIFY(buf, nb, (uint64_t)seed, "AM Long payload");
    got_long++;
}

static void h_reply(gex_Token_t t, gex_AM_Arg_t sum)
{
    gex_Token_Info_t ti;
    gex_TI_t got = gex_Token_Info(t, &ti, GEX_TI_IS_REQ);
    if (got & GEX_TI_IS_REQ) RVT_CHECK(ti.gex_is_req == 0, "reply: gex_is_req %d", (int)ti.gex_is_req);
    RVT_CHECK(sum == 136, "reply carried %d, expected 1+...+16 = 136", (int)sum);
    got_reply++;
}

/* The VIS peer completion notification: a 0-argument Medium Reply. The payload's first byte
 * is the sequence number of the Put it announces. */
static void h_pc(gex_Token_t t, void *buf, size_t nb)
{
    (void)t;
    RVT_CHECK(nb >= 1 && nb <= GEX_VIS_MAX_PEERCOMPLETION, "peer completion payload %zu", nb);
    unsigned seq = ((uint8_t *)buf)[0];
    RVT_CHECK(seq < 4 && seq == got_pc, "peer completion %u arrived as number %u", seq, got_pc);
    memcpy(pc_payload[seq], buf, nb);
    pc_len[seq] = nb;
    got_pc++;
}

static gex_AM_Entry_t htable[] = {
    { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 16, NULL, "short" },
    { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQREP, 1, NULL, "med" },
    { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 2, NULL, "long" },
    { H_PC, (gex_AM_Fn_t)h_pc, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "peer-compl" },
    { H_REPLY, (gex_AM_Fn_t)h_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "reply" },
};

/* ---- checks ------------------------------------------------------------------------------- */
static gex_RMA_Value_t value_return(const void *src, size_t nb)
{
    GASNETT_VALUE_RETURN(src, nb);
}

static void check_constants(void)
{
    RVT_CHECK(ev_consts[0] == GEX_EVENT_INVALID && ev_consts[0] == 0 && ev_consts[1] != 0 &&
              ev_consts[2] == GEX_EVENT_INVALID, "GEX_EVENT_INVALID is 0, GEX_EVENT_NO_OP is not");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < i; j++)
            RVT_CHECK(lc_consts[i] != lc_consts[j] && lc_consts[i] != NULL,
                      "GEX_EVENT_NOW/DEFER/GROUP must be distinct non-NULL pointers");
    RVT_CHECK(rank_invalid == GEX_RANK_INVALID && rank_invalid >= rvt_n, "GEX_RANK_INVALID");
    RVT_CHECK(!inv_client && !inv_ep && !inv_tm && !inv_seg && !inv_ad && !inv_sd &&
              mk_consts[0] == 0 && mk_consts[1] != 0, "the *_INVALID constants are zero");
    RVT_CHECK(gex_HSL_Trylock(&static_hsl) == 0, "a GEX_HSL_INITIALIZER lock is not free");
    gex_HSL_Unlock(&static_hsl);
    gasnet_hsl_lock(&static_hsl1);
    gasnet_hsl_unlock(&static_hsl1);

    DISJOINT(p2p_flags);
    DISJOINT(ad_create_flags);
    DISJOINT(tm_flags);
    DISJOINT(client_flags);
    RVT_CHECK(GEX_FLAG_HINT_ACCEL_ALL == (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL) &&
              misc_flags[0] != 0, "GEX_FLAG_HINT_ACCEL_ALL");
    DISJOINT(am_cat);
    DISJOINT(am_rr);
    RVT_CHECK(GEX_FLAG_AM_MEDLONG == (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG) &&
              GEX_FLAG_AM_REQREP == (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY),
              "GEX_FLAG_AM_MEDLONG / REQREP");
    uint64_t c = DISJOINT(caps);
    RVT_CHECK((GEX_EP_CAPABILITY_ALL & c) == c, "GEX_EP_CAPABILITY_ALL lacks a capability");
    uint64_t t = DISJOINT(tis);
    RVT_CHECK(GEX_TI_ALL == t, "GEX_TI_ALL is 0x%x, the OR of the others 0x%" PRIx64,
              (unsigned)GEX_TI_ALL, t);
    uint64_t e = DISJOINT(ecs);
    RVT_CHECK((GEX_EC_ALL & e) == e, "GEX_EC_ALL lacks a category");
    DISJOINT(dts);
    DISJOINT(ops);
    DISJOINT(thread_roles);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            RVT_CHECK(mk_classes[i] != mk_classes[j], "GEX_MK_CLASS_* values collide");
    RVT_CHECK(errs[0] == 0, "GASNET_OK is 0");
    for (size_t i = 1; i < N_OF(errs); i++) {
        RVT_CHECK(errs[i] != 0, "error code %zu is 0", i);
        RVT_CHECK(gasnet_ErrorName(errs[i]) && gasnet_ErrorDesc(errs[i]), "error names");
    }
    /* Opcode conversion, as documented. */
    static const gex_OP_t nf[] = { GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX, GEX_OP_SUB,
                                   GEX_OP_INC, GEX_OP_DEC, GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR,
                                   GEX_OP_SET, GEX_OP_CAS };
    static const gex_OP_t fe[] = { GEX_OP_FADD, GEX_OP_FMULT, GEX_OP_FMIN, GEX_OP_FMAX,
                                   GEX_OP_FSUB, GEX_OP_FINC, GEX_OP_FDEC, GEX_OP_FAND,
                                   GEX_OP_FOR, GEX_OP_FXOR, GEX_OP_SWAP, GEX_OP_FCAS };
    for (size_t i = 0; i < N_OF(nf); i++) {
        RVT_CHECK(GEX_OP_TO_FETCHING(nf[i]) == fe[i], "GEX_OP_TO_FETCHING(op %zu)", i);
        RVT_CHECK(GEX_OP_TO_NONFETCHING(fe[i]) == nf[i], "GEX_OP_TO_NONFETCHING(op %zu)", i);
    }
    RVT_CHECK(GEX_OP_CSWAP == GEX_OP_FCAS, "GEX_OP_CSWAP is an alias of GEX_OP_FCAS");
    /* the constants keep their typedef's type (unsigned, 32 bits) */
    _Static_assert(_Generic(GEX_FLAG_IMMEDIATE, unsigned int: 1, default: 0) &&
                   _Generic(GEX_DT_I32, unsigned int: 1, default: 0) &&
                   _Generic(GEX_OP_ADD, unsigned int: 1, default: 0) &&
                   _Generic(GEX_TI_ALL, unsigned int: 1, default: 0) &&
                   _Generic(GEX_EC_ALL, unsigned int: 1, default: 0) &&
                   _Generic(GEX_EP_CAPABILITY_ALL, unsigned int: 1, default: 0),
                   "flag and code constants are unsigned int, as gex_Flags_t/DT/OP/TI/EC");
    /* gasnet_seginfo_t comes with gasnetex.h (no gasnet.h here) */
    gasnet_seginfo_t si = { rvt_seg_addr(rvt_me, 0), 16 * GASNET_PAGESIZE };
    RVT_CHECK(si.addr == gex_Segment_QueryAddr(rvt_seg) && si.size == gex_Segment_QuerySize(rvt_seg),
              "gasnet_seginfo_t");
    /* the configuration string names the release, the spec and this program's conduit */
    RVT_CHECK(strstr(GASNET_CONFIG_STRING, "RELEASE=2025.8.0,SPEC=0.19,CONDUIT=RIVET(") != NULL,
              "GASNET_CONFIG_STRING is '%s'", GASNET_CONFIG_STRING);
    RVT_CHECK(!strcmp(GASNET_CONDUIT_NAME_STR, "RIVET") && !strcmp(GASNET_CORE_NAME_STR, "RIVET"),
              "a client built without a conduit's flags is RIVET");
    /* the formatters of gex_DT_t / gex_OP_t / gex_TI_t: size with NULL, then the text */
    char buf[512];
    size_t need = gasnett_format_dt(NULL, GEX_DT_I32 | GEX_DT_USER);
    RVT_CHECK(need == sizeof "GEX_DT_I32|GEX_DT_USER" && gasnett_format_dt(buf, GEX_DT_I32 | GEX_DT_USER)
              == need && !strcmp(buf, "GEX_DT_I32|GEX_DT_USER"), "gasnett_format_dt: '%s'", buf);
    RVT_CHECK(gasnett_format_op(buf, GEX_OP_ADD | GEX_OP_FCAS | GEX_OP_USER_NC) ==
              sizeof "GEX_OP_ADD|GEX_OP_FCAS|GEX_OP_USER_NC" &&
              !strcmp(buf, "GEX_OP_ADD|GEX_OP_FCAS|GEX_OP_USER_NC"), "gasnett_format_op: '%s'", buf);
    RVT_CHECK(gasnett_format_ti(buf, GEX_TI_ALL) == 1 + strlen(buf) &&
              !strcmp(buf, "GEX_TI_SRCRANK|GEX_TI_EP|GEX_TI_ENTRY|GEX_TI_IS_REQ|GEX_TI_IS_LONG"),
              "gasnett_format_ti: '%s'", buf);
    RVT_CHECK(gasnett_format_ti(buf, 0) == sizeof "(empty)" && !strcmp(buf, "(empty)"),
              "gasnett_format_ti(0): '%s'", buf);
    RVT_CHECK(gasnett_format_dt(buf, 0x80000000u) == sizeof "(invalid)" && !strcmp(buf, "(invalid)"),
              "gasnett_format_dt(unknown bit): '%s'", buf);
    /* the VIS formatters: one line within the _bufsz budget, returning the bytes moved */
    char *a = rvt_seg_addr(rvt_me, 0);
    gex_Memvec_t mv[2] = { { a, 10 }, { a + 64, 6 } };
    RVT_CHECK(gasnett_format_putvgetv(buf, rvt_tm, 1, 2, mv, 1, mv) == 16 &&
              strlen(buf) < gasnett_format_putvgetv_bufsz(2, 1) && strstr(buf, "rank=1") &&
              strstr(buf, "2 entries, 16 bytes") && strstr(buf, "1 entries, 10 bytes"),
              "gasnett_format_putvgetv: '%s'", buf);
    gasnett_format_memveclist(buf, 2, mv);
    RVT_CHECK(strlen(buf) < gasnett_format_memveclist_bufsz(2) && strstr(buf, "2 entries, 16 bytes"),
              "gasnett_format_memveclist: '%s'", buf);
    void *al[3] = { a, a + 8, a + 16 };
    RVT_CHECK(gasnett_format_putigeti(buf, rvt_tm, 0, 3, al, 8, 1, al, 24) == 24 &&
              strlen(buf) < gasnett_format_putigeti_bufsz(3, 1) && strstr(buf, "3 entries of 8 bytes") &&
              strstr(buf, "1 entries of 24 bytes"), "gasnett_format_putigeti: '%s'", buf);
    ptrdiff_t st[3] = { 8, -64, 4096 };
    gasnett_format_strides(buf, 3, st);
    RVT_CHECK(!strcmp(buf, "[8,-64,4096]") && strlen(buf) < gasnett_format_strides_bufsz(3),
              "gasnett_format_strides: '%s'", buf);
    size_t cnt[2] = { 4, 5 };
    ptrdiff_t ds[2] = { 8, 32 }, ss[2] = { 8, 64 };
    RVT_CHECK(gasnett_format_putsgets(buf, NULL, rvt_tm, 0, a, ds, a + 1024, ss, 8, cnt, 2) == 160 &&
              strlen(buf) < gasnett_format_putsgets_bufsz(2) && strstr(buf, "elemsz=8") &&
              strstr(buf, "dststrides=[8,32]") && strstr(buf, "srcstrides=[8,64]") &&
              strstr(buf, "count=[4,5]"), "gasnett_format_putsgets: '%s'", buf);
    /* GASNETT_VALUE_ASSIGN / _RETURN: the low nbytes of a value as an nbytes integer */
    for (size_t nb = 1; nb <= 8; nb++) {
        uint8_t out[8] = { 0 };
        uint64_t v = 0x1122334455667788ull;
        GASNETT_VALUE_ASSIGN(out, v, nb);
        uint64_t want = nb == 8 ? v : v & ((1ull << (8 * nb)) - 1), got = 0;
        memcpy(&got, out, nb); /* little-endian host */
        RVT_CHECK(got == want, "GASNETT_VALUE_ASSIGN(%zu bytes): 0x%" PRIx64, nb, got);
        RVT_CHECK(value_return(out, nb) == want, "GASNETT_VALUE_RETURN(%zu bytes)", nb);
    }
    uint32_t fs = 7, fd = 0;
    GASNETT_FAST_ALIGNED_MEMCPY(&fd, &fs, sizeof fd);
    RVT_CHECK(fd == 7, "GASNETT_FAST_ALIGNED_MEMCPY");
    fd = 0;
    GASNETT_FAST_UNALIGNED_MEMCPY(&fd, &fs, sizeof fd);
    RVT_CHECK(fd == 7, "GASNETT_FAST_UNALIGNED_MEMCPY");
}

static void check_queries(void)
{
    RVT_CHECK(gex_System_QueryJobRank() == rvt_me && gex_System_QueryJobSize() == rvt_n &&
              gasnet_mynode() == rvt_me && gasnet_nodes() == rvt_n, "job rank/size");
    RVT_CHECK(gex_System_QueryHiddenAMConcurrencyLevel() == GASNET_HIDDEN_AM_CONCURRENCY_LEVEL,
              "gex_System_QueryHiddenAMConcurrencyLevel() %d != GASNET_HIDDEN_AM_CONCURRENCY_LEVEL",
              gex_System_QueryHiddenAMConcurrencyLevel());
    RVT_CHECK(gex_System_QueryMaxThreads() >= 1, "gex_System_QueryMaxThreads");
    RVT_CHECK(gex_System_QueryMaxThreads() == GASNETI_MAX_THREADS,
              "GASNETI_MAX_THREADS (%d) is not gex_System_QueryMaxThreads()", GASNETI_MAX_THREADS);
    unsigned cnt = 99;
    const gex_ProgressThreadInfo_t *pti = (const gex_ProgressThreadInfo_t *)&cnt;
    gex_System_SetVerboseErrors(0);
    RVT_CHECK(gex_System_QueryProgressThreads(rvt_client, &cnt, &pti, 0) == GASNET_ERR_RESOURCE,
              "progress threads queried without GEX_FLAG_DEFER_THREADS (core_progthr has more)");
    gex_System_SetVerboseErrors(1);
    gex_RankInfo_t *ni;
    gex_Rank_t nn, nidx;
    gex_System_QueryNbrhdInfo(&ni, &nn, &nidx);
    RVT_CHECK(nn >= 1 && nidx < nn && ni[nidx].gex_jobrank == rvt_me, "gex_System_QueryNbrhdInfo");
    gex_System_QueryHostInfo(&ni, &nn, &nidx);
    RVT_CHECK(nn >= 1 && nidx < nn && ni[nidx].gex_jobrank == rvt_me, "gex_System_QueryHostInfo");

    RVT_CHECK(!strcmp(gex_Client_QueryName(rvt_client), "CORE_SPEC_NAMES") &&
              gex_Client_QueryFlags(rvt_client) == 0, "client name/flags");
    RVT_CHECK(gex_EP_QueryClient(rvt_ep) == rvt_client && gex_TM_QueryClient(rvt_tm) == rvt_client &&
              gex_TM_QueryEP(rvt_tm) == rvt_ep && gex_EP_QueryIndex(rvt_ep) == 0,
              "object links (the primordial endpoint has index 0)");
    RVT_CHECK(gex_TM_QueryRank(rvt_tm) == rvt_me && gex_TM_QuerySize(rvt_tm) == rvt_n, "tm rank/size");
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        RVT_CHECK(gex_TM_TranslateRankToJobrank(rvt_tm, r) == r &&
                  gex_TM_TranslateJobrankToRank(rvt_tm, r) == r, "rank translation %u", (unsigned)r);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(rvt_tm, r, 0);
        RVT_CHECK(loc.gex_rank == r && loc.gex_ep_index == 0, "gex_TM_TranslateRankToEP(%u)",
                  (unsigned)r);
    }
    RVT_CHECK(gex_AM_MaxArgs() >= 16, "gex_AM_MaxArgs() %u < 16", gex_AM_MaxArgs());
    size_t lub[4] = { gex_AM_LUBRequestMedium(), gex_AM_LUBReplyMedium(),
                      gex_AM_LUBRequestLong(), gex_AM_LUBReplyLong() };
    for (gex_Rank_t r = 0; r <= rvt_n; r++) {
        gex_Rank_t q = r == rvt_n ? GEX_RANK_INVALID : r;
        size_t mx[4] = { gex_AM_MaxRequestMedium(rvt_tm, q, GEX_EVENT_NOW, 0, 16),
                         gex_AM_MaxReplyMedium(rvt_tm, q, GEX_EVENT_NOW, 0, 16),
                         gex_AM_MaxRequestLong(rvt_tm, q, GEX_EVENT_NOW, 0, 16),
                         gex_AM_MaxReplyLong(rvt_tm, q, GEX_EVENT_NOW, 0, 16) };
        for (int i = 0; i < 4; i++)
            RVT_CHECK(lub[i] >= 512 && mx[i] >= lub[i], "AM limit %d: LUB %zu, Max %zu (rank %u)",
                      i, lub[i], mx[i], (unsigned)q);
    }
    int v = gex_System_GetVerboseErrors();
    gex_System_SetVerboseErrors(0);
    RVT_CHECK(gex_System_GetVerboseErrors() == 0, "SetVerboseErrors(0)");
    gex_System_SetVerboseErrors(v);
    RVT_CHECK(gex_System_GetVerboseErrors() == v, "SetVerboseErrors(%d)", v);
}

static int cnt_marker;

/* Multi-EP, memory kinds: the queries and argument checks (tests/core/core_multiep.c has the rest). */
static void check_multiep(void)
{
    gex_System_SetVerboseErrors(0);
    gex_MK_Create_args_t args;
    memset(&args, 0, sizeof args);
    args.gex_class = GEX_MK_CLASS_HOST;
    gex_MK_t mk = GEX_MK_INVALID;
    RVT_OK(gex_MK_Create(&mk, rvt_client, &args, 0));
    RVT_CHECK(mk == GEX_MK_HOST, "GEX_MK_CLASS_HOST did not yield GEX_MK_HOST");
    static const gex_MK_Class_t dev[] = { GEX_MK_CLASS_CUDA_UVA, GEX_MK_CLASS_HIP, GEX_MK_CLASS_ZE };
    for (size_t i = 0; i < N_OF(dev); i++) {
        gex_MK_t d = GEX_MK_INVALID;
        args.gex_class = dev[i];
        int rc = gex_MK_Create(&d, rvt_client, &args, 0);
        RVT_CHECK(rc == GASNET_ERR_BAD_ARG && d == GEX_MK_INVALID,
                  "gex_MK_Create(device class %d) returned %d", (int)dev[i], rc);
    }
    args.gex_class = GEX_MK_CLASS_HOST;
    args.gex_flags = 1;
    RVT_CHECK(gex_MK_Create(&mk, rvt_client, &args, 0) == GASNET_ERR_BAD_ARG, "args.gex_flags != 0");

    /* Segments over GASNet-allocated and client memory. */
    gex_Segment_t s1, s2;
    RVT_OK(gex_Segment_Create(&s1, rvt_client, NULL, 3 * GASNET_PAGESIZE + 5, mk, 0));
    char *a1 = gex_Segment_QueryAddr(s1);
    RVT_CHECK(a1 && ((uintptr_t)a1 % GASNET_PAGESIZE) == 0 &&
              gex_Segment_QuerySize(s1) == 3 * GASNET_PAGESIZE + 5 &&
              gex_Segment_QueryClient(s1) == rvt_client && gex_Segment_QueryFlags(s1) == 0 &&
              gex_Segment_QueryCData(s1) == NULL, "gex_Segment_Create(NULL) queries");
    rvt_fill(a1, 3 * GASNET_PAGESIZE + 5, 77);
    RVT_VERIFY(a1, 3 * GASNET_PAGESIZE + 5, 77, "created segment memory");
    gex_Segment_SetCData(s1, &cnt_marker);
    RVT_CHECK(gex_Segment_QueryCData(s1) == &cnt_marker, "segment CData");
    static double buf[100];
    RVT_OK(gex_Segment_Create(&s2, rvt_client, buf, sizeof buf, GEX_MK_HOST, 0));
    RVT_CHECK(gex_Segment_QueryAddr(s2) == (void *)buf && gex_Segment_QuerySize(s2) == sizeof buf,
              "gex_Segment_Create(client memory) queries");
    RVT_CHECK(gex_Segment_Create(&s2, rvt_client, buf, 0, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG,
              "gex_Segment_Create with length 0");
    RVT_CHECK(gex_Segment_Create(&s2, rvt_client, buf, 8, (gex_MK_t)&buf, 0) == GASNET_ERR_BAD_ARG,
              "gex_Segment_Create with a kind that is not one");
    gex_Segment_Destroy(s1, 0);
    gex_Segment_Destroy(s2, 0);
    gex_MK_Destroy(mk, 0);

    gex_EP_t ep2 = GEX_EP_INVALID;
    int rc = gex_EP_Create(&ep2, rvt_client, GEX_EP_CAPABILITY_RMA, GEX_FLAG_HINT_ACCEL_ALL);
    RVT_CHECK(GASNET_MAXEPS > 1 ? rc == GASNET_OK : rc == GASNET_ERR_RESOURCE,
              "gex_EP_Create returned %d with GASNET_MAXEPS=%d", rc, GASNET_MAXEPS);
    RVT_CHECK(gex_EP_Create(&ep2, rvt_client, 0, 0) == GASNET_ERR_BAD_ARG,
              "gex_EP_Create with no capabilities");
    RVT_CHECK(gex_EP_QueryIndex(ep2) == 1 && gex_EP_QuerySegment(ep2) == GEX_SEGMENT_INVALID,
              "a new endpoint's index and segment");
    gex_EP_Destroy(ep2, 0);
    gex_System_SetVerboseErrors(1);

    /* Publishing the primordial endpoint again changes nothing. */
    gex_EP_t eps[1] = { rvt_ep };
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, eps, 1, 0));
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, NULL, 0, 0));
    /* re-binding the attached segment: allowed, no effect */
    RVT_CHECK(gex_EP_BindSegment(rvt_ep, rvt_seg, 0) == GASNET_OK, "re-binding the attached segment");
    RVT_CHECK(gex_EP_QuerySegment(rvt_ep) == rvt_seg, "the bound segment changed");
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        void *owner = NULL;
        uintptr_t sz = 0;
        RVT_OK(gex_Segment_QueryBound(gex_TM_Pair(rvt_ep, 0), r, &owner, NULL, &sz));
        RVT_CHECK(owner == rvt_seg_addr(r, 0) && sz >= 16 * GASNET_PAGESIZE,
                  "QueryBound through gex_TM_Pair(ep, 0) for rank %u", (unsigned)r);
    }
}

/* AM forms with and without the argument count, at 0 and 16 arguments. */
static void check_am(void)
{
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    uint8_t pay[600];
    rvt_fill(pay, sizeof pay, 1000 + rvt_me);
    RVT_OK(gex_AM_RequestShort16(rvt_tm, peer, H_SHORT, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                 13, 14, 15, 16));
    RVT_OK(gex_AM_RequestShort(rvt_tm, peer, H_SHORT, 0, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                               5, 4, 3, 2, 1));
    RVT_OK(gex_AM_RequestMedium1(rvt_tm, peer, H_MED, pay, sizeof pay, GEX_EVENT_NOW, 0,
                                 1000 + (int)rvt_me));
    gex_Event_t lc;
    RVT_OK(gex_AM_RequestMedium(rvt_tm, peer, H_MED, pay, sizeof pay, &lc, 0, 1000 + (int)rvt_me));
    gex_Event_Wait(lc);
    void *dst = rvt_seg_addr(peer, 0);
    RVT_OK(gex_AM_RequestLong2(rvt_tm, peer, H_LONG, pay, 512, dst, GEX_EVENT_NOW, 0,
                               1000 + (int)rvt_me, -7));
    /* Negotiated payload (Commit v1 and v2). */
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, NULL, 100, 200, NULL, 0, 1);
    RVT_CHECK(sd != GEX_AM_SRCDESC_NO_OP && gex_AM_SrcDescSize(sd) >= 100 &&
              gex_AM_SrcDescSize(sd) <= 200 && gex_AM_SrcDescAddr(sd), "PrepareRequestMedium");
    rvt_fill(gex_AM_SrcDescAddr(sd), 100, 2000 + rvt_me);
    gex_AM_CommitRequestMedium1(sd, H_MED, 100, 2000 + (int)rvt_me);
    sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, pay, 50, 50, GEX_EVENT_NOW, 0, 1);
    RVT_CHECK(gex_AM_SrcDescAddr(sd) == (void *)pay, "Prepare with a client buffer");
    RVT_OK(gex_AM_CommitRequestMedium_v2(sd, H_MED, 50, 0, 1000 + (int)rvt_me));
    GASNET_BLOCKUNTIL(got_short == 2 && got_reply == 2 && got_med == 4 && got_long == 1);
    RVT_CHECK(short_sum == 136, "16 Short arguments summed to %d", (int)short_sum);
}

/* GEX_FLAG_{SELF,PEER}_SEG_OFFSET on RMA: addresses are offsets into the bound segments. */
static void check_seg_offsets(void)
{
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    enum { OFF = 8 * GASNET_PAGESIZE, N = 3000 };
    static uint8_t src[N], back[N];
    rvt_fill(src, N, 4000 + rvt_me);
    RVT_OK(gex_RMA_PutBlocking(rvt_tm, peer, (void *)(uintptr_t)OFF, src, N,
                               GEX_FLAG_PEER_SEG_OFFSET));
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, peer, (void *)(uintptr_t)(OFF + N), 0x5a5a, 2,
                                  GEX_FLAG_PEER_SEG_OFFSET | GEX_FLAG_SELF_SEG_OFFSET));
    rvt_barrier();
    gex_Rank_t from = (rvt_me + rvt_n - 1) % rvt_n;
    RVT_VERIFY((char *)rvt_seg_addr(rvt_me, OFF), N, 4000 + from, "Put with GEX_FLAG_PEER_SEG_OFFSET");
    /* Get the peer's copy into my own segment, both sides as offsets. */
    gex_Event_Wait(gex_RMA_GetNB(rvt_tm, (void *)(uintptr_t)(OFF + 2 * N), peer,
                                 (void *)(uintptr_t)OFF, N,
                                 GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET));
    memcpy(back, rvt_seg_addr(rvt_me, OFF + 2 * N), N);
    RVT_VERIFY(back, N, 4000 + rvt_me, "Get with GEX_FLAG_SELF_SEG_OFFSET|PEER_SEG_OFFSET");
    RVT_CHECK(gex_RMA_GetBlockingVal(rvt_tm, peer, (void *)(uintptr_t)(OFF + N), 2,
                                     GEX_FLAG_PEER_SEG_OFFSET | GEX_FLAG_SELF_SEG_OFFSET) == 0x5a5a,
              "GetBlockingVal / PutBlockingVal with GEX_FLAG_PEER_SEG_OFFSET");
    rvt_barrier();
}

/* VIS peer completion: each Put's notification arrives at the target after its data. */
static void check_peer_completion(void)
{
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    enum { N = 2048 };
    static uint8_t src[4][N];
    for (int k = 0; k < 4; k++) rvt_fill(src[k], N, 500 + 10 * rvt_me + k);
    uint8_t note[4][64];
    for (int k = 0; k < 4; k++) {
        rvt_fill(note[k], sizeof note[k], 900 + k);
        note[k][0] = (uint8_t)k;
    }
    char *base = rvt_seg_addr(peer, GASNET_PAGESIZE);

    /* 0: Vector NB with the leaf LC flag. */
    gex_VIS_SetPeerCompletionHandler(H_PC, note[0], 64, 0);
    gex_Memvec_t d0[2] = { { base, N / 2 }, { base + N / 2, N / 2 } }, s0[1] = { { src[0], N } };
    gex_Event_t ev = gex_VIS_VectorPutNB(rvt_tm, peer, 2, d0, 1, s0, GEX_FLAG_ENABLE_LEAF_LC);
    gex_Event_Wait(gex_Event_QueryLeaf(ev, GEX_EC_LC));
    gex_Event_Wait(ev);
    /* 1: Indexed NBI. */
    gex_VIS_SetPeerCompletionHandler(H_PC, note[1], 1, 0);
    void *d1[4], *s1[1] = { src[1] };
    for (int i = 0; i < 4; i++) d1[i] = base + N + i * (N / 4);
    RVT_OK(gex_VIS_IndexedPutNBI(rvt_tm, peer, 4, d1, N / 4, 1, s1, N, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);
    /* An armed-then-disarmed handler sends nothing. */
    gex_VIS_SetPeerCompletionHandler(H_PC, note[3], 8, 0);
    gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
    /* 2: Strided Blocking, transposed 32 x 64. */
    gex_VIS_SetPeerCompletionHandler(H_PC, note[2], GEX_VIS_MAX_PEERCOMPLETION > 64 ? 64 : 1, 0);
    size_t cnt[2] = { 32, 64 };
    ptrdiff_t ss[2] = { 1, 32 }, ds[2] = { 64, 1 };
    RVT_OK(gex_VIS_StridedPutBlocking(rvt_tm, peer, base + 2 * N, ds, src[2], ss, 1, cnt, 2, 0));

    /* Target side: as each notification arrives, its Put's data must already be there. */
    gex_Rank_t from = (rvt_me + rvt_n - 1) % rvt_n;
    char *mine = rvt_seg_addr(rvt_me, GASNET_PAGESIZE);
    GASNET_BLOCKUNTIL(got_pc >= 1);
    RVT_VERIFY(mine, N, 500 + 10 * from + 0, "Vector Put data when its notification ran");
    GASNET_BLOCKUNTIL(got_pc >= 2);
    RVT_VERIFY(mine + N, N, 500 + 10 * from + 1, "Indexed Put data when its notification ran");
    GASNET_BLOCKUNTIL(got_pc >= 3);
    for (size_t i = 0; i < 32; i++)
        for (size_t j = 0; j < 64; j++)
            RVT_CHECK((uint8_t)mine[2 * N + i * 64 + j] == rvt_byte(500 + 10 * from + 2, i + j * 32),
                      "Strided Put element (%zu,%zu) when its notification ran", i, j);
    size_t want[3] = { 64, 1, 64 };
    for (int k = 0; k < 3; k++) {
        RVT_CHECK(pc_len[k] == want[k], "notification %d carried %zu bytes, expected %zu", k,
                  pc_len[k], want[k]);
        RVT_CHECK(!memcmp(pc_payload[k], note[k], pc_len[k]), "notification %d payload differs", k);
    }
    rvt_barrier();
    RVT_CHECK(got_pc == 3, "%u notifications arrived, expected 3", got_pc);
}

/* The documented error cases: each must end the job with the message in CMakeLists.txt. */
static void error_case(const char *c)
{
    if (!strcmp(c, "bind_segment")) {
        gex_Segment_t s;
        RVT_OK(gex_Segment_Create(&s, rvt_client, NULL, GASNET_PAGESIZE, GEX_MK_HOST, 0));
        gex_EP_BindSegment(rvt_ep, s, 0);
    } else if (!strcmp(c, "destroy_attached")) {
        gex_Segment_Destroy(rvt_seg, 0);
    } else if (!strcmp(c, "pc_too_big")) {
        static char big[GEX_VIS_MAX_PEERCOMPLETION + 1];
        gex_VIS_SetPeerCompletionHandler(H_PC, big, sizeof big, 0);
    } else if (!strcmp(c, "publish_flags")) {
        gex_EP_PublishBoundSegment(rvt_tm, &rvt_ep, 1, 1);
    } else {
        RVT_FAIL("unknown case %s", c);
    }
    RVT_FAIL("case %s did not end the job", c);
}

int main(int argc, char **argv)
{
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "CORE_SPEC_NAMES", &argc, &argv, 0));
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, htable, N_OF(htable)));
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, 16 * GASNET_PAGESIZE));
    rvt_barrier();
    if (argc > 1) error_case(argv[1]);

    reference_functions();
    check_constants();
    check_queries();
    check_multiep();
    rvt_barrier();
    check_am();
    rvt_barrier();
    check_seg_offsets();
    check_peer_completion();
    return rvt_done("core_spec_names");
}
