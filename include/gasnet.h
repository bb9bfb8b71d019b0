/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet.h: the legacy GASNet-1 interface (spec 1.8) on top of Rivet's GASNet-EX.
 * Thin inline wrappers over gex_* calls; the rest lives in src/legacy/. See docs/legacy.md. */
#ifndef _INCLUDED_GASNET_H
#define _INCLUDED_GASNET_H

#include <gasnet_config.h>
#include <gasnetex.h>
#include <gasnet_tools.h> /* clients of gasnet.h use gasnett_* without including it */
#include <gasnet_coll.h>  /* Rivet's gasnet.h also gives the GASNet-1 collectives */

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

/* ---- configuration and types ---------------------------------------------- */
#define GASNET_VERSION GASNET_SPEC_VERSION_MAJOR
#define GASNET_MAXNODES ((gasnet_node_t)0x7FFFFFFF)

typedef struct {
    gasnet_handler_t index; /* 0: "don't care", assigned by gasnet_attach */
    void (*fnptr)();
} gasnet_handlerentry_t;

/* gasnet_seginfo_t comes with gasnetex.h */

/* a (address, length) pair of the GASNet-1 VIS calls (gasnet_vis.h), layout of gex_Memvec_t */
#ifndef RV_GASNET_MEMVEC_T
#define RV_GASNET_MEMVEC_T /* also defined by gasnet_vis.h */
typedef struct {
    void  *addr;
    size_t len;
} gasnet_memvec_t;
#endif

typedef struct rv_valget *gasnet_valget_handle_t;

/* gasnet_getNodeInfo: where every node runs. host: 0-based id shared by the nodes on one
 * compute node; supernode: 0-based id of its shared-memory neighbourhood; offset: what to
 * add to a supernode peer's segment address (as gasnet_getSegmentInfo reports it) to get
 * where that segment is mapped here (0 for others, and before the segment exists). */
typedef struct {
    gasnet_node_t host;
    gasnet_node_t supernode;
    uintptr_t     offset;
} gasnet_nodeinfo_t;

/* ---- the legacy binding (internal) ------------------------------------------
 * _rivet_legacy_tm is the primordial team once GASNet-1 calls are allowed: set by
 * gasnet_attach, or on first use by a client initialized by gex_Client_Init with
 * GEX_FLAG_USES_GASNET1. The slow path names the call in a fatal error otherwise. */
extern gex_TM_t _rivet_legacy_tm;
extern gex_TM_t _rivet_legacy_tm_slow(const char *call);
static inline gex_TM_t rv_legacy_tm_get(const char *call)
{
    /* acquire (a plain load on x86): pairs with the library's release store, so the team's
     * fields are seen as they were when it was published */
    gex_TM_t tm = __atomic_load_n(&_rivet_legacy_tm, __ATOMIC_ACQUIRE);
    return __builtin_expect(tm != GEX_TM_INVALID, 1) ? tm : _rivet_legacy_tm_slow(call);
}
#define RV_G1_TM(call) rv_legacy_tm_get(call)

/* ---- job control ------------------------------------------------------------ */
extern int gasnet_init(int *argc, char ***argv);
#if (defined(GASNET_SEQ) || defined(GASNET_PARSYNC)) && !defined(RV_BUILDING_LIBRIVET)
#define gasnet_init _rivet_gasnet_init_seq /* gasnetex.h */
#endif
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                         uintptr_t minheapoffset);
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                                   gex_Segment_t *segment_p);

/* ---- AM queries and misc ------------------------------------------------------ */
#define gasnet_AMMaxArgs() ((size_t)gex_AM_MaxArgs())
#define gasnet_AMMaxMedium() \
    (gex_AM_LUBRequestMedium() < gex_AM_LUBReplyMedium() ? gex_AM_LUBRequestMedium() \
                                                         : gex_AM_LUBReplyMedium())
