/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_register.c: gex_EP_RegisterHandlers. Fixed indices; gex_index 0 entries
 * assigned after the fixed ones, in table order, each the highest index still free,
 * and written back to the table (nothing else in it changes); incremental calls;
 * re-registration and other bad entries return an error and register nothing from
 * that table; the table is full at 256 - GEX_AM_INDEX_BASE handlers. Finally every
 * registered index is called and must reach the entry registered for it. */
#include "rv_test.h"

#define NIDX (256 - GEX_AM_INDEX_BASE)

static int tag[256];              /* gex_cdata of the handler at each index */
static volatile unsigned hits[256];

/* Every handler in this test: arg0 is the index the sender used. */
static void h_any(gex_Token_t t, gex_AM_Arg_t idx)
{
    gex_Token_Info_t info;
    gex_TI_t ti = gex_Token_Info(t, &info, GEX_TI_ENTRY | GEX_TI_SRCRANK);
    RVT_CHECK(idx >= GEX_AM_INDEX_BASE && idx < 256, "bad index argument %d", idx);
    RVT_CHECK(info.gex_srcrank == (rvt_me + rvt_n - 1) % rvt_n, "from rank %u",
              (unsigned)info.gex_srcrank);
    if (ti & GEX_TI_ENTRY) {
        RVT_CHECK(info.gex_entry->gex_index == idx, "AM sent to index %d ran the entry of index %u",
                  idx, info.gex_entry->gex_index);
        RVT_CHECK(info.gex_entry->gex_cdata == &tag[idx], "index %d: gex_cdata is not its own", idx);
        RVT_CHECK(info.gex_entry->gex_nargs == 1, "index %d: gex_nargs %u", idx,
                  info.gex_entry->gex_nargs);
    }
    hits[idx]++;
}

static gex_AM_Entry_t entry(unsigned idx, const char *name)
{
    gex_AM_Entry_t e = { (gex_AM_Index_t)idx, (gex_AM_Fn_t)h_any,
                         GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, 1, NULL, name };
    return e;
}

static uint8_t taken[256];

/* Registers a table that must succeed; checks the written-back indices. */
static void reg_ok(gex_AM_Entry_t *t, size_t n, const unsigned *want)
{
    gex_AM_Entry_t copy[16];
    memcpy(copy, t, n * sizeof *t);
    for (size_t i = 0; i < n; i++)
        if (want[i]) t[i].gex_cdata = copy[i].gex_cdata = &tag[want[i]];
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, t, n));
    for (size_t i = 0; i < n; i++) {
        RVT_CHECK(t[i].gex_index == want[i], "entry %zu (%s): index %u, expected %u", i,
                  t[i].gex_name ? t[i].gex_name : "unnamed", t[i].gex_index, want[i]);
        copy[i].gex_index = t[i].gex_index;
        RVT_CHECK(!memcmp(&copy[i], &t[i], sizeof t[i]), "entry %zu: fields other than gex_index "
                  "changed", i);
        taken[want[i]] = 1;
    }
}

