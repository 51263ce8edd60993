#!/usr/bin/env bash
# Installs what the tests need beyond Python packages: the browser the studio's tests drive
# (scripts/install-browser.sh) and a Java runtime for Spark (tests/tables/test_tables_spark.py, the
# `spark` extra). Debian's packages only; apt-get runs only for what is missing.
set -euo pipefail
cd "$(dirname "$0")"
bash ./install-browser.sh
if command -v java >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends openjdk-17-jre-headless \
    || $SUDO apt-get install -y -q --no-install-recommends default-jre-headless
command -v java >/dev/null
