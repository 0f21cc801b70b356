"""The timeline page as a person sees it, in headless chromium with script turned off.

Every request is routed: anything but the page's own file (or a ``data:`` URL) is aborted and fails the
test, so the page provably needs no network. The screenshot is the README's picture.
"""

from __future__ import annotations

import os
from pathlib import Path

from playwright.sync_api import ConsoleMessage, Page, Request, Route, sync_playwright

from ctxres.linters.timeline.model import EVENT_KINDS

from .pages import PageUnderTest, timeline_page

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "docs" / "images" / "timeline.png"


class Watch:
    """What the page asked for and what it complained about."""

    def __init__(self, allowed: str) -> None:
        self.allowed = allowed
        self.foreign: list[str] = []
        self.errors: list[str] = []

    def route(self, route: Route) -> None:
        url = route.request.url
        if url == self.allowed or url.startswith("data:"):
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()

    def request(self, request: Request) -> None:
        if request.url != self.allowed and not request.url.startswith("data:"):
            self.foreign.append(request.url)

    def console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)


def _visible_count(page: Page, selector: str) -> int:
    found = page.locator(selector)
    return sum(1 for i in range(found.count()) if found.nth(i).is_visible())


def _check(page: Page, expected: PageUnderTest) -> None:
    assert page.locator(".marker.compaction").count() == expected.compactions
    assert _visible_count(page, ".marker.compaction") == expected.compactions
    assert page.locator(".marker.checkpoint").count() == expected.checkpoints
    assert _visible_count(page, ".marker.checkpoint") == expected.checkpoints
    assert page.locator("svg.chart .axis").is_visible()
    assert _visible_count(page, ".turn-tick") >= 2
    assert _visible_count(page, ".time-tick") >= 2
    assert _visible_count(page, ".threshold") == 3
    assert _visible_count(page, "ul.legend li") == len(EVENT_KINDS)
    assert page.locator("table.events caption").is_visible()
    assert page.locator("table.events tbody tr").count() == expected.events
    assert page.locator("p.summary").is_visible()


def test_the_timeline_page_shows_every_marker_with_no_script_and_no_network(chromium: Path, tmp_path: Path) -> None:
    expected = timeline_page(tmp_path)
    assert (expected.compactions, expected.checkpoints) == (2, 2)  # the recorded session's, auto then manual
    allowed = expected.path.as_uri()
    watch = Watch(allowed)
    # As root (a CI container) chromium refuses to start with its sandbox.
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=args)
        try:
            context = browser.new_context(java_script_enabled=False, viewport={"width": 1100, "height": 900})
            context.route("**/*", watch.route)
            page = context.new_page()
            page.on("request", watch.request)
            page.on("console", watch.console)
            page.on("pageerror", lambda error: watch.errors.append(str(error)))
            page.goto(allowed)
            _check(page, expected)
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.locator("section.picture").screenshot(path=str(SCREENSHOT))
        finally:
            browser.close()
    assert watch.foreign == [], "the page asked the network for these"
    assert watch.errors == []
