"""MP5 (Qin et al., CVPR 2024) as a planner of this project: a parser over a knowledge
memory, a planner with a performer memory, a patroller with a percipient (active
perception), behind the same PlanRequest -> PlanResult interface as every planner.
See nodes/planners/mp5/planner.py for how the parts work together."""
