/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnetex.h: Rivet's public GASNet-EX interface (types, constants, core and AM API). */
#ifndef GASNETEX_H
#define GASNETEX_H

#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h> /* GASNet clients rely on these arriving with gasnetex.h */
#include <stdlib.h>
#include <string.h>
#include <limits.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions and configuration macros ---------------------------------- */
#define GASNET_RELEASE_VERSION_MAJOR 2024
#define GASNET_RELEASE_VERSION_MINOR 5
#define GASNET_RELEASE_VERSION_PATCH 0
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 18
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 16

#define RIVET_VERSION_MAJOR 0
#define RIVET_VERSION_MINOR 1
#define RIVET_VERSION_PATCH 0

#define GASNET_CONDUIT_RIVET 1
/* The conduit's name: the one the client's build settings chose (the <conduit>-<mode>.mak
 * fragments and gasnet-<conduit>-<mode>.pc files pass -DGASNET_CONDUIT_NAME=SMP or OFI, as
 * GASNet's conduit headers define it), else RIVET. */
#ifndef GASNET_CONDUIT_NAME
#define GASNET_CONDUIT_NAME RIVET
#endif
#define RV_CONDUIT_NAME_STR2(n) #n
#define RV_CONDUIT_NAME_STR1(n) RV_CONDUIT_NAME_STR2(n)
#define GASNET_CONDUIT_NAME_STR RV_CONDUIT_NAME_STR1(GASNET_CONDUIT_NAME)
/* Threading mode: the client defines at most one of GASNET_SEQ, GASNET_PARSYNC, GASNET_PAR
 * before the first GASNet header (none: GASNET_PAR); it ends up defined as 1 and the others
 * stay undefined. The library is thread-safe, so every mode runs on the same build. */
#if defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR) > 1
#error "define at most one of GASNET_SEQ, GASNET_PARSYNC, GASNET_PAR (before any GASNet header)"
#elif defined(GASNET_SEQ)
#undef GASNET_SEQ
#define GASNET_SEQ 1
#define RV_THREADMODEL_STR "SEQ"
#elif defined(GASNET_PARSYNC)
#undef GASNET_PARSYNC
#define GASNET_PARSYNC 1
#define RV_THREADMODEL_STR "PARSYNC"
#else
#undef GASNET_PAR
#define GASNET_PAR 1
#define RV_THREADMODEL_STR "PAR"
#endif
#define GASNET_PSHM 1
#define GASNET_SEGMENT_FAST 1
#define GASNET_ALIGNED_SEGMENTS 0
#define GASNET_HIDDEN_AM_CONCURRENCY_LEVEL 0
#define GASNET_MAXEPS 33
#define GASNET_PAGESIZE 4096
#define GEX_AM_INDEX_BASE 128
#define GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM 1
#define GASNET_NATIVE_NP_ALLOC_REP_MEDIUM 1

/* ---- error codes (GASNet-1 values, shared with GASNet-EX) ---------------- */
#define GASNET_OK                   0
#define _GASNET_ERR_BASE            10000
#define GASNET_ERR_NOT_INIT         (_GASNET_ERR_BASE + 1)
#define GASNET_ERR_RESOURCE         (_GASNET_ERR_BASE + 2)
#define GASNET_ERR_BAD_ARG          (_GASNET_ERR_BASE + 3)
#define GASNET_ERR_NOT_READY        (_GASNET_ERR_BASE + 4)
#define GASNET_ERR_BARRIER_MISMATCH (_GASNET_ERR_BASE + 5)

/* The GASNet-1 split-phase barrier over the primordial team: available to every client
 * (GASNet-EX programs such as a plain "hello" use it before gasnet_exit); the rest of the
 * GASNet-1 API is in gasnet.h. Implemented in src/legacy/legacy_barrier.c. */
