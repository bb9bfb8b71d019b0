/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/clients/client_dht.c: a UPC++-style distributed hash table, as a client program
 * using only the public headers. Inserts are RPCs: negotiated-payload AM Medium Requests
 * (client- and library-provided buffers) carrying a key, a value and a serialized blob;
 * the owner's handler finds its state through the EP's CData, stores the entry in a
 * segment-resident bucket array and Replies with the bucket index (Short or Medium).
 * Each insert also fetch-adds the owner's insert counter through a remote-atomic domain.
 * Lookups are one-sided: gex_RMA_GetNB / GetNBI into buckets located through
 * gex_EP_QueryBoundSegmentNB, synchronized by gex_Event_WaitSome / TestAll, an NBI access
 * region and gex_NBI_Wait; updates are PutNBI with GEX_EVENT_GROUP. A sub-team from
 * gex_TM_Split (reversed keys) reduces (built-in and non-commutative user operators) and
 * broadcasts over its members. A strided VIS get scans a column of another rank's buckets.
 * Every result is checked against what the program can compute independently. */
#include "rv_test.h"

#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>

enum { H_INSERT = 140, H_ACK_SHORT, H_ACK_MED };

#define NKEYS 240           /* keys inserted by each rank */
#define NBUCKETS 4096       /* buckets per rank */
#define BATCH 16            /* RPCs in flight per batch */
#define SCRATCH_BYTES 65536 /* segment bytes reserved for the sub-team's scratch */
#define CNT_OFF SCRATCH_BYTES
#define BKT_OFF (CNT_OFF + 64)
#define SEG_BYTES ((BKT_OFF + NBUCKETS * sizeof(struct bucket) + 65535) / 65536 * 65536)
#define BLOB_MAX 700
#define MSG_STRIDE ((sizeof(struct ins_msg) + BLOB_MAX + 7) / 8 * 8)

struct bucket {
    uint64_t key; /* 0: empty */
    uint64_t val;
    uint64_t origin;
    uint64_t blobsum;
};

struct ins_msg {
    uint64_t key, val;
    uint32_t seq, src;
    uint32_t bloblen, pad;
    uint8_t blob[];
};

/* What the handlers reach through gex_EP_QueryCData. */
struct dht {
    struct bucket *buckets;
    uint64_t *slot_of;          /* reply results, by insert sequence number */
    volatile unsigned replies;
    unsigned stored;            /* entries this rank owns */
    gex_Rank_t me;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}
static uint64_t key_of(gex_Rank_t r, unsigned i) { return ((uint64_t)(r + 1) << 32) | (i + 1); }
static uint64_t val_of(uint64_t key, int gen) { return mix(key ^ (0x5bd1e995ull * (uint64_t)(gen + 1))); }
static gex_Rank_t owner_of(uint64_t key) { return (gex_Rank_t)(mix(key) % rvt_n); }
static size_t home_of(uint64_t key) { return (size_t)((mix(key) >> 20) % NBUCKETS); }
static uint32_t blob_len(uint64_t key) { return (uint32_t)(mix(key + 3) % BLOB_MAX); }
static uint64_t blob_sum(const uint8_t *b, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s = s * 31 + b[i];
    return s;
}

static struct dht *state_of(gex_Token_t t, gex_Rank_t *src)
{
    gex_Token_Info_t info;
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_SRCRANK | GEX_TI_EP);
    RVT_CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP),
              "gex_Token_Info returned 0x%x", (unsigned)got);
    RVT_CHECK(info.gex_ep == rvt_ep, "token's EP is not the primordial EP");
    *src = info.gex_srcrank;
    struct dht *d = gex_EP_QueryCData(info.gex_ep);
    RVT_CHECK(d && d->me == rvt_me, "EP CData %p does not hold this rank's state", (void *)d);
    return d;
}

