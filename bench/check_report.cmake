# SPDX-License-Identifier: BSD-3-Clause
# bench/check_report.cmake: feeds scripts/bench_report.py a small results.json with Rivet and
# GASNet-EX peer lines (barrier, bench_np, bench_imm, the udp group) and checks the ratios it reports.
# -DPY=python3 -DREPORT=scripts/bench_report.py -DDIR=<scratch directory>
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
set(c "\"ranks\":2,\"trials\":1,\"round\":1")
file(WRITE "${DIR}/results.json"
"{\"benchmark\":\"barrier\",\"system\":\"rivet-shm\",${c},\"size\":0,\"metric\":\"latency\",\"value\":0.5,\"unit\":\"us\",\"samples\":[0.5,0.6],\"group\":\"barrier\"}
{\"benchmark\":\"barrier\",\"system\":\"gasnet-ex-smp\",${c},\"size\":0,\"metric\":\"latency\",\"value\":1,\"unit\":\"us\",\"samples\":[1.0,1.2],\"group\":\"barrier\"}
{\"benchmark\":\"am_medium_gen_rtt\",\"system\":\"rivet-shm\",${c},\"size\":4096,\"metric\":\"latency\",\"value\":2,\"unit\":\"us\",\"variant\":\"fp\",\"samples\":[2.0],\"group\":\"np\"}
{\"benchmark\":\"am_medium_gen_rtt\",\"system\":\"rivet-shm\",${c},\"size\":4096,\"metric\":\"latency\",\"value\":1.6,\"unit\":\"us\",\"variant\":\"np\",\"samples\":[1.6],\"group\":\"np\"}
{\"benchmark\":\"am_medium_gen_rtt\",\"system\":\"gasnet-ex-smp\",${c},\"size\":4096,\"metric\":\"latency\",\"value\":3.2,\"unit\":\"us\",\"variant\":\"np\",\"samples\":[3.2],\"group\":\"np\"}
{\"benchmark\":\"imm_am_medium\",\"system\":\"rivet-shm\",\"ranks\":4,\"trials\":1,\"round\":1,\"size\":4096,\"metric\":\"time_per_op\",\"value\":20,\"unit\":\"us\",\"variant\":\"full-static\",\"samples\":[20],\"imm_fails\":0,\"group\":\"imm-np4\"}
{\"benchmark\":\"imm_am_medium\",\"system\":\"rivet-shm\",\"ranks\":4,\"trials\":1,\"round\":1,\"size\":4096,\"metric\":\"time_per_op\",\"value\":10,\"unit\":\"us\",\"variant\":\"full-imm\",\"samples\":[10],\"imm_fails\":77,\"group\":\"imm-np4\"}
{\"benchmark\":\"am_short_rtt\",\"system\":\"rivet-udp\",${c},\"size\":0,\"metric\":\"latency\",\"value\":10,\"unit\":\"us\",\"samples\":[10],\"group\":\"udp-am\"}
{\"benchmark\":\"udp_rtt\",\"system\":\"udp-raw\",${c},\"size\":8,\"metric\":\"latency\",\"value\":8,\"unit\":\"us\",\"variant\":\"pingpong\",\"samples\":[8],\"group\":\"udp\"}
{\"benchmark\":\"am_short_rtt\",\"system\":\"gasnet-ex-udp\",${c},\"size\":0,\"metric\":\"latency\",\"value\":20,\"unit\":\"us\",\"samples\":[20],\"group\":\"udp-am\"}
{\"benchmark\":\"put_latency\",\"system\":\"rivet-ofi\",${c},\"size\":8,\"metric\":\"latency\",\"value\":30,\"unit\":\"us\",\"variant\":\"blocking\",\"samples\":[30,31],\"group\":\"ofi\"}
{\"benchmark\":\"put_latency\",\"system\":\"libfabric-raw\",${c},\"size\":8,\"metric\":\"latency\",\"value\":25,\"unit\":\"us\",\"variant\":\"fi_write_dc\",\"samples\":[25],\"provider\":\"tcp;ofi_rxm\",\"group\":\"ofi\"}
{\"benchmark\":\"am_short_rtt\",\"system\":\"rivet-ofi\",${c},\"size\":0,\"metric\":\"latency\",\"value\":40,\"unit\":\"us\",\"samples\":[40],\"group\":\"ofi-am\"}
{\"benchmark\":\"msg_rtt\",\"system\":\"libfabric-raw\",${c},\"size\":32,\"metric\":\"latency\",\"value\":32,\"unit\":\"us\",\"variant\":\"fi_inject_pingpong\",\"samples\":[32],\"provider\":\"tcp;ofi_rxm\",\"group\":\"ofi\"}
")
execute_process(COMMAND "${PY}" "${REPORT}" --out "${DIR}" --no-plots --rounds 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_report.py failed (${rc}):\n${out}\n${err}")
endif()
file(READ "${DIR}/report.md" rep)
foreach(want
    "## Rivet vs GASNet-EX"
    # GASNet 1.00 (median 1.10), Rivet 0.500 (0.550): ratios 0.5 of bests and of medians
    "| shared memory | barrier (bench_barrier: gex_Coll_BarrierNB + wait) | us | 1.00 (1.10) | 0.500 (0.550) | 0.500 | 0.500 | yes |"
    # FP 2.0 / NP 1.6 = 1.25; NP Rivet 1.6 / GASNet 3.2 = 0.5
    "| 4 KiB | 2.00 | 1.60 | 1.25 (1.25) | - | 3.20 | - (-) | 0.500 |"
    # static 20, imm 10: the seed's reduction 100 (20 - 10) / 20
    "| am_medium | full | 4 | 20.0 | 10.0 | +50.0 | 77 |"
    # udp: Rivet 10 / raw 8 = 1.25 (goal <= 1.3 met); Rivet 10 / GASNet-EX udp 20 = 0.5
    "| AM Short round trip / raw UDP 8 B ping-pong | <= 1.3 | 10.0 / 8.00 us | 1.25 | 1.25 | **met** |"
    "| AM Short round trip / GASNet-EX udp's | <= 0.8 | 10.0 / 20.0 us | 0.500 | 0.500 | **met** |"
    # ofi goals: put 30 / raw 25 = 1.20 (met); AM Short 40 / raw message ping-pong 32 = 1.25 (met)
    "| 8 B put latency / raw fi_write round trip | <= 1.25 | 30.0 / 25.0 us | 1.20 | 1.20 | **met** |"
    "| AM Short round trip / raw fi_inject message ping-pong | <= 1.25 | 40.0 / 32.0 us | 1.25 | 1.25 | **met** |")
  string(FIND "${rep}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "report.md lacks:\n${want}\n--- report.md:\n${rep}")
  endif()
endforeach()
message(STATUS "report tables as expected")
