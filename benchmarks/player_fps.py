"""Does the site's run player keep 60 frames a second on a run of 20,000 spans? It plays such a run in Debian's
headless Chromium (driven by selenium) and prints, side by side, the frames a second it got, the frames a bare canvas
animation got in the same page just before (what the machine gives any page at that moment), and the player's own
work per frame; each figure is the median over the repetitions, with its min-max.

    python benchmarks/player_fps.py                    # 5 repetitions of 3 s per view: about a minute
    python benchmarks/player_fps.py --repetitions 9

The run is the `many-runs` lesson's recorded run repeated one copy after the other up to 20,000 spans, compacted by
the site's own hook (docs/hooks/player.py) and played with the player's assets from docs/assets/player/ at 5x, in a
1280x800 window, with 15 s of the run across the lanes (spans drawn one by one) and then 5 minutes (all on screen).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from kafka_edu.lessons import diagram  # noqa: E402
from kafka_edu.tracing.query import Spans  # noqa: E402

BIG_RUN = 20_000
VIEWS = ((6, "15 s across"), (8, "5 min across"))  # the player's zoom levels
CHROMIUM, CHROMEDRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver")
# the cheapest animation of a canvas the size of the player's: what this browser gets on this machine right now
CONTROL = """const done = arguments[0], p = window.KafkaEduPlayers.big, c = document.createElement('canvas');
    c.width = p.canvas.width; c.height = p.canvas.height; c.style.cssText = 'position:fixed;left:0;top:0';
    document.body.append(c); const ctx = c.getContext('2d'), f = []; let last = null;
    function tick(now) { if (last !== null) f.push(now - last); last = now;
                         ctx.clearRect(0, 0, c.width, c.height); ctx.fillRect(f.length % c.width, 0, 2, c.height);
                         if (f.length < 120) requestAnimationFrame(tick); else { c.remove(); done(f); } }
    requestAnimationFrame(tick);"""


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through its chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def big_run(size: int = BIG_RUN) -> diagram.Recorded:
    """A recorded lesson run played again and again, one copy after the other, until it has `size` spans."""
    recorded = diagram.load_recorded(REPO / "traces" / "samples" / "lesson-many-runs")
    spans = list(recorded.spans)
    length = spans[-1].end_ns - spans[0].start_ns + 1_000_000_000
    out = []
    for copy in range(size // len(spans) + 1):
        shift = copy * length
        out += [replace(s, start_ns=s.start_ns + shift, end_ns=s.end_ns + shift,
                        events=[replace(e, time_ns=e.time_ns + shift) for e in s.events]) for s in spans]
    return replace(recorded, spans=Spans(out[:size]), lesson={**recorded.lesson, "steps": []})


def big_run_page(directory: Path, size: int = BIG_RUN) -> Path:
    """A page with one player, `big`, on a run of `size` spans, compacted by the site's hook."""
    spec = importlib.util.spec_from_file_location("kafka_edu_player_hook", REPO / "docs" / "hooks" / "player.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    (directory / "big.js").write_text(hook.run_script(hook.compact(big_run(size), "big", f"{size} spans")))
    assets = REPO / "docs" / "assets" / "player"
    page = directory / "big.html"
    page.write_text(f"""<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="{(assets / 'player.css').as_uri()}"></head><body style="margin:1em">
<div class="kafka-player" data-sample="big"></div><script src="big.js"></script>
<script src="{(assets / 'player.js').as_uri()}"></script></body></html>""")
    return page


def play(driver: Any, zoom: int, seconds: float = 3.0) -> dict[str, list[float]]:
    """Play the `big` run at 5x for `seconds`: the intervals between frames and the player's work in each (ms)."""
    return driver.execute_async_script(f"""const p = window.KafkaEduPlayers.big, done = arguments[0];
        p.zoom = {zoom}; p.speed = 7; p.seek(0); p.frames = []; p.drawMs = []; p.play();
        setTimeout(() => {{ p.pause(); done({{frames: p.frames, draw: p.drawMs}}); }}, {int(seconds * 1000)});""")


def _fps(intervals: list[float]) -> float:
    return 1000 * len(intervals) / sum(intervals)


def _p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95)]


def _summary(values: list[float]) -> str:
    return f"{statistics.median(values):6.1f} ({min(values):.1f}-{max(values):.1f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repetitions", type=int, default=5, help="plays per view (default 5)")
    args = parser.parse_args(argv)
    if not (Path(CHROMIUM).exists() and CHROMEDRIVER):
        print("needs Debian's chromium and chromium-driver (./run tests installs them)", file=sys.stderr)
        return 2
    from selenium.webdriver.common.by import By
    with tempfile.TemporaryDirectory() as tmp, chromium() as driver:
        driver.set_window_size(1280, 800)
        driver.get(big_run_page(Path(tmp)).as_uri())
        driver.find_element(By.CSS_SELECTOR, '.kafka-player[data-sample="big"]')
        play(driver, VIEWS[0][0], 1.0)  # the first play compiles the JavaScript: not measured
        rows = []
        for zoom, view in VIEWS:
            player, control, work, work95 = [], [], [], []
            for repetition in range(args.repetitions):
                control.append(_fps(driver.execute_async_script(CONTROL)[5:]))
                result = play(driver, zoom)
                frames, draw = result["frames"][5:], result["draw"][5:]
                player.append(_fps(frames))
                work.append(statistics.mean(draw))
                work95.append(_p95(draw))
                print(f"  {view}, repetition {repetition + 1}/{args.repetitions}: {player[-1]:.1f} frames/s "
                      f"(control {control[-1]:.1f})", flush=True)
            rows.append((view, player, control, work, work95))
    print(f"\n{BIG_RUN:,} spans at 5x, 1280x800, median (min-max) of {args.repetitions} plays of 3 s")
    print(f"{'view':<14} {'player frames/s':>22} {'control frames/s':>22} {'work ms/frame':>22} {'work p95 ms':>22}")
    for view, player, control, work, work95 in rows:
        print(f"{view:<14} {_summary(player):>22} {_summary(control):>22} {_summary(work):>22} {_summary(work95):>22}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
