#!/bin/sh
# Install SkillHub on Linux or macOS, without sudo:
#   curl -fsSL https://github.com/skillhub-dev/skillhub/releases/latest/download/install.sh | sh
#
# Environment (all optional):
#   VERSION                release to install, e.g. 0.2.0 (default: the latest)
#   INSTALL_DIR            where skillhub goes (default: ~/.local/bin)
#   SKILLHUB_DOWNLOAD_URL  folder holding the archives and SHA256SUMS (default: the GitHub release)
#   SKILLHUB_PLATFORM      skip detection: linux-x64, linux-arm64, linux-x64-musl, darwin-x64, darwin-arm64
#
# It downloads skillhub-<version>-<platform>.tar.gz and SHA256SUMS, refuses an archive whose
# checksum does not match, checks that the binary runs here, then installs skillhub and the
# skillhub-mcp link. Nothing is installed when any step fails.
set -eu

RELEASES="https://github.com/skillhub-dev/skillhub/releases"
PLATFORMS="linux-x64 linux-arm64 linux-x64-musl darwin-x64 darwin-arm64"
CLIENTS="claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini"

say() { printf '%s\n' "$*"; }
die() {
  printf 'skillhub install: %s\n' "$*" >&2
  exit 1
}

is_musl() {
  case "${SKILLHUB_LIBC:-}" in
    musl) return 0 ;;
    glibc) return 1 ;;
  esac
  if command -v ldd >/dev/null 2>&1; then
    case "$(ldd --version 2>&1)" in
      *musl*) return 0 ;;
      *GLIBC* | *"GNU libc"* | *glibc*) return 1 ;;
    esac
  fi
  # No ldd to ask. A glibc system may have musl's loader installed too, so both are looked at.
  ls /lib/ld-musl-* >/dev/null 2>&1 && ! ls /lib*/ld-linux-* >/dev/null 2>&1
}

# Sets $platform. SKILLHUB_UNAME_S and SKILLHUB_UNAME_M stand in for uname in tests.
detect_platform() {
  os="${SKILLHUB_UNAME_S:-$(uname -s)}"
  arch="${SKILLHUB_UNAME_M:-$(uname -m)}"
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows*) die "this is Windows: use install.ps1 instead (irm $RELEASES/latest/download/install.ps1 | iex)" ;;
    *) die "unsupported operating system: $os. SkillHub has builds for Linux, macOS and Windows." ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "unsupported CPU architecture: $arch. SkillHub has builds for x86_64 and arm64." ;;
  esac
  # An x86_64 shell under Rosetta on Apple silicon still gets the native build.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    arch=arm64
  fi
  platform="$os-$arch"
  if [ "$os" = linux ] && is_musl; then platform="$platform-musl"; fi
}

# Security: a download uses its URL's own scheme (https, unless SKILLHUB_DOWNLOAD_URL names a mirror by
# another) and follows redirects to https only, so no redirect turns it into plain http.
download() { # URL FILE
  case "$1" in
    *://*) scheme="${1%%://*}" ;;
    *) scheme=https ;;
  esac
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 --proto "=$scheme" --proto-redir =https -o "$2" "$1" || die "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    # wget has no such limit: the server's answers say where it was sent, and a redirect to another
    # scheme than https refuses what it downloaded.
    wget -q -S -O "$2" "$1" 2>"$2.headers" || die "could not download $1"
    if grep -i '^ *location: *[a-z][a-z0-9+.-]*:' "$2.headers" | grep -qiv '^ *location: *https:'; then
      die "$1 was redirected to a URL that is not https: refused, nothing was installed"
    fi
  else
    die "neither curl nor wget is installed"
  fi
}

sha256() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else
    die "no SHA-256 tool found (sha256sum, shasum or openssl): cannot verify the download"
  fi
}

