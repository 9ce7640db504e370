#!/usr/bin/env bash
# Install from nothing, timed (issue 21): a fresh clone of this repository's HEAD (plus the working
# Makefile, so an uncommitted change to it can be measured), a new virtualenv, an empty pip cache,
# then `make install` and `make run`.  Prints one line per phase and the machine's load before and after.
#   bash experiments/fresh_install.sh [WORKDIR]      (nice -n 10 in front on a shared machine)
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=${1:-$(mktemp -d /tmp/deps-fresh-XXXXXX)}
mkdir -p "$work"
export PIP_NO_CACHE_DIR=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  cores: $(nproc)"
git clone -q "$repo" "$work/deps-agent"
cp "$repo/Makefile" "$work/deps-agent/Makefile"
cd "$work/deps-agent"
/usr/bin/time -f "make install: %e s wall, %U s user, %S s sys" make install VENV="$work/venv" >"$work/install.log" 2>&1 \
  || { tail -20 "$work/install.log"; exit 1; }
tail -1 "$work/install.log"
/usr/bin/time -f "make run: %e s wall, %U s user, %S s sys" make run VENV="$work/venv" >"$work/run.log" 2>&1 \
  || { tail -20 "$work/run.log"; exit 1; }
grep -E '"success"|success' "$work/run.log" | head -3 || true
tail -1 "$work/run.log"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
