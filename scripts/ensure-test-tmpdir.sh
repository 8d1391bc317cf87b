#!/bin/sh
# Print a fresh folder for the tests' temp files (make test sets TMPDIR to it). Some tests write
# thousands of skill folders; on a busy machine a memory file system (/dev/shm) makes that several
# times faster than a shared disk and keeps the run's length steady. It is used only when it exists,
# has 1 GiB free and can run a script written there (some mount it noexec); otherwise the system's
# temp folder. SKILLHUB_TEST_TMPDIR=DIR chooses the parent folder.
set -eu
base="${SKILLHUB_TEST_TMPDIR:-}"
if [ -z "$base" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  free_kb="$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')"
  if [ "${free_kb:-0}" -ge 1048576 ]; then
    probe="$(mktemp -d /dev/shm/skillhub-probe.XXXXXX)"
    printf '#!/bin/sh\nexit 0\n' >"$probe/x"
    chmod +x "$probe/x"
    if "$probe/x" 2>/dev/null; then base=/dev/shm; fi
    rm -rf "$probe"
  fi
fi
mktemp -d "${base:-${TMPDIR:-/tmp}}/skillhub-tests.XXXXXX"