#define gasnet_AMMaxLongRequest() gex_AM_LUBRequestLong()
#define gasnet_AMMaxLongReply()   gex_AM_LUBReplyLong()
extern int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex);

/* Rivet runs handlers only inside GASNet calls (no interrupts): nothing to hold. */
#define gasnet_hold_interrupts()   ((void)0)
#define gasnet_resume_interrupts() ((void)0)

/* ---- AM Request/Reply forms --------------------------------------------------
 * Every form sends through the primordial team with no flags; payload sources are
 * reusable on return (GEX_EVENT_NOW). LongAsync is a Long: it only relaxes what
 * the client may do, so the stricter Long satisfies it. */
/* gasnet_AMRequestShort0..16 */
#define gasnet_AMRequestShort0(dest,h) \
    gex_AM_RequestShort0(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0)
#define gasnet_AMRequestShort1(dest,h,a0) \
    gex_AM_RequestShort1(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0)
#define gasnet_AMRequestShort2(dest,h,a0,a1) \
    gex_AM_RequestShort2(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1)
#define gasnet_AMRequestShort3(dest,h,a0,a1,a2) \
    gex_AM_RequestShort3(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2)
#define gasnet_AMRequestShort4(dest,h,a0,a1,a2,a3) \
    gex_AM_RequestShort4(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3)
#define gasnet_AMRequestShort5(dest,h,a0,a1,a2,a3,a4) \
    gex_AM_RequestShort5(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4)
#define gasnet_AMRequestShort6(dest,h,a0,a1,a2,a3,a4,a5) \
    gex_AM_RequestShort6(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5)
#define gasnet_AMRequestShort7(dest,h,a0,a1,a2,a3,a4,a5,a6) \
    gex_AM_RequestShort7(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6)
#define gasnet_AMRequestShort8(dest,h,a0,a1,a2,a3,a4,a5,a6,a7) \
    gex_AM_RequestShort8(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7)
#define gasnet_AMRequestShort9(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8) \
    gex_AM_RequestShort9(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8)
#define gasnet_AMRequestShort10(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9) \
    gex_AM_RequestShort10(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)
#define gasnet_AMRequestShort11(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10) \
    gex_AM_RequestShort11(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10)
#define gasnet_AMRequestShort12(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11) \
    gex_AM_RequestShort12(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11)
#define gasnet_AMRequestShort13(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12) \
    gex_AM_RequestShort13(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12)
#define gasnet_AMRequestShort14(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13) \
    gex_AM_RequestShort14(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13)
#define gasnet_AMRequestShort15(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14) \
    gex_AM_RequestShort15(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14)
#define gasnet_AMRequestShort16(dest,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15) \
    gex_AM_RequestShort16(RV_G1_TM("gasnet_AMRequestShort"),dest,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15)
/* gasnet_AMRequestMedium0..16 */
#define gasnet_AMRequestMedium0(dest,h,src,nb) \
    gex_AM_RequestMedium0(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0)
#define gasnet_AMRequestMedium1(dest,h,src,nb,a0) \
    gex_AM_RequestMedium1(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0)
#define gasnet_AMRequestMedium2(dest,h,src,nb,a0,a1) \
    gex_AM_RequestMedium2(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1)
#define gasnet_AMRequestMedium3(dest,h,src,nb,a0,a1,a2) \
    gex_AM_RequestMedium3(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2)
#define gasnet_AMRequestMedium4(dest,h,src,nb,a0,a1,a2,a3) \
    gex_AM_RequestMedium4(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3)
#define gasnet_AMRequestMedium5(dest,h,src,nb,a0,a1,a2,a3,a4) \
    gex_AM_RequestMedium5(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4)
#define gasnet_AMRequestMedium6(dest,h,src,nb,a0,a1,a2,a3,a4,a5) \
    gex_AM_RequestMedium6(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5)
#define gasnet_AMRequestMedium7(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6) \
    gex_AM_RequestMedium7(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6)
