/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_coll.h: the spec's collectives header. gex_Coll_BarrierNB/BarrierBlocking are
 * declared in gasnetex.h (clients expect them there); broadcast and reductions are declared
 * here, and so are the GASNet-1 collectives GASNet-EX 2025.8.0 still provides
 * (src/legacy/legacy_coll.c, docs/legacy.md). */
#ifndef _GASNET_COLL_H
#define _GASNET_COLL_H
#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

/* User reduction operator: arg2_and_out[i] = arg1[i] OP arg2_and_out[i], i < count.
 * For GEX_OP_USER_NC, arg1 holds the contributions of the lower-numbered ranks. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                        size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                          const void *src, gex_DT_t dt, size_t dt_sz,
                                          size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                          size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);

/* ---- GASNet-1 collectives --------------------------------------------------------------
 * Over GASNET_TEAM_ALL (the primordial team), one image per rank: an image argument is a
 * rank. flags: exactly one GASNET_COLL_IN_*SYNC and one GASNET_COLL_OUT_*SYNC, plus
 * GASNET_COLL_LOCAL (every address is the caller's own; src is read on the root only, dst
 * of a gather written on the root only); GASNET_COLL_{SRC,DST}_IN_SEGMENT,
 * FIXED_THREADS_PER_NODE, DISABLE_AUTOTUNE and NO_IMAGES are accepted hints. Anything else
 * is a fatal error, as are a root out of range and another team.
 *   IN_NOSYNC / IN_MYSYNC: a rank's data is read and written only once it has called;
 *   IN_ALLSYNC: nobody's data is read or written before every rank has called;
 *   OUT_NOSYNC / OUT_MYSYNC: the call (or its handle) completes when this rank's part is
 *     done (its dst written, its src no longer read);
 *   OUT_ALLSYNC: ... when every rank's part is done.
 * The _nb forms return a gasnet_coll_handle_t (a gex_Event_t; GASNET_COLL_INVALID_HANDLE
 * when complete at once) for gasnet_coll_{wait,try}_sync[_some|_all]. */
#define GASNET_COLL_IN_NOSYNC              (1 << 0)
#define GASNET_COLL_IN_MYSYNC              (1 << 1)
#define GASNET_COLL_IN_ALLSYNC             (1 << 2)
#define GASNET_COLL_OUT_NOSYNC             (1 << 3)
#define GASNET_COLL_OUT_MYSYNC             (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC            (1 << 5)
#define GASNET_COLL_SYNC_FLAG_MASK         0x3F
/* Removed from GASNet-EX; Rivet still accepts it from older clients, as LOCAL. */
#define GASNET_COLL_SINGLE                 (1 << 6)
#define GASNET_COLL_LOCAL                  (1 << 7)
#define GASNET_COLL_FIXED_THREADS_PER_NODE (1 << 9)
#define GASNET_COLL_DST_IN_SEGMENT         (1 << 10)
#define GASNET_COLL_SRC_IN_SEGMENT         (1 << 11)
#define GASNET_COLL_DISABLE_AUTOTUNE       (1 << 18)
#define GASNET_COLL_NO_IMAGES              (1 << 19)
/* flags of the GASNet-1 reduction function table (gasnet_coll_fn_entry_t) */
#define GASNET_COLL_AMSAFE                 (1 << 0)
#define GASNET_COLL_NONCOMM                (1 << 1)

typedef uint32_t gasnet_image_t;
typedef gex_Event_t gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE GEX_EVENT_INVALID

struct rv_legacy_team;
typedef struct rv_legacy_team *gasnet_team_handle_t;
extern struct rv_legacy_team _rivet_legacy_team_all;
#define GASNET_TEAM_ALL (&_rivet_legacy_team_all)

