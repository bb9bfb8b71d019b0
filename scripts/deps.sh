#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scripts/deps.sh: installs the Debian packages Rivet needs that are missing.
# usage: scripts/deps.sh [--bench] [--clang]
#   (no option)  build and test: cmake make gcc pkg-config python3
#   --bench      also the benchmark peers and plotting: MPI, UCX tools, gnuplot
#   --clang      also clang
# As root it runs apt-get; otherwise it prints the command to run and exits 1.
set -eu
pkgs="cmake make gcc libc6-dev pkg-config python3"
for a in "$@"; do
    case $a in
        --bench) pkgs="$pkgs libopenmpi-dev openmpi-bin ucx-utils gnuplot-nox python3-matplotlib" ;;
        --clang) pkgs="$pkgs clang" ;;
        -h|--help) sed -n '3,8p' "$0"; exit 0 ;;
        *) echo "deps.sh: unknown option $a" >&2; exit 2 ;;
    esac
done

missing=
for p in $pkgs; do
    st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
    echo "deps.sh: installing:$missing"
    sh -c "$cmd"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "deps.sh: installing with sudo:$missing"
    sudo sh -c "$cmd"
else
    echo "deps.sh: missing Debian packages:$missing"
    echo "deps.sh: run as root:  $cmd"
    exit 1
fi
