#!/usr/bin/env bash
# Installs every system package mpt needs, from Debian's archive. Idempotent: when all packages
# are already present it returns without touching apt.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  llvm-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  zlib1g-dev libzstd-dev libxml2-dev libedit-dev libcurl4-openssl-dev
  libopenblas-openmp-dev libgtest-dev
  mpich libmpich-dev
  dataset-fashion-mnist
  gnuplot-nox
  python3 python3-numpy python3-torch python3-torchvision
  clang-22 libclang-rt-22-dev libomp-22-dev
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
