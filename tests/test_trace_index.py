"""`deps eval --trace-dir`: every episode's trace page and an index page linking them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent.cli import main


def _eval(tmp_path: Path, capsys) -> dict:
    code = main(
        [
            "eval",
            "--suite",
            "deps71",
            "--tasks",
            "CraftPlanks,CraftSticks,CraftWoodenPickaxe",
            "--planner",
            "oracle",
            "--skills",
            "craft",
            "--out",
            str(tmp_path / "out"),
            "--trace-dir",
            str(tmp_path / "traces"),
            "--json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out.strip().splitlines()[-1])


def test_the_index_links_every_episodes_trace_page_with_its_outcome(tmp_path, capsys):
    summary = _eval(tmp_path, capsys)
    index = tmp_path / "out" / "traces.html"
    assert summary["trace_index"] == str(index)
    text = index.read_text()
    links = re.findall(r'href="([^"]+)"', text)
    assert len(links) == 3
    for link in links:
        page = (index.parent / link).resolve()
        assert page.is_file() and page.is_relative_to((tmp_path / "traces").resolve())
        assert "Inventory over time" in page.read_text()
    # crafting only, from nothing: planks cannot be made, so the outcome says why
    assert text.count("class=bad") == 3 and "failed:" in text


def test_a_page_is_never_written_through_a_planted_link(tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "CraftPlanks-e0").symlink_to(elsewhere, target_is_directory=True)
    main(
        [
            "eval",
            "--suite",
            "deps71",
            "--tasks",
            "CraftPlanks",
            "--planner",
            "oracle",
            "--out",
            str(tmp_path / "out"),
            "--trace-dir",
            str(traces),
            "--json",
        ]
    )
    capsys.readouterr()
    assert not (elsewhere / "trace.html").exists()
