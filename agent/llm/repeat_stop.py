"""Stop decoding a plan at its first repeated line, where the request asks for it (run inside the
server's child; `--end-at-repeat`, nodes/planners/repeats.py).

A request asks by the comment `repeats.MARK` in its grammar. For such a request a stopping criterion
is added beside the request's own: after each token that ends a line, the completion so far is read
back, and decoding stops once its last line does what an earlier one did. The answer then ends with
that repeated line, which the planner drops. Any other request is left exactly as it was.
"""

from __future__ import annotations

from typing import Any


def install() -> bool:
    """Patch llama_cpp's completion in this process; False where the library lacks its hooks."""
    from llama_cpp import llama as llama_mod

    from nodes.planners.repeats import asked, ends_on_repeat

    if not hasattr(llama_mod, "StoppingCriteriaList"):
        return False
    create_completion = llama_mod.Llama.create_completion

    def completion(self: Any, *args: Any, **kwargs: Any) -> Any:
        grammar = kwargs.get("grammar")
        if grammar is None or not asked(getattr(grammar, "_grammar", None)):
            return create_completion(self, *args, **kwargs)
        start: list[int] = []  # the prompt's length, read at the first call (the prompt is evaluated by then)

        def repeated(input_ids: Any, _logits: Any) -> bool:
            if not start:
                start.append(len(input_ids))
                return False
            written = [int(t) for t in input_ids[start[0] :]]
            if not written or b"\n" not in self.detokenize(written[-1:]):
                return False
            return ends_on_repeat(self.detokenize(written).decode("utf-8", "ignore"))

        own = kwargs.get("stopping_criteria") or []
        kwargs["stopping_criteria"] = llama_mod.StoppingCriteriaList([*own, repeated])
        return create_completion(self, *args, **kwargs)

    llama_mod.Llama.create_completion = completion
    return True
