"""The network: one goal-conditioned encoder with two heads.

- the policy head gives pi(a | s, g) over the grid world's primitive actions;
- the horizon head gives mu(h | s, g) over horizon bins (DEPS section 3.3: h = steps left
  until goal g is reached), trained with -log mu(h_t(g) | s_t, g).

The encoder embeds each cell id of the egocentric grid, runs a small conv net whose
feature maps are modulated by the goal (FiLM: the goal picks which cells matter, in the
spirit of the goal-sensitive backbone DEPS uses), and fuses the result with the inventory
and the other numeric features of the observation. Both heads share it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

# Upper edges of the horizon bins, in environment steps; the last bin is "more than that".
HORIZON_EDGES = (1, 2, 3, 4, 6, 8, 11, 15, 20, 27, 36, 48, 64, 96, 128, 192, 256)


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

    n_cells: int        # size of the cell vocabulary (block and mob ids)
    grid_layers: int    # id layers of the egocentric grid (e.g. blocks, mobs, levels)
    view: int           # side of the square egocentric grid
    vec_dim: int        # inventory + other numeric features
    n_targets: int      # goal targets: every item, then every mob (worlds.gridworld.spec.goal_code)
    n_skills: int       # goal skills (worlds.types.ACTIONS)
    n_actions: int      # primitive actions
    n_bins: int = len(HORIZON_EDGES) + 1
    cell_dim: int = 4
    channels: int = 16
    hidden: int = 128

    def to_dict(self) -> dict:
        return asdict(self)


class GoalNet(nn.Module):
    def __init__(self, shape: NetShape):
        super().__init__()
        self.shape = shape
        s = shape
        self.cells = nn.Embedding(s.n_cells, s.cell_dim)
        self.goal_skill = nn.Embedding(s.n_skills, s.hidden)     # the goal is (skill, target):
        self.goal_target = nn.Embedding(s.n_targets, s.hidden)   # a learned embedding of each part
        c_in = s.grid_layers * s.cell_dim
        self.conv1 = nn.Conv2d(c_in, s.channels, 3, padding=1)
        self.conv2 = nn.Conv2d(s.channels, s.channels, 3, padding=1)
        self.film = nn.Linear(s.hidden, 4 * s.channels)   # gamma, beta for both conv layers
        self.grid_fc = nn.Linear(s.channels * s.view * s.view, s.hidden)
        self.vec_fc = nn.Linear(s.vec_dim, s.hidden)
        self.trunk = nn.Sequential(nn.ReLU(), nn.Linear(3 * s.hidden, s.hidden), nn.ReLU(),
                                   nn.Linear(s.hidden, s.hidden), nn.ReLU())
        self.policy = nn.Linear(s.hidden, s.n_actions)
        self.horizon = nn.Linear(s.hidden, s.n_bins)

    def encode(self, grid: torch.Tensor, vec: torch.Tensor, goal: torch.Tensor) -> torch.Tensor:
        """grid [B, L, V, V] long, vec [B, D] float, goal [B, 2] long (skill, target) -> [B, hidden]."""
        b = grid.shape[0]
        x = self.cells(grid.long())                            # B, L, V, V, E
        x = x.permute(0, 1, 4, 2, 3).reshape(b, -1, grid.shape[2], grid.shape[3])
        goal = goal.long()
        g = self.goal_skill(goal[:, 0]) + self.goal_target(goal[:, 1])
        g1, b1, g2, b2 = self.film(g).chunk(4, dim=-1)
        x = torch.relu(self.conv1(x) * (1 + g1[:, :, None, None]) + b1[:, :, None, None])
        x = torch.relu(self.conv2(x) * (1 + g2[:, :, None, None]) + b2[:, :, None, None])
        x = self.grid_fc(x.flatten(1))
        v = self.vec_fc(vec)
        return self.trunk(torch.cat([x, v, g], dim=-1))

    def forward(self, grid, vec, goal):
        h = self.encode(grid, vec, goal)
        return self.policy(h), self.horizon(h)

    @torch.no_grad()
    def expected_horizon(self, grid, vec, goal) -> torch.Tensor:
        """E[h] under mu(h | s, g), per row."""
        _, logits = self(grid, vec, goal)
        return torch.softmax(logits, -1) @ bin_centres().to(logits.device)
