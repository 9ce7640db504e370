"""The LLaMA-Rider planner: a next-skill policy with feedback-revision, action retrieval and
sub-task relabelling (planner.py); its prompts and decision records (prompt.py)."""

from nodes.planners.rider.planner import RiderPlanner, make_rider

__all__ = ["RiderPlanner", "make_rider"]