#define gasnet_AMRequestMedium8(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7) \
    gex_AM_RequestMedium8(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7)
#define gasnet_AMRequestMedium9(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8) \
    gex_AM_RequestMedium9(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8)
#define gasnet_AMRequestMedium10(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9) \
    gex_AM_RequestMedium10(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)
#define gasnet_AMRequestMedium11(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10) \
    gex_AM_RequestMedium11(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10)
#define gasnet_AMRequestMedium12(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11) \
    gex_AM_RequestMedium12(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11)
#define gasnet_AMRequestMedium13(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12) \
    gex_AM_RequestMedium13(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12)
#define gasnet_AMRequestMedium14(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13) \
    gex_AM_RequestMedium14(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13)
#define gasnet_AMRequestMedium15(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14) \
    gex_AM_RequestMedium15(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14)
#define gasnet_AMRequestMedium16(dest,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15) \
    gex_AM_RequestMedium16(RV_G1_TM("gasnet_AMRequestMedium"),dest,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15)
/* gasnet_AMRequestLong0..16 */
#define gasnet_AMRequestLong0(dest,h,src,nb,da) \
    gex_AM_RequestLong0(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0)
#define gasnet_AMRequestLong1(dest,h,src,nb,da,a0) \
    gex_AM_RequestLong1(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0)
#define gasnet_AMRequestLong2(dest,h,src,nb,da,a0,a1) \
    gex_AM_RequestLong2(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1)
#define gasnet_AMRequestLong3(dest,h,src,nb,da,a0,a1,a2) \
    gex_AM_RequestLong3(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2)
#define gasnet_AMRequestLong4(dest,h,src,nb,da,a0,a1,a2,a3) \
    gex_AM_RequestLong4(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3)
#define gasnet_AMRequestLong5(dest,h,src,nb,da,a0,a1,a2,a3,a4) \
    gex_AM_RequestLong5(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4)
#define gasnet_AMRequestLong6(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5) \
    gex_AM_RequestLong6(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5)
#define gasnet_AMRequestLong7(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6) \
    gex_AM_RequestLong7(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6)
#define gasnet_AMRequestLong8(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7) \
    gex_AM_RequestLong8(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7)
#define gasnet_AMRequestLong9(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8) \
    gex_AM_RequestLong9(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8)
#define gasnet_AMRequestLong10(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9) \
    gex_AM_RequestLong10(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)
#define gasnet_AMRequestLong11(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10) \
    gex_AM_RequestLong11(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10)
#define gasnet_AMRequestLong12(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11) \
    gex_AM_RequestLong12(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11)
#define gasnet_AMRequestLong13(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12) \
    gex_AM_RequestLong13(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12)
#define gasnet_AMRequestLong14(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13) \
    gex_AM_RequestLong14(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13)
#define gasnet_AMRequestLong15(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14) \
    gex_AM_RequestLong15(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14)
#define gasnet_AMRequestLong16(dest,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15) \
    gex_AM_RequestLong16(RV_G1_TM("gasnet_AMRequestLong"),dest,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15)
/* gasnet_AMRequestLongAsync0..16: sent as Long (LongAsync only relaxes the caller's
 * obligations on the source buffer; Long already copies it before returning) */
