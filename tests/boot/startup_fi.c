/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/startup_fi.c: the reference for the ofi start-up ratio in startup_time.sh: what any
 * libfabric program pays before its first message (loading libfabric with its dependencies,
 * which initialises every built-in provider, and one fi_getinfo for a reliable-datagram
 * endpoint with RMA), with no Rivet. Exits 0 when a provider answers. */
#include <rdma/fabric.h>

#include <stdio.h>

int main(void)
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    if (!hints) return 1;
    hints->caps = FI_MSG | FI_RMA;
    hints->ep_attr->type = FI_EP_RDM;
    hints->mode = FI_CONTEXT;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc || !list) {
        fprintf(stderr, "startup_fi: fi_getinfo: %s\n", fi_strerror(-rc));
        return 1;
    }
    fi_freeinfo(list);
    return 0;
}
