#!/usr/bin/env bash
# Fetch what the export tests take from npm (tests/browser/package.json:
# playwright-core to drive Debian's chromium, speedscope for its file-format
# schema), exactly as package-lock.json pins them. A quick no-op when
# node_modules already matches the lock. Run by `make check` after deps.sh.
# No network or no npm: says so and exits 0; the tests that need these
# packages then skip with that reason.
set -u
dir=$(cd "$(dirname "$0")/../tests/browser" && pwd)
stamp=$dir/node_modules/.package-lock.json
if [ -f "$stamp" ] && [ "$stamp" -nt "$dir/package-lock.json" ]; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "npm-deps: no npm: the browser and speedscope tests will skip" >&2
	exit 0
fi
if ! (cd "$dir" && timeout 600 npm ci --no-audit --no-fund --loglevel=error </dev/null >&2); then
	echo "npm-deps: npm ci failed in $dir: the browser and speedscope tests will skip" >&2
fi
exit 0