#define gasnet_AMRequestLongAsync0 gasnet_AMRequestLong0
#define gasnet_AMRequestLongAsync1 gasnet_AMRequestLong1
#define gasnet_AMRequestLongAsync2 gasnet_AMRequestLong2
#define gasnet_AMRequestLongAsync3 gasnet_AMRequestLong3
#define gasnet_AMRequestLongAsync4 gasnet_AMRequestLong4
#define gasnet_AMRequestLongAsync5 gasnet_AMRequestLong5
#define gasnet_AMRequestLongAsync6 gasnet_AMRequestLong6
#define gasnet_AMRequestLongAsync7 gasnet_AMRequestLong7
#define gasnet_AMRequestLongAsync8 gasnet_AMRequestLong8
#define gasnet_AMRequestLongAsync9 gasnet_AMRequestLong9
#define gasnet_AMRequestLongAsync10 gasnet_AMRequestLong10
#define gasnet_AMRequestLongAsync11 gasnet_AMRequestLong11
#define gasnet_AMRequestLongAsync12 gasnet_AMRequestLong12
#define gasnet_AMRequestLongAsync13 gasnet_AMRequestLong13
#define gasnet_AMRequestLongAsync14 gasnet_AMRequestLong14
#define gasnet_AMRequestLongAsync15 gasnet_AMRequestLong15
#define gasnet_AMRequestLongAsync16 gasnet_AMRequestLong16
/* gasnet_AMReplyShort0..16 */
#define gasnet_AMReplyShort0(tok,h) \
    gex_AM_ReplyShort0(tok,h,0)
#define gasnet_AMReplyShort1(tok,h,a0) \
    gex_AM_ReplyShort1(tok,h,0,a0)
#define gasnet_AMReplyShort2(tok,h,a0,a1) \
    gex_AM_ReplyShort2(tok,h,0,a0,a1)
#define gasnet_AMReplyShort3(tok,h,a0,a1,a2) \
    gex_AM_ReplyShort3(tok,h,0,a0,a1,a2)
#define gasnet_AMReplyShort4(tok,h,a0,a1,a2,a3) \
    gex_AM_ReplyShort4(tok,h,0,a0,a1,a2,a3)
#define gasnet_AMReplyShort5(tok,h,a0,a1,a2,a3,a4) \
    gex_AM_ReplyShort5(tok,h,0,a0,a1,a2,a3,a4)
#define gasnet_AMReplyShort6(tok,h,a0,a1,a2,a3,a4,a5) \
    gex_AM_ReplyShort6(tok,h,0,a0,a1,a2,a3,a4,a5)
#define gasnet_AMReplyShort7(tok,h,a0,a1,a2,a3,a4,a5,a6) \
    gex_AM_ReplyShort7(tok,h,0,a0,a1,a2,a3,a4,a5,a6)
#define gasnet_AMReplyShort8(tok,h,a0,a1,a2,a3,a4,a5,a6,a7) \
    gex_AM_ReplyShort8(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7)
#define gasnet_AMReplyShort9(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8) \
    gex_AM_ReplyShort9(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8)
#define gasnet_AMReplyShort10(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9) \
    gex_AM_ReplyShort10(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)
#define gasnet_AMReplyShort11(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10) \
    gex_AM_ReplyShort11(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10)
#define gasnet_AMReplyShort12(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11) \
    gex_AM_ReplyShort12(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11)
#define gasnet_AMReplyShort13(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12) \
    gex_AM_ReplyShort13(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12)
#define gasnet_AMReplyShort14(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13) \
    gex_AM_ReplyShort14(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13)
#define gasnet_AMReplyShort15(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14) \
    gex_AM_ReplyShort15(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14)
#define gasnet_AMReplyShort16(tok,h,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15) \
    gex_AM_ReplyShort16(tok,h,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15)
/* gasnet_AMReplyMedium0..16 */
#define gasnet_AMReplyMedium0(tok,h,src,nb) \
    gex_AM_ReplyMedium0(tok,h,src,nb,GEX_EVENT_NOW,0)
#define gasnet_AMReplyMedium1(tok,h,src,nb,a0) \
    gex_AM_ReplyMedium1(tok,h,src,nb,GEX_EVENT_NOW,0,a0)
#define gasnet_AMReplyMedium2(tok,h,src,nb,a0,a1) \
    gex_AM_ReplyMedium2(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1)
#define gasnet_AMReplyMedium3(tok,h,src,nb,a0,a1,a2) \
    gex_AM_ReplyMedium3(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2)
#define gasnet_AMReplyMedium4(tok,h,src,nb,a0,a1,a2,a3) \
    gex_AM_ReplyMedium4(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3)
