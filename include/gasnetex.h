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
#include <gasnet_config.h> /* versions, type sizes, HAVE_* */
#include <gasnet_fwd.h>    /* ranks, events, DT, OP, flags, capabilities */
#include <gasnet_portable_platform.h> /* PLATFORM_*, as GASNet's gasnetex.h: testval sizes
                                         its Val rows by PLATFORM_ARCH_64 */

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

/* ---- versions (in gasnet_config.h) and the conduit's identity --------------
 * One library serves every conduit name. A client built through a conduit's fragment (which
 * defines GASNET_CONDUIT_<NAME> and GASNET_CONDUIT_NAME, as GASNet's conduit headers do) sees that
 * conduit's name; any other client sees RIVET. */
#define RV_STR_(x) #x
#define RV_STR(x) RV_STR_(x)
#define GASNET_CONDUIT_RIVET 1
#ifndef GASNET_CONDUIT_NAME
#if defined(GASNET_CONDUIT_SMP)
#define GASNET_CONDUIT_NAME SMP
#elif defined(GASNET_CONDUIT_OFI)
#define GASNET_CONDUIT_NAME OFI
#else
#define GASNET_CONDUIT_NAME RIVET
#endif
#endif
#ifndef GASNET_CONDUIT_NAME_STR
#define GASNET_CONDUIT_NAME_STR RV_STR(GASNET_CONDUIT_NAME)
#endif
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
/* Endpoints per process. The library has 33 (the primordial one and 32 RMA-only ones, as
 * GASNet's ofi and ucx conduits). A client built through the smp or udp fragment
 * (GASNET_CONDUIT_SMP, GASNET_CONDUIT_UDP) sees 1, what GASNet's smp and udp conduits report,
 * so clients that expect AM- or VIS-capable extra endpoints from a conduit with several
 * (GASNet's testtmpair) take their one-endpoint path; gex_EP_Create still works for clients
 * that want RMA-only endpoints there. */
#if defined(GASNET_CONDUIT_SMP) || defined(GASNET_CONDUIT_UDP)
#define GASNET_MAXEPS 1
#else
#define GASNET_MAXEPS 33
#endif
#define GASNET_PAGESIZE 4096
#define GEX_AM_INDEX_BASE 128
#define GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM 1
#define GASNET_NATIVE_NP_ALLOC_REP_MEDIUM 1
#define GASNET_NULL_ARGV_OK 1 /* gex_Client_Init and gasnet_init accept NULL argc/argv */

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
#define GASNET_CONFIG_STRING                                                                \
    "RELEASE=" RV_STR(GASNET_RELEASE_VERSION_MAJOR) "." RV_STR(GASNET_RELEASE_VERSION_MINOR)  \
    "." RV_STR(GASNET_RELEASE_VERSION_PATCH) ",SPEC=" RV_STR(GEX_SPEC_VERSION_MAJOR) "."      \
    RV_STR(GEX_SPEC_VERSION_MINOR) ",CONDUIT=" GASNET_CONDUIT_NAME_STR "("                   \
    GASNET_CONDUIT_NAME_STR "-" GASNET_CORE_VERSION_STR "/RIVET-" GASNET_CORE_VERSION_STR     \
    "),THREADMODEL=" RV_THREADMODEL_STR ",SEGMENT=FAST,PTR=" RV_STR(__SIZEOF_POINTER__)      \
    "x8,pshm,nodebug,notrace,nostats"
/* Conduit identification: the names as preprocessor tokens (GASNet clients print them with
 * _STRINGIFY) and as strings. */
#define GASNET_CORE_NAME            GASNET_CONDUIT_NAME
#define GASNET_CORE_NAME_STR        GASNET_CONDUIT_NAME_STR
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
 * distinct, stable pointer per thread; a GASNET_SEQ client has one thread calling GASNet, and
 * its info is one constant address. */
typedef void *gasnet_threadinfo_t;
extern gasnet_threadinfo_t _rivet_threadinfo_get(void);
extern char _rivet_threadinfo_seq;
#if defined(GASNET_SEQ) && !defined(RV_BUILDING_LIBRIVET)
#define GASNET_GET_THREADINFO() ((gasnet_threadinfo_t)&_rivet_threadinfo_seq)
#else
#define GASNET_GET_THREADINFO() _rivet_threadinfo_get()
#endif
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

extern const char *gasnet_ErrorName(int errval);
extern const char *gasnet_ErrorDesc(int errval);

/* ---- basic types (the rest are in gasnet_fwd.h) ---------------------------- */
typedef struct rv_client  *gex_Client_t;
typedef struct rv_ep      *gex_EP_t;
typedef struct rv_tm      *gex_TM_t;
typedef struct rv_segment *gex_Segment_t;
typedef struct rv_token   *gex_Token_t;
typedef struct rv_mk      *gex_MK_t;

#define GEX_CLIENT_INVALID  ((gex_Client_t)0)
#define GEX_EP_INVALID      ((gex_EP_t)0)
#define GEX_TM_INVALID      ((gex_TM_t)0)
#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)
#define GEX_MK_INVALID      ((gex_MK_t)0)
#define GEX_MK_HOST         ((gex_MK_t)1)
#define GASNET_HAVE_MK_CLASS_HOST 1 /* always; no device class is (gasnet_mk.h) */

typedef uint8_t gex_AM_Index_t;
typedef int32_t gex_AM_Arg_t;
typedef void (*gex_AM_Fn_t)();

