#!/usr/bin/env bash
# Installs what cairn needs to build and test on Debian 12, if anything is
# missing. Idempotent and quiet when everything is present.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java g++ libabsl-dev librocksdb-dev
  libflatbuffers-dev flatbuffers-compiler nlohmann-json3-dev libgtest-dev libgmock-dev
  libbenchmark-dev libcaf-dev libcpp-hocon-dev libboost-dev libleatherman-dev clang
  libclang-rt-14-dev lld clang-format git postgresql libpq-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler-grpc openssl
  libgoogle-perftools-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "cairn setup: missing Debian packages: ${missing[*]}" >&2
  echo "cairn setup: run as root or install sudo, or install them yourself:" >&2
  echo "  apt-get install ${missing[*]}" >&2
  exit 1
fi

echo "cairn setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