#define gasnet_AMReplyMedium5(tok,h,src,nb,a0,a1,a2,a3,a4) \
    gex_AM_ReplyMedium5(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4)
#define gasnet_AMReplyMedium6(tok,h,src,nb,a0,a1,a2,a3,a4,a5) \
    gex_AM_ReplyMedium6(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5)
#define gasnet_AMReplyMedium7(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6) \
    gex_AM_ReplyMedium7(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6)
#define gasnet_AMReplyMedium8(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7) \
    gex_AM_ReplyMedium8(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7)
#define gasnet_AMReplyMedium9(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8) \
    gex_AM_ReplyMedium9(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8)
#define gasnet_AMReplyMedium10(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9) \
    gex_AM_ReplyMedium10(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)
#define gasnet_AMReplyMedium11(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10) \
    gex_AM_ReplyMedium11(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10)
#define gasnet_AMReplyMedium12(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11) \
    gex_AM_ReplyMedium12(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11)
#define gasnet_AMReplyMedium13(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12) \
    gex_AM_ReplyMedium13(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12)
#define gasnet_AMReplyMedium14(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13) \
    gex_AM_ReplyMedium14(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13)
#define gasnet_AMReplyMedium15(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14) \
    gex_AM_ReplyMedium15(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14)
#define gasnet_AMReplyMedium16(tok,h,src,nb,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15) \
    gex_AM_ReplyMedium16(tok,h,src,nb,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15)
/* gasnet_AMReplyLong0..16 */
#define gasnet_AMReplyLong0(tok,h,src,nb,da) \
    gex_AM_ReplyLong0(tok,h,src,nb,da,GEX_EVENT_NOW,0)
#define gasnet_AMReplyLong1(tok,h,src,nb,da,a0) \
    gex_AM_ReplyLong1(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0)
#define gasnet_AMReplyLong2(tok,h,src,nb,da,a0,a1) \
    gex_AM_ReplyLong2(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1)
#define gasnet_AMReplyLong3(tok,h,src,nb,da,a0,a1,a2) \
    gex_AM_ReplyLong3(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2)
#define gasnet_AMReplyLong4(tok,h,src,nb,da,a0,a1,a2,a3) \
    gex_AM_ReplyLong4(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3)
#define gasnet_AMReplyLong5(tok,h,src,nb,da,a0,a1,a2,a3,a4) \
    gex_AM_ReplyLong5(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4)
#define gasnet_AMReplyLong6(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5) \
    gex_AM_ReplyLong6(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5)
#define gasnet_AMReplyLong7(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6) \
    gex_AM_ReplyLong7(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6)
#define gasnet_AMReplyLong8(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7) \
    gex_AM_ReplyLong8(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7)
#define gasnet_AMReplyLong9(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8) \
    gex_AM_ReplyLong9(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8)
#define gasnet_AMReplyLong10(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9) \
    gex_AM_ReplyLong10(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)
#define gasnet_AMReplyLong11(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10) \
    gex_AM_ReplyLong11(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10)
#define gasnet_AMReplyLong12(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11) \
    gex_AM_ReplyLong12(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11)
#define gasnet_AMReplyLong13(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12) \
    gex_AM_ReplyLong13(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12)
#define gasnet_AMReplyLong14(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13) \
    gex_AM_ReplyLong14(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13)
#define gasnet_AMReplyLong15(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14) \
    gex_AM_ReplyLong15(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14)
#define gasnet_AMReplyLong16(tok,h,src,nb,da,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15) \
    gex_AM_ReplyLong16(tok,h,src,nb,da,GEX_EVENT_NOW,0,a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15)

/* ---- blocking put/get -------------------------------------------------------
 * Blocking GASNet-1 RMA makes progress: every 32nd such call of a thread polls once, so
 * a thread looping on blocking puts/gets until a handler's effect shows up finishes even
 * when its peer is a shared-memory neighbour (a plain copy that never polls). */
