/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_query.c: the core queries. Client, endpoint and team queries and their
 * client data; job rank and size; neighbourhood and host information and positions,
 * cross-checked between all ranks; segment size limits; segment queries before and
 * after attach; the client's attach hook; gex_Segment_QueryBound and
 * gex_EP_QueryBoundSegmentNB for every rank
 * (each attaches a different size), with cross-mapped segments read through their
 * local addresses; error names and descriptions; constants the spec fixes. */
#include "rv_test.h"

#include <unistd.h>

enum { H_INFO = 150 };

/* What every rank tells every other rank about itself. */
typedef struct {
    uint32_t  jobrank, jobsize;
    uint32_t  nbrhd_set_size, nbrhd_set_rank, host_set_size, host_set_rank;
    uint64_t  seg_addr, seg_size, max_local, max_global;
} info_t;

static info_t *all;        /* [rank] as received */
static volatile unsigned nrecv;

static void h_info(gex_Token_t t, void *buf, size_t nb)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    RVT_CHECK(nb == sizeof(info_t), "info of %zu bytes", nb);
    RVT_CHECK(ti.gex_srcrank < rvt_n, "srcrank %u", (unsigned)ti.gex_srcrank);
    memcpy(&all[ti.gex_srcrank], buf, sizeof(info_t));
    /* Queries allowed in handler context. */
    RVT_CHECK(gex_System_QueryJobRank() == rvt_me && gex_System_QueryJobSize() == rvt_n,
              "job queries differ inside a handler");
    RVT_CHECK(gex_TM_QueryRank(rvt_tm) == rvt_me, "gex_TM_QueryRank differs inside a handler");
    nrecv++;
}

static int in_list(gex_RankInfo_t *list, gex_Rank_t n, gex_Rank_t r)
{
    for (gex_Rank_t i = 0; i < n; i++)
        if (list[i].gex_jobrank == r) return 1;
    return 0;
}

static uintptr_t my_segsize(gex_Rank_t r) { return (uintptr_t)(4 + 3 * (r % 4)) * GASNET_PAGESIZE; }

static uint8_t fill_byte(gex_Rank_t r, size_t i) { return (uint8_t)(r * 31 + i * 7 + (i >> 8)); }

/* gasnet_client_attach_hook: what it was called with, and a mark it leaves in the segment. */
static unsigned hook_calls;
static void *hook_base;
static uintptr_t hook_size;
static void attach_hook(void *segbase, uintptr_t segsize)
{
    hook_calls++;
    hook_base = segbase;
    hook_size = segsize;
    ((volatile char *)segbase)[segsize - 1] = 'H';
}

