"""`deps train llm`: LoRA supervised fine-tuning of the embedded model on a deps-sft/1 dataset.

The base weights are the shipped GGUF, dequantized (training/base_model.py), so the adapter fits
exactly what llama.cpp serves. The loss is taken on the last assistant reply only (its text and
the end-of-turn token, so the model learns to stop). The adapter is written as a GGUF LoRA
adapter (agent/llm/adapter_file.py) with a card; everything goes to a temporary folder inside --out
and is moved into place at the end, so a failure (bad data, no disk space) leaves nothing
half-written.

    OUT/adapter.gguf      the GGUF LoRA adapter (serve it: --llm local:OUT/adapter.gguf)
    OUT/card.json         command, data, seed, device, steps, losses, wall time, checksums
    OUT/peft/             the same adapter in PEFT's own form (adapter_config.json + safetensors)
"""

from __future__ import annotations

import errno
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from nodes.settings import SettingsError
from training.data import Dataset, DatasetError, base_model_id, file_sha256, load_dataset

CARD_FORMAT = "deps-lora/1"
TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class TrainError(SettingsError):
    """Training could not run or its output could not be written; one line."""


@dataclass
class LoraTrainConfig:
    data: str
    out: str
    base: str = "smollm2"  # a packaged model key or a .gguf path (agent.llm.local_server.find_model)
    device: str = "cpu"
    seed: int = 0
    steps: int | None = None  # optimizer steps; default: epochs over the data
    epochs: float = 2.0
    lr: float = 5e-4
    rank: int = 8
    alpha: float | None = None  # default: 2 * rank
    batch_size: int = 4  # examples per optimizer step (gradient accumulation)
    max_len: int = 1536  # tokens per example; longer ones are cut from the left
    threads: int | None = None
    layers: int | None = None  # LoRA on the top N transformer blocks only (default: all)
    prefix_refresh: int = 8  # steps between recomputing a shared prompt prefix's cache
    init: str | None = None  # a previous run's OUT: go on from its peft/ adapter (its rank and alpha)
    command: str = ""


def encode(tokenizer: Any, messages: list[dict[str, str]], max_len: int) -> tuple[list[int], list[int], list[int]]:
    """Token ids and labels (-100 where no loss) for one chat: loss on the last message (the
    assistant's reply: its content and its end-of-turn token), nothing else. Each message is rendered by the model's
    own chat template on its own, so the pieces join exactly as the template joins them.
    Also returns where each message starts (token offsets), where a shared prefix may end."""
    ids: list[int] = []
    labels: list[int] = []
    starts: list[int] = []
    for i, m in enumerate(messages):
        starts.append(len(ids))
        # each message through the template on its own; after the first, behind an empty system
        # message that is cut off again (the template would otherwise add its default one)
        ctx = [m] if i == 0 else [{"role": "system", "content": ""}, m]
        text = tokenizer.apply_chat_template(ctx, tokenize=False)
        if ctx[0] is not m:
            head = tokenizer.apply_chat_template(ctx[:1], tokenize=False)
            text = text[len(head) :]
        if i < len(messages) - 1 or m["role"] != "assistant":
            piece = tokenizer(text, add_special_tokens=False)["input_ids"]
            ids += piece
            labels += [-100] * len(piece)
            continue
        start = text.index(m["content"]) if m["content"] else len(text)
        end = start + len(m["content"])
        head_ids = tokenizer(text[:start], add_special_tokens=False)["input_ids"]
        body_ids = tokenizer(m["content"], add_special_tokens=False)["input_ids"]
        tail = text[end:]
        eot = tokenizer.eos_token or ""
        if eot and tail.startswith(eot):
            eot_ids = tokenizer(eot, add_special_tokens=False)["input_ids"]
            rest_ids = tokenizer(tail[len(eot) :], add_special_tokens=False)["input_ids"]
        else:
            eot_ids, rest_ids = [], tokenizer(tail, add_special_tokens=False)["input_ids"]
        ids += head_ids + body_ids + eot_ids + rest_ids
        labels += [-100] * len(head_ids) + body_ids + eot_ids + [-100] * len(rest_ids)
    if len(ids) > max_len:
        cut = len(ids) - max_len
        ids, labels, starts = ids[cut:], labels[cut:], [b - cut for b in starts if b >= cut]
    return ids, labels, starts