typedef uint64_t gex_RMA_Value_t;
#define SIZEOF_GEX_RMA_VALUE_T 8

typedef struct {
    void  *gex_addr;
    size_t gex_len;
} gex_Memvec_t;

typedef uint32_t gex_EC_t;
#define GEX_EC_GET 0x01u
#define GEX_EC_PUT 0x02u
#define GEX_EC_AM  0x04u
#define GEX_EC_LC  0x08u
#define GEX_EC_RMW 0x10u
#define GEX_EC_ALL 0x1fu

/* The flags whose meaning depends on the configuration (as in GASNet, not in gasnet_fwd.h) */
#define GEX_FLAG_PEER_NEVER_SELF          (1u << 19)
#define GEX_FLAG_PEER_NEVER_NBRHD         (1u << 20)

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
 * (Chapel's comm layer sizes per-thread tables with it), so it is offered here too.
 * A GASNET_SEQ client promises a single thread, so it is told 1 (the spec's limit for SEQ,
 * which GASNet's testgasnet asserts): the call is routed to an inline that says so. */
#if GASNET_SEQ
#define GASNETI_MAX_THREADS 1
static inline uint64_t _rivet_seq_max_threads(void) { return GASNETI_MAX_THREADS; }
#define gex_System_QueryMaxThreads _rivet_seq_max_threads
#else
#define GASNETI_MAX_THREADS 256
#endif
/* This rank's jobrank and the job's size under GASNet's internal names, which GASNet's own
 * tests read (testlegacy); values, not variables. */
#define gasneti_mynode (gex_System_QueryJobRank())
#define gasneti_nodes  (gex_System_QueryJobSize())
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
/* A client built in GASNET_SEQ or GASNET_PARSYNC mode calls gex_Client_Init and gasnet_init
 * through these (the macros below; reserved, not API), which tell the library so: then at most
 * one thread at a time is in the library or an inline fast path, so the library closes the
 * primordial team's table to the inline paths (its rma_n 0) while an AM handler runs, and
 * those paths need no thread-local handler test on that team (see the inline fast paths
 * below). Each replaces its call (no variable the client writes, no extra import: either would
 * move the client's own variables, and where they sit decides some of its copies' speed). */
extern int _rivet_client_init_seq(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                                  const char *clientName, int *argc, char ***argv,
                                  gex_Flags_t flags);
extern int _rivet_gasnet_init_seq(int *argc, char ***argv);
#if (defined(GASNET_SEQ) || defined(GASNET_PARSYNC)) && !defined(RV_BUILDING_LIBRIVET)
#define gex_Client_Init _rivet_client_init_seq
#endif

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
/* A call names the GASNET_MAXEPS the client was compiled with, which caps its endpoints
 * (GASNET_ERR_RESOURCE past it, as the client expects); gex_EP_Create through a pointer
 * gets the library's 33. */
extern int _rivet_ep_create_max(gex_EP_t *ep_p, gex_Client_t client,
                                gex_EP_Capabilities_t capabilities, gex_Flags_t flags,
                                unsigned max_eps);
#define gex_EP_Create(ep_p, client, capabilities, flags) \
    _rivet_ep_create_max((ep_p), (client), (capabilities), (flags), GASNET_MAXEPS)
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
#define GEX_TI_SRCRANK 0x01u
#define GEX_TI_EP      0x02u
#define GEX_TI_ENTRY   0x04u
#define GEX_TI_IS_REQ  0x08u
#define GEX_TI_IS_LONG 0x10u
#define GEX_TI_ALL     0x1fu
/* every gex_Token_Info field is always filled (the GASNET_SUPPORTS_TI_* of every conduit) */
#define GASNET_SUPPORTS_TI_SRCRANK 1
#define GASNET_SUPPORTS_TI_EP      1
#define GASNET_SUPPORTS_TI_ENTRY   1
#define GASNET_SUPPORTS_TI_IS_REQ  1
#define GASNET_SUPPORTS_TI_IS_LONG 1

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
extern int _rivet_am_request_short(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                   gex_Flags_t flags, unsigned int numargs, ...);
extern int _rivet_am_request_medium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                    const void *source_addr, size_t nbytes, gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int numargs, ...);
extern int _rivet_am_request_long(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                                  const void *source_addr, size_t nbytes, void *dest_addr,
                                  gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs, ...);
extern int _rivet_am_reply_short(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                                 unsigned int numargs, ...);
extern int _rivet_am_reply_medium(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                                  size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                                  unsigned int numargs, ...);
extern int _rivet_am_reply_long(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                                size_t nbytes, void *dest_addr, gex_Event_t *lc_opt,
                                gex_Flags_t flags, unsigned int numargs, ...);

/* ---- negotiated-payload AM ------------------------------------------------ */
typedef struct rv_srcdesc *gex_AM_SrcDesc_t;
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)
/* the revision dates of the interfaces implemented (GASNet-EX 2025.8.0, spec 0.19) */
#define GASNET_SUPPORTS_AM_COMMIT_V2 20240906L
#define GASNET_SUPPORTS_AM_CANCEL 20240418L

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
extern int _rivet_am_commit(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
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
/* The same barrier, returning when it is complete (flags: none defined). */
extern void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags);

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
/* In a GASNET_SEQ client the lock operations compile to nothing (the functions remain, for
 * their addresses): one thread calls GASNet, and Rivet runs AM handlers only inside that
 * thread's GASNet calls (never from threads or interrupts of its own), which no thread may
 * make while holding an HSL, so there is never anyone to exclude. GASNet-1's specification
 * allows exactly this. Init and Destroy stay calls; a SEQ Trylock always succeeds. */
