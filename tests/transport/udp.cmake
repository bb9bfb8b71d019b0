# SPDX-License-Identifier: BSD-3-Clause
# tests/transport/udp.cmake (included by tests/transport/CMakeLists.txt): the udp transport.
# The API suites rerun over udp like over every network transport (CMakeLists.txt). Here:
# the same suites through the transport's own test aids, which drop, duplicate and reorder a
# fraction of every rank's outgoing datagrams (RIVET_UDP_*_PERMILLE): every payload is checked
# by the suites; stray and spoofed datagrams from outside the job (udp_transport stray); a rank
# that stops polling bounds its senders and ends the job with a message (udp_transport deaf).
# Then the same suites through a relay process on the wire (udp_relay.c: loss, duplicates,
# reordering, delay, fuzz, a rank cut off), and multi-host jobs in tests/boot
# (boot_multihost_udp_*).
set(udp_env "RIVET_PSHM=0;RIVET_TRANSPORT=udp")
function(udp_run name np env prog)
  add_test(NAME ${name}_np${np}
           COMMAND $<TARGET_FILE:rivetrun> --timeout ${RIVET_NET_JOB_TIMEOUT} -n ${np} $<TARGET_FILE:${prog}> ${ARGN})
  set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${RIVET_NET_TIMEOUT} LABELS "transport;udp"
                       ENVIRONMENT "${udp_env};${env}")
endfunction()

rivet_add_test(NAME udp_transport SOURCES udp_transport.c INTERNAL NP 2 4 ARGS stray
               TIMEOUT ${RIVET_NET_SECONDS} ENV ${udp_env} LABELS transport udp)
add_test(NAME udp_transport_deaf_np2
         COMMAND ${RIVET_EXPECT} "udp: rank 1 unreachable: no acknowledgement for 2 s"
                 $<TARGET_FILE:rivetrun> --timeout ${RIVET_NET_JOB_TIMEOUT} -n 2 $<TARGET_FILE:udp_transport> deaf)
set_tests_properties(udp_transport_deaf_np2 PROPERTIES TIMEOUT ${RIVET_NET_TIMEOUT}
                     LABELS "transport;udp;fault" ENVIRONMENT "${udp_env};RIVET_UDP_PEER_TIMEOUT=2")

# a bad network, made by the sender itself: 1% and 10% loss, duplicates, reordering, all at
# once; a short retransmission timeout keeps the runs short. At 10% random loss the congestion
# window (RIVET_UDP_CC) would sit near its floor (a loss-based window settles near
# 1.2/sqrt(loss) datagrams: 4) and make the suites 2-3x slower; the 10% suites test
# reliability with it off, the 1% ones with it on, and udp_relay10_cc_* at 10% with it on.
set(udp_lossy1  "RIVET_UDP_RTO_US=3000;RIVET_UDP_DROP_PERMILLE=10;RIVET_UDP_DUP_PERMILLE=10;RIVET_UDP_REORDER_PERMILLE=10")
set(udp_lossy10 "RIVET_UDP_RTO_US=3000;RIVET_UDP_DROP_PERMILLE=100;RIVET_UDP_DUP_PERMILLE=50;RIVET_UDP_REORDER_PERMILLE=50;RIVET_UDP_CC=0")
foreach(lvl 1 10)
  foreach(t am_args am_flood am_npam rma_val legacy_barrier)
    udp_run(udp_loss${lvl}_${t} 2 "${udp_lossy${lvl}}" ${t})
  endforeach()
  udp_run(udp_loss${lvl}_am_flood 4 "${udp_lossy${lvl}}" am_flood)
  udp_run(udp_loss${lvl}_rma_sizes_ref 2 "${udp_lossy${lvl}};RIVET_RMA=ref" rma_sizes)
  udp_run(udp_loss${lvl}_stray 2 "${udp_lossy${lvl}}" udp_transport stray)
  # small datagrams: messages in many fragments
  udp_run(udp_loss${lvl}_small_dgram_am_args 2 "${udp_lossy${lvl}};RIVET_UDP_DGRAM=1472" am_args)
