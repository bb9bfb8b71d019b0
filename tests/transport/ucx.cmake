# SPDX-License-Identifier: BSD-3-Clause
# tests/transport/ucx.cmake (included by tests/transport/CMakeLists.txt): the ucx transport.
# The API suites rerun over ucx like over every network transport (tests/transport/
# CMakeLists.txt), with UCX_TLS=tcp here (this machine has no RDMA device); a few again over
# UCX's shared memory transports (UCX_TLS=sm,self) and with UCX's own choice of transports.
# ucx_transport.c: big AM Long (both protocols), registration reuse, IMMEDIATE under backpressure, negotiated payload in place, small-put flood, a peer's death. Built without UCX, ucx_transport exits 77 (skipped).
set(ucx_env "RIVET_PSHM=0;RIVET_TRANSPORT=ucx;UCX_TLS=tcp")
# this machine has no RDMA device: the automatic reruns go over UCX's tcp transport
set(RIVET_TP_TEST_ENV_ucx "UCX_TLS=tcp")
function(ucx_run name np env prog)
  add_test(NAME ${name}_np${np}
           COMMAND $<TARGET_FILE:rivetrun> --timeout ${RIVET_OFI_JOB_TIMEOUT} -n ${np} $<TARGET_FILE:${prog}> ${ARGN})
  set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${RIVET_OFI_TIMEOUT} LABELS "transport;ucx"
                       ENVIRONMENT "${env}" SKIP_RETURN_CODE 77)
endfunction()

rivet_add_test(NAME ucx_transport SOURCES ucx_transport.c INTERNAL NP 2 ARGS regreuse
               TIMEOUT ${RIVET_OFI_SECONDS} ENV ${ucx_env} LABELS transport ucx)