#if defined(GASNET_SEQ) && !defined(RV_BUILDING_LIBRIVET)
static inline __attribute__((__always_inline__)) void _rivet_hsl_seq(gex_HSL_t *hsl)
{
    (void)hsl;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* still a compiler barrier, as a call was */
}
#define gex_HSL_Lock(hsl) _rivet_hsl_seq(hsl)
#define gex_HSL_Unlock(hsl) _rivet_hsl_seq(hsl)
#define gex_HSL_Trylock(hsl) (_rivet_hsl_seq(hsl), GASNET_OK)
#endif

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

/* a segment's address and size, as gasnet_getSegmentInfo reports it (gasnet.h) */
typedef struct {
    void     *addr;
    uintptr_t size;
} gasnet_seginfo_t;

extern int  gasnet_AMPoll(void);
extern void gasnet_exit(int exitcode) __attribute__((noreturn));
extern gex_Rank_t gasnet_mynode(void);
extern gex_Rank_t gasnet_nodes(void);

#define gasnet_hsl_init    gex_HSL_Init
#define gasnet_hsl_destroy gex_HSL_Destroy
#define gasnet_hsl_lock    gex_HSL_Lock
#define gasnet_hsl_unlock  gex_HSL_Unlock
#define gasnet_hsl_trylock gex_HSL_Trylock

/* The largest segment a program asks for when GASNET_MAX_SEGSIZE is not in the environment:
 * a client may define either (the string wins; the deprecated number is bytes per rank). */
extern const char *gasnet_max_segsize_str;
extern uint64_t gasnet_max_segsize;

/* ---- GASNet-Tools that need GASNet-EX types --------------------------------
 * (GASNet declares them in gasnet_tools.h when gasnetex.h is included; here they come with
 * gasnetex.h, in whatever order the two headers are included.) */
/* Formatters for diagnostics. Each writes one NUL-terminated line into buf. The flag
 * formatters (dt, op, ti) return the bytes the text needs, NUL included, and write nothing
 * when buf is NULL ("GEX_DT_I32|GEX_DT_DBL", "(empty)" for 0, "(invalid)" for unknown bits).
 * The others need a buf of at least their _bufsz(...) bytes; putvgetv, putigeti and putsgets
 * return the bytes the transfer moves. pstats (GASNet's statistics slot) is unused. */
extern size_t gasnett_format_dt(char *buf, gex_DT_t dt);
extern size_t gasnett_format_op(char *buf, gex_OP_t op);
extern size_t gasnett_format_ti(char *buf, gex_TI_t ti);
extern size_t gasnett_format_memveclist_bufsz(size_t count);
extern void gasnett_format_memveclist(char *buf, size_t count, gex_Memvec_t const *list);
extern size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      gex_Memvec_t const dstlist[], size_t srccount,
                                      gex_Memvec_t const srclist[]);
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern void gasnett_format_addrlist(char *buf, size_t count, void *const *list, size_t len);
extern size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen);
extern size_t gasnett_format_strides_bufsz(size_t count);
extern void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
extern size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                                      void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels);

/* Self-test of the library on a live job (src/tools/tools_diag.c): the client registers the
 * handlers gasnett_diagnostic_gethandlers returns (callable before gex_Client_Init), then
 * every rank of myteam calls gasnett_run_diagnostics collectively with its own segment area
 * (myseg) and its peer's (peerseg; at least 4 KiB each, peer = the next rank). testsections
 * picks sections by letter (NULL or "": all): A atomics and threads, B locks, C timers,
 * D RMA to the peer, E Active Messages to the peer, F formatters. Returns the number of
 * errors found (each is also printed). */
extern int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                                   gex_TM_t myteam, void *myseg, gex_Rank_t peer, void *peerseg,
                                   unsigned int seed);
extern void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt);

