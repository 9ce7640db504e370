"""A plan ends at its first repeated line (`--end-at-repeat`, issue 21).

The embedded model's first plan often loops: on the relay's 22 held-out items 13 first plans ran to
the 512-token cap, each repeating a line word for word (its comment aside) from its 8th to 14th line
on, and the five to eight lines after the first repeat are more of the same loop (docs/performance.md).
With the option, the planner drops a plan's lines from the first repeat on, whatever the back-end. With
the embedded server it also asks the model to stop writing there: the grammar it sends carries `MARK`,
a GBNF comment (llama.cpp's grammar parser skips it), and the server's child stops decoding once a
finished line repeats an earlier one (agent/llm/repeat_stop.py).
"""

from __future__ import annotations

MARK = "# deps: end at the first repeated line"


def line_key(line: str) -> str:
    """What a line does: its code without the comment, spaces trimmed."""
    return line.split("#", 1)[0].strip()


def first_repeat(lines: list[str]) -> int | None:
    """The index of the first line that does what an earlier line did; None when none does."""
    seen: set[str] = set()
    for i, line in enumerate(lines):
        key = line_key(line)
        if key and key in seen:
            return i
        seen.add(key)
    return None


def cut(text: str) -> str:
    """`text` up to its first repeated line (that line and the rest dropped); unchanged without one."""
    lines = text.split("\n")
    i = first_repeat(lines)
    return text if i is None else "".join(line + "\n" for line in lines[:i])


def ends_on_repeat(text: str) -> bool:
    """Does the last finished line of `text` (written so far) repeat an earlier one?"""
    if not text.endswith("\n"):
        return False
    done = [line for line in text.split("\n")[:-1] if line_key(line)]
    return len(done) > 1 and line_key(done[-1]) in {line_key(x) for x in done[:-1]}


def asking(grammar: str) -> str:
    """The grammar with the request to stop at a repeated line (a comment to the grammar's parser)."""
    return f"{grammar}\n{MARK}\n"


def asked(grammar_text: str | None) -> bool:
    """Does a grammar ask for the stop (`asking`)?"""
    return bool(grammar_text and MARK in grammar_text)