#define GASNET_BARRIERFLAG_ANONYMOUS 1
#define GASNET_BARRIERFLAG_MISMATCH  2
/* every caller of this phase passes it: an anonymous barrier (it includes ANONYMOUS) */
#define GASNET_BARRIERFLAG_UNNAMED   (GASNET_BARRIERFLAG_ANONYMOUS | 0x10)
extern void gasnet_barrier_notify(int id, int flags);
extern int  gasnet_barrier_wait(int id, int flags);
extern int  gasnet_barrier_try(int id, int flags);
extern int  gasnet_barrier(int id, int flags); /* notify, then wait */
extern int  gasnet_barrier_result(int *id);

/* Job-wide names every GASNet client may use, with gasnetex.h alone (GASNet-1 declared them
 * in gasnet.h; GASNet-EX programs and GASNet's test harness expect them here). */
#define GASNET_CONFIG_STRING "RELEASE=" "2024.5.0" ",SPEC=1.8,CONDUIT=RIVET,THREADMODEL=" RV_THREADMODEL_STR ",SEGMENT=FAST"
/* Conduit identification: the names as preprocessor tokens (GASNet clients print them with
 * _STRINGIFY) and as strings. */
#define GASNET_CORE_NAME            RIVET
#define GASNET_CORE_NAME_STR        "RIVET"
#define GASNET_CORE_VERSION         0.1
#define GASNET_CORE_VERSION_STR     "0.1"
#define GASNET_EXTENDED_NAME        RIVET
#define GASNET_EXTENDED_NAME_STR    "RIVET"
#define GASNET_EXTENDED_VERSION     0.1
#define GASNET_EXTENDED_VERSION_STR "0.1"
extern char *gasnet_getenv(const char *name);
#define GASNET_WAIT_SPIN      0
#define GASNET_WAIT_BLOCK     1
#define GASNET_WAIT_SPINBLOCK 2
extern int gasnet_set_waitmode(int wait_mode);
/* Thread discovery costs nothing here: the hints are no-ops, and a thread's info is a
 * distinct, stable pointer per thread. */
typedef void *gasnet_threadinfo_t;
extern gasnet_threadinfo_t rv_threadinfo_get(void);
#define GASNET_GET_THREADINFO() rv_threadinfo_get()
#define GASNET_POST_THREADINFO(info) ((void)(info))
#define GASNET_BEGIN_FUNCTION() ((void)0)
/* MIN and MAX of two values, as GASNet's headers give them to clients (unless defined) */
#ifndef MIN
#define MIN(x, y) ((x) < (y) ? (x) : (y))
#endif
#ifndef MAX
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#endif
#ifndef PRIuSZ /* printf format of a size_t */
#define PRIuSZ "zu"
#endif
/* Type sizes under the names GASNet's configuration gives them (clients test them in #if). */
#ifndef SIZEOF_INT
#define SIZEOF_CHAR        1
#define SIZEOF_SHORT       __SIZEOF_SHORT__
#define SIZEOF_INT         __SIZEOF_INT__
#define SIZEOF_LONG        __SIZEOF_LONG__
#define SIZEOF_LONG_LONG   __SIZEOF_LONG_LONG__
#define SIZEOF_VOID_P      __SIZEOF_POINTER__
#define SIZEOF_SIZE_T      __SIZEOF_SIZE_T__
#define SIZEOF_PTRDIFF_T   __SIZEOF_PTRDIFF_T__
#define SIZEOF_FLOAT       __SIZEOF_FLOAT__
#define SIZEOF_DOUBLE      __SIZEOF_DOUBLE__
#define SIZEOF_LONG_DOUBLE __SIZEOF_LONG_DOUBLE__
#endif

extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- basic types --------------------------------------------------------- */
typedef uint32_t gex_Rank_t;
#define GEX_RANK_INVALID ((gex_Rank_t)0xFFFFFFFFu)

typedef uint32_t gex_Flags_t;

