"""Action retrieval for the rider planner (LLaMA-Rider appendix D): the LLM names a skill in
a few words ("harvest wood", "craft wooden planks"); retrieval maps it onto one skill of the
library (skills/library.py: mine X, craft X, smelt X, kill M, equip X).

Nouns first: the reply is split into a verb and a noun; the skills whose noun matches (the
item's id, its display name, the knowledge base's aliases and plurals, and for a mob the
items it drops) are the candidates. Short skill texts are too alike for embeddings alone
("craft wooden planks" sits nearer "craft wooden sword" than "craft planks"), so the
sentence embedding only chooses among the candidates, after the verb has narrowed them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# the verbs a reply may use, and the library's skill types each may mean
VERBS: dict[str, tuple[str, ...]] = {
    "mine": ("mine",),
    "dig": ("mine",),
    "chop": ("mine",),
    "harvest": ("mine", "kill"),
    "collect": ("mine", "kill"),
    "gather": ("mine", "kill"),
    "get": (),
    "obtain": (),
    "find": (),
    "craft": ("craft",),
    "make": ("craft", "smelt"),
    "build": ("craft",),
    "place": ("craft",),
    "smelt": ("smelt",),
    "cook": ("smelt",),
    "kill": ("kill",),
    "hunt": ("kill",),
    "combat": ("kill",),
    "equip": ("equip",),
    "wear": ("equip",),
}
_STOP = {"a", "an", "the", "some", "more", "of", "one", "two", "three", "four", "nearby", "from", "with", "for"}


@dataclass(frozen=True)
class Action:
    """One skill the world can run: Goal(action, {item: 1})."""

    action: str
    item: str
    nouns: frozenset[str]  # phrases that name what it gives
    tokens: frozenset[str]  # their words

    @property
    def text(self) -> str:
        return f"{self.action} {self.item.replace('_', ' ')}"


SUITES = ("plan4mc", "deps71")  # whose recipe trees make the action space


def _tree(kb: Any, name: str, seen: set[str]) -> None:
    """`name`, and every item and mob its cheapest route uses (inputs, tools, tables, fuel)."""
    from worlds.options import best_option

    if name in seen:
        return
    seen.add(name)
    opt = best_option(kb, name)
    if opt is None:
        return
    for item in opt.uses():
        _tree(kb, item, seen)
    if opt.kind == "kill":
        seen.add(str(opt.source))


def vocabulary(kb: Any, target: dict[str, int] | None = None) -> frozenset[str]:
    """The names the action space covers, as Plan4MC's 55 skills cover its tasks: every item (and
    mob) in the recipe trees of the project's suites' tasks (plan4mc, deps71: about 90), and of
    `target` (a task of the user's own)."""
    base = kb.cache.get("rider_vocabulary")
    if base is None:
        from worlds.tasks import load_suite

        seen: set[str] = set()
        for suite in SUITES:
            for task in load_suite(suite):
                for name in [*task.target, *task.inventory]:
                    canon = kb.canonical(name)
                    if canon:
                        _tree(kb, canon, seen)
        base = kb.cache["rider_vocabulary"] = frozenset(seen)
    extra: set[str] = set()
    for name in target or {}:
        canon = kb.canonical(name)
        if canon and canon not in base:
            _tree(kb, canon, extra)
    return base | extra


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower().replace("_", " "))


def actions(kb: Any) -> list[Action]:
    """The action space: the skill library's skills with the nouns that name them (cached on the kb)."""
    cached = kb.cache.get("rider_actions")
    if cached is not None:
        return cached
    from skills.library import SkillLibrary
    from worlds.options import best_option
    from worlds.recipes import MineSource

    out = []
    for s in SkillLibrary(kb).skills:
        names = {s.item.replace("_", " ")}
        if s.display:
            names.add(s.display.lower())
        if s.action == "kill":
            names |= {d.replace("_", " ") for d in kb.mob_drops(s.item)}
        if s.action == "mine":  # the block it breaks: "mine melon block" is mine melon
            opt = best_option(kb, s.item)
            if opt is not None and isinstance(opt.source, MineSource):
                names.add(opt.source.block.replace("_", " "))
        out.append(Action(s.action, s.item, frozenset(names), frozenset(w for n in names for w in _words(n)) - _STOP))
    kb.cache["rider_actions"] = out
    return out


def split_reply(text: str) -> tuple[str, str]:
    """A reply ("Next skill: craft wooden planks.") -> (verb, noun phrase)."""
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    m = re.search(r"(?:next|revised)?\s*skill\s*:\s*(.*)", line, re.I)
    words = [w for w in _words(m.group(1) if m else line) if not w.isdigit()]
    if not words:
        return "", ""
    if words[0] in VERBS:
        return words[0], " ".join(words[1:])
    return "", " ".join(words)