/* Copies nbytes from src to dest (no overlap); small power-of-two sizes become one access. */
#define GASNETT_FAST_ALIGNED_MEMCPY(dest, src, nbytes) memcpy((dest), (src), (nbytes))
#define GASNETT_FAST_UNALIGNED_MEMCPY(dest, src, nbytes) memcpy((dest), (src), (nbytes))
/* Stores the nbytes low-order bytes of value at dest, as an nbytes integer of this host. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RV_VALUE_LOW(p, n) ((char *)(p) + sizeof(gex_RMA_Value_t) - (n))
#else
#define RV_VALUE_LOW(p, n) ((char *)(p))
#endif
#define GASNETT_VALUE_ASSIGN(dest, value, nbytes)                                           \
    do {                                                                                    \
        gex_RMA_Value_t rv_va_v_ = (gex_RMA_Value_t)(value);                                \
        size_t rv_va_n_ = (nbytes);                                                         \
        switch (rv_va_n_) {                                                                 \
        case 1: { uint8_t rv_t_ = (uint8_t)rv_va_v_; memcpy((dest), &rv_t_, 1); break; }   \
        case 2: { uint16_t rv_t_ = (uint16_t)rv_va_v_; memcpy((dest), &rv_t_, 2); break; } \
        case 4: { uint32_t rv_t_ = (uint32_t)rv_va_v_; memcpy((dest), &rv_t_, 4); break; } \
        default: memcpy((dest), RV_VALUE_LOW(&rv_va_v_, rv_va_n_), rv_va_n_); break;        \
        }                                                                                   \
    } while (0)
/* Returns (from the enclosing function) the nbytes integer at src as a gex_RMA_Value_t. */
#define GASNETT_VALUE_RETURN(src, nbytes)                                                   \
    do {                                                                                    \
        size_t rv_vr_n_ = (nbytes);                                                         \
        switch (rv_vr_n_) {                                                                 \
        case 1: { uint8_t rv_t_; memcpy(&rv_t_, (src), 1); return (gex_RMA_Value_t)rv_t_; }  \
        case 2: { uint16_t rv_t_; memcpy(&rv_t_, (src), 2); return (gex_RMA_Value_t)rv_t_; } \
        case 4: { uint32_t rv_t_; memcpy(&rv_t_, (src), 4); return (gex_RMA_Value_t)rv_t_; } \
        default: {                                                                          \
            gex_RMA_Value_t rv_t_ = 0;                                                      \
            memcpy(RV_VALUE_LOW(&rv_t_, rv_vr_n_), (src), rv_vr_n_);                        \
            return rv_t_;                                                                   \
        }                                                                                   \
        }                                                                                   \
    } while (0)

/* ---- inline fast paths (reserved: _rivet_* are not API) -----------------------------------
 * A Put or Get (blocking, NB or NBI) whose target is mapped into this process (a neighbourhood
 * peer on shared memory) is one copy, complete on return; an event that is already complete,
 * an array of them, or an NBI sync with nothing outstanding needs no call: done here, inline,
 * when every condition for it holds; anything else (a check that fails, a flag, an lc_opt the
 * call does not take, an unmapped peer, inside an AM handler, RIVET_RMA=ref, RIVET_STATS or
 * RIVET_TRACE...) calls the library, whose path makes every check with its message. The
 * structs below mirror the first fields of the library's objects (it asserts the layout);
 * clients must not use them. RIVET_NO_INLINE turns the fast paths off. */
struct _rivet_segent { /* one rank's segment as seen here (the library's rv_segmap_t) */
    void *owner_base, *local_base;
    uintptr_t size;
    unsigned flags;
    uint32_t tag;
};
struct _rivet_tm_head {
    struct _rivet_segent *const *rma_map; /* the table direct copies may use, or NULL */
    void *client, *ep;
    gex_Flags_t flags;
    /* entries at this many bytes from the struct's start, _RIVET_TM_TABLE_OFF, indexed by
     * team rank: rank < rma_n finds its entry with no other load (the primordial team's
     * table); 0 when there is none there */
    gex_Rank_t rma_n;
    void *cdata;
    gex_Rank_t rank, size;
    const gex_Rank_t *jobranks; /* NULL: the identity */
    /* *rma_map, indexed by team rank, once that table exists, when jobranks is NULL; else NULL
     * (then rma_map and jobranks are the way) */
    const struct _rivet_segent *rma_flat;
};
/* The primordial team's struct is followed, this many bytes from its start, by the
 * primordial endpoint's segment table (its rma_flat, and rma_n its size, once the table
 * exists). */
#define _RIVET_TM_TABLE_OFF 128
/* The AM handler running on this thread, or NULL; this thread has passed the checks of a
 * gex_Event_* call after gex_Client_Init (they then hold for INVALID events) and runs no
 * handler now (the library clears it while one runs: one load decides). */
extern __thread gex_Token_t _rivet_am_token;
extern __thread unsigned char _rivet_ev_ready;
/* This thread's last gex_NBI_Test/Wait passed its checks and found nothing outstanding, and
 * since then it has started no NBI operation the library counts and opened no access region
 * (the library clears it then): an NBI sync outside a handler has nothing to do. */
extern __thread unsigned char _rivet_nbi_idle;
#if defined(__GNUC__) && !defined(RV_BUILDING_LIBRIVET) && !defined(RIVET_NO_INLINE)
#if defined(GASNET_SEQ) || defined(GASNET_PARSYNC)
#define _RIVET_SEQ_GATE 1
#else
#define _RIVET_SEQ_GATE 0
#endif
/* The local address of [addr, addr+n) in the segment of (tm, rank), or NULL: take the
 * library path. other_tms 0: only the primordial team's own table (rank < rma_n) is used
 * (gasnet_vis.h: the library's VIS refuses some TM-pairs the RMA path serves). */