int main(int argc, char **argv)
{
    char **argv0 = argv;
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "CORE_QUERY", &argc, &argv, 0));
    RVT_CHECK(argv == argv0 && argc >= 1, "gex_Client_Init changed argv unexpectedly");
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);

    /* Constants. */
    RVT_CHECK(GASNET_OK == 0, "GASNET_OK is %d", GASNET_OK);
    RVT_CHECK(GEX_EVENT_INVALID == 0 && GEX_EVENT_NO_OP != 0, "event constants");
    RVT_CHECK(GEX_AM_SRCDESC_NO_OP == 0, "GEX_AM_SRCDESC_NO_OP is not zero");
    RVT_CHECK(GEX_CLIENT_INVALID == 0 && GEX_EP_INVALID == 0 && GEX_TM_INVALID == 0 &&
              GEX_SEGMENT_INVALID == 0, "invalid handles are not zero");
    RVT_CHECK(GEX_RANK_INVALID >= rvt_n, "GEX_RANK_INVALID %u is a valid rank", (unsigned)GEX_RANK_INVALID);
    RVT_CHECK(GASNET_PAGESIZE > 0 && (GASNET_PAGESIZE & (GASNET_PAGESIZE - 1)) == 0 &&
              GASNET_PAGESIZE % sysconf(_SC_PAGESIZE) == 0, "GASNET_PAGESIZE %ld", (long)GASNET_PAGESIZE);
    RVT_CHECK(GEX_AM_INDEX_BASE <= 128, "GEX_AM_INDEX_BASE %d", GEX_AM_INDEX_BASE);
    RVT_CHECK(sizeof(gex_AM_Index_t) == 1 && sizeof(gex_AM_Arg_t) == 4 && (gex_AM_Arg_t)-1 < 0,
              "handler index/argument types");
    RVT_CHECK((gex_Rank_t)-1 > 0, "gex_Rank_t is not unsigned");

    /* Error names and descriptions. */
    static const struct { int code; const char *name; } errs[] = {
        { GASNET_OK, "GASNET_OK" },
        { GASNET_ERR_NOT_INIT, "GASNET_ERR_NOT_INIT" },
        { GASNET_ERR_RESOURCE, "GASNET_ERR_RESOURCE" },
        { GASNET_ERR_BAD_ARG, "GASNET_ERR_BAD_ARG" },
        { GASNET_ERR_NOT_READY, "GASNET_ERR_NOT_READY" },
        { GASNET_ERR_BARRIER_MISMATCH, "GASNET_ERR_BARRIER_MISMATCH" },
    };
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        RVT_CHECK(!strcmp(gasnet_ErrorName(errs[i].code), errs[i].name), "gasnet_ErrorName(%d) is "
                  "'%s'", errs[i].code, gasnet_ErrorName(errs[i].code));
        const char *d = gasnet_ErrorDesc(errs[i].code);
        RVT_CHECK(d && d[0], "gasnet_ErrorDesc(%d) is empty", errs[i].code);
        for (size_t j = 0; j < i; j++)
            RVT_CHECK(errs[i].code != errs[j].code && strcmp(d, gasnet_ErrorDesc(errs[j].code)),
                      "error codes/descriptions %zu and %zu coincide", i, j);
    }
    RVT_CHECK(gasnet_ErrorName(123456) != NULL && gasnet_ErrorDesc(123456) != NULL,
              "unknown error codes must still have a (placeholder) name and description");

    /* Client, endpoint, team. */
    RVT_CHECK(rvt_client != GEX_CLIENT_INVALID && rvt_ep != GEX_EP_INVALID && rvt_tm != GEX_TM_INVALID,
              "gex_Client_Init returned an invalid handle");
    RVT_CHECK(!strcmp(gex_Client_QueryName(rvt_client), "CORE_QUERY"), "client name '%s'",
              gex_Client_QueryName(rvt_client));
    RVT_CHECK(gex_Client_QueryFlags(rvt_client) == 0, "client flags 0x%x",
              (unsigned)gex_Client_QueryFlags(rvt_client));
    RVT_CHECK(gex_EP_QueryClient(rvt_ep) == rvt_client, "gex_EP_QueryClient");
    RVT_CHECK(gex_EP_QueryIndex(rvt_ep) == 0, "the primordial endpoint has index %u",
              (unsigned)gex_EP_QueryIndex(rvt_ep));
    (void)gex_EP_QueryFlags(rvt_ep);
    RVT_CHECK(gex_EP_QuerySegment(rvt_ep) == GEX_SEGMENT_INVALID, "segment bound before attach");
    RVT_CHECK(gex_TM_QueryClient(rvt_tm) == rvt_client && gex_TM_QueryEP(rvt_tm) == rvt_ep,
              "gex_TM_QueryClient/EP");
    (void)gex_TM_QueryFlags(rvt_tm);
    RVT_CHECK(rvt_me < rvt_n, "rank %u of %u", (unsigned)rvt_me, (unsigned)rvt_n);
    RVT_CHECK(gex_System_QueryJobRank() == rvt_me && gex_System_QueryJobSize() == rvt_n,
              "job rank/size %u/%u differ from the primordial team's %u/%u",
              (unsigned)gex_System_QueryJobRank(), (unsigned)gex_System_QueryJobSize(),
              (unsigned)rvt_me, (unsigned)rvt_n);
    RVT_CHECK(gasnet_mynode() == rvt_me && gasnet_nodes() == rvt_n, "gasnet_mynode/nodes");
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        RVT_CHECK(gex_TM_TranslateRankToJobrank(rvt_tm, r) == r, "TranslateRankToJobrank(%u)", (unsigned)r);
        RVT_CHECK(gex_TM_TranslateJobrankToRank(rvt_tm, r) == r, "TranslateJobrankToRank(%u)", (unsigned)r);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(rvt_tm, r, 0);
        RVT_CHECK(loc.gex_rank == r && loc.gex_ep_index == 0, "TranslateRankToEP(%u)", (unsigned)r);
    }

    /* Client data: NULL at first, then whatever was set, independently per object. */
    static int c1, c2, c3, c4;
    RVT_CHECK(!gex_Client_QueryCData(rvt_client) && !gex_EP_QueryCData(rvt_ep) &&
              !gex_TM_QueryCData(rvt_tm), "CData is not NULL initially");
    gex_Client_SetCData(rvt_client, &c1);
    gex_EP_SetCData(rvt_ep, &c2);
    gex_TM_SetCData(rvt_tm, &c3);
    RVT_CHECK(gex_Client_QueryCData(rvt_client) == &c1 && gex_EP_QueryCData(rvt_ep) == &c2 &&
              gex_TM_QueryCData(rvt_tm) == &c3, "CData round trip");
    gex_TM_SetCData(rvt_tm, NULL);
    RVT_CHECK(gex_TM_QueryCData(rvt_tm) == NULL && gex_Client_QueryCData(rvt_client) == &c1,
              "CData reset");

    /* Neighbourhood and host. */
    gex_RankInfo_t *nb_info = NULL, *host_info = NULL;
    gex_Rank_t nb_count = 0, nb_me = GEX_RANK_INVALID, host_count = 0, host_me = GEX_RANK_INVALID;
    gex_System_QueryNbrhdInfo(&nb_info, &nb_count, &nb_me);
    gex_System_QueryHostInfo(&host_info, &host_count, &host_me);
    gex_System_QueryNbrhdInfo(NULL, NULL, NULL); /* every output may be NULL */
    gex_System_QueryHostInfo(NULL, NULL, NULL);
    RVT_CHECK(nb_info && nb_count >= 1 && nb_count <= rvt_n && nb_me < nb_count, "NbrhdInfo: %u "
              "members, I am %u", (unsigned)nb_count, (unsigned)nb_me);
    RVT_CHECK(nb_info[nb_me].gex_jobrank == rvt_me, "NbrhdInfo: my entry is rank %u",
              (unsigned)nb_info[nb_me].gex_jobrank);
    RVT_CHECK(host_info && host_count >= nb_count && host_count <= rvt_n && host_me < host_count,
              "HostInfo: %u members, I am %u", (unsigned)host_count, (unsigned)host_me);
    RVT_CHECK(host_info[host_me].gex_jobrank == rvt_me, "HostInfo: my entry is rank %u",
              (unsigned)host_info[host_me].gex_jobrank);
    for (gex_Rank_t i = 1; i < nb_count; i++)
        RVT_CHECK(nb_info[i - 1].gex_jobrank < nb_info[i].gex_jobrank, "NbrhdInfo not sorted");
    for (gex_Rank_t i = 1; i < host_count; i++)
        RVT_CHECK(host_info[i - 1].gex_jobrank < host_info[i].gex_jobrank, "HostInfo not sorted");
    for (gex_Rank_t i = 0; i < nb_count; i++)
        RVT_CHECK(in_list(host_info, host_count, nb_info[i].gex_jobrank), "neighbour %u is not on "
                  "my host", (unsigned)nb_info[i].gex_jobrank);
    gex_Rank_t nss = 0, nsr = GEX_RANK_INVALID, hss = 0, hsr = GEX_RANK_INVALID;
    gex_System_QueryMyPosition(&nss, &nsr, &hss, &hsr);
    gex_System_QueryMyPosition(NULL, NULL, NULL, NULL);
    RVT_CHECK(nss >= 1 && nsr < nss && hss >= 1 && hsr < hss && hss <= nss && nss <= rvt_n,
              "QueryMyPosition: nbrhd %u of %u, host %u of %u", (unsigned)nsr, (unsigned)nss,
              (unsigned)hsr, (unsigned)hss);

    /* Segment limits. */
    uintptr_t max_local = gasnet_getMaxLocalSegmentSize(), max_global = gasnet_getMaxGlobalSegmentSize();
    RVT_CHECK(max_global > 0 && max_global <= max_local, "max segment sizes: local %" PRIuPTR
              ", global %" PRIuPTR, max_local, max_global);
    RVT_CHECK(max_local % GASNET_PAGESIZE == 0 && max_global % GASNET_PAGESIZE == 0,
              "max segment sizes are not page multiples");
    RVT_CHECK(max_global >= my_segsize(3), "max global segment %" PRIuPTR " is tiny", max_global);

    /* Before attach there is no bound segment, and outputs stay untouched. */
    void *o = &c4, *l = &c4;
    uintptr_t s = 12345;
    RVT_CHECK(gex_Segment_QueryBound(rvt_tm, rvt_me, &o, &l, &s) != GASNET_OK,
              "QueryBound succeeded before attach");
    RVT_CHECK(o == &c4 && l == &c4 && s == 12345, "QueryBound wrote outputs on failure");
    /* gex_EP_QueryBoundSegmentNB: no bound segment is an "unsuccessful" query, not an error:
     * size 0, GEX_EVENT_INVALID (no communication), for this rank and a peer, with and without
     * GEX_FLAG_IMMEDIATE, and with NULL outputs (as GASNet's testgasnet asks). */
    for (int imm = 0; imm < 2; imm++)
        for (gex_Rank_t r = 0; r < rvt_n; r++) {
            s = 777;
            gex_Event_t ev = gex_EP_QueryBoundSegmentNB(rvt_tm, r, &o, &l, &s,
                                                        imm ? GEX_FLAG_IMMEDIATE : 0);
            RVT_CHECK(ev == GEX_EVENT_INVALID && s == 0, "QueryBoundSegmentNB(rank %u, %s) before "
                      "attach: event %p, size %" PRIuPTR, (unsigned)r, imm ? "IMMEDIATE" : "0",
                      (void *)ev, s);
            RVT_CHECK(gex_EP_QueryBoundSegmentNB(rvt_tm, r, NULL, NULL, NULL, 0) == GEX_EVENT_INVALID,
                      "QueryBoundSegmentNB with NULL outputs");
        }

    /* Attach: every rank a different size; the client hook sees this rank's new segment. */
    RVT_CHECK(gasnet_client_attach_hook == NULL, "gasnet_client_attach_hook is not NULL at start");
    gasnet_client_attach_hook = attach_hook;
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, my_segsize(rvt_me)));
    RVT_CHECK(rvt_seg != GEX_SEGMENT_INVALID && gex_EP_QuerySegment(rvt_ep) == rvt_seg,
              "gex_EP_QuerySegment after attach");
    char *base = gex_Segment_QueryAddr(rvt_seg);
    RVT_CHECK(base != NULL && gex_Segment_QuerySize(rvt_seg) == my_segsize(rvt_me),
              "segment %p of %" PRIuPTR " bytes", (void *)base, gex_Segment_QuerySize(rvt_seg));
    RVT_CHECK((uintptr_t)base % GASNET_PAGESIZE == 0, "segment %p not page aligned", (void *)base);
    RVT_CHECK(hook_calls == 1 && hook_base == base && hook_size == my_segsize(rvt_me),
              "attach hook: %u calls, last with %p and %" PRIuPTR " bytes", hook_calls, hook_base,
              hook_size);
    RVT_CHECK(base[my_segsize(rvt_me) - 1] == 'H', "the attach hook's write is not in the segment");
    RVT_CHECK(gex_Segment_QueryClient(rvt_seg) == rvt_client && gex_Segment_QueryFlags(rvt_seg) == 0,
              "segment client/flags");
    RVT_CHECK(gex_Segment_QueryCData(rvt_seg) == NULL, "segment CData not NULL");
    gex_Segment_SetCData(rvt_seg, &c4);
    RVT_CHECK(gex_Segment_QueryCData(rvt_seg) == &c4, "segment CData round trip");
    for (size_t i = 0; i < my_segsize(rvt_me); i++) base[i] = (char)fill_byte(rvt_me, i);

    /* Tell everybody about me. */
    gex_AM_Entry_t e = { H_INFO, (gex_AM_Fn_t)h_info, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0,
                         NULL, "info" };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, &e, 1));
    all = calloc(rvt_n, sizeof *all);
    RVT_CHECK(all != NULL, "out of memory");
    rvt_barrier();
    info_t mine = { rvt_me, rvt_n, nss, nsr, hss, hsr, (uint64_t)(uintptr_t)base,
                    my_segsize(rvt_me), max_local, max_global };
    for (gex_Rank_t r = 0; r < rvt_n; r++)
        RVT_OK(gex_AM_RequestMedium0(rvt_tm, r, H_INFO, &mine, sizeof mine, GEX_EVENT_NOW, 0));
    GASNET_BLOCKUNTIL(nrecv == rvt_n);
    rvt_barrier(); /* every segment is filled */

    uintptr_t least_local = UINTPTR_MAX;
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        const info_t *in = &all[r];
        RVT_CHECK(in->jobrank == r && in->jobsize == rvt_n, "rank %u reports %u/%u", (unsigned)r,
                  in->jobrank, in->jobsize);
        RVT_CHECK(in->max_global == max_global, "rank %u has max global segment %" PRIu64 ", I %" PRIuPTR,
                  (unsigned)r, in->max_global, max_global);
        if (in->max_local < least_local) least_local = in->max_local;
        /* Position queries are consistent across the job. */
        RVT_CHECK(in->nbrhd_set_size == nss && in->host_set_size == hss, "rank %u counts %u nbrhds "
                  "and %u hosts, I count %u and %u", (unsigned)r, in->nbrhd_set_size,
                  in->host_set_size, (unsigned)nss, (unsigned)hss);
        int same_nb = in_list(nb_info, nb_count, r), same_host = in_list(host_info, host_count, r);
        RVT_CHECK(same_nb == (in->nbrhd_set_rank == nsr), "rank %u: neighbourhood %u vs mine %u, "
                  "but it is%s in my NbrhdInfo", (unsigned)r, in->nbrhd_set_rank, (unsigned)nsr,
                  same_nb ? "" : " not");
        RVT_CHECK(same_host == (in->host_set_rank == hsr), "rank %u: host %u vs mine %u, but it "
                  "is%s in my HostInfo", (unsigned)r, in->host_set_rank, (unsigned)hsr,
                  same_host ? "" : " not");

        /* The bound segment of every rank, both ways of asking. */
        void *owner = NULL, *local = NULL;
        uintptr_t size = 0;
        RVT_OK(gex_Segment_QueryBound(rvt_tm, r, &owner, &local, &size));
        RVT_CHECK((uint64_t)(uintptr_t)owner == in->seg_addr && size == in->seg_size,
                  "QueryBound(rank %u): %p/%" PRIuPTR ", the owner says %#" PRIx64 "/%" PRIu64,
                  (unsigned)r, owner, size, in->seg_addr, in->seg_size);
        RVT_OK(gex_Segment_QueryBound(rvt_tm, r, NULL, NULL, NULL));
        void *owner2 = NULL, *local2 = NULL;
        uintptr_t size2 = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(rvt_tm, r, &owner2, &local2, &size2, 0));
        RVT_CHECK(owner2 == owner && local2 == local && size2 == size,
                  "QueryBoundSegmentNB(rank %u) differs from QueryBound", (unsigned)r);
        if (r == rvt_me)
            RVT_CHECK(local == base && owner == base, "my own segment: local %p owner %p", local, owner);
        /* Neighbourhood members' segments are mapped here: read what the owner wrote. */
        if (same_nb) {
            RVT_CHECK(local != NULL, "the segment of neighbour %u is not mapped here", (unsigned)r);
            const uint8_t *p = local;
            for (size_t i = 0; i < size; i++)
                RVT_CHECK(p[i] == fill_byte(r, i), "segment of rank %u through its local address: "
                          "byte %zu is 0x%02x", (unsigned)r, i, p[i]);
        }
    }
    RVT_CHECK(max_global == least_local, "max global segment %" PRIuPTR " is not the least local "
              "maximum %" PRIuPTR, max_global, least_local);
    return rvt_done("core_query");
}
