"""Prompt-cache entries without the logits buffer (run inside the server's child; issue 21).

After every completion llama-cpp-python's server saves the context into its RAM prompt cache
(`Llama.save_state`), and a request whose prompt shares a longer prefix with a cached entry
loads it back (`Llama.load_state`). Each save also copies `Llama.scores`, the logits buffer:
n_batch x vocabulary floats when logits_all is off, as our servers run it: 512 x 49,152 x 4 bytes
= 96 MiB for SmolLM2 (130 ms a save on this machine, experiments/lean_state.py), five times that
for Gemma 3's 262,144-token vocabulary, and memory the cache does not count (it sizes entries by
the llama.cpp state alone: 25 to 35 MiB here). Each load wrote it back the same way (380 ms).

Without logits_all nothing reads those rows: llama.cpp samples from its own logits inside the
sampler, and a restored state always evaluates at least one token before it samples
(`Llama._requires_eval`; agent/llm/prompt_state.py relies on the same). So here a saved state
keeps one zero row for them, and a load leaves the buffer as it is. A server with logits_all on
(logprobs) keeps llama-cpp-python's own methods.

$DEPS_LLM_LEAN_STATE=0 turns this off (for comparisons).
"""

from __future__ import annotations

import ctypes
import os

ENV = "DEPS_LLM_LEAN_STATE"


def install() -> bool:
    """Patch llama_cpp's Llama.save_state and load_state in this process; False when turned off
    or the library's Llama lacks what this relies on."""
    if os.environ.get(ENV, "1") == "0":
        return False
    import numpy as np
    from llama_cpp import llama_cpp as lc
    from llama_cpp.llama import Llama, LlamaState

    if not (hasattr(Llama, "save_state") and hasattr(Llama, "load_state") and hasattr(lc, "llama_state_set_data")):
        return False
    save, load = Llama.save_state, Llama.load_state

    def lean_save(self: Llama) -> LlamaState:
        if getattr(self, "_logits_all", True):
            return save(self)
        size = int(lc.llama_state_get_size(self._ctx.ctx))
        buf = (ctypes.c_uint8 * size)()
        n = int(lc.llama_state_get_data(self._ctx.ctx, buf, size))
        if n > size:
            raise RuntimeError("Failed to copy llama state data")
        return LlamaState(
            input_ids=self.input_ids.copy(),
            scores=np.zeros((1, self.n_vocab()), dtype=np.single),  # stands for the unread logits
            n_tokens=self.n_tokens,
            llama_state=ctypes.string_at(buf, n),  # one copy, not three
            llama_state_size=n,
            seed=self._seed,
        )

    def lean_load(self: Llama, state: LlamaState) -> None:
        if getattr(self, "_logits_all", True):
            return load(self, state)
        self.input_ids = state.input_ids.copy()
        self.n_tokens = state.n_tokens
        self._requires_eval = True  # decode before sampling: the logits are not restored
        self._seed = state.seed
        size = state.llama_state_size
        data = (ctypes.c_uint8 * size).from_buffer_copy(state.llama_state)
        if lc.llama_state_set_data(self._ctx.ctx, data, size) != size:
            raise RuntimeError("Failed to set llama state data")
        return None

    Llama.save_state, Llama.load_state = lean_save, lean_load  # type: ignore[method-assign]
    return True