def _first_label(labels: list[int]) -> int:
    return next((i for i, y in enumerate(labels) if y != -100), len(labels))


def make_batches(encoded: list[tuple[list[int], list[int]]], size: int, rng: random.Random) -> list[list[int]]:
    """One epoch of batches: examples sorted by their prompt (so a batch shares a long common
    prefix, computed once), cut into batches of `size`, the batches shuffled."""
    order = sorted(range(len(encoded)), key=lambda i: (encoded[i][0][: _first_label(encoded[i][1])], rng.random()))
    batches = [order[k : k + size] for k in range(0, len(order), size)]
    rng.shuffle(batches)
    return batches


def _common_prefix(rows: list[list[int]]) -> int:
    n = min(len(r) for r in rows)
    for i in range(n):
        t = rows[0][i]
        if any(r[i] != t for r in rows):
            return i
    return n


class PrefixCache:
    """Key/value caches of shared prompt prefixes (the planner's system message and worked
    examples), computed without gradient with the adapter as it stands, and recomputed every
    `refresh` steps: the long prompt is not run again for every example of every step."""

    def __init__(self, refresh: int = 8, size: int = 8):
        self.refresh, self.size = refresh, size
        self.store: dict[tuple[int, ...], tuple[int, list]] = {}

    def get(self, body: Any, prefix: list[int], step: int, device: Any, batch: int) -> Any:
        import torch
        from transformers import DynamicCache

        key = tuple(prefix)
        hit = self.store.get(key)
        if hit is None or step - hit[0] >= self.refresh:
            with torch.no_grad():
                c = body(input_ids=torch.tensor([prefix], device=device), use_cache=True).past_key_values
            kv = [(layer.keys.detach(), layer.values.detach()) for layer in c.layers]
            self.store.pop(key, None)
            while len(self.store) >= self.size:
                self.store.pop(next(iter(self.store)))
            self.store[key] = hit = (step, kv)
        return DynamicCache(
            ddp_cache_data=[(k.expand(batch, -1, -1, -1), v.expand(batch, -1, -1, -1)) for k, v in hit[1]]
        )


def batch_loss(
    model: Any,
    batch: list[tuple[list[int], list[int], list[int]]],
    device: Any,
    *,
    pad_id: int = 0,
    prefixes: PrefixCache | None = None,
    step: int = 0,
    min_prefix: int = 16,
) -> tuple[Any, int]:
    """Mean token loss of a batch. The prompt prefix all its examples share, up to a message
    boundary, comes from `prefixes` (no gradient through it; the adapter's effect on it still
    shapes the forward pass); the rest runs as one right-padded batch with gradient. The
    vocabulary projection is computed only where there is a label."""
    import torch

    core = model.get_base_model()  # LlamaForCausalLM with the LoRA layers injected
    body, head = core.model, core.lm_head
    limit = min(_common_prefix([e[0] for e in batch]), min(_first_label(e[1]) for e in batch) - 1)
    p = max([b for b in batch[0][2] if b <= limit and all(b in e[2] for e in batch)], default=0)
    cache = None
    if prefixes is not None and p >= min_prefix:
        cache = prefixes.get(body, batch[0][0][:p], step, device, len(batch))
    else:
        p = 0
    rest = [(e[0][p:], e[1][p:]) for e in batch]
    width = max(len(ids) for ids, _ in rest)
    x = torch.full((len(rest), width), pad_id, dtype=torch.long)
    y = torch.full((len(rest), width), -100, dtype=torch.long)
    for r, (ids, lab) in enumerate(rest):
        x[r, : len(ids)] = torch.tensor(ids)
        y[r, : len(lab)] = torch.tensor(lab)
    x, y = x.to(device), y.to(device)
    # right padding: a causal model's real tokens never attend to the pads that follow them
    hidden = body(input_ids=x, past_key_values=cache, use_cache=cache is not None).last_hidden_state
    target = y[:, 1:]
    keep = target != -100
    logits = head(hidden[:, :-1][keep])
    loss = torch.nn.functional.cross_entropy(logits.float(), target[keep])
    return loss, sum(len(ids) for ids, _ in rest)