extern void _rivet_legacy_try_poll(void);
extern __thread unsigned _rivet_legacy_blocking_calls;
static inline void rv_legacy_blocking_progress(void)
{
    if (__builtin_expect((++_rivet_legacy_blocking_calls & 31) == 0, 0)) _rivet_legacy_try_poll();
}
static inline void gasnet_put(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    (void)gex_RMA_PutBlocking(RV_G1_TM("gasnet_put"), node, dest, src, nbytes, 0);
    rv_legacy_blocking_progress();
}
static inline void gasnet_put_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    (void)gex_RMA_PutBlocking(RV_G1_TM("gasnet_put_bulk"), node, dest, src, nbytes, 0);
    rv_legacy_blocking_progress();
}
static inline void gasnet_get(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    (void)gex_RMA_GetBlocking(RV_G1_TM("gasnet_get"), dest, node, src, nbytes, 0);
    rv_legacy_blocking_progress();
}
static inline void gasnet_get_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    (void)gex_RMA_GetBlocking(RV_G1_TM("gasnet_get_bulk"), dest, node, src, nbytes, 0);
    rv_legacy_blocking_progress();
}

/* ---- explicit-handle put/get -------------------------------------------------
 * Non-bulk puts: the source is reusable on return (GEX_EVENT_NOW); bulk puts keep
 * it until the handle is synchronized (GEX_EVENT_DEFER). */
static inline gasnet_handle_t gasnet_put_nb(gasnet_node_t node, void *dest, void *src,
                                            size_t nbytes)
{
    return gex_RMA_PutNB(RV_G1_TM("gasnet_put_nb"), node, dest, src, nbytes, GEX_EVENT_NOW, 0);
}
static inline gasnet_handle_t gasnet_put_nb_bulk(gasnet_node_t node, void *dest, void *src,
                                                 size_t nbytes)
{
    return gex_RMA_PutNB(RV_G1_TM("gasnet_put_nb_bulk"), node, dest, src, nbytes,
                         GEX_EVENT_DEFER, 0);
}
static inline gasnet_handle_t gasnet_get_nb(void *dest, gasnet_node_t node, void *src,
                                            size_t nbytes)
{
    return gex_RMA_GetNB(RV_G1_TM("gasnet_get_nb"), dest, node, src, nbytes, 0);
}
static inline gasnet_handle_t gasnet_get_nb_bulk(void *dest, gasnet_node_t node, void *src,
                                                 size_t nbytes)
{
    return gex_RMA_GetNB(RV_G1_TM("gasnet_get_nb_bulk"), dest, node, src, nbytes, 0);
}

/* ---- implicit-handle put/get ------------------------------------------------ */
static inline void gasnet_put_nbi(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    (void)gex_RMA_PutNBI(RV_G1_TM("gasnet_put_nbi"), node, dest, src, nbytes, GEX_EVENT_NOW, 0);
}
static inline void gasnet_put_nbi_bulk(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    (void)gex_RMA_PutNBI(RV_G1_TM("gasnet_put_nbi_bulk"), node, dest, src, nbytes,
                         GEX_EVENT_DEFER, 0);
}
static inline void gasnet_get_nbi(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    (void)gex_RMA_GetNBI(RV_G1_TM("gasnet_get_nbi"), dest, node, src, nbytes, 0);
}
static inline void gasnet_get_nbi_bulk(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    (void)gex_RMA_GetNBI(RV_G1_TM("gasnet_get_nbi_bulk"), dest, node, src, nbytes, 0);
}