static void h_insert(gex_Token_t t, void *buf, size_t nbytes)
{
    gex_Rank_t src;
    struct dht *d = state_of(t, &src);
    struct ins_msg *m = buf;
    RVT_CHECK(nbytes >= sizeof *m && nbytes == sizeof *m + m->bloblen,
              "insert RPC from %u: %zu bytes, header says blob %u", (unsigned)src, nbytes,
              (unsigned)(nbytes >= sizeof *m ? m->bloblen : 0));
    RVT_CHECK(m->src == src && m->key == key_of(src, m->seq) && m->val == val_of(m->key, 0) &&
              owner_of(m->key) == rvt_me && m->bloblen == blob_len(m->key),
              "insert RPC from %u: seq %u key 0x%" PRIx64 " val 0x%" PRIx64 " src %u", (unsigned)src,
              (unsigned)m->seq, m->key, m->val, (unsigned)m->src);
    RVT_VERIFY(m->blob, m->bloblen, m->key, "insert RPC blob");
    size_t s = home_of(m->key);
    for (unsigned probes = 0; d->buckets[s].key != 0; probes++) {
        RVT_CHECK(d->buckets[s].key != m->key, "key 0x%" PRIx64 " inserted twice", m->key);
        RVT_CHECK(probes < NBUCKETS, "bucket array full");
        s = (s + 1) % NBUCKETS;
    }
    d->buckets[s] = (struct bucket){ m->key, m->val, src, blob_sum(m->blob, m->bloblen) };
    d->stored++;
    if (m->seq % 2) {
        RVT_OK(gex_AM_ReplyShort2(t, H_ACK_SHORT, 0, (gex_AM_Arg_t)m->seq, (gex_AM_Arg_t)s));
    } else {
        uint64_t r[2] = { m->key, s };
        RVT_OK(gex_AM_ReplyMedium1(t, H_ACK_MED, r, sizeof r, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)m->seq));
    }
}

static void got_ack(gex_Token_t t, unsigned seq, uint64_t slot)
{
    gex_Rank_t src;
    struct dht *d = state_of(t, &src);
    RVT_CHECK(seq < NKEYS && src == owner_of(key_of(rvt_me, seq)) && d->slot_of[seq] == UINT64_MAX,
              "ack for seq %u from %u (owner %u, slot already %" PRIu64 ")", seq, (unsigned)src,
              (unsigned)(seq < NKEYS ? owner_of(key_of(rvt_me, seq)) : 0),
              seq < NKEYS ? d->slot_of[seq] : 0);
    RVT_CHECK(slot < NBUCKETS, "ack for seq %u: bucket %" PRIu64, seq, slot);
    d->slot_of[seq] = slot;
    d->replies++;
}

static void h_ack_short(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t slot)
{
    got_ack(t, (unsigned)seq, (uint64_t)(uint32_t)slot);
}

static void h_ack_med(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq)
{
    uint64_t r[2];
    RVT_CHECK(nbytes == sizeof r, "Medium ack: %zu bytes", nbytes);
    memcpy(r, buf, sizeof r);
    RVT_CHECK(r[0] == key_of(rvt_me, (unsigned)seq), "Medium ack for seq %d names key 0x%" PRIx64,
              seq, r[0]);
    got_ack(t, (unsigned)seq, r[1]);
}

/* A non-commutative user reduction: team-rank intervals that must arrive in order. */
struct span { uint64_t lo, hi, ok; };
static int span_tag;
static void span_join(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    const struct span *a = arg1;
    struct span *b = arg2_and_out;
    RVT_CHECK(cdata == (const void *)&span_tag, "user op cdata %p", cdata);
    for (size_t i = 0; i < count; i++)
        b[i] = (struct span){ a[i].lo, b[i].hi, a[i].ok && b[i].ok && a[i].hi + 1 == b[i].lo };
}

