"""Does batched decoding pay on this machine? (issue 21, item 4)

python -m experiments.batch_premise [--threads N] [--steps N] [--reps N]
    The packaged model with the shipped adapter, the DEPS planner's prompt (ChatML) as the
    context of each sequence; then `--steps` greedy tokens for 1 sequence alone, and for 2
    sequences in one llama_decode batch per step, alternated `--reps` times. Prints wall and
    CPU seconds and tokens/s of each, and the prompt's prefill rate.

python -m experiments.batch_premise --split TASKS
    Where an eval's LLM time goes: `deps eval --tasks TASKS --llm local --workers 1` on one
    server (1 thread) opened here, then the sums of llama.cpp's perf lines in its log (prefill,
    decode, each request's total) and the CPU seconds of the server and of the eval."""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import llama_cpp as L

import prompts
from agent.llm.local_server import find_adapter, find_model

_QUIET = L.llama_log_callback(lambda *_: None)  # kept: llama.cpp calls it after main() returns


def split(tasks: str) -> None:
    from agent.llm.local_server import LocalServer, _env_var, model_key

    with LocalServer("rider", n_threads=1) as srv, tempfile.TemporaryDirectory() as out:
        os.environ[_env_var(model_key("rider"))] = srv.base_url  # the eval uses this server
        t0 = time.perf_counter()
        cmd = [
            str(Path(sys.executable).with_name("deps")),
            "eval",
            "--tasks",
            tasks,
            "--llm",
            "local",
            "--workers",
            "1",
            "--out",
            out + "/e",
            "--json",
        ]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - t0
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # the eval (the server is not reaped yet)
        stat = open(f"/proc/{srv.pid}/stat").read().rsplit(")", 1)[1].split()
        server_cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
        log = srv.log_path.read_text(errors="replace")

    def total(pattern: str) -> tuple[float, int]:
        found = re.findall(pattern, log)
        return sum(float(ms) for ms, _ in found) / 1000, sum(int(n) for _, n in found)

    prefill = total(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
    decode = total(r"\n\S*\s*eval time =\s*([\d.]+) ms /\s*(\d+) runs")
    whole = total(r"total time =\s*([\d.]+) ms /\s*(\d+) tokens")
    print(f"eval {wall:.1f} s wall, eval process {ru.ru_utime + ru.ru_stime:.1f} CPU-s, server {server_cpu:.1f} CPU-s")
    print(
        f"llama.cpp: prefill {prefill[0]:.1f} s ({prefill[1]} tokens), decode {decode[0]:.1f} s ({decode[1]} tokens), "
        f"requests in all {whole[0]:.1f} s, of which {whole[0] - prefill[0] - decode[0]:.1f} s neither"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--split", metavar="TASKS", help="time split of an eval of these tasks instead")
    a = ap.parse_args()
    if a.split:
        return split(a.split)
    L.llama_log_set(_QUIET, ctypes.c_void_p(0))
    mp = L.llama_model_default_params()
    mp.use_extra_bufts = False  # as the server does (agent/llm/local_server.py)
    model = L.llama_model_load_from_file(str(find_model("rider")).encode(), mp)
    cp = L.llama_context_default_params()
    cp.n_ctx, cp.n_batch, cp.n_seq_max = 4096, 2048, 2
    cp.n_threads = cp.n_threads_batch = a.threads
    ctx = L.llama_init_from_model(model, cp)
    lora = L.llama_adapter_lora_init(model, str(find_adapter("rider")).encode())
    L.llama_set_adapters_lora(ctx, (L.llama_adapter_lora_p_ctypes * 1)(lora), 1, (ctypes.c_float * 1)(1.0))
    vocab = L.llama_model_get_vocab(model)
    text = "".join(f"<|im_start|>{r}\n{c}<|im_end|>\n" for r, c in prompts.messages("deps_planner"))
    text = (text + "<|im_start|>assistant\n").encode()
    toks = (L.llama_token * 4096)()
    n = L.llama_tokenize(vocab, text, len(text), toks, 4096, True, True)
    batch = L.llama_batch_init(4096, 0, 2)
    greedy = [L.llama_sampler_init_greedy() for _ in range(2)]

    def put(i: int, tok: int, pos: int, seq: int) -> None:
        batch.token[i], batch.pos[i], batch.n_seq_id[i], batch.logits[i] = tok, pos, 1, 1
        batch.seq_id[i][0] = seq

    def run(nseq: int) -> tuple[float, float, float]:
        L.llama_memory_clear(L.llama_get_memory(ctx), True)
        t0 = time.perf_counter()
        for s in range(nseq):  # each sequence's prompt, one decode each (as the server would)
            for j in range(n):
                put(j, toks[j], j, s)
                batch.logits[j] = j == n - 1
            batch.n_tokens = n
            assert L.llama_decode(ctx, batch) == 0
        prefill = (time.perf_counter() - t0) / nseq
        last = [n - 1] * nseq
        t0, c0 = time.perf_counter(), time.process_time()
        for step in range(a.steps):
            nxt = [L.llama_sampler_sample(greedy[s], ctx, last[s] if step == 0 else s) for s in range(nseq)]
            for s in range(nseq):
                put(s, nxt[s], n + step, s)
            batch.n_tokens = nseq
            assert L.llama_decode(ctx, batch) == 0
        return time.perf_counter() - t0, time.process_time() - c0, prefill

    print(f"prompt {n} tokens, threads {a.threads}, {a.steps} steps")
    for _ in range(a.reps):
        for nseq in (1, 2):
            wall, cpu, prefill = run(nseq)
            print(
                f"{nseq} seq: decode {wall:.2f} s wall, {cpu:.2f} s cpu, {nseq * a.steps / wall:.1f} tok/s; "
                f"prefill {n / prefill:.0f} tok/s",
                flush=True,
            )


if __name__ == "__main__":
    main()
