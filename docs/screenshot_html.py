"""Screenshot of a leaderboard's HTML page, as shown in the docs (``docs/leaderboard-html.png``).

Opens the page offline in Debian's headless Chromium (``apt-get install chromium``) through the
``playwright`` package (no browser download) and saves the top of the page as PNG::

    python docs/screenshot_html.py docs/leaderboard/leaderboard.html docs/leaderboard-html.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

#: Chromium's flags for a quiet, offline, headless run.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def screenshot(page_path: Path, output: Path, *, width: int = 1280, height: int = 1400) -> None:
    """Save the first ``height`` pixels of ``page_path`` rendered ``width`` pixels wide."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path="/usr/bin/chromium",
            headless=True,
            args=list(CHROMIUM_ARGS),
            viewport={"width": width, "height": height},
            offline=True,
        )
        try:
            page = context.new_page()
            page.goto(page_path.resolve().as_uri())
            page.screenshot(path=str(output))
        finally:
            context.close()


if __name__ == "__main__":
    screenshot(Path(sys.argv[1]), Path(sys.argv[2]))