static inline __attribute__((always_inline)) char *
_rivet_tm_direct(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t n, gex_Flags_t flags,
                 int other_tms)
{
    const struct _rivet_tm_head *t = (const struct _rivet_tm_head *)(const void *)tm;
    /* inside a handler: the library's path, for its message. A SEQ or PARSYNC client's
     * primordial team needs no thread-local test (_rivet_seq_client: its rma_n is 0 while a
     * handler runs; a thread-local load and test cost 128-byte Puts 8%) */
    if (__builtin_expect(!t || flags || (!_RIVET_SEQ_GATE && _rivet_am_token != 0), 0)) return 0;
    const struct _rivet_segent *m;
    /* acquire (plain loads on x86): pairs with the library's release stores of rma_n,
     * rma_flat and the tables, so the entries are seen as they were when published */
    if (__builtin_expect(rank < __atomic_load_n(&t->rma_n, __ATOMIC_ACQUIRE), 1)) {
        m = (const struct _rivet_segent *)(const void *)((const char *)t + _RIVET_TM_TABLE_OFF +
                                                         (size_t)rank * sizeof *m);
    } else {
        if (!other_tms || rank >= t->size || (_RIVET_SEQ_GATE && _rivet_am_token != 0)) return 0;
        const struct _rivet_segent *map = __atomic_load_n(&t->rma_flat, __ATOMIC_ACQUIRE);
        if (map) {
            m = &map[rank];
        } else {
            struct _rivet_segent *const *mp = t->rma_map;
            map = mp ? __atomic_load_n(mp, __ATOMIC_ACQUIRE) : 0;
            if (!map) return 0;
            m = &map[t->jobranks ? t->jobranks[rank] : rank];
        }
    }
    /* [addr, addr+n) inside [owner_base, owner_base+size), n >= 1: its last byte's offset,
     * off + (n - 1), is below size and did not wrap (n 0: n - 1 wraps, and so does the sum
     * unless off is 0, when it is not below size); n - 1 is loop-invariant for a client's
     * loop of same-size copies, so this is one add, one carry test and one compare */
    uintptr_t off = (uintptr_t)addr - (uintptr_t)m->owner_base, last;
    char *lb = (char *)m->local_base;
    if (__builtin_expect(__builtin_add_overflow(off, n - 1, &last) || last >= m->size || !lb, 0))
        return 0;
    return lb + off;
}
static inline __attribute__((always_inline)) char *
_rivet_rma_direct(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t n, gex_Flags_t flags)
{
    return _rivet_tm_direct(tm, rank, addr, n, flags, 1);
}

/* As the library copies: an aligned word of 1, 2, 4 or 8 bytes on the segment side moves
 * with one load and one store (never torn, never written twice). */
#define _RIVET_RMA_WORD(T)                                                                  \
    if (!((uintptr_t)seg & (sizeof(T) - 1))) {                                              \
        T w_;                                                                               \
        if (to_seg) {                                                                       \
            memcpy(&w_, loc, sizeof w_);                                                    \
            __atomic_store_n((T *)(void *)seg, w_, __ATOMIC_RELAXED);                       \
        } else {                                                                            \
            w_ = __atomic_load_n((const T *)(const void *)seg, __ATOMIC_RELAXED);           \
            memcpy(loc, &w_, sizeof w_);                                                    \
        }                                                                                   \
        return;                                                                             \
    }                                                                                       \
    break;
/* 9 to 64 bytes move as two or four overlapping pieces of 8 or 16 bytes, loads before stores,
 * as libc's memcpy moves them, without its call (testlarge: 32-byte Puts 1.5x, 64-byte
 * 1.05-1.2x); from 65 bytes memcpy's wider vectors win (16-byte pieces made 128-byte Puts
 * 0.7x). */
typedef long long _rivet_v16 __attribute__((vector_size(16)));
/* gcc may warn that a piece or a memcpy is larger than a small object a client copies into
 * or out of, on a size path that object never takes */
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#if __GNUC__ >= 7
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
#if __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#endif
static inline __attribute__((always_inline)) void _rivet_copy_9_64(char *d, const char *s,
                                                                   size_t n)
{
    if (n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n <= 32) {
        _rivet_v16 a, b;
        memcpy(&a, s, 16);
        memcpy(&b, s + n - 16, 16);
        memcpy(d, &a, 16);
        memcpy(d + n - 16, &b, 16);
    } else {
        _rivet_v16 a, b, c, e;
        memcpy(&a, s, 16);
        memcpy(&b, s + 16, 16);
        memcpy(&c, s + n - 32, 16);
        memcpy(&e, s + n - 16, 16);
        memcpy(d, &a, 16);
        memcpy(d + 16, &b, 16);
        memcpy(d + n - 32, &c, 16);
        memcpy(d + n - 16, &e, 16);
    }
}
static inline __attribute__((always_inline)) void _rivet_rma_copy(int to_seg, char *seg,
                                                                  void *loc, size_t n)
{
    if (n > 64) {
#if !defined(__clang__)
        /* libc's memcpy, always called: gcc expands a memcpy of a constant 33 to 8192 bytes
         * with a known alignment as rep movsq (its generic tuning), 13-15 ns for 1 KiB on AMD
         * Zen where libc's (chosen for the CPU it runs on) takes 5; hiding n from it (an empty
         * asm) keeps the call. (clang calls libc for these sizes.) */
        if (__builtin_constant_p(n)) __asm__("" : "+r"(n));
#endif
        if (to_seg) memcpy(seg, loc, n);
        else memcpy(loc, seg, n);
        return;
    }
    if (n > 8) {
        if (to_seg) _rivet_copy_9_64(seg, (const char *)loc, n);
        else _rivet_copy_9_64((char *)loc, seg, n);
        return;
    }
    switch (n) {
    case 8: _RIVET_RMA_WORD(uint64_t)
    case 4: _RIVET_RMA_WORD(uint32_t)
    case 1: _RIVET_RMA_WORD(uint8_t)
    case 2: _RIVET_RMA_WORD(uint16_t)
    default: break;
    }
    if (to_seg) memcpy(seg, loc, n);
    else memcpy(loc, seg, n);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#undef _RIVET_RMA_WORD

/* The copy to/from a mapped peer's segment (remote: the address there, local: the buffer
 * here; to_seg a Put): 1 when done here, 0 when the library must do it. */
static inline __attribute__((always_inline)) int
_rivet_rma_try(int to_seg, gex_TM_t tm, gex_Rank_t rank, void *remote, const void *local,
               size_t nbytes, gex_Flags_t flags)
{
    char *seg = _rivet_rma_direct(tm, rank, remote, nbytes, flags);
    if (__builtin_expect(seg == 0, 0)) return 0;
    _rivet_rma_copy(to_seg, seg, (void *)local, nbytes);
    return 1;
}

static inline __attribute__((always_inline)) int
_rivet_rma_put_blocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                        gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_rma_try(1, tm, rank, dest, src, nbytes, flags), 0))
        return (gex_RMA_PutBlocking)(tm, rank, dest, src, nbytes, flags);
    return 0;
}

