#!/usr/bin/env bash
# Evals with the local model at 1 and 2 workers, side by side (issue 21, item 4): the same tasks,
# one run after the other, each into a fresh folder; prints wall seconds and episodes per minute.
#   bash experiments/workers_scaling.sh [N_TASKS=10] [SUITE_GROUP=MT1]
set -euo pipefail
n=${1:-10}; group=${2:-MT1}
deps=${DEPS:-.venv/bin/deps}
tasks=$($deps tasks 2>/dev/null | awk -v g="$group" '$2 == g {print $1}' | head -n "$n" | paste -sd, -)
out=$(mktemp -d /tmp/deps-workers-XXXXXX)
echo "tasks ($n of $group): $tasks"
for w in 1 2; do
  load=$(cut -d' ' -f1 /proc/loadavg)
  t0=$(date +%s.%N)
  $deps eval --tasks "$tasks" --llm local --workers "$w" --out "$out/w$w" --json >"$out/w$w.log" 2>&1 || { tail -5 "$out/w$w.log"; exit 1; }
  t1=$(date +%s.%N)
  python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print(f'workers {sys.argv[3]}: {s:.1f} s wall, {60*int(sys.argv[4])/s:.2f} episodes/min (load {sys.argv[5]} at start)')" "$t0" "$t1" "$w" "$n" "$load"
done