# Everything runs from main, called on the last line: a download cut short (curl | sh) runs nothing.
main() {
  platform="${SKILLHUB_PLATFORM:-}"
  [ -n "$platform" ] || detect_platform
  case " $PLATFORMS " in
    *" $platform "*) ;;
    *) die "there is no SkillHub build for $platform (builds: $PLATFORMS). Build from source: https://github.com/skillhub-dev/skillhub" ;;
  esac

  version="${VERSION:-}"
  version="${version#v}"
  if [ -n "${SKILLHUB_DOWNLOAD_URL:-}" ]; then
    base="${SKILLHUB_DOWNLOAD_URL%/}"
  elif [ -n "$version" ]; then
    base="$RELEASES/download/v$version"
  else
    base="$RELEASES/latest/download"
  fi
  install_dir="${INSTALL_DIR:-$HOME/.local/bin}"

  tmp="$(mktemp -d 2>/dev/null || mktemp -d -t skillhub)"
  staged=""
  # A copy cut short (a full disk, Ctrl-C) leaves no partial binary in the install folder either.
  trap 'rm -rf "$tmp"; [ -z "$staged" ] || rm -f "$staged"' EXIT
  trap 'exit 130' INT TERM

  download "$base/SHA256SUMS" "$tmp/SHA256SUMS"
  # The checksum list names every archive, so it also tells which version "latest" is.
  if [ -n "$version" ]; then
    archive="skillhub-$version-$platform.tar.gz"
    expected="$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1; exit }' "$tmp/SHA256SUMS")"
  else
    line="$(awk -v suffix="-$platform.tar.gz" 'substr($2, length($2) - length(suffix) + 1) == suffix { print; exit }' "$tmp/SHA256SUMS")"
    expected="${line%% *}"
    archive="${line##* }"
    archive="${archive#\*}"
    version="${archive#skillhub-}"
    version="${version%-"$platform".tar.gz}"
  fi
  [ -n "$expected" ] || die "$base/SHA256SUMS lists no ${archive:-archive for $platform}: is ${VERSION:-the latest release} published for $platform?"
  # Security: the name comes from a downloaded file and becomes a path; keep it inside $tmp.
  case "$archive" in */* | .*) die "$base/SHA256SUMS names an unexpected file: $archive" ;; esac

  say "Downloading SkillHub $version for $platform ..."
  download "$base/$archive" "$tmp/$archive"
  actual="$(sha256 "$tmp/$archive")"
  if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $archive: expected $expected, got $actual. The download is corrupt or was tampered with; nothing was installed."
  fi

  mkdir -p "$tmp/unpacked"
  tar -xzf "$tmp/$archive" -C "$tmp/unpacked" || die "could not unpack $archive"
  [ -f "$tmp/unpacked/skillhub" ] || die "$archive holds no skillhub binary"
  chmod 755 "$tmp/unpacked/skillhub"
  if [ "${platform%%-*}" = darwin ] && command -v codesign >/dev/null 2>&1 && ! codesign --verify "$tmp/unpacked/skillhub" 2>/dev/null; then
    # Apple silicon kills unsigned binaries; an ad-hoc signature is enough to run.
    codesign --force --sign - "$tmp/unpacked/skillhub" || die "could not sign the binary (codesign --force --sign -)"
  fi
  if ! got="$("$tmp/unpacked/skillhub" --version 2>&1)"; then
    hint=""
    case "$platform" in *-musl) hint="
On Alpine, install its C++ runtime first: apk add libstdc++ libgcc" ;; esac
    die "the downloaded binary does not run on this machine: $(printf '%s\n' "$got" | head -n 3)$hint"
  fi

  mkdir -p "$install_dir" || die "cannot create $install_dir: set INSTALL_DIR to a folder you can write"
  # Copy then rename, so that a running skillhub is replaced, not overwritten mid-flight.
  staged="$install_dir/.skillhub.new.$$"
  cp "$tmp/unpacked/skillhub" "$staged" || die "cannot write to $install_dir: set INSTALL_DIR to a folder you can write"
  mv -f "$staged" "$install_dir/skillhub"
  ln -sf skillhub "$install_dir/skillhub-mcp"

  say "Installed SkillHub $got to $install_dir/skillhub (also answers to skillhub-mcp)."
  command_name="$install_dir/skillhub"
  case ":$PATH:" in
    *":$install_dir:"*) command_name=skillhub ;;
    *) say "Note: $install_dir is not on your PATH; add it with: export PATH=\"$install_dir:\$PATH\"" ;;
  esac
  # Quoted for a shell when the folder holds a space or another special character.
  case "$command_name" in
    *[!A-Za-z0-9_./-]*) command_name="'$(printf '%s' "$command_name" | sed "s/'/'\\\\''/g")'" ;;
  esac
  say ""
  say "Next: connect your MCP client. Print its configuration with"
  say "  $command_name print-config claude-desktop"
  say "(clients: $CLIENTS)"
}

main "$@"
