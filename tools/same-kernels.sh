#!/usr/bin/env bash
# Checks that two builds compile the same kernels, without a GPU: each build's CLI compiles one
# sample of configs of every kernel path (`gemmtune compile --arch ARCH`: FMA tiles, streamed thin
# tiles, the reduction path, split-K, and with --precision fp32 mma.sync and warpgroup configs),
# then each pair of cubins is compared section by section: the machine code (.text.*) and the
# kernel attributes (.nv.info*, .nv.shared*, .nv.constant*), debug and line information left out.
# For a change meant to leave the kernels alone (a refactor, formatting): same code, same speed.
#   tools/same-kernels.sh BUILD_A BUILD_B [SHARDS]
# BUILD_A/B: build folders (one of them, say, a worktree of the base commit). SHARDS (default 3000)
# takes every SHARDS-th candidate: about 75 configs per precision, 8 minutes on 2 cores.
# Exit 0 when every config's code is the same, 1 when one differs or compiles in one build only.
set -euo pipefail
usage() { sed -n '8,11p' "$0" | sed 's/^# //' >&2; }
[ $# -ge 2 ] && [ $# -le 3 ] || { usage; exit 2; }
a=$1 b=$2 shards=${3:-3000}
# The CLI of a build folder (tools/cli/gemmtune, or tools/gemmtune in builds before 2026-12-02).
cli_of() {
  for c in "$1/tools/cli/gemmtune" "$1/tools/gemmtune"; do [ -x "$c" ] && { echo "$c"; return; }; done
  echo "same-kernels: no gemmtune CLI in $1/tools: build it first" >&2
  exit 2
}
cli_a=$(cli_of "$a") cli_b=$(cli_of "$b")
command -v sqlite3 >/dev/null || { echo "same-kernels: sqlite3 not found (apt install sqlite3)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One problem per kernel path: a large tile, an odd one (narrowed and repacked accesses), a thin
# matrix-vector product (streamed B), a dot (reduction), a split-K deep K.
shapes=(--shape 4096x4096x4096 --shape 127x257x1023 --shape 4x4096x4096 --shape 1x1x100000
  --shape 64x64x65536)
for side in a b; do
  cli=$cli_a; [ $side = b ] && cli=$cli_b
  echo "same-kernels: compiling a sample of configs with $cli"
  for precision in ieee fp32; do
    "$cli" compile --arch sm_90 --sms 132 "${shapes[@]}" --layout all \
      --precision $precision --shard "0/$shards" --db "$work/$side.db" >/dev/null
  done
  mkdir -p "$work/$side"
  sqlite3 "$work/$side.db" "SELECT config_name || ' ' || hex(cubin) FROM binaries" |
    while read -r name hex; do
      echo "$hex" | xxd -r -p >"$work/$side/$name.cubin"
    done
done
# The sections of a cubin (ELF64) that make up its kernels, as "name hex" lines.
code_of() {
  python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
def header(i):
    return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
strtab = header(shstrndx)
for i in range(shnum):
    name_off, kind, _, _, off, size = header(i)[:6]
    end = data.index(b"\0", strtab[4] + name_off)
    name = data[strtab[4] + name_off:end].decode()
    if name.startswith((".text.", ".nv.info", ".nv.shared", ".nv.constant")):
        body = data[off:off + size].hex() if kind != 8 else "nobits %d" % size
        print(name, body)
PY
}
differ=0 same=0
for f in "$work"/a/*.cubin; do
  name=$(basename "$f")
  if [ ! -f "$work/b/$name" ]; then echo "only in $a: ${name%.cubin}"; differ=$((differ + 1)); continue; fi
  if cmp -s <(code_of "$f") <(code_of "$work/b/$name"); then
    same=$((same + 1))
  else
    echo "code differs: ${name%.cubin}"; differ=$((differ + 1))
  fi
done
for f in "$work"/b/*.cubin; do
  [ -f "$work/a/$(basename "$f")" ] || { echo "only in $b: $(basename "${f%.cubin}")"; differ=$((differ + 1)); }
done
echo "same-kernels: $same configs with the same code, $differ different or missing"
[ $differ -eq 0 ] && [ $same -gt 0 ]
