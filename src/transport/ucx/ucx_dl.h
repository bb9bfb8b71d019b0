/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx_dl.h: the UCX functions Rivet calls, through a table that ucx_dl.c fills
 * when the transport is first used (libucp is loaded with dlopen, not linked: UCX's
 * constructors, a clock calibration among them, would cost every job a tenth of a second at
 * start-up, shared-memory ones included). Included by ucx_int.h after UCX's headers; the
 * macros below send every call in this folder through the table. */
#ifndef RV_UCX_DL_H
#define RV_UCX_DL_H

#include <ucp/api/ucp.h>
#include <uct/api/uct.h>

/* X(name): every function of the table, one entry each. */
#define RV_UCX_FNS(X) \
    X(ucp_am_data_release) \
    X(ucp_am_send_nbx) \
    X(ucp_atomic_op_nbx) \
    X(ucp_cleanup) \
    X(ucp_config_read) \
    X(ucp_config_release) \
    X(ucp_ep_close_nbx) \
    X(ucp_ep_create) \
    X(ucp_ep_flush_nbx) \
    X(ucp_ep_rkey_unpack) \
    X(ucp_get_nbx) \
    X(ucp_get_version) \
    X(ucp_init_version) \
    X(ucp_mem_map) \
    X(ucp_mem_unmap) \
    X(ucp_put_nbx) \
    X(ucp_request_check_status) \
    X(ucp_request_free) \
    X(ucp_rkey_buffer_release) \
    X(ucp_rkey_destroy) \
    X(ucp_rkey_pack) \
    X(ucp_worker_create) \
    X(ucp_worker_destroy) \
    X(ucp_worker_get_address) \
    X(ucp_worker_progress) \
    X(ucp_worker_query) \
    X(ucp_worker_release_address) \
    X(ucp_worker_set_am_recv_handler) \
    X(ucs_status_string) \
    X(uct_component_query) \
    X(uct_query_components) \
    X(uct_release_component_list)

struct rv_ucx_fns {
#define RV_UCX_FN_MEMBER(f) __typeof__(f) *p_##f;
    RV_UCX_FNS(RV_UCX_FN_MEMBER)
#undef RV_UCX_FN_MEMBER
};
extern struct rv_ucx_fns rv_ucx_fn;
/* Loads libucp once (later calls are cheap); 0, or -1 with the reason in *why. */
int rv_ucx_dl_load(const char **why);

#ifndef RV_UCX_DL_IMPL
#define ucp_am_data_release (*rv_ucx_fn.p_ucp_am_data_release)
#define ucp_am_send_nbx (*rv_ucx_fn.p_ucp_am_send_nbx)
#define ucp_atomic_op_nbx (*rv_ucx_fn.p_ucp_atomic_op_nbx)
#define ucp_cleanup (*rv_ucx_fn.p_ucp_cleanup)
#define ucp_config_read (*rv_ucx_fn.p_ucp_config_read)
#define ucp_config_release (*rv_ucx_fn.p_ucp_config_release)
#define ucp_ep_close_nbx (*rv_ucx_fn.p_ucp_ep_close_nbx)
#define ucp_ep_create (*rv_ucx_fn.p_ucp_ep_create)
#define ucp_ep_flush_nbx (*rv_ucx_fn.p_ucp_ep_flush_nbx)
#define ucp_ep_rkey_unpack (*rv_ucx_fn.p_ucp_ep_rkey_unpack)
#define ucp_get_nbx (*rv_ucx_fn.p_ucp_get_nbx)
#define ucp_get_version (*rv_ucx_fn.p_ucp_get_version)
#define ucp_init_version (*rv_ucx_fn.p_ucp_init_version)
#define ucp_mem_map (*rv_ucx_fn.p_ucp_mem_map)
#define ucp_mem_unmap (*rv_ucx_fn.p_ucp_mem_unmap)
#define ucp_put_nbx (*rv_ucx_fn.p_ucp_put_nbx)
#define ucp_request_check_status (*rv_ucx_fn.p_ucp_request_check_status)
#define ucp_request_free (*rv_ucx_fn.p_ucp_request_free)
#define ucp_rkey_buffer_release (*rv_ucx_fn.p_ucp_rkey_buffer_release)
#define ucp_rkey_destroy (*rv_ucx_fn.p_ucp_rkey_destroy)
#define ucp_rkey_pack (*rv_ucx_fn.p_ucp_rkey_pack)
#define ucp_worker_create (*rv_ucx_fn.p_ucp_worker_create)
#define ucp_worker_destroy (*rv_ucx_fn.p_ucp_worker_destroy)
#define ucp_worker_get_address (*rv_ucx_fn.p_ucp_worker_get_address)
#define ucp_worker_progress (*rv_ucx_fn.p_ucp_worker_progress)
#define ucp_worker_query (*rv_ucx_fn.p_ucp_worker_query)
#define ucp_worker_release_address (*rv_ucx_fn.p_ucp_worker_release_address)
#define ucp_worker_set_am_recv_handler (*rv_ucx_fn.p_ucp_worker_set_am_recv_handler)
#define ucs_status_string (*rv_ucx_fn.p_ucs_status_string)
#define uct_component_query (*rv_ucx_fn.p_uct_component_query)
#define uct_query_components (*rv_ucx_fn.p_uct_query_components)
#define uct_release_component_list (*rv_ucx_fn.p_uct_release_component_list)
/* ucp_init is an inline wrapper of ucp_init_version, bound before these macros */
#undef ucp_init
#define ucp_init(params, config, ctx) \
    ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, params, config, ctx)
#endif

#endif
