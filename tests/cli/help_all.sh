#!/usr/bin/env bash
# Every subcommand (and sub-subcommand) of the CLI answers --help with a usage line.
set -euo pipefail
cli=$1
list_subcommands() {  # the names under "Subcommands:" of a --help text
  "$@" --help | awk '/^Subcommands:/{on=1; next} on && /^  [a-z]/{print $1}'
}
count=0
for sub in $(list_subcommands "$cli"); do
  "$cli" "$sub" --help | grep -q '^Usage:' || { echo "no usage for: $sub"; exit 1; }
  count=$((count + 1))
  for subsub in $(list_subcommands "$cli" "$sub"); do
    "$cli" "$sub" "$subsub" --help | grep -q '^Usage:' || { echo "no usage for: $sub $subsub"; exit 1; }
    count=$((count + 1))
  done
done
echo "$count subcommands answered --help"
[ "$count" -ge 2 ]
