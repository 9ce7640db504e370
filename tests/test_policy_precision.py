"""The learned policy's inference precision (issue 21): bf16 where the CPU has native bfloat16
instructions, fp32 elsewhere or when asked. The shipped checkpoint read in bf16 must choose as it
does in fp32, up to rounding; a precision that does not exist is one clear error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from skills.learned import sense
from skills.learned.paths import LearnedError
from skills.learned.policy import PRECISION_ENV, GoalPolicy, pick_precision
from skills.learned.surround import KEY, around
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

KB = load_kb("1.11.2")
GOALS = [Goal("mine", {"log": 1}), Goal("kill", {"cow": 1}), Goal("mine", {"iron_ore": 1}), Goal("find", {"pig": 1})]


def test_a_precision_that_does_not_exist_is_one_line_naming_the_accepted_ones(monkeypatch):
    monkeypatch.setenv(PRECISION_ENV, "fp8")
    with pytest.raises(LearnedError, match=r"'fp8' is not known; accepted: auto, fp32, bf16"):
        pick_precision("cpu")
    monkeypatch.delenv(PRECISION_ENV)
    assert pick_precision("cpu", "FP32") == "fp32" and pick_precision("cpu", "bf16") == "bf16"
    assert pick_precision("cuda") == "fp32"  # auto: bf16 only where the CPU runs it natively


def test_bf16_reads_the_shipped_policy_as_fp32_does_up_to_rounding():
    """On real worlds, stepped with the policy's own actions: the same argmax nearly always, and
    action distributions a rounding apart (mean total variation under 0.01); fp32 is the net itself."""
    n = 32
    fp32 = GoalPolicy.load("controller", kb=KB, device="cpu")
    fp32 = GoalPolicy(fp32.net, KB, fp32.card, "cpu", precision="fp32")
    bf16 = GoalPolicy(fp32.net, KB, fp32.card, "cpu", precision="bf16")
    env = BatchGridWorld(n, KB)
    obs = env.reset(list(range(n)))
    goals = GOALS * (n // len(GOALS))
    codes, luts, rows = fp32.codes(goals), [sense.lut(env, g) for g in goals], np.arange(n)
    rng = np.random.default_rng(0)
    same = tv = 0.0
    rounded = False
    for _ in range(8):
        o = sense.add_to({**obs, KEY: around(env)}, env, rows, luts)
        (a, h), (b, k) = fp32.logits(o, codes), bf16.logits(o, codes)
        assert a.dtype == b.dtype == torch.float32 and h.shape == k.shape
        rounded |= not torch.equal(a, b)  # bf16 did run: its logits are not fp32's bit for bit
        same += float((a.argmax(-1) == b.argmax(-1)).float().mean())
        tv += float((a.softmax(-1) - b.softmax(-1)).abs().sum(-1).mean()) / 2
        acts = fp32.act(o, codes, greedy=False, rng=rng)
        obs, *_ = env.step(np.stack([acts, np.full(n, -1)], axis=1).astype(np.int64))
    assert rounded and same / 8 >= 0.97 and tv / 8 < 0.01, (rounded, same / 8, tv / 8)
    hf, hb = fp32.expected_horizon(o, codes), bf16.expected_horizon(o, codes)
    assert hb.dtype == hf.dtype and np.allclose(hb, hf, rtol=0.1, atol=1.0)
