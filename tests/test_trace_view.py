"""Looking at an episode: the terminal timeline and the self-contained page, the page checked
in a real headless Chromium (Playwright driving Debian's chromium)."""

from __future__ import annotations

import io
import os
import shutil

import pytest

from agent.cli import main
from agent.runner import run_episode
from agent.trace_view import load_run, show
from nodes.settings import RunSettings
from tests.fakes import FakeLLM
from tests.test_graph import EXPLANATION, FIXED, FLAWED, KB, STONE_SWORD

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    d = tmp_path_factory.mktemp("trace")
    run_episode(
        STONE_SWORD, RunSettings(planner="deps", trace_dir=str(d)), llm=FakeLLM([FLAWED, EXPLANATION, FIXED]), kb=KB
    )
    return d


def test_trace_records_every_llm_call_with_its_prompt(traced):
    run = load_run(traced)
    assert len(run.llm) == 3  # plan, explain, re-plan
    assert run.llm[0]["prompt"][0]["role"] == "system" and run.llm[0]["reply"] == FLAWED
    assert run.llm[1]["reply"] == EXPLANATION


def test_show_prints_the_timeline(traced):
    from rich.console import Console

    buf = io.StringIO()
    show(load_run(traced), Console(file=buf, width=160, color_system=None))
    text = buf.getvalue()
    for expected in (
        "plan",
        "execute",
        "describe",
        "explain",
        "FAILED: needs a wooden_pickaxe",
        "SUCCESS",
        "3 LLM call(s)",
    ):
        assert expected in text


def test_trace_of_an_empty_folder_is_one_line(tmp_path, capsys):
    assert main(["trace", "show", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no trace in" in err[0]


def test_the_page_shows_plans_explanations_and_the_inventory_chart(traced, tmp_path):
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have Debian's chromium (.ci/run installs it)")
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    page_path = tmp_path / "episode.html"
    assert main(["trace", "html", str(traced), "-o", str(page_path)]) == 0
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(page_path.as_uri())
        plans = page.locator("#plans .plan")
        assert plans.count() == 2
        assert plans.nth(0).is_visible() and plans.nth(1).is_visible()
        assert "mine({'cobblestone':2}, 'wooden_pickaxe')" in plans.nth(1).inner_text()  # the diff's added line
        explanation = page.locator(".explanation").first
        assert explanation.is_visible() and explanation.inner_text() == EXPLANATION
        chart = page.locator("#inventory-chart")
        chart.scroll_into_view_if_needed()
        assert chart.is_visible() and chart.bounding_box()["width"] > 300
        items = {
            page.locator("#inventory-chart .series").nth(i).get_attribute("data-item")
            for i in range(page.locator("#inventory-chart .series").count())
        }
        assert {"planks", "stick", "stone_sword"} <= items
        assert page.locator("#llm-calls tr").count() == 4  # header + 3 calls
        assert "SUCCESS" in page.locator("#verdict").inner_text()
        browser.close()