static inline __attribute__((always_inline)) int
_rivet_rma_get_blocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                        gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_rma_try(0, tm, rank, src, dest, nbytes, flags), 0))
        return (gex_RMA_GetBlocking)(tm, dest, rank, src, nbytes, flags);
    return 0;
}

/* NB and NBI: a copy to a mapped peer is complete (locally and remotely) on return, so it
 * returns GEX_EVENT_INVALID (NB; a gex_Event_t* lc_opt gets GEX_EVENT_INVALID too) or counts
 * in no NBI set or access region (NBI), as the library's path for the same copy does. An
 * lc_opt the call does not take (NULL; GEX_EVENT_GROUP for NB; a pointer for NBI) goes to the
 * library for its message. NB/NBI calls do not poll. */
static inline __attribute__((always_inline)) gex_Event_t
_rivet_rma_put_nb(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                  gex_Event_t *lc_opt, gex_Flags_t flags)
{
    if (__builtin_expect(lc_opt != 0 && lc_opt != GEX_EVENT_GROUP &&
                             _rivet_rma_try(1, tm, rank, dest, src, nbytes, flags), 1)) {
        if (lc_opt != GEX_EVENT_NOW && lc_opt != GEX_EVENT_DEFER) *lc_opt = GEX_EVENT_INVALID;
        return GEX_EVENT_INVALID;
    }
    return (gex_RMA_PutNB)(tm, rank, dest, src, nbytes, lc_opt, flags);
}

static inline __attribute__((always_inline)) gex_Event_t
_rivet_rma_get_nb(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                  gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_rma_try(0, tm, rank, src, dest, nbytes, flags), 0))
        return (gex_RMA_GetNB)(tm, dest, rank, src, nbytes, flags);
    return GEX_EVENT_INVALID;
}

static inline __attribute__((always_inline)) int
_rivet_rma_put_nbi(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags)
{
    if (__builtin_expect((uintptr_t)lc_opt - (uintptr_t)GEX_EVENT_NOW <=
                                 (uintptr_t)GEX_EVENT_GROUP - (uintptr_t)GEX_EVENT_NOW &&
                             _rivet_rma_try(1, tm, rank, dest, src, nbytes, flags), 1))
        return 0;
    return (gex_RMA_PutNBI)(tm, rank, dest, src, nbytes, lc_opt, flags);
}

static inline __attribute__((always_inline)) int
_rivet_rma_get_nbi(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_rma_try(0, tm, rank, src, dest, nbytes, flags), 0))
        return (gex_RMA_GetNBI)(tm, dest, rank, src, nbytes, flags);
    return 0;
}

/* Value forms: the low-order nbytes (1..sizeof(gex_RMA_Value_t)) of a gex_RMA_Value_t, in
 * this host's byte order, moved by the copy above (so an aligned 1, 2, 4 or 8-byte word is one
 * load and one store; a constant nbytes leaves no buffer in memory). nbytes 0 fails the range
 * check of _rivet_rma_direct; a larger one goes to the library for its message. Put forms
 * are complete on return: NB returns GEX_EVENT_INVALID, NBI counts in no NBI set, as the
 * library's path for the same copy. */
static inline __attribute__((always_inline)) char *
_rivet_rma_val_direct(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t nbytes,
                      gex_Flags_t flags)
{
    if (__builtin_expect(nbytes > sizeof(gex_RMA_Value_t), 0)) return 0;
    return _rivet_rma_direct(tm, rank, addr, nbytes, flags);
}

static inline __attribute__((always_inline)) int
_rivet_rma_val_put_try(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                       size_t nbytes, gex_Flags_t flags)
{
    char *seg = _rivet_rma_val_direct(tm, rank, dest, nbytes, flags);
    if (__builtin_expect(seg == 0, 0)) return 0;
    _rivet_rma_copy(1, seg, RV_VALUE_LOW(&value, nbytes), nbytes);
    return 1;
}

static inline __attribute__((always_inline)) gex_RMA_Value_t
_rivet_rma_get_blocking_val(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                            gex_Flags_t flags)
{
    char *seg = _rivet_rma_val_direct(tm, rank, src, nbytes, flags);
    if (__builtin_expect(seg == 0, 0))
        return (gex_RMA_GetBlockingVal)(tm, rank, src, nbytes, flags);
    gex_RMA_Value_t v = 0;
    _rivet_rma_copy(0, seg, RV_VALUE_LOW(&v, nbytes), nbytes);
    return v;
}