typedef struct rv_client  *gex_Client_t;
typedef struct rv_ep      *gex_EP_t;
typedef struct rv_tm      *gex_TM_t;
typedef struct rv_segment *gex_Segment_t;
typedef struct rv_token   *gex_Token_t;
typedef struct rv_op      *gex_Event_t;
typedef struct rv_mk      *gex_MK_t;

#define GEX_CLIENT_INVALID  ((gex_Client_t)0)
#define GEX_EP_INVALID      ((gex_EP_t)0)
#define GEX_TM_INVALID      ((gex_TM_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)
#define GEX_MK_INVALID      ((gex_MK_t)0)
#define GEX_MK_HOST         ((gex_MK_t)1)

#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP   ((gex_Event_t)1)
#define GEX_EVENT_NOW     ((gex_Event_t *)1)
#define GEX_EVENT_DEFER   ((gex_Event_t *)2)
#define GEX_EVENT_GROUP   ((gex_Event_t *)3)

typedef uint8_t gex_AM_Index_t;
typedef int32_t gex_AM_Arg_t;
typedef void (*gex_AM_Fn_t)();

typedef uint64_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T 8

typedef void *gex_Addr_t;
typedef struct {
    void  *gex_addr;
    size_t gex_len;
} gex_Memvec_t;

