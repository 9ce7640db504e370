"""The keys the command-line contract (docs/cli.md) promises in `deps run --json` and `deps eval
--json` output, written out once for every test that checks them."""

RUN_KEYS = frozenset(
    {
        "task",
        "success",
        "env_steps",
        "rounds",
        "llm_calls",
        "tokens_in",
        "tokens_out",
        "wall_s",
        "plans",
        "final_inventory",
        "failure_reason",
    }
)
EVAL_KEYS = frozenset(
    {"suite", "planner", "world", "episodes", "groups", "success_rate", "tokens_in", "tokens_out", "wall_s"}
)