/* Registers a table that must fail and leave everything as it was. */
static void reg_bad(gex_AM_Entry_t *t, size_t n, const char *why)
{
    gex_AM_Entry_t copy[16];
    memcpy(copy, t, n * sizeof *t);
    int rc = gex_EP_RegisterHandlers(rvt_ep, t, n);
    RVT_CHECK(rc != GASNET_OK, "%s: gex_EP_RegisterHandlers succeeded", why);
    RVT_CHECK(!memcmp(copy, t, n * sizeof *t), "%s: the failed call changed the table", why);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    RVT_CHECK(GEX_AM_INDEX_BASE <= 128, "GEX_AM_INDEX_BASE is %d", GEX_AM_INDEX_BASE);
    RVT_CHECK(gex_System_GetVerboseErrors() != 0, "verbose errors are off by default");

    /* An empty table is fine. */
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, NULL, 0));

    /* Fixed entries first, then 0 entries in table order, highest free first. */
    gex_AM_Entry_t t1[] = { entry(0, "z1"), entry(130, "f130"), entry(0, "z2"), entry(254, "f254"),
                            entry(0, "z3") };
    reg_ok(t1, 5, (const unsigned[]){ 255, 130, 253, 254, 252 });

    /* A later call: its fixed entry (251) is taken before its 0 entry is assigned. */
    gex_AM_Entry_t t2[] = { entry(0, "z4"), entry(251, "f251"), entry(GEX_AM_INDEX_BASE, "fbase") };
    reg_ok(t2, 3, (const unsigned[]){ 250, 251, GEX_AM_INDEX_BASE });

    /* Errors register nothing (140 and 249 stay free) and write nothing back. The
     * messages are quiet except for one case, which shows what a user sees. */
    gex_System_SetVerboseErrors(0);
    RVT_CHECK(gex_System_GetVerboseErrors() == 0, "SetVerboseErrors(0) did not stick");
    gex_AM_Entry_t b1[] = { entry(140, "f140"), entry(0, "z"), entry(130, "again130") };
    reg_bad(b1, 3, "re-registering index 130");
    gex_AM_Entry_t b2[] = { entry(141, "f141"), entry(141, "dup141") };
    reg_bad(b2, 2, "the same index twice in one table");
    gex_AM_Entry_t b3[] = { entry(0, "z"), entry(GEX_AM_INDEX_BASE - 1, "below") };
    if (GEX_AM_INDEX_BASE > 1) reg_bad(b3, 2, "an index below GEX_AM_INDEX_BASE");
    gex_System_SetVerboseErrors(1);
    gex_AM_Entry_t b4[] = { entry(140, "f140"), entry(0, "nargs17") };
    b4[1].gex_nargs = gex_AM_MaxArgs() + 1;
    reg_bad(b4, 2, "gex_nargs above gex_AM_MaxArgs()");
    gex_System_SetVerboseErrors(0);
    gex_AM_Entry_t b5[] = { entry(0, "noflags") };
    b5[0].gex_flags = GEX_FLAG_AM_REQUEST;
    reg_bad(b5, 1, "gex_flags without a category");
    gex_AM_Entry_t b6[] = { entry(0, "norr") };
    b6[0].gex_flags = GEX_FLAG_AM_SHORT;
    reg_bad(b6, 1, "gex_flags without REQUEST/REPLY");
    gex_AM_Entry_t b7[] = { entry(0, "nofn") };
    b7[0].gex_fnptr = NULL;
    reg_bad(b7, 1, "a NULL gex_fnptr");

    gex_System_SetVerboseErrors(1);

    /* 140 and 249 are still free: the failed calls took nothing. */
    gex_AM_Entry_t t3[] = { entry(140, "f140"), entry(0, "z5") };
    reg_ok(t3, 2, (const unsigned[]){ 140, 249 });

    /* Fill the table one 0 entry at a time; each gets the highest free index. */
    unsigned count = 0;
    for (int i = GEX_AM_INDEX_BASE; i < 256; i++) count += taken[i];
    while (count < NIDX) {
        unsigned want = 255;
        while (taken[want]) want--;
        gex_AM_Entry_t z = entry(0, NULL);
        reg_ok(&z, 1, &want);
        count++;
    }
    gex_System_SetVerboseErrors(0);
    gex_AM_Entry_t over = entry(0, "one too many");
    reg_bad(&over, 1, "more than 256 - GEX_AM_INDEX_BASE handlers");
    gex_System_SetVerboseErrors(1);
    rvt_barrier();

    /* Every index reaches its own entry (same assignment on every rank). */
    gex_Rank_t next = (rvt_me + 1) % rvt_n;
    for (int i = GEX_AM_INDEX_BASE; i < 256; i++)
        RVT_OK(gex_AM_RequestShort1(rvt_tm, next, (gex_AM_Index_t)i, 0, i));
    for (int i = GEX_AM_INDEX_BASE; i < 256; i++) GASNET_BLOCKUNTIL(hits[i] == 1);
    return rvt_done("am_register");
}