typedef uint16_t gex_EP_Index_t; /* 16 bits, as in GASNet: clients check sizeof */
typedef struct {
    gex_Rank_t     gex_rank;
    gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;

typedef uint32_t gex_EC_t;
#define GEX_EC_GET ((gex_EC_t)0x01)
#define GEX_EC_PUT ((gex_EC_t)0x02)
#define GEX_EC_AM  ((gex_EC_t)0x04)
#define GEX_EC_LC  ((gex_EC_t)0x08)
#define GEX_EC_RMW ((gex_EC_t)0x10)
#define GEX_EC_ALL ((gex_EC_t)0x1f)

typedef uint32_t gex_DT_t;
#define GEX_DT_I32  ((gex_DT_t)0x01)
#define GEX_DT_U32  ((gex_DT_t)0x02)
#define GEX_DT_I64  ((gex_DT_t)0x04)
#define GEX_DT_U64  ((gex_DT_t)0x08)
#define GEX_DT_FLT  ((gex_DT_t)0x10)
#define GEX_DT_DBL  ((gex_DT_t)0x20)
#define GEX_DT_USER ((gex_DT_t)0x40)

typedef uint32_t gex_OP_t;
/* Non-fetching ops use odd bit positions from bit 3 (GEX_OP_ADD is 1<<3, the value GASNet
 * uses and clients such as Realm's GASNet-EX wrapper check), their fetching forms the next
 * bit up, so GEX_OP_TO_FETCHING is a shift. */
#define GEX_OP_ADD     ((gex_OP_t)0x00000008)
#define GEX_OP_FADD    ((gex_OP_t)0x00000010)
#define GEX_OP_SUB     ((gex_OP_t)0x00000020)
#define GEX_OP_FSUB    ((gex_OP_t)0x00000040)
#define GEX_OP_MULT    ((gex_OP_t)0x00000080)
#define GEX_OP_FMULT   ((gex_OP_t)0x00000100)
#define GEX_OP_MIN     ((gex_OP_t)0x00000200)
#define GEX_OP_FMIN    ((gex_OP_t)0x00000400)
#define GEX_OP_MAX     ((gex_OP_t)0x00000800)
#define GEX_OP_FMAX    ((gex_OP_t)0x00001000)
#define GEX_OP_INC     ((gex_OP_t)0x00002000)
#define GEX_OP_FINC    ((gex_OP_t)0x00004000)
#define GEX_OP_DEC     ((gex_OP_t)0x00008000)
#define GEX_OP_FDEC    ((gex_OP_t)0x00010000)
#define GEX_OP_AND     ((gex_OP_t)0x00020000)
#define GEX_OP_FAND    ((gex_OP_t)0x00040000)
#define GEX_OP_OR      ((gex_OP_t)0x00080000)
#define GEX_OP_FOR     ((gex_OP_t)0x00100000)
#define GEX_OP_XOR     ((gex_OP_t)0x00200000)
#define GEX_OP_FXOR    ((gex_OP_t)0x00400000)
#define GEX_OP_SET     ((gex_OP_t)0x00800000)
#define GEX_OP_SWAP    ((gex_OP_t)0x01000000)
#define GEX_OP_CAS     ((gex_OP_t)0x02000000)
#define GEX_OP_FCAS    ((gex_OP_t)0x04000000)
/* GET is a fetching op without a non-fetching form: the odd bit below it stays unused,
 * so GEX_OP_TO_NONFETCHING(GEX_OP_GET) names no real op (clients rely on that). */
#define GEX_OP_GET     ((gex_OP_t)0x10000000)
#define GEX_OP_USER    ((gex_OP_t)0x20000000)
#define GEX_OP_USER_NC ((gex_OP_t)0x40000000)
#define GEX_OP_CSWAP   GEX_OP_FCAS
#define GEX_OP_TO_FETCHING(op)    ((gex_OP_t)((op) << 1))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)((op) >> 1))

/* ---- flags ----------------------------------------------------------------
 * Point-to-point communication flags share one bit space so that a flag passed
 * to the wrong call can be recognised; other families reuse bits freely. */
#define GEX_FLAG_IMMEDIATE                ((gex_Flags_t)(1u << 0))
#define GEX_FLAG_LC_COPY_YES              ((gex_Flags_t)(1u << 1))
#define GEX_FLAG_LC_COPY_NO               ((gex_Flags_t)(1u << 2))
#define GEX_FLAG_AD_MY_RANK               ((gex_Flags_t)(1u << 3))
#define GEX_FLAG_AD_MY_NBRHD              ((gex_Flags_t)(1u << 4))
#define GEX_FLAG_AD_ACQ                   ((gex_Flags_t)(1u << 5))
#define GEX_FLAG_AD_REL                   ((gex_Flags_t)(1u << 6))
#define GEX_FLAG_RANK_IS_JOBRANK          ((gex_Flags_t)(1u << 7))
#define GEX_FLAG_SELF_SEG_SOME            ((gex_Flags_t)(1u << 8))
#define GEX_FLAG_SELF_SEG_BOUND           ((gex_Flags_t)(1u << 9))
#define GEX_FLAG_SELF_SEG_UNKNOWN         ((gex_Flags_t)(1u << 10))
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT  ((gex_Flags_t)(1u << 11)) /* GASNet's values: */
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC   ((gex_Flags_t)(1u << 12)) /* Realm checks them */
#define GEX_FLAG_SELF_SEG_OFFSET          ((gex_Flags_t)(1u << 13))
#define GEX_FLAG_PEER_SEG_UNKNOWN         ((gex_Flags_t)(1u << 14))
#define GEX_FLAG_PEER_SEG_SOME            ((gex_Flags_t)(1u << 15))
#define GEX_FLAG_PEER_SEG_BOUND           ((gex_Flags_t)(1u << 16))
#define GEX_FLAG_PEER_SEG_OFFSET          ((gex_Flags_t)(1u << 17))
#define GEX_FLAG_ENABLE_LEAF_LC           ((gex_Flags_t)(1u << 18))
#define GEX_FLAG_PEER_NEVER_SELF          ((gex_Flags_t)(1u << 19))
#define GEX_FLAG_PEER_NEVER_NBRHD         ((gex_Flags_t)(1u << 20))
#define GEX_FLAG_AD_FAVOR_MY_RANK         ((gex_Flags_t)(1u << 21))
#define GEX_FLAG_AD_FAVOR_MY_NBRHD        ((gex_Flags_t)(1u << 22))
#define GEX_FLAG_AD_FAVOR_REMOTE          ((gex_Flags_t)(1u << 23))

/* gex_Client_Init flags */
#define GEX_FLAG_USES_GASNET1             ((gex_Flags_t)(1u << 0))
#define GEX_FLAG_DEFER_THREADS            ((gex_Flags_t)(1u << 1))

/* team construction flags */
#define GEX_FLAG_TM_GLOBAL_SCRATCH           ((gex_Flags_t)(1u << 0))
#define GEX_FLAG_TM_LOCAL_SCRATCH            ((gex_Flags_t)(1u << 1))
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH        ((gex_Flags_t)(1u << 2))
#define GEX_FLAG_TM_NO_SCRATCH               ((gex_Flags_t)(1u << 3))
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN         ((gex_Flags_t)(1u << 4))
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED ((gex_Flags_t)(1u << 5))
#define GEX_FLAG_SCRATCH_SEG_OFFSET          ((gex_Flags_t)(1u << 6))
#define GEX_FLAG_GLOBALLY_QUIESCED           ((gex_Flags_t)(1u << 8))

/* AM handler registration flags (gex_AM_Entry_t.gex_flags) */
#define GEX_FLAG_AM_SHORT   ((gex_Flags_t)(1u << 0))
#define GEX_FLAG_AM_MEDIUM  ((gex_Flags_t)(1u << 1))
#define GEX_FLAG_AM_LONG    ((gex_Flags_t)(1u << 2))
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST ((gex_Flags_t)(1u << 3))
#define GEX_FLAG_AM_REPLY   ((gex_Flags_t)(1u << 4))
#define GEX_FLAG_AM_REQREP  (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* endpoint capabilities */
typedef uint32_t gex_EP_Capabilities_t;
#define GEX_EP_CAPABILITY_RMA  ((gex_EP_Capabilities_t)(1u << 0))
#define GEX_EP_CAPABILITY_AM   ((gex_EP_Capabilities_t)(1u << 1))
#define GEX_EP_CAPABILITY_VIS  ((gex_EP_Capabilities_t)(1u << 2))
#define GEX_EP_CAPABILITY_COLL ((gex_EP_Capabilities_t)(1u << 3))
#define GEX_EP_CAPABILITY_AD   ((gex_EP_Capabilities_t)(1u << 4))
#define GEX_EP_CAPABILITY_ALL  ((gex_EP_Capabilities_t)0x1f)

/* gex_EP_Create flags: hints, accepted and ignored */
#define GEX_FLAG_HINT_ACCEL_AD   ((gex_Flags_t)(1u << 0))
#define GEX_FLAG_HINT_ACCEL_COLL ((gex_Flags_t)(1u << 1))
#define GEX_FLAG_HINT_ACCEL_ALL  (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)

/* ---- system queries ------------------------------------------------------- */
extern gex_Rank_t gex_System_QueryJobRank(void);
extern gex_Rank_t gex_System_QueryJobSize(void);
extern int  gex_System_GetVerboseErrors(void);
extern void gex_System_SetVerboseErrors(int enable);

typedef const struct gex_RankInfo_s {
    gex_Rank_t gex_jobrank;
} gex_RankInfo_t;

extern void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                      gex_Rank_t *my_info_index_p);
extern void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                                     gex_Rank_t *my_info_index_p);
extern void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank,
                                       gex_Rank_t *host_set_size, gex_Rank_t *host_set_rank);
