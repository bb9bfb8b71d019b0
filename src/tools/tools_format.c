/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_format.c: the GASNet-Tools formatters of GASNet-EX values for diagnostics:
 * flag sets (gex_DT_t, gex_OP_t, gex_TI_t) and VIS metadata (memvec and address lists,
 * strides, whole Vector/Indexed/Strided transfers). */
#include <gasnetex.h>
#include <gasnet_tools.h>

#include <stdio.h>
#include <string.h>

/* ---- flag sets ----------------------------------------------------------------------
 * "PREFIXNAME|PREFIXNAME..." in bit order; "(empty)" for 0, "(invalid)" when a bit has no
 * name. Returns the bytes needed, NUL included; writes only when buf is not NULL. */
typedef struct {
    uint32_t bit;
    const char *name;
} rv_flagname_t;

static size_t rv_format_flags(char *buf, uint32_t val, const rv_flagname_t *names, size_t n,
                              const char *prefix)
{
    const char *whole = NULL;
    uint32_t known = 0;
    for (size_t i = 0; i < n; i++) known |= names[i].bit;
    if (!val) whole = "(empty)";
    else if (val & ~known) whole = "(invalid)";
    if (whole) {
        if (buf) strcpy(buf, whole);
        return strlen(whole) + 1;
    }
    size_t len = 0;
    if (buf) buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!(val & names[i].bit)) continue;
        if (buf) {
            if (len) strcat(buf, "|");
            strcat(buf, prefix);
            strcat(buf, names[i].name);
        }
        len += (len ? 1 : 0) + strlen(prefix) + strlen(names[i].name);
    }
    return len + 1;
}

#define RV_NAME(prefix, x) { prefix##x, #x }

size_t gasnett_format_dt(char *buf, gex_DT_t dt)
{
    static const rv_flagname_t names[] = {
        RV_NAME(GEX_DT_, I32), RV_NAME(GEX_DT_, U32), RV_NAME(GEX_DT_, I64),
        RV_NAME(GEX_DT_, U64), RV_NAME(GEX_DT_, FLT), RV_NAME(GEX_DT_, DBL),
        RV_NAME(GEX_DT_, USER),
    };
    return rv_format_flags(buf, dt, names, sizeof names / sizeof names[0], "GEX_DT_");
}

size_t gasnett_format_op(char *buf, gex_OP_t op)
{
    static const rv_flagname_t names[] = {
        RV_NAME(GEX_OP_, ADD),  RV_NAME(GEX_OP_, FADD), RV_NAME(GEX_OP_, SUB),
        RV_NAME(GEX_OP_, FSUB), RV_NAME(GEX_OP_, MULT), RV_NAME(GEX_OP_, FMULT),
        RV_NAME(GEX_OP_, MIN),  RV_NAME(GEX_OP_, FMIN), RV_NAME(GEX_OP_, MAX),
        RV_NAME(GEX_OP_, FMAX), RV_NAME(GEX_OP_, INC),  RV_NAME(GEX_OP_, FINC),
        RV_NAME(GEX_OP_, DEC),  RV_NAME(GEX_OP_, FDEC), RV_NAME(GEX_OP_, AND),
        RV_NAME(GEX_OP_, FAND), RV_NAME(GEX_OP_, OR),   RV_NAME(GEX_OP_, FOR),
        RV_NAME(GEX_OP_, XOR),  RV_NAME(GEX_OP_, FXOR), RV_NAME(GEX_OP_, SET),
        RV_NAME(GEX_OP_, SWAP), RV_NAME(GEX_OP_, CAS),  RV_NAME(GEX_OP_, FCAS),
        RV_NAME(GEX_OP_, GET),  RV_NAME(GEX_OP_, USER), RV_NAME(GEX_OP_, USER_NC),
    };
    return rv_format_flags(buf, op, names, sizeof names / sizeof names[0], "GEX_OP_");
}

size_t gasnett_format_ti(char *buf, gex_TI_t ti)
{
    static const rv_flagname_t names[] = {
        RV_NAME(GEX_TI_, SRCRANK), RV_NAME(GEX_TI_, EP), RV_NAME(GEX_TI_, ENTRY),
        RV_NAME(GEX_TI_, IS_REQ),  RV_NAME(GEX_TI_, IS_LONG),
    };
    return rv_format_flags(buf, ti, names, sizeof names / sizeof names[0], "GEX_TI_");
}

