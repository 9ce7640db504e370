"""The embedded model's weights for training: the shipped GGUF itself, dequantized by
transformers (`from_pretrained(dir, gguf_file=...)`, needs the `gguf` package), so LoRA
trains on exactly the weights llama.cpp serves. Nothing is fetched.

Reading the GGUF in Python is slow (its 49k-token vocabulary is parsed field by field:
about a minute on 2 cores), so the result is cached once as an ordinary transformers
folder under ~/.cache/deps-agent/hf/<file>-<sha256[:12]>/ (DEPS_CACHE_DIR moves it), keyed by
the GGUF's checksum; the cache is written to a temp folder and renamed, never half-written.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from training.data import base_model_id


def cache_root() -> Path:
    return Path(os.environ.get("DEPS_CACHE_DIR") or Path.home() / ".cache" / "deps-agent")


def hf_dir_for(gguf: str | os.PathLike) -> Path:
    ident = base_model_id(gguf)
    return cache_root() / "hf" / f"{Path(ident['file']).stem}-{ident['sha256'][:12]}"


@contextlib.contextmanager
def _memoized_gguf() -> Iterator[None]:
    """transformers parses the GGUF's metadata three times (tokenizer, config, weights) and
    builds the tensor-name map once per tensor; one reader per file and one map per
    architecture do the same work in about a third of the time."""
    import gguf as _gguf

    reader, name_map = _gguf.GGUFReader, _gguf.get_tensor_name_map
    readers: dict[tuple, Any] = {}

    def one_reader(path, mode="r"):
        key = (str(path), mode)
        if key not in readers:
            readers[key] = reader(path, mode)
        return readers[key]

    _gguf.GGUFReader = one_reader
    _gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(name_map)
    try:
        yield
    finally:
        _gguf.GGUFReader, _gguf.get_tensor_name_map = reader, name_map


def ensure_hf_copy(gguf: str | os.PathLike, *, progress: bool = True) -> Path:
    """The transformers folder (config, tokenizer, float32 weights) of a GGUF model, made once."""
    gguf = Path(gguf)
    out = hf_dir_for(gguf)
    if (out / "deps-base.json").is_file():
        return out
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if progress:
        print(f"reading {gguf.name} into transformers once (cached in {out}) ...", file=sys.stderr)
    with _memoized_gguf():
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")  # the weights are dequantized: a plain float model
    config.architectures = [type(loaded).__name__]
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        (tmp / "deps-base.json").write_text(json.dumps(base_model_id(gguf)) + "\n")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def load_base(gguf: str | os.PathLike, *, progress: bool = True) -> tuple[Any, Any, Path]:
    """(model, tokenizer, hf_dir) of the GGUF's weights, float32, on the CPU."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    d = ensure_hf_copy(gguf, progress=progress)
    return AutoModelForCausalLM.from_pretrained(d), AutoTokenizer.from_pretrained(d), d
