"""The `learned` controller's options (torch-free, so the CLI derives its flags without
importing torch): nodes/registry.py names this class for the part, and the controller
reads it as `settings.option("learned")`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class LearnedOptions:
    fallback: bool = field(
        default=False,
        metadata={
            "help": "learned: let the scripted expert run the goals the policy was not trained for or has not "
            "mastered (default: off: the policy drives every goal it was trained for, and a task that needs "
            "another is refused with one line)"
        },
    )
