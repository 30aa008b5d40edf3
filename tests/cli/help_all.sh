#!/usr/bin/env bash
# Every subcommand (and sub-subcommand) of the CLI answers --help with a usage line, and no help
# text offers a spelling of 0.1 that 0.2 renamed (docs/cli.md, "Old spellings") but under
# "Deprecated:", where they are listed for the one release that still takes them.
set -euo pipefail
cli=$1
old_spellings='--device\b|--devices\b|--compile-threads|--problem\b|--json\b|--gpu-name'
list_subcommands() {  # the names under "Subcommands:" of a --help text
  "$@" --help | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}'
}
check_help() {  # the --help text of the command "$@" (after the CLI)
  local text
  text=$("$cli" "$@" --help)
  grep -q '^Usage:' <<<"$text" || { echo "no usage for: $*"; exit 1; }
  text=$(awk '/^Deprecated:/{skip=1; next} /^$/{skip=0} !skip' <<<"$text")
  if grep -Eq -- "$old_spellings" <<<"$text"; then
    echo "$* --help offers an old spelling: $(grep -Eo -- "$old_spellings" <<<"$text" | sort -u | tr '\n' ' ')"
    exit 1
  fi
}
count=0
for sub in $(list_subcommands "$cli"); do
  check_help "$sub"
  count=$((count + 1))
  for subsub in $(list_subcommands "$cli" "$sub"); do
    check_help "$sub" "$subsub"
    count=$((count + 1))
  done
done
echo "$count subcommands answered --help"
[ "$count" -ge 2 ]
