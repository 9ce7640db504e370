"""The network: one goal-conditioned encoder with two heads.

- the policy head gives pi(a | s, g) over the grid world's primitive actions;
- the horizon head gives mu(h | s, g) over horizon bins (DEPS section 3.3: h = steps left
  until goal g is reached), trained with -log mu(h_t(g) | s_t, g).

The encoder embeds each cell id of the egocentric grid, runs a small conv net whose
feature maps are modulated by the goal (FiLM: the goal picks which cells matter, in the
spirit of the goal-sensitive backbone DEPS uses), and fuses the result with the inventory
and the other numeric features of the observation. Both heads share it. Networks with
`target` bands also read the goal's target map (where its sources are, far above and below),
with `near` levels its near map (the same, close by, level by level and cell by cell; its
features join the local grid's), and with `aux` two training-only heads predict where the
expert is heading (heads()).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

# Upper edges of the horizon bins, in environment steps; the last bin is "more than that".
HORIZON_EDGES = (1, 2, 3, 4, 6, 8, 11, 15, 20, 27, 36, 48, 64, 96, 128, 192, 256)
AUX_DIRS = 27  # sign of dx, dy, dz toward the expert's target: 3 x 3 x 3
Readings = dict  # what GoalNet.read_all gives: each reader's name -> its features, [B, hidden] each


def horizon_bin(h: torch.Tensor) -> torch.Tensor:
    """Steps remaining -> bin index (0 .. len(HORIZON_EDGES))."""
    edges = torch.tensor(HORIZON_EDGES, dtype=h.dtype, device=h.device)
    return torch.bucketize(h, edges, right=False)


def bin_centres() -> torch.Tensor:
    """A representative horizon per bin, for the expected horizon sum_b p_b * centre_b."""
    lo = (0,) + HORIZON_EDGES
    hi = HORIZON_EDGES + (HORIZON_EDGES[-1] * 2,)
    return torch.tensor([(a + b) / 2 for a, b in zip(lo, hi)], dtype=torch.float32)


@dataclass(frozen=True)
class NetShape:
    """Everything that fixes the weights' shapes; stored in the checkpoint and checked on load."""

    n_cells: int  # size of the cell vocabulary (block and mob ids)
    grid_layers: int  # id layers of the egocentric grid (e.g. blocks, mobs, levels)
    view: int  # side of the square egocentric grid
    vec_dim: int  # inventory + other numeric features
    n_targets: int  # goal targets: every item, then every mob (worlds.gridworld.spec.goal_code)
    n_skills: int  # goal skills (worlds.types.SKILLS; older checkpoints get zero rows for appended ones)
    n_actions: int  # primitive actions
    n_bins: int = len(HORIZON_EDGES) + 1
    cell_dim: int = 4
    channels: int = 16
    hidden: int = 128
    around: int = 0  # side of the pooled surroundings map (skills/learned/surround.py); 0: none
    faced: int = 0  # 1: embed the ids of the faced cell and mob (where attack and use act)
    target: int = 0  # bands of the goal's target map (skills/learned/sense.py), packed after `around`; 0: none
    aux: int = 0  # 1: auxiliary heads (the expert's target: direction, log distance), trained only
    near: int = 0  # levels of the goal's near map (skills/learned/sense.py), packed after the target bands; 0: none

    def to_dict(self) -> dict:
        return asdict(self)