endforeach()
udp_run(udp_small_dgram_rma_many 2 "RIVET_UDP_DGRAM=1472" rma_many)
# the datagram size from the interface's MTU (loopback here: 65000 bytes, a window of 16), and
# the explicit settings winning over it; the defaults before (8 KiB datagrams, a window of 64)
# under loss, since loopback's large datagrams are what the other loss tests now use
udp_run(udp_mtu 2 "" udp_transport mtu)
udp_run(udp_mtu_explicit 2 "RIVET_UDP_DGRAM=8K" udp_transport mtu 8192 64)
udp_run(udp_mtu_explicit_win 2 "RIVET_UDP_DGRAM=9000;RIVET_UDP_WINDOW=20" udp_transport mtu 9000 20)
foreach(lvl 1 10)
  udp_run(udp_loss${lvl}_8k_dgram_am_flood 2 "${udp_lossy${lvl}};RIVET_UDP_DGRAM=8K" am_flood)
  udp_run(udp_loss${lvl}_8k_dgram_rma_sizes_ref 2 "${udp_lossy${lvl}};RIVET_UDP_DGRAM=8K;RIVET_RMA=ref" rma_sizes)
endforeach()

# The same through a real bad network: tests/transport/udp_relay sits between the ranks
# (RIVET_UDP_RELAY), dropping, duplicating, holding back and delaying datagrams on the wire; the
# ranks' own test aids are off. The API suites check every payload; the relay fails a job
# that did not go through it.
add_executable(udp_relay udp_relay.c)
target_include_directories(udp_relay PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include
                           ${PROJECT_BINARY_DIR}/include ${RIVET_TEST_HARNESS})
target_link_libraries(udp_relay PRIVATE rivet_static)
# udp_relay_run(<name> <np> <relay options> <env> <program> [args...])
function(udp_relay_run name np relay env prog)
  add_test(NAME ${name}_np${np}
           COMMAND $<TARGET_FILE:udp_relay> --ranks ${np} ${relay} --
                   $<TARGET_FILE:rivetrun> --timeout ${RIVET_NET_JOB_TIMEOUT} -n ${np} $<TARGET_FILE:${prog}> ${ARGN})
  set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${RIVET_NET_TIMEOUT} LABELS "transport;udp"
                       ENVIRONMENT "${udp_env};RIVET_UDP_RTO_US=3000;${env}")
endfunction()
set(udp_relay1  --drop 10 --dup 10 --reorder 10 --delay-us 20 --jitter-us 100 --reorder-us 500)
set(udp_relay10 --drop 100 --dup 50 --reorder 50 --delay-us 20 --jitter-us 200 --reorder-us 1000)
set(udp_relay_env1 "")
set(udp_relay_env10 "RIVET_UDP_CC=0") # (as udp_lossy10, above)
foreach(lvl 1 10)
  set(rl "${udp_relay${lvl}}")
  set(re "${udp_relay_env${lvl}}")
  foreach(t am_args am_flood am_npam rma_val legacy_barrier)
    udp_relay_run(udp_relay${lvl}_${t} 2 "${rl}" "${re}" ${t})
  endforeach()
  # np 4 on 2 cores, all 5000 requests per destination (before selective acknowledgements and
  # the adaptive timeout it needed a fifth of them and a 20 ms timeout)
  udp_relay_run(udp_relay${lvl}_am_flood 4 "${rl}" "${re}" am_flood)
  udp_relay_run(udp_relay${lvl}_rma_sizes_ref 2 "${rl}" "${re};RIVET_RMA=ref" rma_sizes)
  udp_relay_run(udp_relay${lvl}_ratomic_ops 2 "${rl}" "${re};RIVET_RATOMIC=ref" ratomic_ops)
  udp_relay_run(udp_relay${lvl}_vis_strided 2 "${rl}" "${re};RIVET_VIS=ref" vis_rand strided)
  udp_relay_run(udp_relay${lvl}_coll_reduce 3 "${rl}" "${re}" coll_reduce)
  udp_relay_run(udp_relay${lvl}_small_dgram_am_args 2 "${rl}" "${re};RIVET_UDP_DGRAM=1472" am_args)
