"""The optimisation loop shared by `deps train controller` and `deps train selector`.

Data is a dict of tensors (one row per visited state): grid [N,L,V,V], vec [N,D], goal [N],
action [N] (the expert's action) and horizon [N] (steps left until the goal was reached;
-1 where the trajectory never reached it). The loss is the policy's cross-entropy on the
expert's actions (behaviour cloning) plus -log mu(h_t(g) | s_t, g) over horizon bins
(DEPS section 3.3), each weighted by what is being trained.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.nn import functional as F

from skills.learned.model import GoalNet, bin_centres, horizon_bin

Data = dict[str, torch.Tensor]


def split(data: Data, frac: float, seed: int) -> tuple[Data, Data]:
    """(train, held out) by a seeded shuffle of whole pursuits where the data numbers them
    (rows of one pursuit are near copies of each other: held-out rows from a pursuit also
    trained on would flatter the figures), else of rows. One pursuit at least is trained on:
    a run whose expert succeeded once had nothing left to fit ("no rows to fit")."""
    g = torch.Generator().manual_seed(seed)
    if "pursuit" in data and len(data["pursuit"]):
        ids = torch.unique(data["pursuit"])
        keep = ids[torch.randperm(len(ids), generator=g)[: max(1, int(len(ids) * (1 - frac)))]]
        train = torch.isin(data["pursuit"], keep)
        return ({key: v[train] for key, v in data.items()}, {key: v[~train] for key, v in data.items()})
    n = len(data["goal"])
    perm = torch.randperm(n, generator=g)
    k = int(n * (1 - frac))
    return ({key: v[perm[:k]] for key, v in data.items()}, {key: v[perm[k:]] for key, v in data.items()})


def jitter_time(vec: torch.Tensor, col: int | None, amount: float, gen: torch.Generator) -> torch.Tensor:
    """The time-of-day fraction shifted by up to +-amount (mod 1): it advances one tick per step,
    so unjittered it fingerprints the step of a training pursuit, which a net memorises
    (the horizon, the next action) instead of reading the grid."""
    if col is None or amount <= 0:
        return vec
    vec = vec.clone()
    noise = (torch.rand(len(vec), generator=gen) * 2 - 1).to(vec.device) * amount
    vec[:, col] = torch.remainder(vec[:, col] + noise, 1.0)
    return vec


def concat(a: Data | None, b: Data | None) -> Data | None:
    """Rows of both; either may be None (a stage whose time ran out before any pursuit ended)."""
    if a is None or b is None:
        return b if a is None else a
    return {k: torch.cat([a[k], b[k]]) for k in b}


def net_extras(net: GoalNet, batch: Data) -> dict[str, torch.Tensor]:
    """The batch's around / faced columns, for a network whose shape uses them."""
    return {k: batch[k] for k in ("around", "faced") if getattr(net.shape, k) and k in batch}


AUX_WEIGHT = 0.2  # the auxiliary heads' share of the loss (shape.aux), each


Keep = tuple[GoalNet, torch.Tensor, float]  # (teacher, known target rows [n_targets] bool, weight)


