"""`--device` of the training commands: auto (CUDA when torch sees one, else CPU), cpu or cuda."""

from __future__ import annotations

from nodes.settings import SettingsError


def pick_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise SettingsError("--device cuda: no CUDA device is visible to torch; accepted: auto, cpu, cuda")
    return name
