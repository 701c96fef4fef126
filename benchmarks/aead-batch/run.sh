#!/usr/bin/env bash
# The tunnel's ChaCha20-Poly1305 per packet: OpenSSL one packet a call (today's data path) against the managed scalar
# reference and the multi-buffer cipher in batches of 8 (AVX2) and 16 (AVX-512), candidates interleaved round by round
# in one process, medians and ratios to OpenSSL; then `openssl speed` at the same size for the raw cipher.
# Placement: everything on one CPU (CPU=1 by default). Bounded: each size stops after 300 s.
# Usage: benchmarks/aead-batch/run.sh [ROUNDS=7] [PACKETS=20000]    (sizes: SIZES="1420 64")
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
dll="$root/benchmarks/Salvo.Benchmarks/bin/Release/net10.0/Salvo.Benchmarks.dll"
[ -f "$dll" ] || { echo "build first: dotnet build benchmarks/Salvo.Benchmarks -c Release" >&2; exit 2; }
cpu=${CPU:-1}
grep -o 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '; echo "(CPU flags)"
for size in ${SIZES:-1420 64}; do
  echo "== $(date -u '+%F %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg), CPU $cpu: aead-batch ${1:-7} $size ${2:-20000}"
  timeout 300 taskset -c "$cpu" dotnet "$dll" aead-batch "${1:-7}" "$size" "${2:-20000}"
  if command -v openssl > /dev/null; then
    timeout 60 taskset -c "$cpu" openssl speed -seconds 2 -evp chacha20-poly1305 -bytes "$size" 2>/dev/null | tail -1
  fi
done
