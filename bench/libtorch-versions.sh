#!/usr/bin/env bash
# LibTorch 2.13 (the torch wheel, bertpt's baseline since it dropped 1.13) against Debian's LibTorch
# 1.13 on this machine, side by side: `bertpt bench` for bert-mini and bert-base, bf16, seq 128, on
# both builds in turn. bench reports training tokens/s and MFU against the bf16 GEMM rate that each
# LibTorch itself reaches in the same process (the "share of the GEMM rate").
#
# The 1.13 side is bertpt at OLD_REV (default f6c7afa, the last commit that built against 1.13),
# built in a worktree against Debian's libtorch-dev (installed here with apt: root or sudo); so the
# two sides differ by the LibTorch and by that commit's code. The 2.13 side is build/bertpt.
# Usage: bench/libtorch-versions.sh [--build-only]   Environment: OLD_REV, STEPS (default 6), THREADS.
# Writes the table to stdout (docs/benchmarks.md keeps it with the date and machine).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
OLD_REV=${OLD_REV:-f6c7afa}
STEPS=${STEPS:-6}
THREADS=${THREADS:-$(nproc)}
NEW=${BERTPT_BIN:-$here/build/bertpt}
old_src=${OLD_SRC:-/tmp/bertpt-libtorch113-$OLD_REV}
OLD=$old_src/build/bertpt

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO=sudo
if [[ ! -x $OLD ]]; then
  dpkg-query -W -f='${Status}' libtorch-dev 2>/dev/null | grep -q "install ok installed" ||
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libtorch-dev >&2
  [[ -d $old_src ]] || git -C "$here" worktree add --detach "$old_src" "$OLD_REV" >&2
  # Debian's LibTorch lives in /usr; the old CMakeLists.txt finds it by default.
  cmake -S "$old_src" -B "$old_src/build" -DCMAKE_BUILD_TYPE=Release -DBERTPT_BUILD_TESTS=OFF >/dev/null
  cmake --build "$old_src/build" -j"$(nproc)" --target bertpt >&2
fi
[[ ${1:-} == --build-only ]] && exit 0

echo "### LibTorch 2.13 against 1.13 (\`bench/libtorch-versions.sh\`)"
echo
echo "Written by \`bench/libtorch-versions.sh\` on $(date -u +%F): \`bertpt bench --model M --seq-len 128"
echo "--per-device-batch-size 32 --precision bf16 --threads $THREADS --steps $STEPS --warmup-steps 2\` with each build in"
echo "turn; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1 /proc/loadavg) at the start."
echo "The 1.13 row is bertpt at $OLD_REV (the last commit built against Debian's LibTorch 1.13), the 2.13 row"
echo "bertpt at the commit shown, with the torch 2.13.0 wheel; the share of the GEMM rate is over the bf16"
echo "GEMM rate each LibTorch reaches in its own process."
echo
echo "| model | batch | LibTorch | bertpt | tokens/s | TFLOP/s | share of the bf16 GEMM rate | GEMM rate (GFLOP/s) |"
echo "|---|---|---|---|---|---|---|---|"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # binary, model, batch
  local bin=$1 model=$2 batch=$3
  local version rev
  version=$("$bin" --version | sed -n 's/.*LibTorch \([0-9.]*\).*/\1/p' | head -1)
  rev=$(git -C "$(dirname "$bin")/.." rev-parse --short HEAD)
  git -C "$(dirname "$bin")/.." diff --quiet HEAD -- src CMakeLists.txt || rev+="+changes"
  "$bin" bench --quiet --json --model "$model" --seq-len 128 --per-device-batch-size "$batch" --precision bf16 \
    --threads "$THREADS" --steps "$STEPS" --warmup-steps 2 > "$work/bench.json"
  python3 - "$work/bench.json" "$model" "$batch" "$version" "$rev" <<'PY'
import json, sys
path, model, batch, version, rev = sys.argv[1:]
j = json.loads(open(path).read().strip().splitlines()[-1])
r = j["rows"][0]
print(f"| {model} | {batch} | {version} | {rev} | {r['tokens_per_sec']:,.0f} | {r['flops_per_sec'] / 1e12:.3f} | "
      f"{100 * r['mfu']:.1f}% | {j['peak_flops'] / 1e9:.0f} |")
PY
}
for spec in bert-mini:32 bert-base:32; do
  model=${spec%:*} batch=${spec#*:}
  run "$OLD" "$model" "$batch"
  run "$NEW" "$model" "$batch"
done
