"""The documents in the repository hold together: the README stays short, every page the site or the README
points at is in the repository, the code cites no document that is not, and every shipped weight file has a
model card beside it. (The site itself is built with warnings as errors by `make docs`.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("worlds", "skills", "nodes", "agent", "training", "evaluation", "experiments", "prompts", "tests")


def _nav_pages(nav) -> list[str]:
    out = []
    for item in nav:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                out += _nav_pages(value) if isinstance(value, list) else [value]
    return out


def test_readme_is_short_and_links_only_to_files_that_exist():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert "docs/index.md" in local and "docs/cli.md" in local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert missing == []


def test_every_page_of_the_site_navigation_exists():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # no !!python tags resolved
    pages = _nav_pages(config["nav"])
    assert "index.md" in pages and "cli.md" in pages and "architecture.md" in pages
    assert [p for p in pages if not (ROOT / "docs" / p).is_file()] == []


def test_code_cites_only_documents_in_the_repository():
    outside = re.compile(r"CONTRACT\.md|DESIGN\.md|\.\./shared/")
    cited = re.compile(r"\bdocs/[\w./-]+\.md\b")
    bad, missing = [], []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "test_docs.py" or "node_modules" in path.parts:
                continue
            text = path.read_text(errors="replace")
            if outside.search(text):
                bad.append(str(path.relative_to(ROOT)))
            missing += [f"{path.relative_to(ROOT)}: {m}" for m in cited.findall(text) if not (ROOT / m).is_file()]
    assert bad == []
    assert missing == []


def _shipped(pattern: str) -> list[Path]:
    """The committed files matching `pattern` (a weight being trained in the work tree is not shipped yet);
    every match outside a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "--", pattern], cwd=ROOT, capture_output=True, text=True, check=True)
        return sorted(ROOT / line for line in out.stdout.splitlines())
    except (OSError, subprocess.CalledProcessError):
        return sorted(ROOT.glob(pattern))


def test_every_shipped_weight_file_has_a_model_card_beside_it():
    weights = _shipped("skills/checkpoints/*.pt")
    assert weights, "the learned parts ship their checkpoints"
    assert [w.name for w in weights if not w.with_suffix(".card.md").is_file()] == []
    adapters = _shipped("agent/adapters/*/adapter.gguf")
    assert adapters, "the planner adapter ships"
    assert [str(a) for a in adapters if not (a.parent / "CARD.md").is_file()] == []
