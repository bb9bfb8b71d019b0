/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/tp_select_test.c: the transport registry (transport/registry.def) and
 * rv_tp_select, the one rule gex_Client_Init and rivet-info share: the registry agrees with
 * CMake (argv[1]: the transports CMake built) and with each descriptor; the automatic choice is
 * the highest-priority built transport that accepts the job; RIVET_TRANSPORT forces one; every
 * answer comes with its reason, and every failure with the message gex_Client_Init prints. */
#include "rv_check.h"
#include "core/config.h"
#include "transport/transport.h"

#include <string.h>

static rv_job_t fake_job(uint32_t size, uint32_t nbrhds)
{
    rv_job_t j;
    memset(&j, 0, sizeof j);
    j.size = size;
    j.host_count = 1;
    j.host_size = size;
    j.nbrhd_count = nbrhds;
    j.nbrhd_size = size / nbrhds;
    return j;
}

#define HAS(s, sub) CHECK(strstr((s), (sub)) != NULL, "\"%s\" lacks \"%s\"", (s), (sub))

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: tp_select_test \"<transports CMake built>\"");
    rv_config_load();
    rv_cfg.TRANSPORT = "";
    rv_cfg.PSHM = 1;

    /* the registry: unique names, built exactly as CMake says, descriptors that match */
    char built[256] = "";
    int nbuilt = 0;
    for (const rv_tp_entry_t *e = rv_tp_registry; e->name; e++) {
        for (const rv_tp_entry_t *o = rv_tp_registry; o != e; o++)
            CHECK(strcmp(o->name, e->name), "registry names %s twice", e->name);
        CHECK(e->note && e->note[0] && e->option && e->needs, "%s: incomplete entry", e->name);
        if (!e->desc) {
            CHECK(rv_tp_find(e->name) == NULL, "%s is not built but rv_tp_find finds it", e->name);
            continue;
        }
        CHECK(!strcmp(e->desc->name, e->name), "registry line %s has descriptor %s", e->name,
              e->desc->name);
        CHECK(e->desc->abi == RV_TP_ABI, "%s: ABI %u", e->name, e->desc->abi);
        CHECK(e->desc->size == sizeof(rv_tp_desc_t), "%s: descriptor size", e->name);
        CHECK(e->desc->probe && e->desc->open && e->desc->seg_attach && e->desc->close &&
              e->desc->ops && e->desc->ops->send && e->desc->ops->poll, "%s: a required op is NULL",
              e->name);
        CHECK(rv_tp_find(e->name) == e, "rv_tp_find(%s)", e->name);
        snprintf(built + strlen(built), sizeof built - strlen(built), "%s%s", nbuilt++ ? " " : "",
                 e->name);
    }
    CHECK(!strcmp(built, argv[1]), "C registry built \"%s\", CMake built \"%s\"", built, argv[1]);
    CHECK(rv_tp_find("shm") != NULL, "shm is always built");
    CHECK(rv_tp_find("nonesuch") == NULL, "rv_tp_find(nonesuch)");

    char why[512];
    /* automatic: one neighbourhood -> shm */
    rv_job_t one = fake_job(4, 1), two = fake_job(4, 2);
    const rv_tp_entry_t *e = rv_tp_select(&one, why, sizeof why);
    CHECK(e && !strcmp(e->name, "shm"), "one neighbourhood: %s (%s)", e ? e->name : "none", why);
    HAS(why, "RIVET_TRANSPORT is empty: shm is the highest-priority transport that accepts this "
             "job (4 rank(s) in 1 neighbourhood(s))");

    /* automatic over every shape: the highest-priority built transport that accepts wins */
    for (int k = 0; k < 2; k++) {
        rv_job_t *j = k ? &two : &one;
        const rv_tp_entry_t *want = NULL;
        for (const rv_tp_entry_t *x = rv_tp_registry; x->name; x++)
            if (x->desc && x->desc->probe(j) == 0 && (!want || x->priority > want->priority))
                want = x;
        e = rv_tp_select(j, why, sizeof why);
        CHECK(e == want, "%u neighbourhood(s): selected %s, expected %s (%s)", j->nbrhd_count,
              e ? e->name : "none", want ? want->name : "none", why);
        if (!e) {
            HAS(why, "no transport built into this library can serve this job (4 ranks in 2 "
                     "neighbourhoods); built: ");
            HAS(why, built);
        }
    }
    /* two neighbourhoods: shm declines, and the network transport chosen says so */
    e = rv_tp_select(&two, why, sizeof why);
    if (e) {
        char want[256];
        snprintf(want, sizeof want, "%s is the highest-priority transport that accepts this job "
                 "(4 rank(s) in 2 neighbourhood(s)); declined: shm (priority 100)", e->name);
        HAS(why, want);
    }
    if (rv_tp_find("ofi")) CHECK(e, "two neighbourhoods with ofi built: %s", why);
    rv_cfg.PSHM = 0;
    rv_tp_select(&two, why, sizeof why);
    HAS(why, ", RIVET_PSHM=0)");
    rv_cfg.PSHM = 1;

    /* RIVET_TRANSPORT: that one or nothing */
    rv_cfg.TRANSPORT = "shm";
    e = rv_tp_select(&one, why, sizeof why);
    CHECK(e && !strcmp(e->name, "shm"), "RIVET_TRANSPORT=shm: %s", why);
    HAS(why, "RIVET_TRANSPORT=shm asks for it and it accepts this job");
    e = rv_tp_select(&two, why, sizeof why);
    CHECK(!e, "RIVET_TRANSPORT=shm over two neighbourhoods selected %s", e->name);
    HAS(why, "RIVET_TRANSPORT=shm cannot serve this job (4 ranks in 2 neighbourhoods; "
             "RIVET_VERBOSE=1 says why)");
    rv_cfg.TRANSPORT = "nonesuch";
    CHECK(!rv_tp_select(&one, why, sizeof why), "RIVET_TRANSPORT=nonesuch");
    HAS(why, "RIVET_TRANSPORT=nonesuch is not a transport built into this library");
    /* a registered transport this build left out names the CMake option that builds it */
    for (const rv_tp_entry_t *x = rv_tp_registry; x->name; x++) {
        if (x->desc) continue;
        rv_cfg.TRANSPORT = x->name;
        CHECK(!rv_tp_select(&two, why, sizeof why), "RIVET_TRANSPORT=%s (not built)", x->name);
        HAS(why, "is not a transport built into this library (it is built with the CMake option");
        HAS(why, x->option);
    }

    /* a short buffer truncates, terminated */
    rv_cfg.TRANSPORT = "";
    char tiny[16];
    memset(tiny, 'x', sizeof tiny);
    e = rv_tp_select(&one, tiny, sizeof tiny);
    CHECK(e && memchr(tiny, '\0', sizeof tiny), "short buffer");
    printf("tp_select_test: ok (built: %s)\n", built);
    return 0;
}