def _prepare_out(out: Path) -> tuple[Path, bool]:
    """A temp folder inside `out` (created if needed); TrainError if it cannot be written."""
    created = not out.exists()
    if out.exists() and not out.is_dir():
        raise TrainError(f"--out {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".partial-", dir=out))
    except OSError as e:
        raise TrainError(f"--out {out}: cannot write there ({e.strerror or e})") from e
    return tmp, created


def _cleanup(out: Path, tmp: Path, created: bool) -> None:
    shutil.rmtree(tmp, ignore_errors=True)
    if created:
        try:
            out.rmdir()  # only if empty
        except OSError:
            pass


def _os_error(e: OSError, where: str) -> TrainError:
    if e.errno == errno.ENOSPC:
        return TrainError(f"no space left on the device while writing {where}; free some and run again")
    return TrainError(f"cannot write {where} ({e.strerror or e})")


# Bounds on every number of a LoRA run (beyond them a value is a typo, or unbounded work).
LORA_BOUNDS = {
    "--rank": ("rank", 1, 256),
    "--batch-size": ("batch_size", 1, 1024),
    "--max-len": ("max_len", 16, 8192),
    "--layers": ("layers", 1, 1000),
    "--prefix-refresh": ("prefix_refresh", 1, 1_000_000),
    "--steps": ("steps", 1, 10_000_000),
    "--seed": ("seed", 0, 2**32 - 1),
    "--threads": ("threads", 1, 1024),
}
MAX_LR, MAX_ALPHA, MAX_EPOCHS = 1.0, 10_000.0, 10_000.0


def check_config(cfg: LoraTrainConfig) -> None:
    """TrainError (one line) for a count out of its bounds, or a rate that is not a finite number in
    its range: --lr inf or --alpha nan would train an adapter of non-finite weights."""
    for flag, (name, low, high) in LORA_BOUNDS.items():
        v = getattr(cfg, name)
        if v is None and name in ("steps", "layers", "threads"):
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            raise TrainError(f"{flag} must be a whole number from {low} to {high}, got {v!r}")
    for flag, v, high, given in (
        ("--lr", cfg.lr, MAX_LR, True),
        ("--alpha", cfg.alpha, MAX_ALPHA, cfg.alpha is not None),
        ("--epochs", cfg.epochs, MAX_EPOCHS, cfg.steps is None),
    ):
        if given and not (isinstance(v, (int, float)) and math.isfinite(v) and 0 < v <= high):
            raise TrainError(f"{flag} must be a finite number above 0 and at most {high:g}, got {v!r}")


def shipped_gguf(init: str) -> Path | None:
    """The GGUF file of an `--init` folder that ships one without PEFT's form (agent/adapters/*/),
    else None (an earlier run's OUT/peft/, read as PEFT saved it)."""
    gguf_only = Path(init) / "adapter.gguf"
    return gguf_only if not (Path(init) / "peft" / "adapter_config.json").exists() and gguf_only.is_file() else None


def inherited_run_settings(init: str | None) -> dict[str, Any]:
    """{"run_settings": ...} from the `--init` adapter's card, where it has them: an adapter trained on
    from one inherits the settings it was taught and measured with (agent/llm/taught.py), instead of
    running with a planner's plain defaults once it takes the old one's place; else {}."""
    card = Path(init) / "card.json" if init is not None else None
    try:
        found = json.loads(card.read_text(encoding="utf-8")).get("run_settings") if card else None
    except (OSError, ValueError, AttributeError):
        return {}  # no readable card: nothing to inherit (the adapter itself was checked already)
    if not isinstance(found, dict) or not found:
        return {}
    return {"run_settings": {**found, "why": f"carried over from the card of --init {init}"}}


def init_rank_alpha(init: str) -> tuple[int, float]:
    """The rank and alpha of the PEFT adapter a previous run wrote to `init` (OUT/peft/), or of
    the GGUF adapter a folder ships alone (agent/adapters/*/adapter.gguf), or a one-line
    TrainError saying what is missing."""
    path = Path(init) / "peft" / "adapter_config.json"
    gguf_only = shipped_gguf(init)
    if gguf_only is not None:
        from agent.llm.adapter_file import AdapterError
        from training.gguf_import import gguf_rank_alpha

        try:
            return gguf_rank_alpha(gguf_only)
        except AdapterError as e:
            raise TrainError(f"--init {init}: {e}") from None
    try:
        conf = json.loads(path.read_text(encoding="utf-8"))
        return int(conf["r"]), float(conf["lora_alpha"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise TrainError(
            f"--init {init}: no readable LoRA adapter at {path} ({type(e).__name__}); accepted: the --out folder "
            "of an earlier deps train llm run, or a folder holding an adapter.gguf (agent/adapters/reader)"
        ) from None


def train_lora(cfg: LoraTrainConfig, *, progress: bool = True) -> dict[str, Any]:
    """Train, convert, write OUT/adapter.gguf + OUT/card.json (+ OUT/peft/); returns the card."""
    from agent.llm.local_server import LocalServerError, find_model

    check_config(cfg)  # before anything is loaded
    if cfg.init is not None:
        init_rank_alpha(cfg.init)  # the same: a missing or foreign adapter is refused before the model loads
    try:
        base_gguf = find_model(cfg.base)
    except LocalServerError as e:
        raise TrainError(str(e).splitlines()[0]) from e
    base_id = base_model_id(base_gguf)
    shipped = shipped_gguf(cfg.init) if cfg.init is not None else None
    if shipped is not None:  # a shipped GGUF: made for this base?
        from agent.llm.adapter_file import adapter_info

        made_for = adapter_info(shipped)["base_model"]
        if made_for and made_for != base_id:
            raise TrainError(f"--init {cfg.init}: the adapter was made for {made_for['file']}, not {base_id['file']}")
    ds: Dataset = load_dataset(cfg.data, base_model=base_id)
    out = Path(cfg.out)
    tmp, created = _prepare_out(out)
    try:
        card = _train(cfg, ds, base_gguf, base_id, tmp, progress)
        for name in ("peft", "adapter.gguf", "card.json"):  # the card last: it vouches for the rest
            dest = out / name
            if dest.is_dir():
                shutil.rmtree(dest)
            os.replace(tmp / name, dest)
        tmp.rmdir()
        return card
    except OSError as e:
        _cleanup(out, tmp, created)
        raise _os_error(e, str(out)) from e
    except BaseException:
        _cleanup(out, tmp, created)
        raise


def _train(
    cfg: LoraTrainConfig, ds: Dataset, base_gguf: Path, base_id: dict, tmp: Path, progress: bool
) -> dict[str, Any]:
    import torch
    from peft import LoraConfig, get_peft_model, get_peft_model_state_dict
    from tqdm import tqdm

    from agent.llm.adapter_file import adapter_info
    from training.base_model import load_base
    from training.gguf_export import write_lora_gguf

    t0 = time.perf_counter()
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    model, tok, _ = load_base(base_gguf, progress=progress)
    encoded = [encode(tok, ex["messages"], cfg.max_len) for ex in ds.examples]
    encoded = [e for e in encoded if any(y != -100 for y in e[1])]
    if not encoded:
        raise DatasetError(f"dataset {ds.path}: no example has an assistant reply left within {cfg.max_len} tokens")
    alpha = cfg.alpha if cfg.alpha is not None else 2.0 * cfg.rank
    n_layers = int(model.config.num_hidden_layers)
    top = list(range(n_layers - min(cfg.layers, n_layers), n_layers)) if cfg.layers else None
    lcfg = LoraConfig(
        r=cfg.rank,
        lora_alpha=alpha,
        lora_dropout=0.0,
        bias="none",
        target_modules=list(TARGET_MODULES),
        layers_to_transform=top,
        task_type="CAUSAL_LM",
    )
    if cfg.init is not None:  # go on from an earlier adapter, with its own shape
        from peft import PeftModel

        rank, alpha = init_rank_alpha(cfg.init)
        cfg = replace(cfg, rank=rank, alpha=alpha)
        shipped = shipped_gguf(cfg.init)
        if shipped is None:
            model = PeftModel.from_pretrained(model, str(Path(cfg.init) / "peft"), is_trainable=True)
        else:  # a shipped adapter, GGUF only: its weights read back (training/gguf_import.py)
            from peft import set_peft_model_state_dict

            from training.gguf_import import read_lora_gguf

            state = read_lora_gguf(shipped, config=model.config)
            model = get_peft_model(model, replace(lcfg, r=rank, lora_alpha=alpha, layers_to_transform=None))
            unfit = set_peft_model_state_dict(model, state).unexpected_keys
            if unfit:
                raise TrainError(f"--init {cfg.init}: {len(unfit)} adapter weights fit no module, e.g. {unfit[0]}")
    else:
        model = get_peft_model(model, lcfg)
    device = torch.device(cfg.device)
    model.to(device)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=0.0)
    per_epoch = math.ceil(len(encoded) / cfg.batch_size)
    steps = cfg.steps or max(1, math.ceil(cfg.epochs * per_epoch))
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    )
    rng = random.Random(cfg.seed)
    batches: list[list[int]] = []
    losses: list[float] = []
    n_tokens = 0
    bar = tqdm(range(steps), desc="lora", unit="step", file=sys.stderr, disable=not progress)
    prefixes = PrefixCache(refresh=cfg.prefix_refresh)
    for step in bar:
        if not batches:
            batches = make_batches(encoded, cfg.batch_size, rng)
        opt.zero_grad(set_to_none=True)
        loss, seen = batch_loss(
            model,
            [encoded[i] for i in batches.pop()],
            device,
            pad_id=tok.eos_token_id or 0,
            prefixes=prefixes,
            step=step,
        )
        loss.backward()
        n_tokens += seen
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        bar.set_postfix(loss=f"{losses[-1]:.3f}")
    bar.close()
    train_s = time.perf_counter() - t0
    model.eval()
    state = get_peft_model_state_dict(model)
    if not state:
        raise TrainError("training produced no LoRA weights")
    bad = [k for k, w in state.items() if not bool(torch.isfinite(w).all())]
    if bad or not all(math.isfinite(x) for x in losses):  # never write (and vouch for) garbage
        raise TrainError(
            f"training diverged: {len(bad)} of {len(state)} LoRA tensors hold non-finite weights "
            f"(last loss {losses[-1] if losses else None}); nothing was written; accepted: a smaller "
            "--lr, or another --seed"
        )
    model.save_pretrained(str(tmp / "peft"))
    adapter = tmp / "adapter.gguf"
    write_lora_gguf(
        adapter,
        state,
        config=model.base_model.model.config,
        alpha=alpha,
        base_model=base_id,
        name=f"deps-lora-{Path(cfg.data).name}",
    )
    info = adapter_info(adapter)  # read back: refuses a file that is not an adapter
    k = max(1, len(losses) // 10)
    card = {
        "format": CARD_FORMAT,
        "base_model": base_id,
        "adapter": {
            "file": "adapter.gguf",
            "bytes": adapter.stat().st_size,
            "sha256": file_sha256(adapter),
            "tensors": info["tensors"],
            "rank": cfg.rank,
            "alpha": alpha,
            "target_modules": list(TARGET_MODULES),
        },
        "data": {
            "path": str(ds.path),
            "examples": len(ds.examples),
            "used": len(encoded),
            "tasks": len(ds.card.get("tasks", [])),
            "counts": ds.card.get("counts", {}),
            "command": ds.card.get("command", ""),
        },
        "train": {
            **{k2: v for k2, v in asdict(cfg).items() if k2 not in ("data", "out", "command")},
            "steps": steps,
            "alpha": alpha,
            "tokens_seen": n_tokens,
            "loss_first": round(sum(losses[:k]) / k, 4),
            "loss_last": round(sum(losses[-k:]) / k, 4),
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
        },
        "wall_s": round(time.perf_counter() - t0, 1),
        "train_s": round(train_s, 1),
        "command": cfg.command,
        "measured": {},
        **inherited_run_settings(cfg.init),
    }
    (tmp / "card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return card
