"""Greedy decoding under a grammar, checking only the token it picks (run inside the server's child).

llama-cpp-python samples a grammar-bound request with one chain: penalties, the grammar, then the
pick. The grammar step tests every token of the vocabulary (49,152 for SmolLM2) against the
grammar at every step: for the DEPS plan about as long as the model's own forward passes under
load (docs/performance.md, "The first answer").

At temperature 0 with no penalty, the pick is the highest logit, and if that token is one the
grammar allows, it is also the highest among the allowed ones: the answer is the same. So here
the highest-logit token is tested alone first; only when the grammar refuses it is the whole
chain run as before (the way llama.cpp's own common sampler works). Any other request (a
temperature, a penalty, logits processors) takes llama-cpp-python's own path unchanged.

$DEPS_LLM_LAZY_GRAMMAR=0 turns this off (for comparisons).
"""

from __future__ import annotations

import ctypes
import os

ENV = "DEPS_LLM_LAZY_GRAMMAR"
COUNTS = {"checked": 0, "fallback": 0}  # picks accepted by the one-token check, and full-chain runs


def install() -> bool:
    """Patch llama_cpp's sampler in this process; False when turned off or the library's
    sampler does not have the shape this relies on."""
    if os.environ.get(ENV, "1") == "0":
        return False
    import numpy as np
    from llama_cpp import _internals
    from llama_cpp import llama_cpp as lc
    from llama_cpp.llama import Llama

    if not (hasattr(Llama, "_init_sampler") and hasattr(_internals.LlamaSampler, "sample")):
        return False
    init_sampler = Llama._init_sampler
    sample = _internals.LlamaSampler.sample

    def _init_sampler(self, *args, **kwargs):
        smpl = init_sampler(self, *args, **kwargs)
        greedy = (
            not args
            and kwargs.get("grammar") is not None
            and kwargs.get("temp") == 0.0
            and kwargs.get("logits_processor") is None
            and kwargs.get("repeat_penalty", 1.0) == 1.0
            and kwargs.get("frequency_penalty", 0.0) == 0.0
            and kwargs.get("presence_penalty", 0.0) == 0.0
            and kwargs.get("mirostat_mode", 0) == 0
        )
        if greedy and lc.llama_sampler_chain_n(smpl.sampler) == 3:
            grammar = lc.llama_sampler_chain_get(smpl.sampler, 1)
            if lc.llama_sampler_name(grammar) == b"grammar":
                smpl._deps_lazy = (grammar, self.n_vocab())
        return smpl

    def lazy_sample(self, ctx, idx: int = -1) -> int:
        lazy = getattr(self, "_deps_lazy", None)
        if lazy is None:
            return sample(self, ctx, idx)
        grammar, n_vocab = lazy
        logits = np.ctypeslib.as_array(lc.llama_get_logits_ith(ctx.ctx, idx), shape=(n_vocab,))
        token = int(np.argmax(logits))  # the first of equal maxima, as llama.cpp's greedy pick
        one = lc.llama_token_data(id=token, logit=float(logits[token]), p=0.0)
        cur = lc.llama_token_data_array(data=ctypes.pointer(one), size=1, selected=-1, sorted=False)
        lc.llama_sampler_apply(grammar, ctypes.byref(cur))
        if np.isfinite(one.logit):  # allowed: what the whole chain would pick
            COUNTS["checked"] += 1
            lc.llama_sampler_accept(self.sampler, token)  # as llama_sampler_sample does after its pick
            return token
        COUNTS["fallback"] += 1
        return sample(self, ctx, idx)

    Llama._init_sampler = _init_sampler
    _internals.LlamaSampler.sample = lazy_sample
    return True
