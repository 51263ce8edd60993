#!/bin/sh
# Regenerate angband_block.py from angband_block.ksy with Kaitai Struct's compiler 0.11
# (the JavaScript build from npm; no JVM needed). The generated file is kept in the
# repository so the bench runs without node: run this only after changing the .ksy.
set -e
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm install --silent --no-audit --no-fund kaitai-struct-compiler@0.11.0 >/dev/null)
python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)' \
    "$here/angband_block.ksy" | NODE_PATH="$work/node_modules" node "$here/compile.js" "$here"