/* Drains events with WaitSome until TestAll reports all done. */
static void drain(gex_Event_t *ev, size_t n)
{
    size_t rounds = 0;
    while (gex_Event_TestAll(ev, n, 0) != GASNET_OK) {
        gex_Event_WaitSome(ev, n, 0);
        rounds++;
        RVT_CHECK(rounds <= n + 1, "WaitSome returned %zu times for %zu events", rounds, n);
    }
    for (size_t i = 0; i < n; i++)
        RVT_CHECK(ev[i] == GEX_EVENT_INVALID, "TestAll succeeded but event %zu is not reset", i);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    gex_AM_Entry_t table[] = {
        { H_INSERT, (gex_AM_Fn_t)h_insert, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "dht_insert" },
        { H_ACK_SHORT, (gex_AM_Fn_t)h_ack_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "dht_ack_s" },
        { H_ACK_MED, (gex_AM_Fn_t)h_ack_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "dht_ack_m" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 3));

    uint8_t *seg = gex_Segment_QueryAddr(rvt_seg);
    struct dht d = { (struct bucket *)(seg + BKT_OFF), NULL, 0, 0, rvt_me };
    d.slot_of = malloc(NKEYS * sizeof *d.slot_of);
    uint64_t *fetched = malloc(NKEYS * sizeof *fetched);
    uint8_t *msgbuf = malloc(BATCH * MSG_STRIDE);
    RVT_CHECK(d.slot_of && fetched && msgbuf, "out of memory");
    for (unsigned i = 0; i < NKEYS; i++) d.slot_of[i] = UINT64_MAX;
    memset(seg + CNT_OFF, 0, SEG_BYTES - CNT_OFF);
    gex_EP_SetCData(rvt_ep, &d);
    gex_TM_SetCData(rvt_tm, &d);
    RVT_CHECK(gex_TM_QueryCData(rvt_tm) == &d && gex_EP_QueryCData(rvt_ep) == &d, "CData not kept");

    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
    gex_AD_SetCData(ad, &d);

    /* Where every rank's buckets and counter are, as a UPC++ global_ptr would record. */
    uint8_t **base = calloc(rvt_n, sizeof *base);
    uintptr_t *size = calloc(rvt_n, sizeof *size);
    gex_Event_t *qev = calloc(rvt_n, sizeof *qev);
    RVT_CHECK(base && size && qev, "out of memory");
    for (gex_Rank_t r = 0; r < rvt_n; r++)
        qev[r] = gex_EP_QueryBoundSegmentNB(rvt_tm, r, (void **)&base[r], NULL, &size[r], 0);
    gex_Event_WaitAll(qev, rvt_n, 0);
    for (gex_Rank_t r = 0; r < rvt_n; r++)
        RVT_CHECK(base[r] && size[r] >= SEG_BYTES, "bound segment of rank %u: %p, %" PRIuPTR " bytes",
                  (unsigned)r, (void *)base[r], size[r]);
    RVT_CHECK(base[rvt_me] == seg, "my bound segment %p, attached at %p", (void *)base[rvt_me], (void *)seg);
    rvt_barrier();

    /* ---- inserts: RPC + fetch-add, BATCH at a time ---- */
    uint64_t *sent_to = calloc(rvt_n, sizeof *sent_to), *fsum = calloc(rvt_n, sizeof *fsum);
    RVT_CHECK(sent_to && fsum, "out of memory");
    size_t lubmed = gex_AM_LUBRequestMedium();
    RVT_CHECK(lubmed >= sizeof(struct ins_msg) + BLOB_MAX, "LUB Request Medium %zu too small", lubmed);
    for (unsigned b0 = 0; b0 < NKEYS; b0 += BATCH) {
        gex_Event_t ev[2 * BATCH];
        size_t nev = 0;
        unsigned want = d.replies;
        gex_NBI_BeginAccessRegion(0); /* the NBI fetch-adds of this batch */
        for (unsigned i = b0; i < b0 + BATCH && i < NKEYS; i++) {
            uint64_t key = key_of(rvt_me, i);
            gex_Rank_t o = owner_of(key);
            uint32_t bl = blob_len(key);
            size_t len = sizeof(struct ins_msg) + bl;
            struct ins_msg *m;
            gex_AM_SrcDesc_t sd;
            uint8_t *mine = msgbuf + (i - b0) * MSG_STRIDE;
            switch (i % 3) {
            case 0: /* serialize into my buffer, locally complete before Prepare returns */
                sd = gex_AM_PrepareRequestMedium(rvt_tm, o, mine, len, len, GEX_EVENT_NOW, 0, 0);
                break;
            case 1: /* serialize straight into a GASNet buffer */
                sd = gex_AM_PrepareRequestMedium(rvt_tm, o, NULL, len, len, NULL, 0, 0);
                break;
            default: /* my buffer, local completion reported through an event */
                sd = gex_AM_PrepareRequestMedium(rvt_tm, o, mine, len, len, &ev[nev++], 0, 0);
                break;
            }
            RVT_CHECK(gex_AM_SrcDescSize(sd) == len, "PrepareRequestMedium: %zu bytes, asked %zu",
                      gex_AM_SrcDescSize(sd), len);
            m = gex_AM_SrcDescAddr(sd);
            RVT_CHECK(i % 3 == 1 || (void *)m == mine, "PrepareRequestMedium(client buffer) gave %p, not %p",
                      (void *)m, (void *)mine);
            *m = (struct ins_msg){ key, val_of(key, 0), i, rvt_me, bl, 0 };
            rvt_fill(m->blob, bl, key);
            gex_AM_CommitRequestMedium0(sd, H_INSERT, len);
            if (i % 2)
                RVT_OK(gex_AD_OpNBI_U64(ad, &fetched[i], o, base[o] + CNT_OFF, GEX_OP_FADD, 1, 0, 0));
            else
                ev[nev++] = gex_AD_OpNB_U64(ad, &fetched[i], o, base[o] + CNT_OFF, GEX_OP_FADD, 1, 0, 0);
            sent_to[o]++;
            want++;
        }
        ev[nev++] = gex_NBI_EndAccessRegion(0);
        drain(ev, nev);
        GASNET_BLOCKUNTIL(d.replies == want);
        for (unsigned i = b0; i < b0 + BATCH && i < NKEYS; i++) fsum[owner_of(key_of(rvt_me, i))] += fetched[i];
    }

    /* Totals per owner: inserts and the sum of fetched counter values, reduced everywhere. */
    uint64_t *tot = calloc(rvt_n, sizeof *tot), *ftot = calloc(rvt_n, sizeof *ftot);
    RVT_CHECK(tot && ftot, "out of memory");
    gex_Event_t rev[2];
    rev[0] = gex_Coll_ReduceToAllNB(rvt_tm, tot, sent_to, GEX_DT_U64, 8, rvt_n, GEX_OP_ADD, NULL, NULL, 0);
    rev[1] = gex_Coll_ReduceToAllNB(rvt_tm, ftot, fsum, GEX_DT_U64, 8, rvt_n, GEX_OP_ADD, NULL, NULL, 0);
    gex_Event_WaitAll(rev, 2, 0);
    rvt_barrier(); /* every insert has been acknowledged everywhere */
    uint64_t total_all = 0;
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        total_all += tot[r];
        RVT_CHECK(ftot[r] == tot[r] * (tot[r] - (tot[r] > 0)) / 2,
                  "fetch-add results at owner %u sum to %" PRIu64 ", expected %" PRIu64 " for %" PRIu64
                  " inserts (a fetched value was lost or repeated)", (unsigned)r, ftot[r],
                  tot[r] * (tot[r] - (tot[r] > 0)) / 2, tot[r]);
    }
    RVT_CHECK(total_all == (uint64_t)NKEYS * rvt_n, "%" PRIu64 " inserts in all", total_all);
    uint64_t cnt;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &cnt, rvt_me, seg + CNT_OFF, GEX_OP_GET, 0, 0, 0));
    RVT_CHECK(cnt == tot[rvt_me] && d.stored == tot[rvt_me],
              "owner counter %" PRIu64 ", %u entries stored, %" PRIu64 " inserts sent here", cnt,
              d.stored, tot[rvt_me]);

    /* ---- lookups of my own keys at the bucket the owner reported ---- */
    struct bucket *got = calloc(NKEYS, sizeof *got);
    gex_Event_t *gev = calloc(NKEYS + 1, sizeof *gev);
    RVT_CHECK(got && gev, "out of memory");
    size_t ng = 0;
    gex_NBI_BeginAccessRegion(0);
    for (unsigned i = 1; i < NKEYS; i += 3) {
        gex_Rank_t o = owner_of(key_of(rvt_me, i));
        RVT_OK(gex_RMA_GetNBI(rvt_tm, &got[i], o, base[o] + BKT_OFF + d.slot_of[i] * sizeof(struct bucket),
                              sizeof(struct bucket), 0));
    }
    gex_Event_t region = gex_NBI_EndAccessRegion(0);
    for (unsigned i = 0; i < NKEYS; i++) {
        gex_Rank_t o = owner_of(key_of(rvt_me, i));
        void *src = base[o] + BKT_OFF + d.slot_of[i] * sizeof(struct bucket);
        if (i % 3 == 0)
            gev[ng++] = gex_RMA_GetNB(rvt_tm, &got[i], o, src, sizeof(struct bucket), 0);
        else if (i % 3 == 2)
            RVT_OK(gex_RMA_GetNBI(rvt_tm, &got[i], o, src, sizeof(struct bucket), 0));
    }
    gev[ng++] = region;
    drain(gev, ng);
    gex_NBI_Wait(GEX_EC_GET, 0);
    for (unsigned i = 0; i < NKEYS; i++) {
        uint64_t key = key_of(rvt_me, i);
        RVT_CHECK(got[i].key == key && got[i].val == val_of(key, 0) && got[i].origin == rvt_me,
                  "lookup %u (%s) at rank %u bucket %" PRIu64 ": key 0x%" PRIx64 " val 0x%" PRIx64
                  " origin %" PRIu64 ", expected key 0x%" PRIx64 " val 0x%" PRIx64, i,
                  i % 3 == 0 ? "GetNB" : i % 3 == 1 ? "GetNBI in access region" : "GetNBI",
                  (unsigned)owner_of(key), d.slot_of[i], got[i].key, got[i].val, got[i].origin, key,
                  val_of(key, 0));
        uint8_t blob[BLOB_MAX];
        rvt_fill(blob, blob_len(key), key);
        RVT_CHECK(got[i].blobsum == blob_sum(blob, blob_len(key)), "lookup %u: blob checksum differs", i);
    }

    /* ---- updates: PutNBI of the value word, grouped, then synced ---- */
    gex_Event_t *pev = calloc(NKEYS, sizeof *pev);
    size_t np = 0;
    RVT_CHECK(pev, "out of memory");
    for (unsigned i = 0; i < NKEYS; i++) {
        uint64_t key = key_of(rvt_me, i), v = val_of(key, 1);
        gex_Rank_t o = owner_of(key);
        void *dst = base[o] + BKT_OFF + d.slot_of[i] * sizeof(struct bucket) + offsetof(struct bucket, val);
        if (i % 4 == 0) { /* as UPC++ rput: wait for the LC leaf before reusing the source */
            gex_Event_t root = gex_RMA_PutNB(rvt_tm, o, dst, &v, sizeof v, GEX_EVENT_DEFER, GEX_FLAG_ENABLE_LEAF_LC);
            gex_Event_t lc = gex_Event_QueryLeaf(root, GEX_EC_LC);
            if (lc != GEX_EVENT_INVALID) gex_Event_Wait(lc);
            v = 0xdeadbeefull; /* must not reach the owner */
            pev[np++] = root;
        } else {
            RVT_OK(gex_RMA_PutNBI(rvt_tm, o, dst, &v, sizeof v, GEX_EVENT_GROUP, 0));
        }
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_Event_WaitAll(pev, np, 0);
    free(pev);
    rvt_barrier();

    /* ---- probing lookups of the next rank's keys: hash, GetNB, linear probe ---- */
    gex_Rank_t nb = (rvt_me + 1) % rvt_n;
    for (unsigned i = 0; i < NKEYS; i += 5) {
        uint64_t key = key_of(nb, i);
        gex_Rank_t o = owner_of(key);
        size_t s = home_of(key);
        struct bucket bk;
        for (unsigned probes = 0;; probes++) {
            RVT_CHECK(probes < NBUCKETS, "key 0x%" PRIx64 " not found at rank %u", key, (unsigned)o);
            gex_Event_Wait(gex_RMA_GetNB(rvt_tm, &bk, o, base[o] + BKT_OFF + s * sizeof bk, sizeof bk, 0));
            RVT_CHECK(bk.key != 0, "probe for key 0x%" PRIx64 " of rank %u hit an empty bucket %zu at "
                      "rank %u", key, (unsigned)nb, s, (unsigned)o);
            if (bk.key == key) break;
            s = (s + 1) % NBUCKETS;
        }
        RVT_CHECK(bk.val == val_of(key, 1) && bk.origin == nb,
                  "key 0x%" PRIx64 " at rank %u bucket %zu: val 0x%" PRIx64 " origin %" PRIu64
                  ", expected the updated val 0x%" PRIx64 " from %u", key, (unsigned)o, s, bk.val,
                  bk.origin, val_of(key, 1), (unsigned)nb);
    }

    /* ---- a column scan: the key of every bucket of the next rank, by a strided get ---- */
    uint64_t *keys = malloc(NBUCKETS * sizeof *keys);
    struct bucket *whole = malloc(NBUCKETS * sizeof *whole);
    RVT_CHECK(keys && whole, "out of memory");
    ptrdiff_t ss[1] = { sizeof(struct bucket) }, ds[1] = { sizeof(uint64_t) };
    size_t cnt1[1] = { NBUCKETS };
    gex_Event_Wait(gex_VIS_StridedGetNB(rvt_tm, keys, ds, nb, base[nb] + BKT_OFF, ss, sizeof(uint64_t),
                                        cnt1, 1, 0));
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, whole, nb, base[nb] + BKT_OFF, NBUCKETS * sizeof *whole, 0));
    uint64_t used = 0;
    for (size_t b = 0; b < NBUCKETS; b++) {
        RVT_CHECK(keys[b] == whole[b].key, "strided column scan of rank %u: bucket %zu key 0x%" PRIx64
                  ", contiguous get says 0x%" PRIx64, (unsigned)nb, b, keys[b], whole[b].key);
        used += keys[b] != 0;
    }
    RVT_CHECK(used == tot[nb], "rank %u has %" PRIu64 " used buckets, %" PRIu64 " inserts went there",
              (unsigned)nb, used, tot[nb]);
    free(keys); free(whole);

    /* ---- a sub-team of ranks of my parity, in reverse order ---- */
    int color = (int)(rvt_me % 2);
    gex_TM_t sub = GEX_TM_INVALID;
    size_t need = gex_TM_Split(&sub, rvt_tm, color, -(int)rvt_me, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    RVT_CHECK(need > 0 && need <= SCRATCH_BYTES, "TM_Split recommends %zu scratch bytes", need);
    gex_TM_Split(&sub, rvt_tm, color, -(int)rvt_me, seg, need, 0);
    RVT_CHECK(sub != GEX_TM_INVALID, "gex_TM_Split gave no team");
    gex_Rank_t ssize = (gex_Rank_t)((rvt_n - (gex_Rank_t)color + 1) / 2), above = 0;
    for (gex_Rank_t r = rvt_me + 2; r < rvt_n; r += 2) above++;
    RVT_CHECK(gex_TM_QuerySize(sub) == ssize && gex_TM_QueryRank(sub) == above,
              "sub-team %d: size %u rank %u, expected %u %u", color, (unsigned)gex_TM_QuerySize(sub),
              (unsigned)gex_TM_QueryRank(sub), (unsigned)ssize, (unsigned)above);
    gex_Rank_t top = (gex_Rank_t)color + 2 * (ssize - 1);
    RVT_CHECK(gex_TM_TranslateRankToJobrank(sub, 0) == top && gex_TM_TranslateJobrankToRank(sub, rvt_me) == above,
              "sub-team rank translation: 0 -> %u (expected %u)", (unsigned)gex_TM_TranslateRankToJobrank(sub, 0),
              (unsigned)top);
    gex_TM_SetCData(sub, &color);
    RVT_CHECK(gex_TM_QueryCData(sub) == &color && gex_TM_QueryCData(rvt_tm) == &d,
              "sub-team CData mixed up with the parent's");
    uint64_t mine = d.stored, ssum = 0, expect = 0;
    for (gex_Rank_t r = (gex_Rank_t)color; r < rvt_n; r += 2) expect += tot[r];
    gex_Event_Wait(gex_Coll_ReduceToAllNB(sub, &ssum, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
    RVT_CHECK(ssum == expect, "sub-team %d: entries stored sum to %" PRIu64 ", expected %" PRIu64, color,
              ssum, expect);
    struct span sp = { gex_TM_QueryRank(sub), gex_TM_QueryRank(sub), 1 }, spr;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(sub, &spr, &sp, GEX_DT_USER, sizeof sp, 1, GEX_OP_USER_NC, span_join,
                                          &span_tag, 0));
    RVT_CHECK(spr.lo == 0 && spr.hi == ssize - 1 && spr.ok, "sub-team %d: ordered user reduction gave [%" PRIu64
              ", %" PRIu64 "] ok=%" PRIu64, color, spr.lo, spr.hi, spr.ok);
    uint8_t rec[96], out[96];
    rvt_fill(out, sizeof out, 1000 + rvt_me);
    memset(rec, 0, sizeof rec);
    gex_Event_Wait(gex_Coll_BroadcastNB(sub, 0, rec, out, sizeof rec, 0));
    RVT_VERIFY(rec, sizeof rec, 1000 + top, "sub-team broadcast from its rank 0");
    gex_Event_Wait(gex_Coll_BarrierNB(sub, 0));
    gex_TM_Destroy(sub, NULL, 0);

    rvt_barrier();
    gex_AD_Destroy(ad);
    free(got); free(gev); free(tot); free(ftot); free(sent_to); free(fsum);
    free(base); free(size); free(qev); free(msgbuf); free(fetched);
    int rc = rvt_done("client_dht");
    free(d.slot_of);
    return rc;
}
