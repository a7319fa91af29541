"""The docs site is the lessons' path: one page per lesson, generated from the lesson module, with the diagram of its
recorded run. The site is built once (`mkdocs build --strict`), each lesson page is checked as HTML, and then opened
in headless Chromium to see that the diagram really rendered."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from kafka_edu.lessons import diagram
from kafka_edu.lessons.catalog import all_lessons

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "traces" / "samples"
LESSONS = all_lessons()
# a lesson just written has no recorded run yet: test_every_lesson_has_a_recorded_run says so, the others skip it
RECORDED = [lesson for lesson in LESSONS if (SAMPLES / f"lesson-{lesson.name}" / "lesson.json").exists()]
# the arrows' colours for ZooKeeper, the controller and the brokers: nothing else on a page is drawn in them
DRAWN = [tuple(int(diagram.COLOURS[kind][i:i + 2], 16) for i in (1, 3, 5)) for kind in ("zookeeper", "controller",
                                                                                        "broker")]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def _svg_size(svg: str) -> tuple[float, float]:
    head = re.search(r"<svg[^>]*>", svg).group(0)
    return tuple(float(re.search(rf'{side}="([0-9.]+)pt"', head).group(1)) for side in ("width", "height"))


def test_every_lesson_has_a_recorded_run():
    for lesson in LESSONS:
        assert (SAMPLES / f"lesson-{lesson.name}" / "lesson.json").exists(), (
            f"no recorded run for {lesson.name}: .venv/bin/python traces/samples/record_lessons.py {lesson.name}")


@pytest.mark.parametrize("name", [lesson.name for lesson in RECORDED])
def test_a_recorded_run_shows_who_talked_to_whom(name):
    recorded = diagram.load_recorded(SAMPLES / f"lesson-{name}")
    rows = diagram.rows(recorded)
    kinds = {row.message.kind for row in rows if row.message is not None}
    # ZooKeeper mode: client requests, the controller's requests, ZooKeeper writes and watches; KRaft: client requests,
    # Raft RPCs between controllers (when there are several), and the brokers' requests to them
    expected = {"client"} | ({"controller"} if len(recorded.controllers) > 1 else set()) \
        | ({"broker"} if recorded.brokers else set()) if recorded.mode == "kraft" \
        else {"client", "controller", "zookeeper", "watch"}
    assert expected <= kinds, kinds
    headers = [row.header for row in rows if row.header]
    assert headers[1:] == [f"Step {i} · {s.title}" for i, s in enumerate(
        next(lesson for lesson in LESSONS if lesson.name == name).steps, 1)]
    times = [row.at_ns for row in rows]
    assert times == sorted(times), "time goes down"
    lanes = set(recorded.lanes)
    assert all({row.message.source, row.message.target} <= lanes for row in rows if row.message is not None)


def test_the_broker_life_run_shows_its_kills_and_the_controller_run_its_new_controller():
    life = diagram.load_recorded(SAMPLES / "lesson-broker-life")
    assert [m.kind for m in diagram.marks(life.spans, life.lesson)].count("killed") >= 2
    assert any("found it dead" in what for what, _ in diagram.figures(life))
    controller = diagram.load_recorded(SAMPLES / "lesson-controller")
    assert any("won the election (epoch 2)" in what for what, _ in diagram.figures(controller))


def test_each_lesson_page_is_the_lesson_source_and_its_diagram(site):
    home = (site / "index.html").read_text()
    first = LESSONS[0].name
    assert re.search(rf'Start here: <a href="lessons/{first}/">', home), "the home page starts with lesson 1"
    for n, lesson in enumerate(LESSONS, 1):
        html = (site / "lessons" / lesson.name / "index.html").read_text()
        text = _text(html)
        assert f"Lesson {n}: {lesson.title}" in text and f"About {lesson.minutes} minutes" in text
        for i, step in enumerate(lesson.steps, 1):
            assert f"Step {i}: {step.title}" in text
            if step.predict is not None:
                assert all(f"{letter})" in text for letter in step.predict.choices)
            if step.check is not None:
                assert f"({step.check.__name__}, up to" in text
        assert re.search(r'href="\.\./\.\./[a-z-]+/"', html), "links to the reference pages it draws on"
        if lesson not in RECORDED:
            continue
        img = re.search(rf'<img[^>]+src="\.\./{lesson.name}\.svg"', html)
        assert img, f"no diagram on {lesson.name}'s page"
        width, height = _svg_size((site / "lessons" / f"{lesson.name}.svg").read_text())
        assert width > 300 and height > 300, (width, height)


def _chromium() -> str | None:
    return next((found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))),
                None)


@pytest.mark.slow
def test_each_lesson_diagram_renders_in_a_browser(site, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium on PATH (./run tests installs Debian's chromium)")
    import numpy  # matplotlib's dependency: the pixel test below runs on arrays, not a Python loop per pixel
    from PIL import Image
    for lesson in RECORDED:
        shot = tmp_path / f"{lesson.name}.png"
        page = (site / "lessons" / lesson.name / "index.html").as_uri()
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={shot}", "--window-size=1280,3200", page],
                       capture_output=True, timeout=120, check=True)
        image = Image.open(shot).convert("RGB")
        grid = numpy.asarray(image, dtype=numpy.int16)[::2, ::2]  # every second pixel of every second row
        drawn_in = numpy.zeros(grid.shape[:2], dtype=bool)
        for colour in DRAWN:  # within 30 of an arrow colour on each channel
            drawn_in |= (numpy.abs(grid - numpy.array(colour, dtype=numpy.int16)) < 30).all(axis=2)
        assert drawn_in.sum() > 300, f"{lesson.name}: the diagram's arrows did not render ({shot})"
        ys, xs = numpy.nonzero(drawn_in)
        # the diagram, give or take its lanes' heads
        box = (int(xs.min()) * 2, int(ys.min()) * 2, int(xs.max()) * 2 + 1, int(ys.max()) * 2 + 1)
        assert box[2] - box[0] > 250 and box[3] - box[1] > 400, f"{lesson.name}: diagram region {box} ({shot})"
        grey = image.crop(box).convert("L").histogram()
        drawn = sum(grey[:235])  # pixels darker than the page's white
        assert drawn > 0.03 * sum(grey), f"{lesson.name}: the diagram region is mostly blank ({shot})"