extern uint64_t gex_System_QueryMaxThreads(void);
/* The same limit as a constant. The name is GASNet's internal one, but real clients read it
 * (Chapel's comm layer sizes per-thread tables with it), so it is offered here too. */
#define GASNETI_MAX_THREADS 256
/* Non-zero iff AM handlers may run on threads the client does not own: always 0 here
 * (handlers run only inside the client's own calls), as GASNET_HIDDEN_AM_CONCURRENCY_LEVEL. */
extern int gex_System_QueryHiddenAMConcurrencyLevel(void);

/* Progress threads a client started with GEX_FLAG_DEFER_THREADS must run itself.
 * Rivet has none: the query reports a count of 0. */
#define GEX_THREAD_ROLE_RCV 0x1u
#define GEX_THREAD_ROLE_SND 0x2u
typedef struct {
    void       *(*gex_progress_fn)(void *);
    void        *gex_progress_arg;
    unsigned int gex_thread_roles;   /* OR of GEX_THREAD_ROLE_* */
    const char  *gex_device_list;
} gex_ProgressThreadInfo_t;
extern int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                           const gex_ProgressThreadInfo_t **info_p,
                                           gex_Flags_t flags);

/* ---- client data ---------------------------------------------------------- */
extern void  gex_Client_SetCData(gex_Client_t client, const void *val);
extern void *gex_Client_QueryCData(gex_Client_t client);
extern void  gex_Segment_SetCData(gex_Segment_t seg, const void *val);
extern void *gex_Segment_QueryCData(gex_Segment_t seg);
extern void  gex_TM_SetCData(gex_TM_t tm, const void *val);
extern void *gex_TM_QueryCData(gex_TM_t tm);
extern void  gex_EP_SetCData(gex_EP_t ep, const void *val);
extern void *gex_EP_QueryCData(gex_EP_t ep);