/* ---- value put/get ------------------------------------------------------------ */
static inline void gasnet_put_val(gasnet_node_t node, void *dest, gasnet_register_value_t value,
                                  size_t nbytes)
{
    (void)gex_RMA_PutBlockingVal(RV_G1_TM("gasnet_put_val"), node, dest, value, nbytes, 0);
    rv_legacy_blocking_progress();
}
static inline gasnet_handle_t gasnet_put_nb_val(gasnet_node_t node, void *dest,
                                                gasnet_register_value_t value, size_t nbytes)
{
    return gex_RMA_PutNBVal(RV_G1_TM("gasnet_put_nb_val"), node, dest, value, nbytes, 0);
}
static inline void gasnet_put_nbi_val(gasnet_node_t node, void *dest,
                                      gasnet_register_value_t value, size_t nbytes)
{
    (void)gex_RMA_PutNBIVal(RV_G1_TM("gasnet_put_nbi_val"), node, dest, value, nbytes, 0);
}
static inline gasnet_register_value_t gasnet_get_val(gasnet_node_t node, void *src, size_t nbytes)
{
    gasnet_register_value_t v = gex_RMA_GetBlockingVal(RV_G1_TM("gasnet_get_val"), node, src,
                                                       nbytes, 0);
    rv_legacy_blocking_progress();
    return v;
}
extern gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes);
extern gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle);

/* ---- remote memset (no EX counterpart: src/legacy/legacy_memset.c) ----------- */
extern void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- explicit-handle synchronization ---------------------------------------- */
static inline void gasnet_wait_syncnb(gasnet_handle_t handle) { gex_Event_Wait(handle); }
/* The try forms make progress first, as GASNet-1 requires of them (gex_*_Test do not). */
static inline int gasnet_try_syncnb(gasnet_handle_t handle)
{
    _rivet_legacy_try_poll();
    return gex_Event_Test(handle);
}
static inline void gasnet_wait_syncnb_all(gasnet_handle_t *handles, size_t numhandles)
{
    gex_Event_WaitAll(handles, numhandles, 0);
}
static inline int gasnet_try_syncnb_all(gasnet_handle_t *handles, size_t numhandles)
{
    _rivet_legacy_try_poll();
    return gex_Event_TestAll(handles, numhandles, 0);
}
static inline void gasnet_wait_syncnb_some(gasnet_handle_t *handles, size_t numhandles)
{
    gex_Event_WaitSome(handles, numhandles, 0);
}
static inline int gasnet_try_syncnb_some(gasnet_handle_t *handles, size_t numhandles)
{
    _rivet_legacy_try_poll();
    return gex_Event_TestSome(handles, numhandles, 0);
}

/* ---- implicit-handle synchronization and access regions --------------------- */
#define gasnet_wait_syncnbi_gets() gex_NBI_Wait(GEX_EC_GET, 0)
#define gasnet_wait_syncnbi_puts() gex_NBI_Wait(GEX_EC_PUT, 0)
#define gasnet_wait_syncnbi_all()  gex_NBI_Wait(GEX_EC_ALL, 0)
#define gasnet_try_syncnbi_gets()  (_rivet_legacy_try_poll(), gex_NBI_Test(GEX_EC_GET, 0))
#define gasnet_try_syncnbi_puts()  (_rivet_legacy_try_poll(), gex_NBI_Test(GEX_EC_PUT, 0))
#define gasnet_try_syncnbi_all()   (_rivet_legacy_try_poll(), gex_NBI_Test(GEX_EC_ALL, 0))
#define gasnet_begin_nbi_accessregion() gex_NBI_BeginAccessRegion(0)
#define gasnet_end_nbi_accessregion()   gex_NBI_EndAccessRegion(0)

/* ---- GASNet-1 collectives (GASNET_TEAM_ALL, gasnet_coll_broadcast, ...) live in
 * gasnet_coll.h, as in GASNet; gasnet.h includes it (above) for GASNet-1 clients that
 * relied on gasnet.h alone. */

/* The barrier (gasnet_barrier_notify/wait/try/result, gasnet_barrier, GASNET_BARRIERFLAG_*),
 * the configuration and conduit names, gasnet_getenv, gasnet_set_waitmode and the
 * thread-discovery macros are declared in gasnetex.h: every client may use them. */

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* _INCLUDED_GASNET_H */