set_tests_properties(ucx_transport_np2 PROPERTIES SKIP_RETURN_CODE 77)
if(RIVET_HAVE_UCX)
  target_compile_definitions(ucx_transport PRIVATE RIVET_TEST_HAVE_UCX=1)
  ucx_run(ucx_transport_regreuse 4 "${ucx_env}" ucx_transport regreuse)
  ucx_run(ucx_transport_amlong 2 "${ucx_env}" ucx_transport amlong reassembly)
  ucx_run(ucx_transport_amlong_sync 2 "${ucx_env};RIVET_AMLONG=sync" ucx_transport amlong sync)
  ucx_run(ucx_transport_amlong_sm 2 "RIVET_PSHM=0;RIVET_TRANSPORT=ucx;UCX_TLS=sm,self" ucx_transport amlong reassembly)
  # IMMEDIATE into an inattentive rank: refused, never blocking, nothing lost or doubled
  ucx_run(ucx_transport_imm_quiet 2 "${ucx_env}" ucx_transport imm quiet credits)
  ucx_run(ucx_transport_imm_replies 2 "${ucx_env};RIVET_UCX_CREDITS=64" ucx_transport imm replies credits)
  ucx_run(ucx_transport_imm_sm 2 "RIVET_PSHM=0;RIVET_TRANSPORT=ucx;UCX_TLS=sm,self" ucx_transport imm replies)
  ucx_run(ucx_transport_np 2 "${ucx_env}" ucx_transport np)
  ucx_run(ucx_transport_np_sm 2 "RIVET_PSHM=0;RIVET_TRANSPORT=ucx;UCX_TLS=sm,self" ucx_transport np)
  ucx_run(ucx_transport_putflood 2 "${ucx_env}" ucx_transport putflood)
  ucx_run(ucx_transport_atomics 2 "${ucx_env};RIVET_RATOMIC=auto" ucx_transport atomics)
  ucx_run(ucx_transport_atomics 3 "${ucx_env};RIVET_RATOMIC=auto" ucx_transport atomics)
  foreach(t ratomic_ops ratomic_hotspot ratomic_flags ratomic_threads)
    ucx_run(ucx_${t} 2 "${ucx_env};RIVET_RATOMIC=auto" ${t})
  endforeach()
  # two (fake) hosts through rivetrun's remote spawn; UCX_* forwarded to the remote ranks
  foreach(t am_args rma_val)
    add_test(NAME ucx_multihost_${t}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/ucx_multihost.sh $<TARGET_FILE:rivetrun>
                     ${PROJECT_SOURCE_DIR}/tests/boot/fake_ssh.sh $<TARGET_FILE:${t}>)
    set_tests_properties(ucx_multihost_${t} PROPERTIES TIMEOUT ${RIVET_OFI_TIMEOUT}
                         LABELS "api;boot;transport;ucx"
                         ENVIRONMENT "RIVET_TEST_JOB_TIMEOUT=${RIVET_OFI_JOB_TIMEOUT}")
  endforeach()
  # a crash over ucx is reported as a crash (libucs's crash-signal handlers removed at init)
  add_test(NAME ucx_core_crash_np2
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/core/exit_code.sh 139 5
                   $<TARGET_FILE:rivetrun> --timeout 20 -n 2 $<TARGET_FILE:core_err> crash)
  set_tests_properties(ucx_core_crash_np2 PROPERTIES TIMEOUT 60 LABELS "transport;ucx;fault"
                       ENVIRONMENT "${ucx_env}"
                       PASS_REGULAR_EXPRESSION "rank 0 .*killed by signal SIGSEGV.*exit_code.sh: ok")
  # a rank dies mid-job: the job ends, naming it (rivetrun's report or ucx's own)
  add_test(NAME ucx_transport_death_np2
           COMMAND ${RIVET_EXPECT} "rank 1 .*(killed|unreachable|SIGKILL)"
                   $<TARGET_FILE:rivetrun> --timeout ${RIVET_OFI_JOB_TIMEOUT} -n 2 $<TARGET_FILE:ucx_transport> death)
  set_tests_properties(ucx_transport_death_np2 PROPERTIES TIMEOUT ${RIVET_OFI_TIMEOUT}
                       LABELS "transport;ucx;fault" ENVIRONMENT "${ucx_env}")

  # the API suites' reruns over ucx are tests/transport/CMakeLists.txt's (every network
  # transport gets them, with RIVET_TP_TEST_ENV_ucx); the collectives besides
  foreach(t coll_bcast coll_reduce coll_team coll_gather)
    ucx_run(ucx_${t} 2 "${ucx_env}" ${t})
  endforeach()
  # AM Long with a held-back half (the reassembly matches either order); the program is
  # ofi_amlong's, which checks only the AM engine's counters in these modes
  if(TARGET ofi_amlong)
    ucx_run(ucx_amlong_holdpayload 2 "${ucx_env};RIVET_AMLONG_HOLD=payload" ofi_amlong reassembly payload)
    ucx_run(ucx_amlong_holdheader 2 "${ucx_env};RIVET_AMLONG_HOLD=header" ofi_amlong reassembly header)
    ucx_run(ucx_amlong_sync 2 "${ucx_env};RIVET_AMLONG=sync" ofi_amlong sync none)
  endif()
  # bound and created segments: keys through the directory (seg_register/seg_peer)
  foreach(m "primordial;gasnet" "primordial;client" "multi" "bindargs")
    string(REPLACE ";" "_" n "${m}")
    ucx_run(ucx_core_multiep_${n} 2 "${ucx_env}" core_multiep ${m})
  endforeach()
  ucx_run(ucx_core_multiep_multi 3 "${ucx_env}" core_multiep multi)
  # UCX's shared memory transports (no peer failure detection there), and UCX's own choice
  foreach(t am_flood am_args rma_sizes rma_many)
    ucx_run(ucx_sm_${t} 2 "RIVET_PSHM=0;RIVET_TRANSPORT=ucx;UCX_TLS=sm,self" ${t})
  endforeach()
  foreach(t am_flood rma_sizes)
    ucx_run(ucx_default_tls_${t} 2 "RIVET_PSHM=0;RIVET_TRANSPORT=ucx" ${t})
  endforeach()
  # messages only: RMA and AM Long by the AM reference paths
  foreach(t rma_sizes am_args)
    ucx_run(ucx_nordma_${t} 2 "${ucx_env};RIVET_UCX_RDMA=0" ${t})
  endforeach()
endif()