/* ---- client --------------------------------------------------------------- */
extern gex_Flags_t  gex_Client_QueryFlags(gex_Client_t client);
extern const char  *gex_Client_QueryName(gex_Client_t client);
extern int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                           const char *clientName, int *argc, char ***argv, gex_Flags_t flags);

/* ---- segments ------------------------------------------------------------- */
extern gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg);
extern gex_Flags_t  gex_Segment_QueryFlags(gex_Segment_t seg);
extern void        *gex_Segment_QueryAddr(gex_Segment_t seg);
extern uintptr_t    gex_Segment_QuerySize(gex_Segment_t seg);
extern int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                  void **localaddr_p, uintptr_t *size_p);
extern gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                              void **localaddr_p, uintptr_t *size_p,
                                              gex_Flags_t flags);
extern int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size);
/* Optional client hook (a GASNet-EX extension Chapel sets): when non-NULL, gex_Segment_Attach
 * (and so gasnet_attach) calls it on each rank with the new local segment's address and size,
 * before the attach's closing barrier. */
extern void (*gasnet_client_attach_hook)(void *segbase, uintptr_t segsize);
/* Multi-EP / memory-kinds segment calls (docs/spec-coverage.md): host-memory segments
 * only (kind GEX_MK_HOST); gex_Segment_Attach stays the only way to bind the primordial
 * endpoint's segment. */
extern int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                              uintptr_t length, gex_MK_t kind, gex_Flags_t flags);
extern void gex_Segment_Destroy(gex_Segment_t seg, gex_Flags_t flags);

extern uintptr_t gasnet_getMaxLocalSegmentSize(void);
extern uintptr_t gasnet_getMaxGlobalSegmentSize(void);

/* ---- teams ---------------------------------------------------------------- */
extern gex_Client_t gex_TM_QueryClient(gex_TM_t tm);
extern gex_EP_t     gex_TM_QueryEP(gex_TM_t tm);
extern gex_Flags_t  gex_TM_QueryFlags(gex_TM_t tm);
extern gex_Rank_t   gex_TM_QueryRank(gex_TM_t tm);
extern gex_Rank_t   gex_TM_QuerySize(gex_TM_t tm);
extern gex_Rank_t   gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank);
extern gex_Rank_t   gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank);
extern size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent_tm, int color, int key,
                           void *scratch_addr, size_t scratch_size, gex_Flags_t flags);
extern size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent_tm,
                            gex_EP_Location_t *args, size_t numargs, gex_Addr_t *scratch_addrs,
                            size_t scratch_size, gex_Flags_t flags);
