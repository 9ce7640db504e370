"""What a prompt-cache entry costs with and without its logits buffer (agent/llm/lean_state.py):
the milliseconds of each save after an answer and each load on a cache hit, and the process's
resident memory once the cache holds its entries, for llama-cpp-python's own methods and the
lean ones, each in a fresh child process, one after the other.

    python -m experiments.lean_state [--model smollm2] [--requests 8]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

_CHILD = r"""
import json, os, resource, sys, time
import llama_cpp.llama_cpp as lc
_params = lc.llama_model_default_params
def params():  # as the server's child does (agent/llm/local_server.py)
    p = _params()
    if hasattr(p, "use_extra_bufts"):
        p.use_extra_bufts = False
    return p
lc.llama_model_default_params = params
from llama_cpp import Llama, LlamaRAMCache
from agent.llm import lean_state
from agent.llm.local_server import CACHE_BYTES, find_model
model, n, lean = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
if lean:
    assert lean_state.install()
llm = Llama(str(find_model(model)), n_ctx=4096, n_threads=1, logits_all=False, verbose=False)
llm.set_cache(LlamaRAMCache(capacity_bytes=CACHE_BYTES))  # as the server's --cache_size
times = {"save": [], "load": []}
for name in ("save_state", "load_state"):
    own = getattr(Llama, name)
    def timed(self, *a, _own=own, _key=name[:4]):
        t0 = time.perf_counter()
        try:
            return _own(self, *a)
        finally:
            times[_key].append(1000 * (time.perf_counter() - t0))
    setattr(Llama, name, timed)
base = "".join(f"Step {k}: mine 3 logs, craft 12 planks, craft a table, then 4 sticks.\n" for k in range(40))
for k in range(n):  # two dialogues that alternate, each a turn longer: saves, and loads on each switch
    prompt = base + f"Dialogue {k % 2}.\n" + "".join(f"Turn {t}: craft 1 wooden pickaxe.\n" for t in range(k // 2 + 1))
    llm.create_completion(prompt, max_tokens=4, temperature=0.0, seed=0)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"save_ms": times["save"], "load_ms": times["load"], "max_rss_mb": rss,
                  "entries": len(llm.cache.cache_state), "n_vocab": llm.n_vocab(), "n_batch": llm.n_batch}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2", help="an embedded model key (default smollm2)")
    ap.add_argument("--requests", type=int, default=8, help="completions, two dialogues alternating (default 8)")
    a = ap.parse_args()
    if a.requests < 2:
        ap.error("--requests must be at least 2")
    for mode, flag in (("library", "0"), ("lean", "1")):
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, a.model, str(a.requests), flag], capture_output=True, text=True
        )
        if out.returncode != 0:
            sys.exit(
                f"the {mode} run failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}"
            )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        save, load = r["save_ms"], r["load_ms"]
        print(
            f"{mode:8s} save {sum(save) / len(save):7.1f} ms ({len(save)}), "
            f"load {sum(load) / max(1, len(load)):7.1f} ms ({len(load)}), max RSS {r['max_rss_mb']:.0f} MB, "
            f"{r['entries']} entries kept (vocab {r['n_vocab']}, n_batch {r['n_batch']})"
        )


if __name__ == "__main__":
    main()