class GoalNet(nn.Module):
    def __init__(self, shape: NetShape):
        super().__init__()
        self.shape = shape
        s = shape
        self.cells = nn.Embedding(s.n_cells, s.cell_dim)
        self.goal_skill = nn.Embedding(s.n_skills, s.hidden)  # the goal is (skill, target):
        self.goal_target = nn.Embedding(s.n_targets, s.hidden)  # a learned embedding of each part
        c_in = s.grid_layers * s.cell_dim
        self.conv1 = nn.Conv2d(c_in, s.channels, 3, padding=1)
        self.conv2 = nn.Conv2d(s.channels, s.channels, 3, padding=1)
        self.film = nn.Linear(s.hidden, 4 * s.channels)  # gamma, beta for both conv layers
        self.grid_fc = nn.Linear(s.channels * s.view * s.view, s.hidden)
        self.vec_fc = nn.Linear(s.vec_dim, s.hidden)
        n_in = 3
        if s.around:  # counts of each cell/mob kind around the agent, pooled: a 1x1 then a strided 3x3 conv
            self.around_gate = nn.Linear(s.hidden, s.n_cells)  # the goal picks which kinds of cell/mob count
            self.around_in = nn.Conv2d(s.n_cells, s.channels, 1)
            self.around_conv = nn.Conv2d(s.channels, s.channels, 3, stride=2, padding=1)
            self.around_film = nn.Linear(s.hidden, 4 * s.channels)
            side = (s.around + 1) // 2
            self.around_fc = nn.Linear(s.channels * side * side, s.hidden)
            c = torch.arange(s.around) - s.around // 2  # ring = Chebyshev distance of a pooled cell
            ring = torch.maximum(c.abs()[:, None], c.abs()[None, :]).flatten()
            self.register_buffer("ring_of", nn.functional.one_hot(ring).bool().T.contiguous(), persistent=False)
            self.ring_fc = nn.Linear(s.channels * self.ring_of.shape[0], s.hidden)
            n_in += 2
        if s.faced:
            self.faced_ids = nn.Embedding(s.n_cells, s.hidden)
            n_in += 1
        if s.target:  # where the goal's sources are, band by band: near rings and a strided conv
            if not s.around:
                raise ValueError("a target map needs the surroundings map it is packed into (shape.around)")
            self.target_in = nn.Conv2d(s.target, s.channels, 3, padding=1)
            self.target_conv = nn.Conv2d(s.channels, s.channels, 3, stride=2, padding=1)
            self.target_ring_fc = nn.Linear(s.channels * self.ring_of.shape[0], s.hidden)
            self.target_fc = nn.Linear(s.channels * ((s.around + 1) // 2) ** 2, s.hidden)
            n_in += 2
        if s.near:  # the goal's sources close by, one level a channel: two convs into the local grid's features
            if not s.target:
                raise ValueError("a near map is packed after the target map's bands (shape.target)")
            self.near_in = nn.Conv2d(s.near, s.channels, 3, padding=1)
            self.near_conv = nn.Conv2d(s.channels, s.channels, 3, stride=2, padding=1)
            self.near_fc = nn.Linear(s.channels * ((s.around + 1) // 2) ** 2, s.hidden)
        self.trunk = nn.Sequential(
            nn.ReLU(), nn.Linear(n_in * s.hidden, s.hidden), nn.ReLU(), nn.Linear(s.hidden, s.hidden), nn.ReLU()
        )
        self.policy = nn.Linear(s.hidden, s.n_actions)
        self.horizon = nn.Linear(s.hidden, s.n_bins)
        if s.aux:  # the expert's target relative to the agent: sign of (dx, dy, dz), 27 classes; log(1 + |d|_1)
            self.aux_dir = nn.Linear(s.hidden, AUX_DIRS)
            self.aux_dist = nn.Linear(s.hidden, 1)

    def encode(
        self,
        grid: torch.Tensor,
        vec: torch.Tensor,
        goal: torch.Tensor,
        around: torch.Tensor | None = None,
        faced: torch.Tensor | None = None,
        readings: Readings | None = None,
    ) -> torch.Tensor:
        """grid [B, L, V, V] long, vec [B, D] float, goal [B, 2] long (skill, target) -> [B, hidden];
        with shape.around, around [B, n_cells, S, S] counts (with shape.target, [B, n_cells + target,
        S, S]: the goal's target map packed after them, skills/learned/sense.py); with shape.faced,
        faced [B, 2] ids. `readings`: what `read_all` gives for these rows, where the caller kept
        it (skills/learned/kept.py); grid and around are then not read."""
        goal = goal.long()
        if readings is None:
            readings = self.read_all({"grid": grid, "around": around}, goal)
        x = readings["grid"][0]
        if self.shape.near:
            x = x + readings["near"][0]
        parts = [x, self.vec_fc(vec), self.goal_vector(goal)]
        if self.shape.around:
            parts += [*readings.get("target", ()), *readings["around"]]
        if self.shape.faced:
            if faced is None:
                raise ValueError("this network needs the faced cell's ids (skills/learned/surround.py)")
            parts.append(self.faced_ids(faced.long()).sum(1))
        return self.trunk(torch.cat(parts, dim=-1))

    def goal_vector(self, goal: torch.Tensor) -> torch.Tensor:
        """[B, hidden]: the goal (skill, target) as one vector, the sum of its parts' embeddings."""
        return self.goal_skill(goal[:, 0]) + self.goal_target(goal[:, 1])

    def readers(self) -> list[tuple[str, str, slice, bool]]:
        """The parts of the network that read the observation's grids and maps: each one's name, the
        input it reads ("grid" or "around"), which of that input's channels, and whether it reads
        the goal too. A row's reading depends on those alone, so a caller may keep it for the rows
        where they did not change (skills/learned/kept.py)."""
        s, c = self.shape, self.shape.n_cells
        out = [("grid", "grid", slice(None), True)]
        if s.near:
            out.append(("near", "around", slice(c + s.target, c + s.target + s.near), False))
        if s.target:
            out.append(("target", "around", slice(c, c + s.target), False))
        if s.around:
            out.append(("around", "around", slice(0, c), True))
        return out

    def read(self, name: str, x: torch.Tensor, goal: torch.Tensor) -> list[torch.Tensor]:
        """The reader `name`'s features ([B, hidden] each) of its channels x of its input for the
        goals `goal` ([B, 2])."""
        b = x.shape[0]
        if name == "near":  # added to the local grid's features
            t = self._packed(x, self.shape.near, "near map", "levels", b)
            y = self.near_in(_last(torch.log1p(t.float()))).relu_()
            return [self.near_fc(self.near_conv(y).relu_().flatten(1))]
        if name == "target":
            return self._target(x, b)
        g = self.goal_vector(goal.long())
        if name == "grid":
            # channels-last: each cell's L x E numbers side by side in memory, where oneDNN's 3x3 convolutions
            # and the rings' reads run fastest (issue 21); the ids are embedded in that order, so no copy
            # follows, and the logical layout, and so every result, is NCHW's
            y = self.cells(x.long().permute(0, 2, 3, 1))  # B, V, V, L, E
            y = y.reshape(b, x.shape[2], x.shape[3], -1).permute(0, 3, 1, 2)
            g1, b1, g2, b2 = self.film(g).chunk(4, dim=-1)
            # FiLM then ReLU, as b + conv(y) * (1 + g) in one pass and the ReLU in place (issue 21: two passes fewer)
            y = torch.addcmul(b1[:, :, None, None], self.conv1(y), 1 + g1[:, :, None, None]).relu_()
            y = torch.addcmul(b2[:, :, None, None], self.conv2(y), 1 + g2[:, :, None, None]).relu_()
            return [self.grid_fc(y.flatten(1))]
        ga, ba, gb, bb = self.around_film(g).chunk(4, dim=-1)
        a = self._around_in(x, g, ga, ba).relu_()
        # how near: the most of each goal-modulated channel on each ring around the agent
        rings = self.ring_fc(self._rings(a).flatten(1))
        # which way: a strided conv over the map
        a = torch.addcmul(bb[:, :, None, None], self.around_conv(a), 1 + gb[:, :, None, None]).relu_()
        return [rings, self.around_fc(a.flatten(1))]

    def read_all(self, inputs: dict[str, torch.Tensor | None], goal: torch.Tensor) -> Readings:
        """Every reader's features (readers, read) of `inputs` ({"grid": [B, L, V, V], "around":
        [B, C, S, S] or None}) for the goals `goal` ([B, 2])."""
        if self.shape.around and inputs.get("around") is None:
            raise ValueError("this network needs the surroundings map (skills/learned/surround.py)")
        return {name: self.read(name, inputs[src][:, ch], goal) for name, src, ch, _ in self.readers()}

    def _around_in(
        self, counts: torch.Tensor, g: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor
    ) -> torch.Tensor:
        """[B, channels, S, S]: the 1x1 conv `around_in` over log(1 + counts), each kind gated by the
        goal (sigmoid(around_gate(g))), then FiLM'd (* (1 + scale) + shift). The same sum as gating
        the map, convolving and modulating it in turn, but the gate and the FiLM go into each
        world's weights ([B, channels, kinds], a few thousand numbers) instead of passes over the
        map ([B, kinds, S, S], millions), and the kinds no world of the batch has are left out of
        the sum (log(1 + 0) = 0 adds nothing): one batched matmul (issue 21)."""
        b, _, side, _ = counts.shape
        kinds = (counts.amax(0).flatten(1) > 0).any(1).nonzero().squeeze(1)  # kinds some world has in view
        x = torch.log1p(counts.index_select(1, kinds).float()).flatten(2)  # B, k, S*S
        gate = torch.sigmoid(self.around_gate(g)).index_select(1, kinds)  # B, k
        film = 1 + scale  # B, channels
        w = self.around_in.weight[:, :, 0, 0].index_select(1, kinds)  # channels, k
        weights = w[None] * gate[:, None, :] * film[:, :, None]  # B, channels, k
        bias = (self.around_in.bias * film + shift)[:, None, :]  # B, 1, channels
        # computed cell by cell ([B, S*S, channels]) and read as [B, channels, S, S]: channels-last (encode)
        y = torch.baddbmm(bias.to(weights.dtype), x.to(weights.dtype).transpose(1, 2), weights.transpose(1, 2))
        return y.view(b, side, side, -1).permute(0, 3, 1, 2)

    def _target(self, t: torch.Tensor, b: int) -> list[torch.Tensor]:
        """The target map's two parts ([B, hidden] each). A caller whose surroundings map carries
        no target bands (a speed bench, say) gets the map of a goal with no source in sight."""
        t = self._packed(t, self.shape.target, "target map", "bands", b)
        x = self.target_in(_last(torch.log1p(t.float()))).relu_()
        rings = self._rings(x)
        y = self.target_conv(x).relu_()
        return [self.target_ring_fc(rings.flatten(1)), self.target_fc(y.flatten(1))]

    def _packed(self, t: torch.Tensor, want: int, name: str, unit: str, b: int) -> torch.Tensor:
        """A map packed into the surroundings map ([B, want, S, S]): all zeros where the caller
        packed none (a goal with no source in sight), a one-line error where it has another size."""
        if t.shape[1] == 0:
            return torch.zeros(b, want, self.shape.around, self.shape.around, device=self.policy.weight.device)
        if t.shape[1] != want:
            raise ValueError(f"the {name} has {t.shape[1]} {unit}, this network reads {want}")
        return t

    def _rings(self, x: torch.Tensor) -> torch.Tensor:
        """[B, C, rings]: the most of each channel of x [B, C, S, S] on each ring around the agent
        (ring = Chebyshev distance): ring r is the border of the square of side 2r + 1 at the centre,
        read as its four sides. The same maxima as a masked read per ring; on a channels-last map
        (encode) each side is a few contiguous runs, a quarter of the time of the reordering of
        every cell it replaced (issue 21)."""
        c = x.shape[-1] // 2
        out = [x[:, :, c, c]]
        for r in range(1, c + 1):
            lo, hi = c - r, c + r
            sides = (
                x[:, :, lo, lo : hi + 1],
                x[:, :, hi, lo : hi + 1],
                x[:, :, lo + 1 : hi, lo],
                x[:, :, lo + 1 : hi, hi],
            )
            out.append(torch.stack([s.amax(2) for s in sides]).amax(0))
        return torch.stack(out, dim=-1)

    def heads(self, h: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every head's output for the encoding h: policy, horizon, and with shape.aux the
        auxiliary aux_dir (logits over AUX_DIRS) and aux_dist."""
        out = {"policy": self.policy(h), "horizon": self.horizon(h)}
        if self.shape.aux:
            out["aux_dir"] = self.aux_dir(h)
            out["aux_dist"] = self.aux_dist(h).squeeze(-1)
        return out

    def forward(self, grid, vec, goal, around=None, faced=None, readings=None):
        h = self.encode(grid, vec, goal, around, faced, readings)
        return self.policy(h), self.horizon(h)


def _last(x: torch.Tensor) -> torch.Tensor:
    """x [B, C, H, W] laid out channels-last (encode), the logical layout unchanged."""
    return x.contiguous(memory_format=torch.channels_last)