class ActionRetriever:
    """Maps an LLM's skill phrase onto one Action of the space (the skills on `names`, default
    all); `retrieve` says how it matched."""

    def __init__(self, kb: Any, names: frozenset[str] | None = None):
        self.kb, self.names = kb, names
        self.actions = [a for a in actions(kb) if names is None or a.item in names]

    def _noun_candidates(self, noun: str) -> list[Action]:
        if not noun:
            return []
        canon = self.kb.canonical(noun.replace(" ", "_")) or self.kb.canonical(noun)
        if canon is not None:  # the item itself ("wood" -> log), and the mobs that drop it
            mobs = set(self.kb.mob_sources(canon))
            own = [a for a in self.actions if a.item == canon or (a.action == "kill" and a.item in mobs)]
            if own:
                return own
        names = {noun, canon.replace("_", " ") if canon else noun}
        exact = [a for a in self.actions if a.nouns & names]  # a display name, or a mob's drop
        if exact:
            return exact
        toks = set(_words(noun)) - _STOP
        scored = [(len(toks & a.tokens), a) for a in self.actions]
        best = max((s for s, _ in scored), default=0)
        return [a for s, a in scored if best and s == best]

    def _usual(self, noun: str, cands: list[Action]) -> Action | None:
        from worlds.options import best_option

        canon = self.kb.canonical(noun.replace(" ", "_")) or self.kb.canonical(noun)
        items = {a.item for a in cands if a.action != "kill"}
        if canon is None and len(items) == 1:
            canon = next(iter(items))
        opt = best_option(self.kb, canon) if canon else None
        if opt is None:
            return None
        for a in cands:
            if a.action == opt.kind and (a.item == canon or (a.action == "kill" and a.item == opt.source)):
                return a
        return None

    def _embedding_choice(self, phrase: str, cands: list[Action]) -> Action:
        from skills.embeddings import embed

        if cands is self.actions:  # no noun matched: the whole space, its vectors cached on the kb
            key = ("rider_action_vecs", self.names)
            vecs = self.kb.cache.get(key)
            if vecs is None:
                vecs = self.kb.cache[key] = embed([a.text for a in self.actions])
        else:
            vecs = embed([a.text for a in cands])
        scores = vecs @ embed([phrase])[0]
        return cands[int(scores.argmax())]

    def _group_action(self, verb: str, noun: str) -> Action | None:
        """A noun that names a group and no item (from 1.13 on: planks, log, wool) is the group's
        own skill, as the world runs it: the member made or mined follows what is held or near.
        Picking one member by embedding sent "mine log" to jungle logs and "craft planks" to oak
        planks with only birch logs held."""
        from worlds.options import best_option

        name = noun.replace(" ", "_")
        if not name or not self.kb.is_generic(name) or self.kb.is_item(name):
            return None
        opt = best_option(self.kb, name)
        kinds = VERBS.get(verb, ())
        if opt is None or opt.kind not in ("craft", "mine") or (kinds and opt.kind not in kinds):
            return None
        if self.names is not None and not {name, *self.kb.variants(name)} & self.names:
            return None
        return Action(opt.kind, name, frozenset({noun}), frozenset(_words(noun)) - _STOP)

    def retrieve(self, text: str) -> tuple[Action | None, str]:
        """(the action, how it was found: 'group', 'noun', 'noun+verb', 'noun+embedding' or 'embedding')."""
        verb, noun = split_reply(text)
        if not verb and not noun:
            return None, "empty reply"
        group = self._group_action(verb, noun)
        if group is not None:
            return group, "group"
        cands = self._noun_candidates(noun)
        how = "noun"
        if not cands:
            cands, how = self.actions, "embedding"
        kinds = VERBS.get(verb, ())
        if kinds and not any(a.action in kinds for a in cands):  # the verb's own skill of that noun: the block
            by_block = [a for a in self.actions if a.action in kinds and noun in a.nouns]
            if by_block:
                cands, how = by_block, "noun+verb"
        if kinds and len(cands) > 1:
            narrowed = [a for a in cands if a.action in kinds]
            if narrowed:
                cands, how = narrowed, how + "+verb" if how == "noun" else how
        if len(cands) == 1:
            return cands[0], how
        usual = self._usual(noun, cands)
        if usual is not None:  # one item, several ways: the recipe book's way
            return usual, how + "+recipe"
        phrase = f"{verb} {noun}".strip()
        return self._embedding_choice(phrase, cands), ("noun+embedding" if how.startswith("noun") else how)
