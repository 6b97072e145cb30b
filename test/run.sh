#!/usr/bin/env bash
# The one test command (README and CI): type-check, build, then every test — unit, integration (fake provider
# servers through the real SDKs), the OS keychain (gnome-keyring on a private D-Bus session), and end-to-end
# (the web UI in Debian Chromium; the Electron app where an Electron binary exists).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${AGENTDESK_TEST_INNER:-}" ]; then
  echo "== typecheck"
  npm run --silent typecheck
  echo "== build"
  npm run --silent build > /tmp/agentdesk-build.log 2>&1 || { cat /tmp/agentdesk-build.log; exit 1; }
  export AGENTDESK_TEST_INNER=1
  wrap=()
  # A real keychain: a private D-Bus session with gnome-keyring unlocked.
  if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
    XDG_DATA_HOME="$(mktemp -d)"
    export XDG_DATA_HOME
    wrap=(dbus-run-session --)
  else
    echo "note: dbus-run-session/gnome-keyring not installed — keychain tests will only check the 'no keychain' message"
  fi
  # A display for the Electron end-to-end test (only used where an Electron binary exists).
  if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    wrap=(xvfb-run -a "${wrap[@]}")
  fi
  exec "${wrap[@]}" bash "$0" "$@"
fi

if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v gnome-keyring-daemon >/dev/null; then
  echo -n agentdesk-test | gnome-keyring-daemon --unlock --components=secrets > /dev/null
fi
echo "== tests"
exec npx vitest run "$@"
