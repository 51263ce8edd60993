#!/usr/bin/env bash
# Installs the browser the studio's end-to-end tests drive: Debian's chromium at /usr/bin/chromium.
# Playwright only talks to it (launched with executable_path); no browser is ever downloaded.
# Does nothing when the browser is already there; needs root (or sudo) for apt-get otherwise.
set -euo pipefail
BROWSER=/usr/bin/chromium
if [ -x "$BROWSER" ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium
test -x "$BROWSER"
