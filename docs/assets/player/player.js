/* kafka-edu's run player: our own code, not a Kafka port (plain JavaScript, one canvas, no library).

   docs/hooks/player.py puts <div class="kafka-player" data-sample="NAME"> on a page and the recorded run beside it
   as a script (window.KafkaEduRuns[NAME]: gzipped JSON in base64, opened here by the browser's DecompressionStream;
   no fetch(), so the built site works from file:// too). The player draws the run's processes as lanes, the
   requests, ZooKeeper writes and watches and Raft messages as arrows that appear at their time, and state changes as
   marks; the span under the playhead is explained beside it. Keys (focus on the player): space play/pause, right/left
   the next/previous span, shift+right/left the next/previous message, n/p the next/previous lesson step, b a
   breakpoint on the current span's FIDELITY step, +/- speed, z/x zoom in/out, Home/End. */
(function () {
  "use strict";

  const SPEEDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 50];
  const WINDOWS = [0.005, 0.02, 0.1, 0.5, 2, 5, 15, 60, 300];  // seconds of run across the lanes, by zoom level
  const LONG_US = 1e6;  // spans longer than this are drawn from a list of their own (the rest are found by start)
  const LANE_H = 46, AXIS_H = 26, HEAD_AT = 0.78;  // the playhead sits at 78% of the plot's width
  const DASHED = new Set(["watch", "lost"]);
  const MARK_GLYPH = {killed: "x", refused: "x", start: "tri", paused: "square", resumed: "tri", epoch: "star",
    role: "dot"};
  const LEGEND = {
    zk: [["client", "client request"], ["controller", "controller request"], ["broker", "broker to broker"],
      ["zookeeper", "ZooKeeper write"], ["watch", "ZooKeeper watch fired"], ["lost", "failed, or no answer"]],
    kraft: [["client", "client request"], ["controller", "Raft: controller to controller"],
      ["broker", "broker to broker or controller"], ["lost", "failed, or no answer"]],
  };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  }

  function seconds(us) {
    const s = us / 1e6;
    return Math.abs(s) >= 100 ? `${s.toFixed(1)} s` : Math.abs(s) >= 1 ? `${s.toFixed(3)} s` : `${(us / 1000).toFixed(2)} ms`;
  }

  function took(us) {
    return us >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us} µs`;
  }

  async function decode(packed) {
    const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  // The first index in a sorted typed array whose value is > x (binary search).
  function upper(arr, x, lo = 0, hi = arr.length) {
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (arr[mid] <= x) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  class Run {
    constructor(d) {
      this.d = d;
      this.s = d.strings;
      const sp = d.spans, n = sp.start.length;
      this.n = n;
      this.start = new Float64Array(n);
      let t = 0;
      for (let i = 0; i < n; i++) { t += sp.start[i]; this.start[i] = t; }
      this.dur = Float64Array.from(sp.dur);
      this.lane = Int16Array.from(sp.lane);
      this.kind = Int32Array.from(sp.kind);
      this.attrs = Int32Array.from(sp.attrs);
      this.error = new Uint8Array(n);
      for (const i of sp.errors) this.error[i] = 1;
      this.long = [];
      for (let i = 0; i < n; i++) if (this.dur[i] > LONG_US) this.long.push(i);
      const m = d.messages, mn = m.length / 8;
      this.msgT = new Float64Array(mn);
      for (let i = 0; i < mn; i++) this.msgT[i] = m[i * 8];
      const k = d.marks, kn = k.length / 4;
      this.markT = new Float64Array(kn);
      for (let i = 0; i < kn; i++) this.markT[i] = k[i * 4];
      this.end = Math.max(d.end, n ? this.start[n - 1] : 0);
      this.stepIds = Object.keys(d.steps).sort();
      // per lane, the start times of its short spans, and of those that are FIDELITY steps: a zoomed-out view draws
      // how busy each pixel's slice of time was on each lane from these, not span by span
      this.byLane = d.lanes.map(() => ({all: [], stepped: []}));
      for (let i = 0; i < n; i++) {
        if (this.dur[i] > LONG_US) continue;
        const lane = this.byLane[this.lane[i]];
        lane.all.push(this.start[i]);
        if (this.step(i) !== null) lane.stepped.push(this.start[i]);
      }
      for (const lane of this.byLane) { lane.all = Float64Array.from(lane.all); lane.stepped = Float64Array.from(lane.stepped); }
    }
    name(i) { return this.s[this.d.kinds[this.kind[i]][0]]; }
    step(i) { const s = this.d.kinds[this.kind[i]][1]; return s < 0 ? null : this.s[s]; }
    code(i) { const c = this.d.kinds[this.kind[i]][2]; return c < 0 ? null : this.d.code[c]; }
    origin(i) { const o = this.d.kinds[this.kind[i]][3]; return o < 0 ? null : this.d.origins[o]; }
    msg(i) {
      const m = this.d.messages, b = i * 8;
      return {t: m[b], src: m[b + 1], dst: m[b + 2], label: this.s[m[b + 3]], kind: this.s[m[b + 4]],
        note: this.s[m[b + 5]], error: !!m[b + 6], span: m[b + 7]};
    }
    mark(i) {
      const k = this.d.marks, b = i * 4;
      return {t: k[b], lane: k[b + 1], label: this.s[k[b + 2]], kind: this.s[k[b + 3]]};
    }
    // the last span that started at or before t (-1: none yet)
    spanAt(t) { return upper(this.start, t) - 1; }
  }

  class Player {
    constructor(root, run) {
      this.root = root;
      this.run = run;
      this.t = 0;             // the playhead, in microseconds from the run's first span
      this.sel = -1;          // the span the detail shows
      this.playing = false;
      this.speed = 5;         // index into SPEEDS: 1x
      this.zoom = 4;          // index into WINDOWS
      this.breaks = new Set();
      this.stoppedAt = null;  // the breakpoint the player last stopped at
      this.frames = [];       // requestAnimationFrame intervals while playing (ms), for the 60 fps measurement
      this.drawMs = [];
      this.lastFrame = null;
      this.detailAt = 0;
      this.build();
      this.seek(run.n ? run.start[0] : 0);
      new ResizeObserver(() => this.resize()).observe(this.stage);
      this.resize();
    }

    // -- the page ---------------------------------------------------------------------------------------------------
    build() {
      const r = this.run, d = r.d;
      this.root.textContent = "";
      this.root.tabIndex = 0;
      this.root.setAttribute("role", "region");
      this.root.setAttribute("aria-label", `Run player: ${d.title}`);
      const button = (label, key, title, fn) => el("button", {type: "button", "aria-label": title,
        title: `${title} (${key})`, onclick: () => { fn(); this.root.focus({preventScroll: true}); }}, label);
      this.playBtn = button("▶ Play", "space", "Play or pause", () => this.toggle());
      this.playBtn.classList.add("kp-play");
      this.speedSel = el("select", {"aria-label": "Speed (+ and -)", title: "Speed: run time per second (+ and -)",
        onchange: () => { this.speed = +this.speedSel.value; }});
      SPEEDS.forEach((s, i) => this.speedSel.append(el("option", {value: i, text: `${s}×`})));
      this.speedSel.value = this.speed;
      this.breakSel = el("select", {"aria-label": "Add a breakpoint on a FIDELITY step",
        onchange: () => { if (this.breakSel.value) this.toggleBreak(this.breakSel.value); this.breakSel.value = ""; }});
      this.breakSel.append(el("option", {value: "", text: "Break at step…"}));
      for (const id of r.stepIds) this.breakSel.append(el("option", {value: id, text: `${id}  ${d.steps[id].span}`}));
      this.breakList = el("span", {class: "kp-breaks", "aria-live": "polite"});
      this.scrub = el("input", {type: "range", min: 0, max: Math.ceil(r.end), step: 1, value: 0,
        "aria-label": "Playhead: time in the run", class: "kp-scrub",
        oninput: () => { this.pause(); this.seek(+this.scrub.value); }});
      this.clock = el("span", {class: "kp-clock", "aria-live": "off"});
      this.chapter = el("div", {class: "kp-chapter", "aria-live": "polite"});
      const chapters = d.chapters.length > 0;  // a run that is no lesson's has no steps to go through
      const controls = el("div", {class: "kp-controls"},
        chapters ? button("« step", "p", "Previous lesson step", () => this.chapterBy(-1)) : "",
        button("◀ span", "←", "Previous span", () => this.spanBy(-1)),
        this.playBtn,
        button("span ▶", "→", "Next span", () => this.spanBy(1)),
        button("message ▶", "shift+→", "Next message", () => this.messageBy(1)),
        chapters ? button("step »", "n", "Next lesson step", () => this.chapterBy(1)) : "",
        el("label", {class: "kp-field"}, "speed ", this.speedSel),
        el("span", {class: "kp-zoom"}, button("−", "x", "Zoom out: more of the run", () => this.zoomBy(1)),
          button("+", "z", "Zoom in: less of the run", () => this.zoomBy(-1))),
        this.breakSel, this.breakList);
      this.canvas = el("canvas", {role: "img", "aria-label": "Lanes of the run's processes"});
      this.canvas.addEventListener("click", (e) => this.pick(e));
      this.stage = el("div", {class: "kp-stage"}, this.canvas);
      this.detail = el("div", {class: "kp-detail", "aria-live": "polite"});
      const legend = el("div", {class: "kp-legend"});
      for (const [kind, text] of LEGEND[d.mode === "kraft" ? "kraft" : "zk"]) {
        const sw = el("span", {class: "kp-swatch" + (DASHED.has(kind) ? " kp-dashed" : "")});
        sw.style.borderColor = d.colours[kind];
        legend.append(el("span", {}, sw, text));
      }
      legend.append(el("span", {}, el("span", {class: "kp-glyph", text: "◆"}), "state change"),
        el("span", {}, el("span", {class: "kp-glyph", text: "✕"}), "killed"),
        el("span", {class: "kp-keys", text: "Keys: space play · ←/→ span · shift+←/→ message · n/p step · " +
          "b breakpoint · +/− speed · z/x zoom"}));
      this.root.append(el("div", {class: "kp-title"}, el("strong", {text: d.title}), this.clock), this.chapter,
        controls, this.scrub, el("div", {class: "kp-body"}, this.stage, this.detail), legend);
      this.root.addEventListener("keydown", (e) => this.key(e));
      this.ctx = this.canvas.getContext("2d");
    }

    resize() {
      const dpr = window.devicePixelRatio || 1;
      const width = Math.max(this.stage.clientWidth, 360);  // narrower than this, the lanes scroll sideways
      this.lw = width < 600 ? 104 : 150;  // the lane names' column: narrower on a phone
      const height = AXIS_H * 2 + LANE_H * this.run.d.lanes.length;
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      this.w = width; this.h = height;
      this.draw();
    }

    // -- moving the playhead ----------------------------------------------------------------------------------------
    seek(t, sel) {
      const r = this.run;
      this.t = Math.max(0, Math.min(t, r.end));
      this.sel = sel === undefined ? r.spanAt(this.t) : sel;
      this.scrub.value = Math.round(this.t);
      this.refresh(true);
    }

    spanBy(by) {
      this.pause();
      const i = Math.max(0, Math.min(this.run.n - 1, this.sel + by));
      this.seek(this.run.start[i], i);
    }

    messageBy(by) {
      this.pause();
      const r = this.run;
      if (!r.msgT.length) return;
      // the message under the playhead: the one whose span is selected, else the last one before the playhead
      let at = upper(r.msgT, this.t) - 1;
      for (let i = at; i >= 0 && r.msgT[i] === this.t; i--) if (r.msg(i).span === this.sel) { at = i; break; }
      const i = Math.max(0, Math.min(r.msgT.length - 1, at + by));
      const m = r.msg(i);
      this.seek(m.t, m.span >= 0 ? m.span : undefined);
    }

    chapterBy(by) {
      const ch = this.run.d.chapters;
      if (!ch.length) return;
      let i = ch.findIndex((c) => c.at > this.t + 1);
      i = i < 0 ? ch.length : i;  // the first chapter after the playhead
      const current = i - 1;
      this.toChapter(by > 0 ? i : (current >= 0 && this.t - ch[current].at > 1 ? current : current - 1));
    }

    toChapter(i) {
      const ch = this.run.d.chapters;
      if (i < 0 || i >= ch.length) return;
      this.pause();
      this.seek(ch[i].at);
    }

    zoomBy(by) {
      this.zoom = Math.max(0, Math.min(WINDOWS.length - 1, this.zoom + by));
      this.draw();
    }

    toggleBreak(step) {
      if (this.breaks.has(step)) this.breaks.delete(step); else this.breaks.add(step);
      this.breakList.textContent = "";
      for (const id of [...this.breaks].sort()) {
        this.breakList.append(el("button", {type: "button", class: "kp-break", title: `Clear the breakpoint on ${id}`,
          onclick: () => this.toggleBreak(id)}, `● ${id} ✕`));
      }
    }

    toggle() { if (this.playing) this.pause(); else this.play(); }

    play() {
      if (this.t >= this.run.end) this.seek(0);
      this.playing = true;
      this.stoppedAt = null;
      this.playBtn.textContent = "❚❚ Pause";
      this.playBtn.setAttribute("aria-pressed", "true");
      this.lastFrame = null;
      const loop = this.loop = (this.loop || 0) + 1;  // a frame still pending from an earlier play ends itself
      requestAnimationFrame((now) => this.frame(now, loop));
    }

    pause() {
      if (!this.playing) return;
      this.playing = false;
      this.playBtn.textContent = "▶ Play";
      this.playBtn.setAttribute("aria-pressed", "false");
      this.refresh(true);
    }

    frame(now, loop) {
      if (!this.playing || loop !== this.loop) return;
      if (this.lastFrame !== null) {
        const dt = now - this.lastFrame;
        this.frames.push(dt);
        const r = this.run, from = this.t;
        const to = Math.min(r.end, from + dt * 1000 * SPEEDS[this.speed]);
        const hit = this.breakBetween(from, to);
        if (hit >= 0) {
          this.stoppedAt = r.step(hit);
          this.seek(r.start[hit], hit);
          this.pause();
          return;
        }
        this.t = to;
        this.sel = r.spanAt(to);
        this.scrub.value = Math.round(to);
        const t0 = performance.now();
        this.refresh(now - this.detailAt > 400);  // the text beside the lanes: every 0.4 s is enough to read
        this.drawMs.push(performance.now() - t0);
        if (to >= r.end) { this.pause(); return; }
      }
      this.lastFrame = now;
      requestAnimationFrame((n) => this.frame(n, loop));
    }

    // the first span with a breakpoint's step that starts in (from, to], or -1
    breakBetween(from, to) {
      if (!this.breaks.size) return -1;
      const r = this.run;
      for (let i = upper(r.start, from), end = upper(r.start, to); i < end; i++) {
        const step = r.step(i);
        if (step && this.breaks.has(step)) return i;
      }
      return -1;
    }

    key(e) {
      if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT" && e.key !== " ") return;
      const keys = {
        " ": () => this.toggle(), "ArrowRight": () => e.shiftKey ? this.messageBy(1) : this.spanBy(1),
        "ArrowLeft": () => e.shiftKey ? this.messageBy(-1) : this.spanBy(-1), "n": () => this.chapterBy(1),
        "p": () => this.chapterBy(-1), "N": () => this.chapterBy(-1), "b": () => this.breakHere(),
        "+": () => this.speedBy(1), "=": () => this.speedBy(1), "-": () => this.speedBy(-1),
        "z": () => this.zoomBy(-1), "x": () => this.zoomBy(1), "Home": () => { this.pause(); this.seek(0); },
        "End": () => { this.pause(); this.seek(this.run.end); },
      };
      const fn = keys[e.key];
      if (!fn || e.ctrlKey || e.metaKey || e.altKey) return;
      e.preventDefault();
      e.stopPropagation();  // the theme's own keys (n, p: the next and previous page) are not for the player's
      fn();
    }

    breakHere() {
      const step = this.sel >= 0 ? this.run.step(this.sel) : null;
      if (step) this.toggleBreak(step);
    }

    speedBy(by) {
      this.speed = Math.max(0, Math.min(SPEEDS.length - 1, this.speed + by));
      this.speedSel.value = this.speed;
    }

    // a click on the lanes: the span nearest the click on that lane, before the playhead
    pick(e) {
      const box = this.canvas.getBoundingClientRect();
      const x = e.clientX - box.left, y = e.clientY - box.top;
      const lane = Math.floor((y - AXIS_H) / LANE_H);
      if (lane < 0 || lane >= this.run.d.lanes.length || x < this.lw) return;
      const t = this.timeAt(x), r = this.run, slack = this.usPerPx() * 6;
      let best = -1;
      for (let i = upper(r.start, t + slack) - 1; i >= 0 && r.start[i] >= t - slack * 40; i--) {
        if (r.lane[i] === lane && r.start[i] <= this.t) { best = i; break; }
      }
      if (best >= 0) { this.pause(); this.seek(r.start[best], best); }
    }

    // -- drawing ----------------------------------------------------------------------------------------------------
    usPerPx() { return WINDOWS[this.zoom] * 1e6 / (this.w - this.lw - 8); }
    xAt(t) { return this.lw + (this.w - this.lw - 8) * HEAD_AT + (t - this.t) / this.usPerPx(); }
    timeAt(x) { return this.t + (x - this.lw - (this.w - this.lw - 8) * HEAD_AT) * this.usPerPx(); }
    laneY(i) { return AXIS_H + LANE_H * i + LANE_H / 2; }

    refresh(detail) {
      this.draw();
      const r = this.run;
      this.clock.textContent = `+${seconds(this.t)} of ${seconds(r.end)} · ${r.n} spans · ${SPEEDS[this.speed]}×`;
      const ch = r.d.chapters;
      let c = -1;
      for (let i = 0; i < ch.length; i++) if (ch[i].at <= this.t) c = i;
      const text = ch.length ? (c < 0 ? "Setup: the lesson starts its cluster" : `Step ${c + 1} · ${ch[c].title}`) : "";
      if (this.chapter.textContent !== text) {
        this.chapter.textContent = text;
        this.root.dispatchEvent(new CustomEvent("kp-chapter", {detail: c, bubbles: true}));
      }
      if (detail) { this.detailAt = performance.now(); this.describe(); }
    }

    draw() {
      if (!this.w) return;
      const ctx = this.ctx, r = this.run, d = r.d, lanes = d.lanes;
      const left = this.timeAt(this.lw), now = this.t;
      const plotR = this.w - 8;
      ctx.clearRect(0, 0, this.w, this.h);
      ctx.font = "12px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      // chapters: a band behind the lanes per lesson step, its title on top
      ctx.save();
      d.chapters.forEach((c, i) => {
        if (c.at > now) return;
        const x1 = Math.max(this.lw, this.xAt(c.at)), x2 = Math.min(this.xAt(Math.min(c.end, now)), plotR);
        if (x2 < this.lw || x1 > plotR) return;
        ctx.fillStyle = i % 2 ? "rgba(120,110,60,0.07)" : "rgba(60,90,140,0.07)";
        ctx.fillRect(x1, AXIS_H, Math.max(x2 - x1, 1), this.h - 2 * AXIS_H);
        ctx.fillStyle = "#6b5d2a";
        ctx.fillRect(this.xAt(c.at), 2, 1.5, this.h - 4);
        ctx.fillText(`Step ${i + 1}`, this.xAt(c.at) + 4, AXIS_H / 2);
      });
      ctx.restore();
      // lanes, with each process's state at the playhead
      const state = this.states();
      for (let i = 0; i < lanes.length; i++) {
        const y = this.laneY(i);
        ctx.fillStyle = i % 2 ? "#f7f8fa" : "#ffffff";
        ctx.fillRect(0, y - LANE_H / 2, this.w, LANE_H);
        ctx.strokeStyle = state[i].dead ? "#c9ced6" : "#8a9bb0";
        ctx.lineWidth = state[i].dead ? 1 : 2;
        ctx.setLineDash(state[i].dead ? [2, 4] : []);
        ctx.beginPath(); ctx.moveTo(this.lw, y); ctx.lineTo(plotR, y); ctx.stroke();
        ctx.setLineDash([]);
        ctx.save();
        ctx.beginPath(); ctx.rect(0, y - LANE_H / 2, this.lw - 4, LANE_H); ctx.clip();  // a long state: cut
        ctx.fillStyle = "#1d2733";
        ctx.font = "bold 12px system-ui, sans-serif";
        ctx.fillText(lanes[i], 6, y - 8);
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillStyle = state[i].dead ? "#8b1e1e" : "#4a5563";
        ctx.fillText(state[i].text, 6, y + 9);
        ctx.restore();
      }
      ctx.save();
      ctx.beginPath(); ctx.rect(this.lw, 0, plotR - this.lw, this.h); ctx.clip();
      // spans: a bar each under its lane's line (long ones from their own list, the rest found by start time)
      const barY = (lane) => this.laneY(lane) + 4;
      const drawSpan = (i) => {
        const x1 = this.xAt(r.start[i]), x2 = this.xAt(Math.min(r.start[i] + r.dur[i], now));
        const stepped = r.step(i) !== null && r.dur[i] <= LONG_US;  // a process's whole life: thin, not in the way
        ctx.fillStyle = r.error[i] ? "#8b1e1e" : stepped ? "#7b3fa0" : "#9aa5b1";
        ctx.fillRect(x1, barY(r.lane[i]) + (stepped ? 0 : 4), Math.max(x2 - x1, 1.5), stepped ? 6 : 3);
      };
      for (const i of r.long) if (r.start[i] <= now && r.start[i] + r.dur[i] >= left) drawSpan(i);
      const last = upper(r.start, now);
      let first = upper(r.start, left - LONG_US);
      let px = -1, lane = -1;
      if (last - first > 2 * (plotR - this.lw)) {  // more spans than pixels: one bar per busy pixel and lane
        const x0 = Math.floor(this.lw);
        for (let l = 0; l < r.byLane.length; l++) {
          const {all, stepped} = r.byLane[l], y = barY(l);
          let a = upper(all, this.timeAt(x0)), b = upper(stepped, this.timeAt(x0));
          for (let x = x0; x < Math.min(plotR, this.xAt(now)); x++) {
            const t2 = this.timeAt(x + 1);
            const a2 = upper(all, t2, a), b2 = upper(stepped, t2, b);
            if (b2 > b) { ctx.fillStyle = "#7b3fa0"; ctx.fillRect(x, y, 1, 6); }
            else if (a2 > a) { ctx.fillStyle = "#9aa5b1"; ctx.fillRect(x, y + 4, 1, 3); }
            a = a2; b = b2;
          }
        }
        first = last;  // errors still drawn one by one, below
        for (const i of r.d.spans.errors) if (r.start[i] >= left && r.start[i] <= now) drawSpan(i);
      }
      for (let i = first; i < last; i++) {
        if (r.dur[i] > LONG_US) continue;
        const x = Math.round(this.xAt(r.start[i]));
        if (x === px && r.lane[i] === lane && r.dur[i] < this.usPerPx()) continue;  // one pixel, one bar
        px = x; lane = r.lane[i];
        drawSpan(i);
      }
      if (this.sel >= 0) {  // the span the detail shows
        const i = this.sel, x1 = this.xAt(r.start[i]), x2 = this.xAt(Math.min(r.start[i] + r.dur[i], now));
        ctx.strokeStyle = "#111111"; ctx.lineWidth = 2;
        ctx.strokeRect(x1 - 2, barY(r.lane[i]) - 3, Math.max(x2 - x1, 2) + 4, 12);
      }
      // arrows: the messages up to the playhead, a label where there is room for one
      let labelled = -1e9;
      const mFirst = upper(r.msgT, left - 1), mLast = upper(r.msgT, now);
      const drawn = new Set();  // zoomed out, many arrows share a pixel: one of each is enough
      const flat = d.messages;
      for (let i = mFirst; i < mLast; i++) {
        const key = (Math.round(this.xAt(flat[i * 8])) * 64 + flat[i * 8 + 1]) * 64 + flat[i * 8 + 2];
        if (flat[i * 8 + 7] !== this.sel && drawn.has(key)) continue;
        drawn.add(key);
        const m = r.msg(i), x = this.xAt(m.t);
        const y1 = this.laneY(m.src), y2 = this.laneY(m.dst);
        const colour = d.colours[m.error ? "lost" : m.kind] || "#333333";
        const current = m.span === this.sel && m.span >= 0;
        ctx.strokeStyle = colour; ctx.fillStyle = colour;
        ctx.lineWidth = current ? 3 : 1.3;
        ctx.setLineDash(DASHED.has(m.kind) || m.error ? [5, 3] : []);
        const lean = Math.min(18, Math.abs(y2 - y1) / 4);
        ctx.beginPath();
        if (m.src === m.dst) {  // to itself: a loop
          ctx.arc(x + 8, y1 - 8, 8, Math.PI * 0.9, Math.PI * 2.6);
        } else {
          ctx.moveTo(x - lean, y1); ctx.lineTo(x, y2 + (y2 > y1 ? -6 : 6));
        }
        ctx.stroke();
        ctx.setLineDash([]);
        if (m.src !== m.dst) {  // the head
          const dir = y2 > y1 ? 1 : -1;
          ctx.beginPath(); ctx.moveTo(x, y2 - dir * 1); ctx.lineTo(x - 4.5, y2 - dir * 9);
          ctx.lineTo(x + 4.5, y2 - dir * 9); ctx.closePath(); ctx.fill();
        }
        if (m.error) { ctx.font = "bold 12px system-ui, sans-serif"; ctx.fillText("✕", x + 4, (y1 + y2) / 2); }
        if (x - labelled > 110 || current) {
          ctx.font = current ? "bold 11px system-ui, sans-serif" : "11px system-ui, sans-serif";
          const ly = Math.min(y1, y2) + Math.abs(y2 - y1) / 2;
          const text = m.label.length > 28 ? m.label.slice(0, 27) + "…" : m.label;
          const tw = ctx.measureText(text).width;
          const lx = x + tw + 10 > plotR ? x - tw - 9 : x + 3;  // near the right edge: on the arrow's left
          ctx.fillStyle = "rgba(255,255,255,0.85)";
          ctx.fillRect(lx, ly - 7, tw + 4, 14);
          ctx.fillStyle = colour;
          ctx.fillText(text, lx + 2, ly);
          labelled = x;
        }
      }
      // marks: state changes on their lane
      const kFirst = upper(r.markT, left - 1), kLast = upper(r.markT, now);
      let markLabelled = {};
      for (let i = kFirst; i < kLast; i++) {
        const k = r.mark(i), x = this.xAt(k.t), y = this.laneY(k.lane) - 10;
        const colour = d.colours[k.kind] || (k.kind === "epoch" ? "#7b3fa0" : "#4a5563");
        ctx.fillStyle = colour; ctx.strokeStyle = colour; ctx.lineWidth = 2.5;
        this.glyph(MARK_GLYPH[k.kind] || "diamond", x, y);
        if (!(x - (markLabelled[k.lane] ?? -1e9) < 130)) {
          ctx.font = "bold 11px system-ui, sans-serif";
          const tw = ctx.measureText(k.label).width;
          const lx = x + tw + 14 > plotR ? x - tw - 11 : x + 7;
          ctx.fillStyle = "rgba(255,255,255,0.9)";
          ctx.fillRect(lx, y - 13, tw + 4, 13);
          ctx.fillStyle = colour;
          ctx.fillText(k.label, lx + 2, y - 6);
          markLabelled[k.lane] = x;
        }
      }
      ctx.restore();
      // the time axis and the playhead
      ctx.fillStyle = "#4a5563"; ctx.font = "11px system-ui, sans-serif";
      // ticks at least 90 px apart, on a 1-2-5 series of microseconds
      let stepT = 1;
      for (const want = this.usPerPx() * 90; stepT < want;) stepT *= String(stepT)[0] === "2" ? 2.5 : 2;
      for (let t = Math.ceil(left / stepT) * stepT; t <= this.timeAt(plotR); t += stepT) {
        const x = this.xAt(t);
        ctx.fillRect(x, this.h - AXIS_H, 1, 5);
        ctx.fillText(`+${seconds(t)}`, x + 3, this.h - AXIS_H / 2);
      }
      const hx = this.xAt(now);
      if (hx > this.stage.scrollLeft + this.stage.clientWidth || hx < this.stage.scrollLeft) {
        this.stage.scrollLeft = hx - this.stage.clientWidth * 0.7;  // a narrow screen: keep the playhead in sight
      }
      ctx.fillStyle = "#111111";
      ctx.fillRect(hx - 1, AXIS_H - 4, 2, this.h - 2 * AXIS_H + 8);
      ctx.beginPath(); ctx.moveTo(hx - 6, AXIS_H - 10); ctx.lineTo(hx + 6, AXIS_H - 10); ctx.lineTo(hx, AXIS_H - 2);
      ctx.fill();
    }

    glyph(kind, x, y) {
      const ctx = this.ctx;
      ctx.beginPath();
      if (kind === "x") {
        ctx.moveTo(x - 6, y - 6); ctx.lineTo(x + 6, y + 6); ctx.moveTo(x + 6, y - 6); ctx.lineTo(x - 6, y + 6);
        ctx.stroke(); return;
      }
      if (kind === "tri") { ctx.moveTo(x - 5, y - 6); ctx.lineTo(x + 6, y); ctx.lineTo(x - 5, y + 6); }
      else if (kind === "square") ctx.rect(x - 5, y - 5, 10, 10);
      else if (kind === "dot") ctx.arc(x, y, 3.5, 0, Math.PI * 2);
      else if (kind === "star") {
        for (let j = 0; j < 10; j++) {
          const a = Math.PI / 5 * j - Math.PI / 2, rr = j % 2 ? 3 : 7;
          ctx.lineTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
        }
      } else { ctx.moveTo(x, y - 6); ctx.lineTo(x + 6, y); ctx.lineTo(x, y + 6); ctx.lineTo(x - 6, y); }
      ctx.closePath(); ctx.fill();
    }

    // each lane's last mark at the playhead, and whether its process was killed then
    states() {
      const r = this.run, out = r.d.lanes.map(() => ({text: "", dead: false, epoch: ""}));
      for (let i = 0, last = upper(r.markT, this.t); i < last; i++) {
        const k = r.mark(i), s = out[k.lane];
        if (k.kind === "epoch") { s.epoch = k.label; continue; }
        s.dead = k.kind === "killed" || k.kind === "stop" && k.label === "process ended";
        s.text = k.kind === "killed" ? "killed (SIGKILL)" : k.kind === "start" ? "started" : k.label;
        if (s.dead) s.epoch = "";
      }
      for (const s of out) if (s.epoch && !s.dead) s.text = s.epoch;
      return out;
    }

    // -- the detail beside the lanes --------------------------------------------------------------------------------
    describe() {
      const r = this.run, d = r.d, box = this.detail;
      const key = `${this.sel} ${upper(r.markT, this.t)} ${this.stoppedAt}`;
      if (key === this.described) return;  // nothing new to say: no layout to redo
      this.described = key;
      box.textContent = "";
      const lastMark = upper(r.markT, this.t) - 1;
      if (this.stoppedAt) {
        box.append(el("p", {class: "kp-stopped", text: `Stopped at the breakpoint on ${this.stoppedAt}.`}));
      }
      if (lastMark >= 0) {
        const k = r.mark(lastMark);
        box.append(el("p", {class: "kp-lastmark"}, el("span", {class: "kp-dim", text: "Last change: "}),
          el("strong", {text: `${d.lanes[k.lane]}: ${k.label}`}), ` at +${seconds(k.t)}`));
      }
      const i = this.sel;
      if (i < 0) { box.append(el("p", {text: "Play, or step to the first span (→)."})); return; }
      const name = r.name(i), step = r.step(i);
      box.append(el("h4", {class: "kp-span"}, el("code", {text: name}), " on ", el("strong", {text: d.lanes[r.lane[i]]})),
        el("p", {class: "kp-dim", text: `span ${i + 1} of ${r.n} · +${seconds(r.start[i])} · took ${took(r.dur[i])}` +
          (r.error[i] ? " · ERROR" : "")}));
      const fid = el("div", {class: "kp-step"});
      if (step) {
        const row = d.steps[step];
        fid.append(el("p", {}, el("span", {class: "kp-dim", text: "FIDELITY "}), el("strong", {class: "kp-stepid", text: step}),
          ` ${row.span}`));
        if (row.what) fid.append(el("p", {class: "kp-what", text: row.what}));
        fid.append(el("p", {text: row.why || "(no explanation for this step yet)"}));
      } else {
        fid.append(el("p", {class: "kp-dim", text: "No FIDELITY step: a Kafka symbol the port traces."}));
      }
      box.append(fid);
      const origin = r.origin(i);
      if (origin) {
        const [file, symbol, version, url] = origin;
        const link = url ? el("a", {href: url, target: "_blank", rel: "noopener", text: file}) : el("span", {text: file});
        box.append(el("p", {class: "kp-origin"}, el("strong", {text: "Kafka "}), `${version} · `,
          el("code", {text: symbol}), " · ", link));
      }
      const code = r.code(i);
      if (code) {
        box.append(el("p", {class: "kp-port"}, el("strong", {text: "Python port "}),
          el("code", {text: `${code.file}:${code.line}`}), ` ${code.function}` +
            (code.line !== code.recorded ? ` (line ${code.recorded} when recorded)` : "")));
        const pre = el("pre", {class: "kp-code"});
        code.lines.forEach((text, j) => {
          const n = code.first + j;
          pre.append(el("span", {class: n === code.line ? "kp-line kp-hl" : "kp-line", "data-line": n},
            el("span", {class: "kp-ln", text: String(n).padStart(5)}), ` ${text}\n`));
        });
        box.append(pre);
      }
      const a = r.attrs[i];
      if (a >= 0) {
        const pairs = d.attrs[a], table = el("table", {class: "kp-attrs"});
        for (let j = 0; j < pairs.length; j += 2) {
          table.append(el("tr", {}, el("th", {text: r.s[pairs[j]]}), el("td", {text: r.s[pairs[j + 1]]})));
        }
        box.append(el("p", {}, el("strong", {text: "Attributes"})), table);
      }
    }
  }

  // -- the page: every player it asks for, and the lesson steps' buttons ------------------------------------------
  window.KafkaEduPlayers = window.KafkaEduPlayers || {};
  async function start(root) {
    const name = root.dataset.sample, packed = (window.KafkaEduRuns || {})[name];
    if (!packed) { root.textContent = `No recorded run ${name} on this page.`; return; }
    const player = new Player(root, new Run(await decode(packed)));
    window.KafkaEduPlayers[name] = player;
    root.dataset.ready = "true";
    document.querySelectorAll(`button[data-kp-sample="${name}"]`).forEach((b) => {
      b.addEventListener("click", () => {
        player.toChapter(+b.dataset.kpChapter);
        root.scrollIntoView({behavior: "smooth", block: "start"});
        root.focus({preventScroll: true});
      });
    });
    root.addEventListener("kp-chapter", (e) => {  // the lesson step the playhead is in, marked on the page too
      document.querySelectorAll(`button[data-kp-sample="${name}"]`).forEach((b) => {
        b.classList.toggle("kp-now", +b.dataset.kpChapter === e.detail);
      });
    });
    player.refresh(true);
  }
  function all() { document.querySelectorAll(".kafka-player[data-sample]").forEach((root) => start(root)); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", all); else all();
})();
