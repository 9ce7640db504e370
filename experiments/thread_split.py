"""Where two eval workers gain on this machine's cores (issue 21, item 4): one embedded server
with every core against one server per worker, its cores split.

    python -m experiments.thread_split [--model deps-reader] [--calls 4] [--prompt-words 700]

Two loads, each of 2 x `--calls` requests with distinct prompts (so no cached prefix helps):
- prefill: a long prompt (`--prompt-words` words) and at most 1 token back: the prompt's evaluation;
- decode: a short prompt and 130 tokens back, the end-of-text tokens barred: token by token.
Each load runs on one server with all the cores, one request after another (the eval's one
worker), and on two servers with half the cores each, one request stream per server at once
(two workers). Prints the wall seconds of each and their ratio: 0.5 is perfect scaling, 1.0 none.
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
import urllib.request

from agent.llm.local_server import LocalServer
from evaluation.llm_pool import cores

WORDS = (
    "log planks stick crafting_table furnace cobblestone iron_ore coal smelt craft mine wooden stone pickaxe".split()
)
DECODE_TOKENS = 130  # a typical DEPS plan's length in tokens (MT1's first plans: 101 to 650)


def ask(srv: LocalServer, k: int, words: int, max_tokens: int) -> float:
    """Seconds for one chat request whose prompt is `words` words drawn with seed k."""
    rng = random.Random(k)
    text = "List items and their recipes, one per line. " + " ".join(rng.choice(WORDS) for _ in range(words))
    body = {
        "model": srv.model_name,
        "messages": [{"role": "user", "content": text}],
        "max_tokens": max_tokens,
        "temperature": 0.8,
        "seed": k,
        "logit_bias": {"0": -100, "1": -100, "2": -100},  # SmolLM2's end tokens: decode the whole budget
    }
    req = urllib.request.Request(
        srv.base_url + "/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as resp:
        json.loads(resp.read())
    return time.perf_counter() - t0


def one_server(model: str, threads: int, load: list[tuple[int, int, int]]) -> float:
    with LocalServer(model, n_threads=threads) as srv:
        ask(srv, -1, 8, 1)  # the first request's set-up is not the load's
        t0 = time.perf_counter()
        for k, words, out in load:
            ask(srv, k, words, out)
        return time.perf_counter() - t0


def two_servers(model: str, threads: int, load: list[tuple[int, int, int]]) -> float:
    servers = [LocalServer(model, n_threads=threads) for _ in range(2)]
    try:
        for srv in servers:
            srv.start()
            ask(srv, -1, 8, 1)
        lanes = [load[0::2], load[1::2]]
        runs = [
            threading.Thread(target=lambda s=s, lane=lane: [ask(s, *q) for q in lane])
            for s, lane in zip(servers, lanes)
        ]
        t0 = time.perf_counter()
        for t in runs:
            t.start()
        for t in runs:
            t.join()
        return time.perf_counter() - t0
    finally:
        for srv in servers:
            srv.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="deps-reader", help="an embedded model name (default deps-reader)")
    ap.add_argument("--calls", type=int, default=4, help="requests per worker and load (default 4)")
    ap.add_argument("--prompt-words", type=int, default=700, help="words of the prefill load's prompts (default 700)")
    a = ap.parse_args()
    if a.calls < 1 or a.prompt_words < 1:
        ap.error("--calls and --prompt-words must be at least 1")
    n = cores()
    if n < 2:
        ap.error(f"this machine has {n} core: nothing to split")
    loads = {
        "prefill": [(k, a.prompt_words, 1) for k in range(2 * a.calls)],
        "decode": [(k, 12, DECODE_TOKENS) for k in range(2 * a.calls)],
    }
    for name, load in loads.items():
        whole = one_server(a.model, n, load)
        split = two_servers(a.model, max(1, n // 2), load)
        print(
            f"{name}: {len(load)} requests, one server on {n} threads {whole:.1f} s, "
            f"two on {max(1, n // 2)} each at once {split:.1f} s: {split / whole:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