def losses(
    net: GoalNet, batch: Data, w_policy: float, w_horizon: float, keep: Keep | None = None
) -> tuple[torch.Tensor, dict]:
    """The weighted loss and its parts. With `keep` = (teacher, known, weight), the rows whose goal
    target the teacher was trained on (known[target]) add weight * KL(teacher's policy || the net's),
    which holds the net to how it drove those goals while it learns others (learning without
    forgetting: round 8's fine-tunes, fitted to the expert alone, slowed the goals they knew)."""
    out = net.heads(net.encode(batch["grid"], batch["vec"], batch["goal"], **net_extras(net, batch)))
    logits, hlogits = out["policy"], out["horizon"]
    total = torch.zeros((), device=logits.device)
    parts = {}
    decide = batch.get("decide")
    if w_policy and (decide is None or bool(decide.any())):
        rows = slice(None) if decide is None else decide  # rows where the policy, not held attack, acts
        lp = F.cross_entropy(logits[rows], batch["action"][rows])
        total = total + w_policy * lp
        parts["policy"] = float(lp.detach())
    has_h = batch["horizon"] >= 0
    if w_horizon and bool(has_h.any()):
        lh = F.cross_entropy(hlogits[has_h], horizon_bin(batch["horizon"][has_h].float()))
        total = total + w_horizon * lh
        parts["horizon"] = float(lh.detach())
    if keep is not None:
        teacher, known, weight = keep
        rows = known[batch["goal"][:, 1]]
        if decide is not None:
            rows &= decide
        if bool(rows.any()):
            sub = {k: v[rows] for k, v in batch.items()}
            with torch.no_grad():
                t = teacher(sub["grid"], sub["vec"], sub["goal"], **net_extras(teacher, sub))[0]
            lk = F.kl_div(F.log_softmax(logits[rows], -1), F.log_softmax(t, -1), log_target=True, reduction="batchmean")
            total = total + weight * lk
            parts["keep"] = float(lk.detach())
    if "aux_dir" in out and "aux_dir" in batch:  # where the expert is heading (auxiliary, trained only)
        has_t = batch["aux_dir"] >= 0
        if bool(has_t.any()):
            ld = F.cross_entropy(out["aux_dir"][has_t], batch["aux_dir"][has_t])
            lr = F.smooth_l1_loss(out["aux_dist"][has_t], batch["aux_dist"][has_t])
            total = total + AUX_WEIGHT * (ld + lr)
            parts["aux"] = float((ld + lr).detach())
    return total, parts


def fit(
    net: GoalNet,
    data: Data,
    *,
    steps: int,
    batch_size: int,
    device: str,
    seed: int,
    w_policy: float = 1.0,
    w_horizon: float = 1.0,
    lr: float = 2e-3,
    time_col: int | None = None,
    time_jitter: float = 0.05,
    on_step: Callable[[int, dict], None] | None = None,
) -> list[float]:
    """Adam on random minibatches for `steps` steps; returns the loss per step. `time_col`:
    where the time of day sits in vec, jittered by `time_jitter` (jitter_time)."""
    torch.manual_seed(seed)
    net.to(device).train()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(steps, 1), eta_min=lr / 20)
    data = {k: v.to(device) for k, v in data.items()}
    n = len(data["goal"])
    g = torch.Generator(device="cpu").manual_seed(seed)
    history = []
    for step in range(steps):
        idx = torch.randint(0, n, (min(batch_size, n),), generator=g).to(device)
        batch = {k: v[idx] for k, v in data.items()}
        batch["vec"] = jitter_time(batch["vec"], time_col, time_jitter, g)
        loss, parts = losses(net, batch, w_policy, w_horizon)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        history.append(float(loss.detach()))
        if on_step:
            on_step(step, parts)
    net.eval()
    return history


@torch.no_grad()
def evaluate(net: GoalNet, data: Data, device: str) -> dict[str, float]:
    """Held-out figures: the policy's agreement with the expert, the horizon bin accuracy
    (exact and within one bin) and the mean absolute error of the expected horizon."""
    net.to(device).eval()
    out: dict[str, float] = {}
    n = len(data["goal"])
    if n == 0:
        return out
    agree, hits, near, abs_err, m, n_dec = 0, 0, 0, 0.0, 0, 0
    centres = bin_centres().to(device)
    for s in range(0, n, 4096):
        b = {k: v[s : s + 4096].to(device) for k, v in data.items()}
        logits, hlogits = net(b["grid"], b["vec"], b["goal"], **net_extras(net, b))
        dec = b["decide"] if "decide" in b else torch.ones_like(b["action"], dtype=torch.bool)
        agree += int((logits.argmax(-1) == b["action"])[dec].sum())
        n_dec += int(dec.sum())
        has = b["horizon"] >= 0
        if bool(has.any()):
            true_bin = horizon_bin(b["horizon"][has].float())
            pred_bin = hlogits[has].argmax(-1)
            hits += int((pred_bin == true_bin).sum())
            near += int(((pred_bin - true_bin).abs() <= 1).sum())
            expected = torch.softmax(hlogits[has], -1) @ centres
            abs_err += float((expected - b["horizon"][has].float()).abs().sum())
            m += int(has.sum())
    out["action_agreement"] = round(agree / max(n_dec, 1), 4)  # where the policy decides
    if m:
        out["horizon_bin_accuracy"] = round(hits / m, 4)
        out["horizon_within_one_bin"] = round(near / m, 4)
        out["horizon_mae_steps"] = round(abs_err / m, 2)
    return out
