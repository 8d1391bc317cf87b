#!/bin/sh
# The distribution tests (test/distribution) pack archives with zip and check the Homebrew formula
# with Ruby. Install whichever of Debian's ruby, zip and unzip is missing, quietly, when apt-get can
# run; otherwise say what to install.
set -eu
missing=""
for tool in ruby zip unzip; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -z "$missing" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "Installing$missing from Debian's packages (for test/distribution) ..." >&2
  log="$(mktemp)"
  # shellcheck disable=SC2086 # one word per package
  if apt-get update -qq >"$log" 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >>"$log" 2>&1; then
    rm -f "$log"
    exit 0
  fi
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
echo "missing:$missing. Install them (apt-get install$missing, or brew install$missing) to run test/distribution" >&2
exit 1
