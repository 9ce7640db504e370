"""The skill library: every goal the controller can be given, for a Minecraft version.

mine X (X drops from some block), craft X (X has a crafting recipe), smelt X (furnace
recipe), kill M (M is a mob with drops), equip X (armour, tools, shields). The parser maps
free-form goals onto it by nearest sentence embedding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_EQUIPPABLE = (
    "helmet",
    "chestplate",
    "leggings",
    "boots",
    "shield",
    "sword",
    "pickaxe",
    "axe",
    "shovel",
    "hoe",
    "elytra",
)


@dataclass(frozen=True)
class Skill:
    action: str
    item: str
    display: str = ""  # the game's display name, when it says more than the id ("Wood" for log)

    @property
    def text(self) -> str:
        words = self.item.replace("_", " ")
        extra = f" ({self.display.lower()})" if self.display and self.display.lower() != words else ""
        return f"{self.action} {words}{extra}"


class SkillLibrary:
    def __init__(self, kb: Any):
        self.kb = kb
        skills: list[Skill] = []
        for item in kb.item_names():
            shown = kb.display_name(item)
            if kb.mine_sources(item) or kb.interactions(item):
                skills.append(Skill("mine", item, shown))
            if kb.recipes(item):
                skills.append(Skill("craft", item, shown))
            if kb.smelting(item):
                skills.append(Skill("smelt", item, shown))
            if item.endswith(_EQUIPPABLE):
                skills.append(Skill("equip", item, shown))
        skills += [Skill("kill", mob) for mob in kb.mobs()]
        self.skills = skills
        self._skill_vecs = None
        self._names: list[str] = []
        self._name_vecs = None
        self._mob_vecs = None

    def __len__(self) -> int:
        return len(self.skills)

    def nearest_skill(self, text: str) -> tuple[Skill | None, float]:
        from skills.embeddings import embed

        if self._skill_vecs is None:
            self._skill_vecs = embed([s.text for s in self.skills])
        scores = self._skill_vecs @ embed([text.lower()])[0]
        best = int(scores.argmax())
        return self.skills[best], float(scores[best])

    def nearest_name(self, name: str, mobs: bool = False) -> tuple[str | None, float]:
        """The known item (or mob) name closest in meaning to `name`."""
        from skills.embeddings import embed

        if mobs:
            names = list(self.kb.mobs())
            if self._mob_vecs is None:
                self._mob_vecs = embed([n.replace("_", " ") for n in names])
            vecs = self._mob_vecs
        else:
            names = list(self.kb.item_names())
            if self._name_vecs is None:
                self._name_vecs = embed([Skill("", n, self.kb.display_name(n)).text.strip() for n in names])
            vecs = self._name_vecs
        scores = vecs @ embed([name.replace("_", " ").lower()])[0]
        best = int(scores.argmax())
        return names[best], float(scores[best])
