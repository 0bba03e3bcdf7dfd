"""The dashboard in a real headless Chromium (selenium): the tables list, a table page with
its partitions and charts, the clock buttons; screenshots go to ``test-artefacts/``.

Needs the Debian packages ``chromium`` and ``chromium-driver`` (.ci/run installs them);
skipped, saying so, when they are missing.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_dashboard import throttled_server

ARTEFACTS = Path(__file__).resolve().parent.parent / "test-artefacts"
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
if CHROMIUM is None or DRIVER is None:
    pytest.skip(
        "no headless browser: install the Debian packages chromium and chromium-driver "
        "(apt-get install -y chromium chromium-driver)",
        allow_module_level=True,
    )

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# The dashboard's clock buttons are same-origin POSTs by IP address: the admin API's Origin
# check lets them through without --cors naming the origin.
site = pytest.fixture(scope="module", name="site")(throttled_server)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    profile = tempfile.mkdtemp(prefix="dynemu-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1500,1800",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    driver.set_page_load_timeout(60)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD})
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _shot(driver: Any, name: str) -> Path:
    ARTEFACTS.mkdir(exist_ok=True)
    path = ARTEFACTS / name
    height = driver.execute_script("return document.body.scrollHeight")
    driver.set_window_size(1500, max(900, min(int(height) + 40, 6000)))
    assert driver.save_screenshot(str(path))
    return path


# "refresh" unticked as each page is parsed (dashboard.js is deferred: it has run, and its
# first refresh is 3 s away), so that the elements under test are never replaced while they
# are read. Unticking it from the test once the page had loaded came too late when the load
# and the next WebDriver command took 3 s (a busy machine): a refresh was then under way,
# and replaced the elements just found (StaleElementReferenceException). The clock buttons
# still refresh the page (dashboard.js ticks "refresh" for that one).
HOLD = """document.addEventListener("DOMContentLoaded", () => {
  const live = document.getElementById("live");
  if (live) live.checked = false;
});"""


def _hold(driver: Any) -> None:
    """Check that "refresh" is unticked (HOLD), so that the elements under test stay."""
    assert driver.execute_script("return document.getElementById('live').checked") is False


def test_dashboard_renders_in_chromium(site: tuple[str, Any], browser: Any) -> None:
    url, clock = site
    browser.get(url + "/_dynemu/")
    _hold(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.table-row")
    assert [r.find_element(By.TAG_NAME, "a").text for r in rows] == ["dash_orders"]
    assert "TableWriteKeyRangeThroughputExceeded" in rows[0].text
    _shot(browser, "dashboard-index.png")

    clock.advance(60)  # the minutes of traffic complete: CloudWatch's per-minute chart has them
    rows[0].find_element(By.TAG_NAME, "a").click()
    wait = WebDriverWait(browser, 120)  # generous: a busy machine renders slowly
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "section.resource svg.chart")))
    _hold(browser)
    sections = browser.find_elements(By.CSS_SELECTOR, "section.resource")
    assert [s.find_element(By.TAG_NAME, "h2").text for s in sections] == [
        "dash_orders",
        "dash_orders / index byStatus",
        "dash_orders / index byOwner",  # no traffic yet
    ]
    table = sections[0]
    assert len(table.find_elements(By.CSS_SELECTOR, "tr.partition")) == 4
    charts = table.find_elements(By.CSS_SELECTOR, "svg.chart")
    # RCU, WCU, burst, throttles by reason, CloudWatch per minute (units, and throttles on
    # their own axis), the two hottest partitions against their limit, two heat strips
    assert len(charts) == 10
    for chart in charts:  # laid out and drawn, not just present in the markup
        assert chart.size["width"] > 300 and chart.size["height"] > 50
    # a 1,500 px window holds two charts side by side, each as wide as its column
    first, second = charts[0].rect, charts[1].rect
    assert first["y"] == second["y"] and second["x"] > first["x"] + first["width"] - 1
    assert first["width"] > 600
    lines = table.find_elements(By.CSS_SELECTOR, "svg.chart:not(.minutes) polyline")  # per second
    assert len(lines) >= 7 and all(len(p.get_attribute("points").split()) > 20 for p in lines)
    minutes = table.find_elements(By.CSS_SELECTOR, "svg.chart.minutes polyline")  # CloudWatch's per minute
    assert len(minutes) == 5 and all(len(p.get_attribute("points").split()) >= 2 for p in minutes)
    assert table.find_elements(By.CSS_SELECTOR, "svg.heat text.legend")  # the heat strips' colour scale
    assert "over the last 5 minutes" in table.text and "Space-Saving" in table.text
    assert table.find_elements(By.CSS_SELECTOR, "svg.heat rect[fill^='rgba(220']")  # throttled cells
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    path = _shot(browser, "dashboard-table.png")
    assert path.stat().st_size > 10_000

    # the clock buttons move a virtual clock through the admin API; the page refreshes
    def shown(d: Any) -> str:  # read in one step: the element may be replaced at any time
        return d.execute_script("return document.querySelector('.clock-now').textContent")

    before, was = clock.now(), shown(browser)
    browser.find_element(By.CSS_SELECTOR, "button[data-advance='60']").click()
    wait.until(lambda _: clock.now() >= before + 60)
    wait.until(lambda d: shown(d) != was)  # the page refreshed in place
    assert browser.find_element(By.ID, "clock-status").text == ""
