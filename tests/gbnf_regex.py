"""A GBNF grammar without recursion, as a Python regular expression, for tests: which strings
a rule of the plan grammar (nodes/planners/grammar.py) accepts, checked without llama.cpp."""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|\{\d+(?:,\d*)?\}|[()|?*+]|[a-zA-Z][a-zA-Z0-9-]*|\s+')


def _literal(text: str) -> str:
    body = text[1:-1]
    return re.escape(re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body))


def _class(text: str) -> str:
    return text.replace("\\n", "\n")


def to_regex(grammar: str, rule: str) -> re.Pattern[str]:
    """The language of `rule` in `grammar` (lines `name ::= body`), anchored at both ends."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines() if " ::= " in line)
    memo: dict[str, str] = {}

    def expand(name: str, stack: tuple[str, ...] = ()) -> str:
        if name in stack:
            raise ValueError(f"rule {name} is recursive")
        if name not in memo:
            out = []
            for tok in _TOKEN.findall(rules[name]):
                if tok.isspace():
                    continue
                if tok.startswith('"'):
                    out.append(_literal(tok))
                elif tok.startswith("["):
                    out.append(_class(tok))
                elif tok in "()|?*+" or tok.startswith("{"):
                    out.append("(?:" if tok == "(" else tok)
                else:
                    out.append("(?:" + expand(tok, (*stack, name)) + ")")
            memo[name] = "".join(out)
        return memo[name]

    return re.compile(expand(rule), re.DOTALL)