static inline __attribute__((always_inline)) int
_rivet_rma_put_blocking_val(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                            size_t nbytes, gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_rma_val_put_try(tm, rank, dest, value, nbytes, flags), 0))
        return (gex_RMA_PutBlockingVal)(tm, rank, dest, value, nbytes, flags);
    return 0;
}

static inline __attribute__((always_inline)) gex_Event_t
_rivet_rma_put_nb_val(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_rma_val_put_try(tm, rank, dest, value, nbytes, flags), 0))
        return (gex_RMA_PutNBVal)(tm, rank, dest, value, nbytes, flags);
    return GEX_EVENT_INVALID;
}

static inline __attribute__((always_inline)) int
_rivet_rma_put_nbi_val(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                       size_t nbytes, gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_rma_val_put_try(tm, rank, dest, value, nbytes, flags), 0))
        return (gex_RMA_PutNBIVal)(tm, rank, dest, value, nbytes, flags);
    return 0;
}

/* Events: GEX_EVENT_INVALID is complete; the library is called for anything else, inside a
 * handler, with flags, and for this thread's first gex_Event_Wait (its checks). One load: after
 * an inline atomic or copy (gex_Event_Wait(gex_AD_OpNB_*(...))) it waits for the locked
 * instruction, and a second one cost the FCAS latency row 4%. */
static inline __attribute__((always_inline)) int _rivet_ev_fast(void)
{
    return _rivet_ev_ready;
}

/* Non-zero when every one of the n events is GEX_EVENT_INVALID. */
static inline __attribute__((always_inline)) int _rivet_ev_all_invalid(gex_Event_t *pev,
                                                                       size_t n)
{
    uintptr_t any = 0;
    const gex_Event_t *p = pev;
    for (size_t q = n / 4; q; q--, p += 4)
        any |= (uintptr_t)p[0] | (uintptr_t)p[1] | (uintptr_t)p[2] | (uintptr_t)p[3];
    for (size_t r = n % 4; r; r--, p++) any |= (uintptr_t)*p;
    return any == (uintptr_t)GEX_EVENT_INVALID;
}

static inline __attribute__((always_inline)) void _rivet_event_wait(gex_Event_t ev)
{
    if (__builtin_expect(ev == GEX_EVENT_INVALID && _rivet_ev_fast(), 1)) return;
    (gex_Event_Wait)(ev);
}

static inline __attribute__((always_inline)) int _rivet_event_test(gex_Event_t ev)
{
    if (__builtin_expect(ev == GEX_EVENT_INVALID && _rivet_ev_fast(), 1)) return GASNET_OK;
    return (gex_Event_Test)(ev);
}

/* The array forms: an array of INVALID events is complete (Wait/Test Some and All alike). */
static inline __attribute__((always_inline)) int _rivet_ev_array_done(gex_Event_t *pev, size_t n,
                                                                      gex_Flags_t flags)
{
    return __builtin_expect(!flags && _rivet_ev_fast() && _rivet_ev_all_invalid(pev, n), 1);
}

/* NBI syncs: nothing outstanding on this thread (_rivet_nbi_idle) and a valid mask. */
static inline __attribute__((always_inline)) int _rivet_nbi_done(gex_EC_t mask, gex_Flags_t flags)
{
    return __builtin_expect(!flags && !(mask & ~(gex_EC_t)GEX_EC_ALL) && _rivet_nbi_idle &&
                                !_rivet_am_token, 1);
}

#define gex_RMA_PutBlocking(tm, rank, dest, src, nbytes, flags) \
    _rivet_rma_put_blocking(tm, rank, dest, src, nbytes, flags)
#define gex_RMA_GetBlocking(tm, dest, rank, src, nbytes, flags) \
    _rivet_rma_get_blocking(tm, dest, rank, src, nbytes, flags)
#define gex_RMA_PutNB(tm, rank, dest, src, nbytes, lc_opt, flags) \
    _rivet_rma_put_nb(tm, rank, dest, src, nbytes, lc_opt, flags)
#define gex_RMA_GetNB(tm, dest, rank, src, nbytes, flags) \
    _rivet_rma_get_nb(tm, dest, rank, src, nbytes, flags)
#define gex_RMA_PutNBI(tm, rank, dest, src, nbytes, lc_opt, flags) \
    _rivet_rma_put_nbi(tm, rank, dest, src, nbytes, lc_opt, flags)
#define gex_RMA_GetNBI(tm, dest, rank, src, nbytes, flags) \
    _rivet_rma_get_nbi(tm, dest, rank, src, nbytes, flags)
#define gex_RMA_GetBlockingVal(tm, rank, src, nbytes, flags) \
    _rivet_rma_get_blocking_val(tm, rank, src, nbytes, flags)
#define gex_RMA_PutBlockingVal(tm, rank, dest, value, nbytes, flags) \
    _rivet_rma_put_blocking_val(tm, rank, dest, value, nbytes, flags)
#define gex_RMA_PutNBVal(tm, rank, dest, value, nbytes, flags) \
    _rivet_rma_put_nb_val(tm, rank, dest, value, nbytes, flags)
#define gex_RMA_PutNBIVal(tm, rank, dest, value, nbytes, flags) \
    _rivet_rma_put_nbi_val(tm, rank, dest, value, nbytes, flags)
#define gex_Event_Wait(ev) _rivet_event_wait(ev)
#define gex_Event_Test(ev) _rivet_event_test(ev)

