# SPDX-License-Identifier: BSD-3-Clause
# tests/transport/ofi.cmake: the ofi transport's own tests (included by CMakeLists.txt when ofi
# is built; the API suites' reruns over it are CMakeLists.txt's, for every network transport).
# Native RDMA, bounce buffers, the registration cache, follow-up reads (ofi_rdma.c), and
# AM Long by RDMA with both protocols and a held-back half (ofi_amlong.c).
set(ofi_env "RIVET_PSHM=0;RIVET_TRANSPORT=ofi")
rivet_add_test(NAME ofi_rdma SOURCES ofi_rdma.c INTERNAL NP 2 ARGS native TIMEOUT ${RIVET_OFI_SECONDS}
               ENV ${ofi_env} LABELS transport ofi)
# ofi_amlong and ofi_flow fill the transport by sending to their own rank without polling:
# RIVET_AM_LOOPBACK=queue sends such AMs through the transport instead of running them at once.
function(ofi_case name prog np)
  cmake_parse_arguments(C "" "" "ARGS;ENV" ${ARGN})
  if(prog STREQUAL "ofi_amlong" OR prog STREQUAL "ofi_flow")
    list(APPEND C_ENV "RIVET_AM_LOOPBACK=queue")
  endif()
  add_test(NAME ${name}_np${np} COMMAND $<TARGET_FILE:rivetrun> --timeout ${RIVET_OFI_JOB_TIMEOUT} -n ${np}
           $<TARGET_FILE:${prog}> ${C_ARGS})
  set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${RIVET_OFI_TIMEOUT} LABELS "transport;ofi"
                       ENVIRONMENT "RIVET_PSHM=0;RIVET_TRANSPORT=ofi;${C_ENV}")
endfunction()
ofi_case(ofi_rdma_ref ofi_rdma 2 ARGS ref ENV "RIVET_RMA=ref")
ofi_case(ofi_rdma_cache ofi_rdma 2 ARGS cache
         ENV "RIVET_OFI_MR_LOCAL=1;RIVET_OFI_REGCACHE_MAX=1M")
ofi_case(ofi_rdma_flush ofi_rdma 2 ARGS flush
         ENV "RIVET_OFI_DC=0;RIVET_OFI_PUT_COMPLETION=delivery")
ofi_case(ofi_rdma_immediate ofi_rdma 2 ARGS immediate)
rivet_add_test(NAME ofi_amlong SOURCES ofi_amlong.c INTERNAL NP 2 ARGS reassembly none
               TIMEOUT ${RIVET_OFI_SECONDS} ENV ${ofi_env} RIVET_OFI_BOUNCE=32K RIVET_AM_LOOPBACK=queue
               LABELS transport ofi)
ofi_case(ofi_amlong_sync ofi_amlong 2 ARGS sync none ENV "RIVET_AMLONG=sync")
ofi_case(ofi_amlong_holdpayload ofi_amlong 2 ARGS reassembly payload
         ENV "RIVET_AMLONG_HOLD=payload")
ofi_case(ofi_amlong_holdheader ofi_amlong 2 ARGS reassembly header
         ENV "RIVET_AMLONG_HOLD=header")
# Remote completion of puts by per-peer flushes (RIVET_OFI_PUT_COMPLETION=flush) against
# per-write delivery completion: floods to 2 peers checked byte by byte right after the
# barrier, a get after puts (ofi_flush.c); the RMA suites again with every put flushed.
rivet_add_test(NAME ofi_flush SOURCES ofi_flush.c INTERNAL NP 3 ARGS flush TIMEOUT ${RIVET_OFI_SECONDS}
               ENV ${ofi_env} RIVET_OFI_PUT_COMPLETION=flush LABELS transport ofi)
ofi_case(ofi_flush_delivery ofi_flush 3 ARGS delivery ENV "RIVET_OFI_PUT_COMPLETION=delivery")
ofi_case(ofi_flush_mrlocal ofi_flush 3 ARGS flush
         ENV "RIVET_OFI_PUT_COMPLETION=flush;RIVET_OFI_MR_LOCAL=1")
ofi_case(ofi_rxd_flush ofi_flush 3 ARGS flush ENV "FI_PROVIDER=udp;RIVET_OFI_PUT_COMPLETION=flush")
foreach(t rma_sizes rma_lc rma_many rma_val rma_immediate)
  ofi_case(ofi_${t}_flush ${t} 2 ENV "RIVET_OFI_PUT_COMPLETION=flush")
endforeach()
ofi_case(ofi_amlong_sync_flush ofi_amlong 2 ARGS sync none
         ENV "RIVET_AMLONG=sync;RIVET_OFI_PUT_COMPLETION=flush")
rivet_add_test(NAME ofi_flush_badenv SOURCES ofi_flush.c INTERNAL NP 2 ARGS flush TIMEOUT ${RIVET_OFI_SECONDS}
               ENV ${ofi_env} RIVET_OFI_PUT_COMPLETION=sometimes LABELS transport ofi fault
               EXPECT_FAIL "RIVET_OFI_PUT_COMPLETION=sometimes is not one of auto, flush, delivery")
# Largest Mediums piling up at a receiver that does not poll (unexpected messages), with
# Rivet's rxm settings and with the smallest receive regions.
rivet_add_test(NAME ofi_bigmsg SOURCES ofi_bigmsg.c INTERNAL NP 3 TIMEOUT ${RIVET_OFI_SECONDS} ENV ${ofi_env}
               LABELS transport ofi)
# With the smallest receive regions, messages from two connections complete out of order
# around a region's release (ofi README, Known problems); several rounds to meet it often.
ofi_case(ofi_bigmsg_region1 ofi_bigmsg 3 ARGS 4
         ENV "RIVET_OFI_RECV_REGIONS=1;RIVET_OFI_RECV_REGION=1")
# RDMA to segments bound with gex_EP_BindSegment: a non-primordial endpoint's (client
# memory, then Rivet's under the same index) and a primordial one bound instead of attached.
rivet_add_test(NAME ofi_epseg SOURCES ofi_epseg.c INTERNAL NP 2 3 TIMEOUT ${RIVET_OFI_SECONDS} ENV ${ofi_env}
               LABELS transport ofi)
# Credit flow control: inattentive self, hot peer and loans, redistribution, many-to-one.
rivet_add_test(NAME ofi_flow SOURCES ofi_flow.c INTERNAL NP 2 4 TIMEOUT ${RIVET_OFI_SECONDS}
               ENV ${ofi_env} RIVET_OFI_CREDIT_RESERVE=48 RIVET_OFI_RECV_REGION=1
               RIVET_AM_LOOPBACK=queue LABELS transport ofi)
# the other reliable-datagram stack here: udp;ofi_rxd
ofi_case(ofi_rxd_flow ofi_flow 2
         ENV "FI_PROVIDER=udp;RIVET_OFI_CREDIT_RESERVE=48;RIVET_OFI_RECV_REGION=1")
ofi_case(ofi_rxd_amlong ofi_amlong 2 ARGS reassembly none
         ENV "FI_PROVIDER=udp;RIVET_OFI_BOUNCE=32K")
# PSHM on: a neighbourhood's ranks map each other's segments under ofi too (direct copies),
# others are reached by RDMA. np 2: one neighbourhood; np 4 with GASNET_SUPERNODE_MAXSIZE=2: two.
rivet_add_test(NAME ofi_nbrhd SOURCES ofi_nbrhd.c INTERNAL NP 2 4 TIMEOUT ${RIVET_OFI_SECONDS}
               ENV RIVET_TRANSPORT=ofi GASNET_SUPERNODE_MAXSIZE=2 LABELS transport ofi)