extern int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags);
extern gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index);
extern gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank,
                                                  gex_Flags_t flags);

/* ---- endpoints ------------------------------------------------------------ */
extern gex_Client_t   gex_EP_QueryClient(gex_EP_t ep);
extern gex_Flags_t    gex_EP_QueryFlags(gex_EP_t ep);
extern gex_Segment_t  gex_EP_QuerySegment(gex_EP_t ep);
extern gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep);
/* GASNET_MAXEPS (33) endpoints per process, the primordial one included. Non-primordial
 * endpoints have GEX_EP_CAPABILITY_RMA only (others: GASNET_ERR_BAD_ARG); past the limit:
 * GASNET_ERR_RESOURCE. */
extern int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client,
                         gex_EP_Capabilities_t capabilities, gex_Flags_t flags);
/* Destroys a non-primordial endpoint (flags must be 0); its bound segment, if any, becomes
 * unbound and stays the client's. The spec publishes no prototype yet: this one follows
 * gex_Segment_Destroy and gex_MK_Destroy. */
extern void gex_EP_Destroy(gex_EP_t ep, gex_Flags_t flags);
extern int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags);
extern int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps,
                                      gex_Flags_t flags);

/* ---- active messages ------------------------------------------------------ */
typedef struct {
    gex_AM_Index_t gex_index;
    gex_AM_Fn_t    gex_fnptr;
    gex_Flags_t    gex_flags;
    unsigned int   gex_nargs;
    const void    *gex_cdata;
    const char    *gex_name;
} gex_AM_Entry_t;

extern int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

extern unsigned int gex_AM_MaxArgs(void);
extern size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                  gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank,
                                      const gex_Event_t *lc_opt, gex_Flags_t flags,
                                      unsigned int numargs);
extern size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int numargs);
extern size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt,
                                     gex_Flags_t flags, unsigned int numargs);
extern size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt,
                                       gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_LUBRequestLong(void);
extern size_t gex_AM_LUBReplyLong(void);
extern size_t gex_AM_LUBRequestMedium(void);
extern size_t gex_AM_LUBReplyMedium(void);

typedef uint32_t gex_TI_t;
#define GEX_TI_SRCRANK ((gex_TI_t)0x01)
#define GEX_TI_EP      ((gex_TI_t)0x02)
#define GEX_TI_ENTRY   ((gex_TI_t)0x04)
#define GEX_TI_IS_REQ  ((gex_TI_t)0x08)
#define GEX_TI_IS_LONG ((gex_TI_t)0x10)
#define GEX_TI_ALL     ((gex_TI_t)0x1f)

typedef struct {
    gex_Rank_t            gex_srcrank;
    gex_EP_t              gex_ep;
    const gex_AM_Entry_t *gex_entry;
    int                   gex_is_req;
    int                   gex_is_long;
} gex_Token_Info_t;

extern gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);

/* Injection entry points behind the gex_AM_{Request,Reply}* forms (rivet_am_forms.h).
 * The trailing arguments are 'numargs' values of type gex_AM_Arg_t. */
extern int rv_am_request_short(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                               gex_Flags_t flags, unsigned int numargs, ...);
extern int rv_am_request_medium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                const void *source_addr, size_t nbytes, gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned int numargs, ...);
extern int rv_am_request_long(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                              const void *source_addr, size_t nbytes, void *dest_addr,
                              gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs, ...);
extern int rv_am_reply_short(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                             unsigned int numargs, ...);
extern int rv_am_reply_medium(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                              size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                              unsigned int numargs, ...);
extern int rv_am_reply_long(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                            size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                            gex_Flags_t flags, unsigned int numargs, ...);

/* ---- negotiated-payload AM ------------------------------------------------ */
typedef struct rv_srcdesc *gex_AM_SrcDesc_t;
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)
#define GASNET_SUPPORTS_AM_COMMIT_V2 1
#define GASNET_SUPPORTS_AM_CANCEL 1

