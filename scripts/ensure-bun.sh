#!/bin/sh
# Print the path of Bun $BUN_VERSION, installing it from the npm registry into .tools/ when
# the bun on PATH is missing or another version. Used by the Makefile; needs only Node's npm.
set -eu
want="${BUN_VERSION:?BUN_VERSION is not set}"
root="$(cd "$(dirname "$0")/.." && pwd)"
# SKILLHUB_LOCAL_BUN=1 ignores a bun on PATH (to rehearse CI's clean machine on a developer's).
if [ -z "${SKILLHUB_LOCAL_BUN:-}" ] && command -v bun >/dev/null 2>&1 && [ "$(bun --version 2>/dev/null)" = "$want" ]; then
  command -v bun
  exit 0
fi
local_bun="$root/.tools/node_modules/.bin/bun"
if [ -x "$local_bun" ] && [ "$("$local_bun" --version 2>/dev/null)" = "$want" ]; then
  echo "$local_bun"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "Bun $want is needed, and npm to install it into .tools/: install Node.js 20 or later (it brings npm)" >&2
  echo "from https://nodejs.org or your package manager, or put Bun $want on PATH; then run make again." >&2
  exit 1
fi
echo "Installing Bun $want from the npm registry into .tools/ ..." >&2
npm install --prefix "$root/.tools" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "bun@$want" >&2
if ! "$local_bun" --version >/dev/null 2>&1; then
  # npm may have skipped bun's postinstall; the platform package carries the real binary.
  for pkg in bun-linux-x64 bun-linux-x64-baseline bun-linux-aarch64 bun-darwin-aarch64 bun-darwin-x64 bun-linux-x64-musl; do
    bin="$root/.tools/node_modules/@oven/$pkg/bin/bun"
    if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
      ln -sf "$bin" "$local_bun"
      break
    fi
  done
fi
"$local_bun" --version >/dev/null
echo "$local_bun"
