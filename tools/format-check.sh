#!/usr/bin/env bash
# Checks that the C, C++ and CUDA sources tracked by git are formatted by the repository's
# .clang-format. The tree is formatted with clang-format 14 (Debian 12's): another major version
# formats some constructs differently, so the check is skipped (77) under one, and without git or
# clang-format. Fix what it reports with:
#   git ls-files '*.cpp' '*.hpp' '*.h' '*.cuh' '*.cu' | xargs clang-format -i
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
format=${CLANG_FORMAT:-clang-format}
if ! command -v "$format" >/dev/null; then
  echo "format-check: skipped: $format not found (Debian: apt install clang-format)"
  exit 77
fi
version=$("$format" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$version" != 14 ]; then
  echo "format-check: skipped: clang-format $version; the tree is formatted with clang-format 14"
  exit 77
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "format-check: skipped: not a git checkout"
  exit 77
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cuh' '*.cu')
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue  # deleted in the work tree, not yet in the index
  "$format" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "format-check: ${#bad[@]} of ${#files[@]} files differ from clang-format's output:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "format them with: clang-format -i FILE..." >&2
  exit 1
fi
echo "format-check: ${#files[@]} files formatted"