extern gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank,
                                                    const void *client_buf, size_t least_payload,
                                                    size_t most_payload, gex_Event_t *lc_opt,
                                                    gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                                  size_t least_payload, size_t most_payload,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank,
                                                  const void *client_buf, size_t least_payload,
                                                  size_t most_payload, void *dest_addr,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                                size_t least_payload, size_t most_payload,
                                                void *dest_addr, gex_Event_t *lc_opt,
                                                gex_Flags_t flags, unsigned int numargs);
extern void  *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd);
extern size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd);
extern int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
/* Behind the gex_AM_Commit* forms: returns non-zero only when flags has
 * GEX_FLAG_IMMEDIATE and there was no room (the source descriptor stays valid). */
extern int rv_am_commit(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                        void *dest_addr, gex_Flags_t flags, unsigned int numargs, ...);

/* ---- RMA (extended API) --------------------------------------------------- */
extern int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                               size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                                 size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                               gex_Flags_t flags);
extern int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags);
extern gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                                 size_t nbytes, gex_Flags_t flags);
extern gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src,
                                              size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                                  size_t nbytes, gex_Flags_t flags);
extern int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest,
                                    gex_RMA_Value_t value, size_t nbytes, gex_Flags_t flags);

extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);

/* ---- events and NBI ------------------------------------------------------- */
extern int  gex_Event_Test(gex_Event_t event);
extern void gex_Event_Wait(gex_Event_t event);
extern int  gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int  gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);
extern int  gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);

/* ---- collectives reachable from gasnetex.h -------------------------------- */
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);

/* ---- handler-safe locks --------------------------------------------------- */
typedef struct {
    pthread_mutex_t rv_lock;
} gex_HSL_t;
#define GEX_HSL_INITIALIZER { PTHREAD_MUTEX_INITIALIZER }
extern void gex_HSL_Init(gex_HSL_t *hsl);
extern void gex_HSL_Destroy(gex_HSL_t *hsl);
extern void gex_HSL_Lock(gex_HSL_t *hsl);
extern void gex_HSL_Unlock(gex_HSL_t *hsl);
extern int  gex_HSL_Trylock(gex_HSL_t *hsl);

/* ---- GASNet-1 names available to GASNet-EX clients ------------------------ */
typedef gex_Rank_t      gasnet_node_t;
typedef gex_AM_Index_t  gasnet_handler_t;
typedef gex_AM_Arg_t    gasnet_handlerarg_t;
typedef gex_Token_t     gasnet_token_t;
typedef gex_Event_t     gasnet_handle_t;
typedef gex_RMA_Value_t gasnet_register_value_t;
typedef gex_HSL_t       gasnet_hsl_t;
#define SIZEOF_GASNET_REGISTER_VALUE_T SIZEOF_GEX_RMA_VALUE_T
#define GASNET_INVALID_HANDLE GEX_EVENT_INVALID
#define GASNET_HSL_INITIALIZER GEX_HSL_INITIALIZER

extern int  gasnet_AMPoll(void);
extern void gasnet_exit(int exitcode) __attribute__((noreturn));
extern gex_Rank_t gasnet_mynode(void);
extern gex_Rank_t gasnet_nodes(void);

#define gasnet_hsl_init    gex_HSL_Init
#define gasnet_hsl_destroy gex_HSL_Destroy
#define gasnet_hsl_lock    gex_HSL_Lock
#define gasnet_hsl_unlock  gex_HSL_Unlock
#define gasnet_hsl_trylock gex_HSL_Trylock

/* Spin-poll until cond is true; polls for progress and yields when oversubscribed. */
extern void rv_progress_wait_step(void);
#define GASNET_BLOCKUNTIL(cond) \
    do { while (!(cond)) rv_progress_wait_step(); } while (0)

#ifdef __cplusplus
}
#endif

#include "rivet_am_forms.h"

#endif /* GASNETEX_H */