/* ---- VIS metadata ---------------------------------------------------------------------
 * Every number is printed in at most RV_FMT_NUM characters ("0x" + 16 hex digits, or 20
 * decimal digits, or a sign and 19) plus its punctuation, which the _bufsz functions budget
 * for. */
#define RV_FMT_NUM 24

size_t gasnett_format_memveclist_bufsz(size_t count)
{
    return 64 + count * (2 * RV_FMT_NUM + 4);
}

void gasnett_format_memveclist(char *buf, size_t count, gex_Memvec_t const *list)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++) total += list[i].gex_len;
    char *p = buf + sprintf(buf, "%zu entries, %zu bytes:", count, total);
    for (size_t i = 0; i < count; i++)
        p += sprintf(p, " (%p,%zu)", list[i].gex_addr, list[i].gex_len);
}

size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount)
{
    return 64 + gasnett_format_memveclist_bufsz(dstcount) + gasnett_format_memveclist_bufsz(srccount);
}

size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                               gex_Memvec_t const dstlist[], size_t srccount,
                               gex_Memvec_t const srclist[])
{
    size_t total = 0;
    for (size_t i = 0; i < dstcount; i++) total += dstlist[i].gex_len;
    char *p = buf + sprintf(buf, "tm=%p rank=%u dst: ", (void *)tm, (unsigned)rank);
    gasnett_format_memveclist(p, dstcount, dstlist);
    p += strlen(p);
    p += sprintf(p, " src: ");
    gasnett_format_memveclist(p, srccount, srclist);
    return total;
}

size_t gasnett_format_addrlist_bufsz(size_t count)
{
    return 64 + count * (RV_FMT_NUM + 1);
}

void gasnett_format_addrlist(char *buf, size_t count, void *const *list, size_t len)
{
    char *p = buf + sprintf(buf, "%zu entries of %zu bytes:", count, len);
    for (size_t i = 0; i < count; i++) p += sprintf(p, " %p", list[i]);
}

size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount)
{
    return 64 + gasnett_format_addrlist_bufsz(dstcount) + gasnett_format_addrlist_bufsz(srccount);
}

size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                               void *const dstlist[], size_t dstlen, size_t srccount,
                               void *const srclist[], size_t srclen)
{
    char *p = buf + sprintf(buf, "tm=%p rank=%u dst: ", (void *)tm, (unsigned)rank);
    gasnett_format_addrlist(p, dstcount, dstlist, dstlen);
    p += strlen(p);
    p += sprintf(p, " src: ");
    gasnett_format_addrlist(p, srccount, srclist, srclen);
    return dstcount * dstlen;
}

size_t gasnett_format_strides_bufsz(size_t count)
{
    return 4 + count * (RV_FMT_NUM + 1);
}

void gasnett_format_strides(char *buf, size_t count, const ptrdiff_t *list)
{
    char *p = buf + sprintf(buf, "[");
    for (size_t i = 0; i < count; i++) p += sprintf(p, i ? ",%td" : "%td", list[i]);
    sprintf(p, "]");
}

size_t gasnett_format_putsgets_bufsz(size_t stridelevels)
{
    return 160 + 3 * gasnett_format_strides_bufsz(stridelevels);
}

size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank,
                               void *dstaddr, const ptrdiff_t dststrides[], void *srcaddr,
                               const ptrdiff_t srcstrides[], size_t elemsz, const size_t count[],
                               size_t stridelevels)
{
    (void)pstats;
    size_t total = elemsz;
    for (size_t i = 0; i < stridelevels; i++) total *= count[i];
    char *p = buf + sprintf(buf, "tm=%p rank=%u elemsz=%zu stridelevels=%zu dst=%p src=%p",
                            (void *)tm, (unsigned)rank, elemsz, stridelevels, dstaddr, srcaddr);
    p += sprintf(p, " dststrides=");
    gasnett_format_strides(p, stridelevels, dststrides);
    p += strlen(p);
    p += sprintf(p, " srcstrides=");
    gasnett_format_strides(p, stridelevels, srcstrides);
    p += strlen(p);
    p += sprintf(p, " count=[");
    for (size_t i = 0; i < stridelevels; i++) p += sprintf(p, i ? ",%zu" : "%zu", count[i]);
    sprintf(p, "]");
    return total;
}
