#!/usr/bin/env bash
# The one test command (README and CI): type-check, build, then every test — unit, integration (fake provider
# servers through the real SDKs), the OS keychain (gnome-keyring on a private D-Bus session), and end-to-end
# (the web UI in Debian Chromium; the Electron app where an Electron binary exists).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${AGENTDESK_TEST_INNER:-}" ]; then
  # The type-check (tsc, one core) runs beside the build (electron-vite + the CLI bundle): neither needs the other,
  # and on 2 cores the pair takes little more than the longer of the two. Each one's output goes to a private file
  # (two worktrees may run `npm test` at once) and is printed when it fails.
  logs="$(mktemp -d)"
  echo "== typecheck + build"
  npm run --silent typecheck > "$logs/typecheck.log" 2>&1 &
  typecheck=$!
  build_rc=0
  npm run --silent build > "$logs/build.log" 2>&1 || build_rc=$?
  typecheck_rc=0
  wait "$typecheck" || typecheck_rc=$?
  if [ "$typecheck_rc" != 0 ]; then echo "== typecheck failed"; cat "$logs/typecheck.log"; fi
  if [ "$build_rc" != 0 ]; then echo "== build failed"; cat "$logs/build.log"; fi
  [ "$typecheck_rc" = 0 ] && [ "$build_rc" = 0 ] || exit 1
  rm -rf "$logs"
  export AGENTDESK_TEST_INNER=1
  # One temporary folder for the whole run: every test's temporary folders and files (os.tmpdir() follows TMPDIR, and
  # so do the CLI processes, the fake servers and Chromium the tests start) go inside it, and the inner shell below
  # removes it when the run ends, also on Ctrl+C or a TERM — a full run used to leave ≈ 800 folders (≈ 60 MB) in /tmp.
  # Writable by everyone, as /tmp is: the sandbox tests run commands as an unprivileged user too. The wrappers
  # (xvfb-run, dbus-run-session) keep the usual TMPDIR: they clean up their own files after the inner shell is gone.
  AGENTDESK_TEST_TMP="$(mktemp -d "${TMPDIR:-/tmp}/agentdesk-tests-XXXXXX")"
  chmod 1777 "$AGENTDESK_TEST_TMP"
  export AGENTDESK_TEST_TMP
  wrap=()
  # A real keychain: a private D-Bus session with gnome-keyring unlocked.
  if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
    XDG_DATA_HOME="$(mktemp -d "$AGENTDESK_TEST_TMP/xdg-XXXXXX")"
    export XDG_DATA_HOME
    wrap=(dbus-run-session --)
  else
    echo "note: dbus-run-session/gnome-keyring not installed — keychain tests will only check the 'no keychain' message"
  fi
  # A display for the Electron end-to-end test (only used where an Electron binary exists).
  if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    wrap=(xvfb-run -a "${wrap[@]}")
  fi
  exec "${wrap[@]}" env TMPDIR="$AGENTDESK_TEST_TMP" bash "$0" "$@"
fi

if [ -n "${AGENTDESK_TEST_TMP:-}" ]; then
  trap 'rm -rf "$AGENTDESK_TEST_TMP"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v gnome-keyring-daemon >/dev/null; then
  echo -n agentdesk-test | gnome-keyring-daemon --unlock --components=secrets > /dev/null
fi
# A run of chosen files or options (`npm test -- test/x.test.ts`, land's re-run of failed files): one vitest, the
# Node project first, then the Chromium one (vitest.config.ts, sequence.groupOrder).
if [ $# -gt 0 ]; then
  echo "== tests"
  npx vitest run "$@"
  exit
fi
# The whole suite: the two projects side by side, as two vitest processes — the Node files two at a time, the
# Chromium files one at a time (never two Chromium files at once). Measured on 2 cores, a Node file keeps ~0.7 of a core
# busy (it mostly waits on the CLI processes it starts) and a Chromium file ~0.8 (it mostly waits on the page), so
# one after the other left the machine half idle; side by side the suite takes about the longer of the two.
# The Chromium output is kept apart and printed after the Node output; the run fails if either fails.
# Each test file logs the CPU it used (test/support/cpu-record.ts); the table of the costliest follows the results.
# Side by side the run is CPU-bound on 2 cores (both ~99 % busy through a whole run, measured): a file costs the run
# its CPU time, and waiting inside a file costs little. The last line is the whole run's CPU (`times`) and wall time.
AGENTDESK_TEST_CPU_LOG="$(mktemp)"
export AGENTDESK_TEST_CPU_LOG
chromium_log="$(mktemp)"
chromium_cmd=(npx vitest run --project chromium)
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v gnome-keyring-daemon >/dev/null; then
  # The Chromium tests get a keychain of their own (a second private D-Bus session and gnome-keyring): side by side,
  # a key one of them stores (a profile "provider:label") would otherwise join the key rotation of a Node test that
  # uses the same provider name at that moment — a CLI turn in failover.test.ts once retried with such a key.
  chromium_cmd=(env XDG_DATA_HOME="$(mktemp -d)" dbus-run-session -- bash -c \
    'echo -n agentdesk-test | gnome-keyring-daemon --unlock --components=secrets > /dev/null && exec "$@"' keyring "${chromium_cmd[@]}")
fi
"${chromium_cmd[@]}" > "$chromium_log" 2>&1 &
chromium=$!
echo "== tests: Node (the Chromium tests run beside them; their output follows)"
node_rc=0
npx vitest run --project node || node_rc=$?
chromium_rc=0
wait "$chromium" || chromium_rc=$?
echo "== tests: Chromium"
cat "$chromium_log"
rm -f "$chromium_log"
echo "== CPU per test file (user + system, its child processes included)"
node test/support/cpu-report.mjs "$AGENTDESK_TEST_CPU_LOG" 30 || true
times > "$AGENTDESK_TEST_CPU_LOG" # this shell's children: both vitest processes and all they started
echo "== CPU of the tests (user, system): $(tail -1 "$AGENTDESK_TEST_CPU_LOG"); wall ${SECONDS} s"
rm -f "$AGENTDESK_TEST_CPU_LOG"
echo "== Node tests: exit $node_rc; Chromium tests: exit $chromium_rc"
[ "$node_rc" = 0 ] && [ "$chromium_rc" = 0 ]