endforeach()
# congestion control at 10% loss: correct, if slow
udp_relay_run(udp_relay10_cc_am_args 2 "${udp_relay10}" "RIVET_UDP_CC=1" am_args)
udp_relay_run(udp_relay10_cc_small_dgram_am_args 2 "${udp_relay10}" "RIVET_UDP_CC=1;RIVET_UDP_DGRAM=1472" am_args)
# fuzz: garbage next to 1 in 20 real datagrams (from outside the job, and from the senders'
# own addresses with wrong tokens or cut headers), with loss on; the suites' checks must hold
udp_relay_run(udp_relay_fuzz_am_args 2 "--fuzz;50;--drop;10" "" am_args)
udp_relay_run(udp_relay_fuzz_rma_val 2 "--fuzz;50;--drop;10" "" rma_val)
udp_relay_run(udp_relay_fuzz_stray 4 "--fuzz;200" "" udp_transport stray)
# Puts under GEX_EVENT_DEFER travel by reference (send_ref): the source freed at remote
# completion is never read again, through loss, duplicates and reordering; also with 8 KiB
# datagrams (more chunks, one datagram each) and with the rank's own loss aid
udp_relay_run(udp_relay10_putref 2 "${udp_relay10}" "RIVET_UDP_CC=0" udp_transport putref)
udp_relay_run(udp_relay10_8k_dgram_putref 2 "${udp_relay10}" "RIVET_UDP_CC=0;RIVET_UDP_DGRAM=8K"
              udp_transport putref)
udp_run(udp_loss10_putref 2 "${udp_lossy10}" udp_transport putref)
# a rank that disappears from the network (the relay drops all its traffic after a while)
# ends the job with a message naming it, never a hang
add_test(NAME udp_relay_cut_np3
         COMMAND ${RIVET_EXPECT} "udp: rank [0-9]+ unreachable: no acknowledgement for 2 s"
                 $<TARGET_FILE:udp_relay> --ranks 3 --cut 1:3000 --drop 10 --
                 $<TARGET_FILE:rivetrun> --timeout ${RIVET_NET_JOB_TIMEOUT} -n 3 $<TARGET_FILE:udp_transport> talk)
set_tests_properties(udp_relay_cut_np3 PROPERTIES TIMEOUT ${RIVET_NET_TIMEOUT}
                     LABELS "transport;udp;fault" ENVIRONMENT "${udp_env};RIVET_UDP_PEER_TIMEOUT=2")
# selective acknowledgements: at 1% loss the retransmissions stay near the datagrams lost
udp_run(udp_retx 2 "RIVET_UDP_DROP_PERMILLE=10" udp_transport retx)
udp_run(udp_retx 4 "RIVET_UDP_DROP_PERMILLE=10" udp_transport retx)
# tail-loss probes: the relay drops the last datagram of bursts (the first time it passes); the
# rounds must finish well before they do with the retransmission timeout alone (the same job
# measures both). A 200 ms minimum timeout keeps the two apart on a loaded machine, where ranks
# wait milliseconds for a core.
udp_relay_run(udp_relay_tail 2 "--tail-drop;1000" "RIVET_UDP_RTO_MIN_US=200000" udp_transport tail)
# a long wait blocks in ppoll instead of spinning
udp_run(udp_idle 2 "" udp_transport idle)

# RIVET_STATS over udp (tests/core/stats_check.py): through the relay dropping 10% of the
# datagrams, the counts stay exact and tp.retransmits > 0 (with tp.udp.*); without loss, 0
find_program(RIVET_PYTHON3_UDP_STATS python3)
if(RIVET_PYTHON3_UDP_STATS AND TARGET stats_counts)
  foreach(mode udp udp_noloss)
    add_test(NAME stats_check_${mode}_np2
             COMMAND ${RIVET_PYTHON3_UDP_STATS} ${PROJECT_SOURCE_DIR}/tests/core/stats_check.py
                     $<TARGET_FILE:rivetrun> $<TARGET_FILE:rivet-info> $<TARGET_FILE:stats_counts>
                     2 ${mode} $<TARGET_FILE:udp_relay>)
    set_tests_properties(stats_check_${mode}_np2 PROPERTIES TIMEOUT ${RIVET_NET_TIMEOUT}
                         LABELS "stats;udp;transport")
  endforeach()
endif()