static inline __attribute__((always_inline)) void _rivet_event_wait_all(gex_Event_t *pev, size_t n,
                                                                        gex_Flags_t flags)
{
    if (!_rivet_ev_array_done(pev, n, flags)) (gex_Event_WaitAll)(pev, n, flags);
}
static inline __attribute__((always_inline)) void _rivet_event_wait_some(gex_Event_t *pev,
                                                                         size_t n,
                                                                         gex_Flags_t flags)
{
    if (!_rivet_ev_array_done(pev, n, flags)) (gex_Event_WaitSome)(pev, n, flags);
}
static inline __attribute__((always_inline)) int _rivet_event_test_all(gex_Event_t *pev, size_t n,
                                                                       gex_Flags_t flags)
{
    if (_rivet_ev_array_done(pev, n, flags)) return GASNET_OK;
    return (gex_Event_TestAll)(pev, n, flags);
}
static inline __attribute__((always_inline)) int _rivet_event_test_some(gex_Event_t *pev, size_t n,
                                                                        gex_Flags_t flags)
{
    if (_rivet_ev_array_done(pev, n, flags)) return GASNET_OK;
    return (gex_Event_TestSome)(pev, n, flags);
}
static inline __attribute__((always_inline)) void _rivet_nbi_wait(gex_EC_t mask, gex_Flags_t flags)
{
    if (!_rivet_nbi_done(mask, flags)) (gex_NBI_Wait)(mask, flags);
}
static inline __attribute__((always_inline)) int _rivet_nbi_test(gex_EC_t mask, gex_Flags_t flags)
{
    if (_rivet_nbi_done(mask, flags)) return GASNET_OK;
    return (gex_NBI_Test)(mask, flags);
}
#define gex_Event_WaitAll(pev, n, flags) _rivet_event_wait_all(pev, n, flags)
#define gex_Event_WaitSome(pev, n, flags) _rivet_event_wait_some(pev, n, flags)
#define gex_Event_TestAll(pev, n, flags) _rivet_event_test_all(pev, n, flags)
#define gex_Event_TestSome(pev, n, flags) _rivet_event_test_some(pev, n, flags)
#define gex_NBI_Wait(mask, flags) _rivet_nbi_wait(mask, flags)
#define gex_NBI_Test(mask, flags) _rivet_nbi_test(mask, flags)
#endif /* inline fast paths */

/* Spin-poll until cond is true; polls for progress and yields when idle if oversubscribed, if
 * more threads wait than there are cores for them, or over a network transport that asks for
 * it (RIVET_WAIT_MODE, docs/env.md). The step counts this thread as waiting at its first idle
 * poll; _rivet_wait_end uncounts it. (_rivet_progress_wait_step: the step of older headers.) */
extern void _rivet_progress_wait_step(void);
extern void _rivet_wait_step(int *_waiting);
extern void _rivet_wait_end(void);
#define GASNET_BLOCKUNTIL(cond)                                  \
    do {                                                         \
        int _rivet_waiting = 0;                                  \
        while (!(cond)) _rivet_wait_step(&_rivet_waiting);       \
        if (_rivet_waiting) _rivet_wait_end();                   \
    } while (0)

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

/* ---- ident strings ----------------------------------------------------------
 * GASNet embeds "$GASNetConduitName: SMP $"-style strings in every program it links (tools
 * such as UPC++'s upcxx-run read the conduit from the binary). librivet is shared, so each
 * client object that includes this header carries the strings of its own conduit and mode,
 * in a COMDAT group: the linker keeps one copy per program. The library itself carries
 * Rivet's (src/core/ident.c). RIVET_NO_IDENT leaves them out. */
#if !defined(RV_BUILDING_LIBRIVET) && !defined(RIVET_NO_IDENT) && defined(__ELF__) && \
    defined(__GNUC__)
#define RV_IDENT_GROUP "rivet_ident." RV_STR(GASNET_CONDUIT_NAME) "." RV_THREADMODEL_STR
__asm__(".pushsection .rodata.rivet_ident,\"aG\",%progbits," RV_IDENT_GROUP ",comdat\n"
        ".asciz \"$GASNetConduitName: " GASNET_CONDUIT_NAME_STR " $\"\n"
        ".asciz \"$GASNetCoreLibraryName: " GASNET_CORE_NAME_STR " $\"\n"
        ".asciz \"$GASNetCoreLibraryVersion: " GASNET_CORE_VERSION_STR " $\"\n"
        ".asciz \"$GASNetExtendedLibraryName: " GASNET_EXTENDED_NAME_STR " $\"\n"
        ".asciz \"$GASNetThreadModel: GASNET_" RV_THREADMODEL_STR " $\"\n"
        ".asciz \"$GASNetSegment: GASNET_SEGMENT_FAST $\"\n"
        ".asciz \"$GASNetEXAPIVersion: " RV_STR(GEX_SPEC_VERSION_MAJOR) "."
        RV_STR(GEX_SPEC_VERSION_MINOR) " $\"\n"
        ".asciz \"$GASNetAPIVersion: " RV_STR(GASNET_SPEC_VERSION_MAJOR) " $\"\n"
        ".asciz \"$GASNetConfig: (gasnetex.h) " GASNET_CONFIG_STRING " $\"\n"
        ".popsection\n");
#undef RV_IDENT_GROUP
#endif

#include "rivet_am_forms.h"

#endif /* GASNETEX_H */
