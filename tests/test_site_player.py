"""Our own tests of the site's run player (docs/hooks/player.py, docs/assets/player/): the built site opened in a real
headless Chromium driven by selenium. The controller lesson's player plays, jumps to the step that kills the
controller, steps to the kill and runs on to a breakpoint on the new controller's election, and the detail shows that
span, its FIDELITY step and the ported source line; screenshots at 1280x800 and at a phone's 390x844; a lesson step's
button moves the player to that step; a run of 20,000 spans loads and plays (its frame rate is measured by
benchmarks/player_fps.py, not here).

`KAFKA_EDU_PLAYER_SHOTS=<dir>` keeps the screenshots there (to look at them); otherwise they go to pytest's tmp_path.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.player_fps import BIG_RUN, CHROMEDRIVER, CHROMIUM, big_run_page, chromium, play
from kafka_edu.lessons import diagram
from tests.test_site import site  # noqa: F401  (the fixture: the site, built once with mkdocs build --strict)
from tui.explanations import explain

REPO = Path(__file__).resolve().parents[1]
KAFKA_BLOB = "https://github.com/apache/kafka/blob/1.0.2/core/src/main/scala/kafka/controller/KafkaController.scala"

pytestmark = pytest.mark.slow


def _wait(condition: Callable[[], Any], what: str, timeout_s: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def browser() -> Iterator[Any]:
    if not (Path(CHROMIUM).exists() and CHROMEDRIVER):
        pytest.skip("no chromium and chromedriver (./run installs Debian's chromium and chromium-driver)")
    with chromium() as driver:
        yield driver


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("KAFKA_EDU_PLAYER_SHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _open(driver: Any, page: Path, size: tuple[int, int], sample: str) -> Any:
    from selenium.webdriver.common.by import By
    driver.set_window_size(*size)
    driver.get("about:blank")  # the same page again is a new page, not the one before it with its player's state
    driver.get(page.as_uri())
    _wait(lambda: driver.execute_script(f"return !!(window.KafkaEduPlayers || {{}})[{sample!r}]"),
          f"the player of {sample} on {page}")
    return driver.find_element(By.CSS_SELECTOR, f'.kafka-player[data-sample="{sample}"]')


def _state(driver: Any, sample: str) -> dict[str, Any]:
    return driver.execute_script(f"""
        const p = window.KafkaEduPlayers[{sample!r}], r = p.run;
        const hl = p.detail.querySelector('.kp-hl');
        return {{t: p.t, playing: p.playing, chapter: p.chapter.textContent, sel: p.sel,
                 name: p.sel >= 0 ? r.name(p.sel) : null, lane: p.sel >= 0 ? r.d.lanes[r.lane[p.sel]] : null,
                 detail: p.detail.innerText, stepId: (p.detail.querySelector('.kp-stepid') || {{}}).textContent,
                 line: hl ? +hl.dataset.line : null, lineText: hl ? hl.textContent : null,
                 origin: (p.detail.querySelector('.kp-origin a') || {{}}).href}};""")


def _js(driver: Any, sample: str, body: str) -> Any:
    """`body` run in the page with `p` the player of `sample` (a page's objects do not cross to Python)."""
    return driver.execute_script(f"const p = window.KafkaEduPlayers[{sample!r}];\n{body}")


def _line_of(path: str, needle: str) -> int:
    lines = (REPO / path).read_text().splitlines()
    return next(n for n, text in enumerate(lines, 1) if needle in text)


def test_the_controller_lesson_plays_to_the_kill_and_the_new_controller(site, browser, shots):  # noqa: F811
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    page = site / "lessons" / "controller" / "index.html"
    sample = "lesson-controller"
    player = _open(browser, page, (1280, 800), sample)
    recorded = diagram.load_recorded(REPO / "traces" / "samples" / sample)
    kill = recorded.lesson["exits"][0]  # the lesson kills the controller, broker 2, first
    kill_us = (kill["at_ns"] - recorded.t0) / 1000
    elected = next(s for s in recorded.spans.where(name="KafkaController.elect", kafka__controller__won=True)
                   if s.start_ns > kill["at_ns"])

    # play: the playhead moves on its own, and the controller's first election appears
    browser.execute_script("arguments[0].scrollIntoView(); arguments[0].focus();", player)
    player.send_keys(Keys.SPACE)
    _wait(lambda: _state(browser, sample)["t"] > 300_000, "the playhead to pass +0.3 s")
    assert _state(browser, sample)["playing"]

    # `n` to the lesson's step that kills the controller, then → span by span to the kill
    for _ in range(10):
        if "kill -9 the controller" in _state(browser, sample)["chapter"]:
            break
        player.send_keys("n")
    state = _state(browser, sample)
    assert state["chapter"] == "Step 4 · kill -9 the controller" and not state["playing"], state
    for _ in range(2000):
        if _state(browser, sample)["t"] >= kill_us:
            break
        player.send_keys(Keys.ARROW_RIGHT)
    state = _state(browser, sample)
    assert f"Last change: broker-{kill['broker']}: killed (SIGKILL)" in state["detail"], state["detail"]
    assert _js(browser, sample,  # the kill's ✕ is drawn on broker-2's lane, in the diagram's colour for it
               """const c = p.canvas, ctx = c.getContext('2d'), dpr = c.width / p.w;
           const y = p.laneY(p.run.d.lanes.indexOf('broker-2')), x = p.xAt(p.t);
           const px = ctx.getImageData(Math.round((x - 300) * dpr), Math.round((y - 25) * dpr),
                                       Math.round(302 * dpr), Math.round(30 * dpr)).data;
           let n = 0;
           for (let i = 0; i < px.length; i += 4) if (px[i] > 170 && px[i + 1] < 90 && px[i + 2] < 80) n++;
           return n;""") > 20
    browser.save_screenshot(str(shots / "controller-kill-1280x800.png"))

    # a breakpoint on CT.elect, and play: it stops at the new controller's election, shown in the detail
    Select(player.find_element("css selector", ".kp-controls select:not([aria-label^='Speed'])")).select_by_value(
        "CT.elect")
    player.send_keys("+", "+")  # 5x: the ZooKeeper session takes 6 s to expire
    browser.find_element("css selector", ".kafka-player .kp-play").click()
    _wait(lambda: not _state(browser, sample)["playing"], "the breakpoint on CT.elect", 30)
    state = _state(browser, sample)
    assert (state["name"], state["lane"], state["stepId"]) == ("KafkaController.elect", elected.instance, "CT.elect")
    assert abs(state["t"] - (elected.start_ns - recorded.t0) / 1000) < 2, state["t"]
    assert "Stopped at the breakpoint on CT.elect" in state["detail"]
    port = elected.attributes["code.file.path"]
    assert state["line"] == _line_of(port, '@step("CT.elect")') and 'step("CT.elect")' in state["lineText"], state
    assert f"{port}:{state['line']}" in state["detail"]
    assert state["origin"] == KAFKA_BLOB
    assert explain("CT.elect").why in state["detail"]  # the TUI's explanation of the step
    browser.save_screenshot(str(shots / "controller-elect-1280x800.png"))
    _js(browser, sample, """const hl = p.detail.querySelector('.kp-hl');  // the detail scrolled to the source line
        p.detail.scrollTop += hl.getBoundingClientRect().top - p.detail.getBoundingClientRect().top - 140;""")
    browser.save_screenshot(str(shots / "controller-elect-source-1280x800.png"))
    boxes = _js(browser, sample, """const s = p.stage.getBoundingClientRect(), d = p.detail.getBoundingClientRect();
                                    return [s.left, s.right, d.left, d.top, s.top];""")
    assert boxes[2] >= boxes[1] - 1, f"at 1280x800 the detail is beside the lanes: {boxes}"

    # a phone: the detail folds under the lanes, the lanes scroll inside the player and the page does not widen
    player = _open(browser, page, (390, 844), sample)
    browser.execute_script("arguments[0].scrollIntoView(); arguments[0].focus();", player)
    for _ in range(4):
        player.send_keys("n")
    player.send_keys(Keys.SHIFT + Keys.ARROW_RIGHT)
    sizes = _js(browser, sample, """const s = p.stage.getBoundingClientRect(), d = p.detail.getBoundingClientRect();
        return {stageBottom: s.bottom, detailTop: d.top, page: document.documentElement.scrollWidth,
                window: window.innerWidth, canvas: p.canvas.getBoundingClientRect().width, stage: s.width};""")
    assert sizes["detailTop"] >= sizes["stageBottom"] - 1, sizes
    assert sizes["page"] <= sizes["window"], sizes
    assert "Step 4 · kill -9 the controller" == _state(browser, sample)["chapter"]
    browser.save_screenshot(str(shots / "controller-390x844.png"))
    _js(browser, sample, "p.detail.scrollIntoView()")
    browser.save_screenshot(str(shots / "controller-390x844-detail.png"))


def test_a_lesson_step_button_moves_the_player_to_that_step(site, browser):  # noqa: F811
    page = site / "lessons" / "controller" / "index.html"
    _open(browser, page, (1280, 800), "lesson-controller")
    buttons = browser.find_elements("css selector", "button[data-kp-chapter]")
    assert len(buttons) == 6, "one per lesson step"
    browser.execute_script("arguments[0].click()", buttons[4])
    state = _state(browser, "lesson-controller")
    assert state["chapter"].startswith("Step 5 · "), state["chapter"]
    assert "kp-now" in buttons[4].get_attribute("class")


def test_a_run_of_20000_spans_loads_and_plays(site, browser, tmp_path):  # noqa: F811
    """The player takes a run of 20,000 spans and plays it; how fast is benchmarks/player_fps.py's to say."""
    _open(browser, big_run_page(tmp_path), (1280, 800), "big")
    assert browser.execute_script("return window.KafkaEduPlayers.big.run.n") == BIG_RUN
    result = play(browser, zoom=8, seconds=1.0)
    assert len(result["frames"]) > 5 and len(result["draw"]) > 5, "no frames drawn while playing"
    assert _js(browser, "big", "return p.t") > 0, "the playhead did not move"