/* The try forms poll (as GASNet-1's try calls do): a loop over them alone finishes. */
extern void _rivet_legacy_try_poll(void);
#define gasnet_coll_try_sync(h)           (_rivet_legacy_try_poll(), gex_Event_Test(h))
#define gasnet_coll_try_sync_some(ph, n)  (_rivet_legacy_try_poll(), gex_Event_TestSome((ph), (n), 0))
#define gasnet_coll_try_sync_all(ph, n)   (_rivet_legacy_try_poll(), gex_Event_TestAll((ph), (n), 0))
#define gasnet_coll_wait_sync(h)          gex_Event_Wait(h)
#define gasnet_coll_wait_sync_some(ph, n) gex_Event_WaitSome((ph), (n), 0)
#define gasnet_coll_wait_sync_all(ph, n)  gex_Event_WaitAll((ph), (n), 0)

/* nbytes from srcimage's src to every rank's dst */
extern void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                  void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst,
                                                     gasnet_image_t srcimage, void *src,
                                                     size_t nbytes, int flags);
/* block i (nbytes at src + i * nbytes) of srcimage's src to rank i's dst */
extern void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst,
                                                   gasnet_image_t srcimage, void *src,
                                                   size_t nbytes, int flags);
/* rank i's nbytes at src to dst + i * nbytes on dstimage */
extern void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                               void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team,
                                                  gasnet_image_t dstimage, void *dst, void *src,
                                                  size_t nbytes, int flags);
/* rank i's nbytes at src to dst + i * nbytes on every rank */
extern void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src,
                                   size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst,
                                                      void *src, size_t nbytes, int flags);
/* block j of rank i's src to block i of rank j's dst (src and dst must not overlap) */
extern void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                 int flags);
extern gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst,
                                                    void *src, size_t nbytes, int flags);

/* Team barrier: on GASNET_TEAM_ALL these are gasnet_barrier_notify/try/wait/barrier/result
 * (one barrier state, shared with those). */
extern void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
extern int  gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
extern int  gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
extern int  gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags);
extern int  gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id);

/* Autotuning interface: Rivet chooses its algorithms itself (docs/collectives.md); these
 * accept GASNET_TEAM_ALL and do nothing (get_num_tree_classes answers 1). */
typedef enum {
    GASNET_COLL_BROADCAST_OP = 0,
    GASNET_COLL_SCATTER_OP,
    GASNET_COLL_GATHER_OP,
    GASNET_COLL_GATHER_ALL_OP,
    GASNET_COLL_EXCHANGE_OP,
    GASNET_COLL_NUM_COLL_OPTYPES
} gasnet_coll_optype_t;
typedef enum {
    GASNET_COLL_PIPE_SEG_SIZE,
    GASNET_COLL_DISSEM_RADIX,
    GASNET_COLL_TREE_TYPE,
    GASNET_COLL_NUM_PARAM_TYPES
} gasnet_coll_tuning_param_type_t;
typedef void (*gasnet_coll_overlap_sample_work_t)(void *arg);
extern void gasnet_coll_loadTuningState(char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team);
extern int  gasnet_coll_get_num_tree_classes(gasnet_team_handle_t team, gasnet_coll_optype_t optype);
extern void gasnet_coll_set_tree_kind(gasnet_team_handle_t team, int tree_type, int fanout,
                                      gasnet_coll_optype_t optype);
extern void gasnet_coll_set_dissem_limit(gasnet_team_handle_t team, size_t dissemlimit,
                                         gasnet_coll_optype_t optype);

/* GASNet-1's initialization (gone from GASNet-EX, kept for older clients): optional,
 * collective, after attach; images must be NULL (one image per rank), no function table. */
typedef void (*gasnet_coll_fn_t)(void *results, size_t result_count, const void *left_operands,
                                 size_t left_count, const void *right_operands,
                                 size_t elem_size, int flags, int arg);
typedef struct {
    gasnet_coll_fn_t fnptr;
    unsigned int     flags;
} gasnet_coll_fn_entry_t;
extern void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                             gasnet_coll_fn_entry_t *fn_tbl, size_t fn_count, int init_flags);

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif /* _GASNET_COLL_H */
