/// The fixed parts of the HTML timeline: its CSS, its frame and the script that draws the chart
/// from the run's data (`TimelineHTML.data`).
///
/// The script builds one SVG string per drawing and sets it at once (fast at 5,000 rows), and
/// listens on the chart as a whole for hover and click, rather than on every bar.
enum TimelinePage {
    static let head = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="flowrun report">

        """

    static let style = """
        body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #fff;
          display: flex; flex-direction: column; height: 100vh; }
        header { padding: 10px 16px 6px; border-bottom: 1px solid #d0d7de; }
        h1 { font-size: 18px; margin: 0 0 4px; }
        #meta span { margin-right: 14px; }
        .result { font-weight: 600; padding: 1px 6px; border-radius: 4px; color: #fff; }
        .result.succeeded { background: #1a7f37; } .result.failed { background: #cf222e; }
        .result.cancelled, .result.interrupted { background: #9a6700; } .result.running { background: #0969da; }
        #controls { margin: 6px 0 2px; } #controls label { margin-right: 12px; }
        #legend span { display: inline-block; margin-right: 10px; }
        #legend i { display: inline-block; width: 12px; height: 10px; margin-right: 4px; vertical-align: -1px; border-radius: 2px; }
        #critical-names { color: #57606a; }
        #scroller { overflow: auto; flex: 1; min-height: 0; position: relative; }
        #axis-wrap { position: sticky; top: 0; background: #fff; z-index: 1; border-bottom: 1px solid #d0d7de; }
        svg { display: block; }
        text { font-size: 11px; fill: #1f2328; }
        .tick line { stroke: #d0d7de; } .tick text { fill: #57606a; }
        .label { cursor: pointer; } .label.crit { font-weight: 700; fill: #0550ae; }
        .label.l-skipped, .label.l-up-to-date, .label.l-done-before, .label.l-not-reached { fill: #6e7781; font-style: italic; }
        .bar, .mark { cursor: pointer; }
        .bar.crit { stroke: #0550ae; stroke-width: 2; }
        .selected { stroke: #000 !important; stroke-width: 2.5 !important; }
        .wait { fill: #eaeef2; stroke: #afb8c1; stroke-dasharray: 2 2; }
        .delay { stroke: #cf222e; stroke-dasharray: 3 2; }
        /* One colour per result: the bars' fill, the legend's background. */
        .r-succeeded { fill: #2da44e; background: #2da44e; }
        .r-failed { fill: #cf222e; background: #cf222e; }
        .r-allowed { fill: #d4a72c; background: #d4a72c; }
        .r-cancelled { fill: #8c959f; background: #8c959f; }
        .r-retried { fill: #ff8182; background: #ff8182; }
        .r-skipped { fill: #d0d7de; background: #d0d7de; }
        .r-up-to-date { fill: #54aeff; background: #54aeff; }
        .r-done-before { fill: #a475f9; background: #a475f9; }
        .r-unfinished { fill: #fb8f44; background: #fb8f44; }
        .r-running { fill: #218bff; background: #218bff; }
        .r-not-reached { fill: #eaeef2; background: #eaeef2; }
        #tip { position: fixed; display: none; pointer-events: none; background: #24292f; color: #fff; padding: 6px 8px;
          border-radius: 6px; font-size: 12px; max-width: 420px; z-index: 3; white-space: pre-line; }
        #details { position: fixed; right: 12px; bottom: 12px; width: min(640px, 60vw); max-height: 55vh; overflow: auto;
          background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 8px; padding: 8px 12px; display: none; z-index: 2;
          box-shadow: 0 4px 16px rgba(0,0,0,.15); }
        #details h2 { font-size: 14px; margin: 0 0 4px; } #details pre { background: #fff; border: 1px solid #d0d7de; padding: 6px;
          overflow: auto; max-height: 30vh; font-size: 12px; white-space: pre; }
        #details button { float: right; }
        /* file.html#chart-only: the chart alone, without the header and its legend. */
        .chart-only header { display: none; }

        """

    static let body = """
        <header>
        <h1 id="title"></h1>
        <div id="meta"></div>
        <div id="controls">
        <label><input type="radio" name="rows" value="task" checked> one row per task</label>
        <label><input type="radio" name="rows" value="slot"> one row per concurrency slot</label>
        <label>show <select id="only"><option value="all">every task</option><option value="failed">failed or retried</option>
        <option value="critical">the critical path</option></select></label>
        <input id="filter" type="search" placeholder="task id contains" size="16">
        <label>zoom <select id="zoom"><option>1</option><option>2</option><option>4</option><option>10</option><option>40</option></select></label>
        <span id="legend"></span>
        </div>
        <div id="critical-names"></div>
        </header>
        <div id="scroller"><div id="axis-wrap"><svg id="axis" height="22"></svg></div><svg id="chart"></svg></div>
        <div id="tip"></div>
        <div id="details"><button id="close" type="button">close</button><div id="details-body"></div><pre id="output"></pre></div>

        """

    static let script = #"""
        "use strict";
        const D = JSON.parse(document.getElementById("run-data").textContent);
        const T = D.tasks;
        // The fields of a task's array (TimelineHTML.data).
        const ID = 0, RESULT = 1, KIND = 2, QUEUE = 3, PRIORITY = 4, READY = 5, END = 6, SLOT = 7, CRIT = 8, EXIT = 9,
          REASON = 10, ATTEMPTS = 11, NEEDS = 12, TAIL = 13, DROPPED = 14;
        const ROW = 18, LABEL = 230;
        const chart = document.getElementById("chart"), axis = document.getElementById("axis");
        const tip = document.getElementById("tip"), details = document.getElementById("details");
        let mode = "task", zoom = 1, selected = -1, only = "all", filter = "";
        let span = Math.max(D.duration, 1);
        for (const t of T) for (const a of t[ATTEMPTS]) span = Math.max(span, a[1]);

        function fmt(ms) {
          if (ms == null) return "-";
          if (ms < 1000) return ms + "ms";
          const s = ms / 1000;
          if (s < 60) return s.toFixed(1) + "s";
          const m = Math.floor(s / 60);
          if (m < 60) return m + "m" + String(Math.round(s % 60)).padStart(2, "0") + "s";
          return Math.floor(m / 60) + "h" + String(m % 60).padStart(2, "0") + "m";
        }
        function esc(s) {
          return String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
        }
        const words = { "up-to-date": "up to date", "done-before": "done in the run resumed", "not-reached": "not reached",
          "allowed": "allowed failure", "retried": "failed, retried", "unfinished": "unfinished (run killed)",
          "running": "running (run still going)" };
        const word = r => words[r] || r;

        function header() {
          document.getElementById("title").textContent = D.workflow + " · run " + (D.run || "(live)");
          const meta = document.getElementById("meta");
          meta.innerHTML = '<span class="result ' + esc(D.result) + '" id="run-result">' + esc(D.result) + "</span>" +
            "<span>" + esc(D.duration_text) + "</span><span>" + esc(D.counts) + "</span>" +
            "<span>" + D.slots + " slot(s)" + (D.concurrency ? " of concurrency " + D.concurrency : "") + "</span>" +
            '<span title="' + esc(D.file) + '">' + esc(D.file) + "</span>";
          const legend = ["succeeded", "failed", "allowed", "retried", "cancelled", D.result == "running" ? "running" : "unfinished",
            "skipped", "up-to-date", "done-before"];
          document.getElementById("legend").innerHTML = legend.map(r => '<span><i class="r-' + r + '"></i>' +
            word(r) + "</span>").join("") + '<span><i class="wait" style="border:1px dashed #afb8c1"></i>waiting for a slot</span>' +
            '<span><i style="border:2px solid #0550ae"></i>critical path</span>';
          const names = D.critical.map(i => T[i][ID]);
          document.getElementById("critical-names").textContent = names.length ? "critical path (" + names.length + " task" +
            (names.length > 1 ? "s" : "") + "): " + (names.length > 12 ? names.slice(0, 5).concat(["…"], names.slice(-5)) : names).join(" → ") : "";
        }

        function draw() {
          const width = Math.max(500, document.documentElement.clientWidth - LABEL - 40) * zoom;
          const x = ms => (LABEL + ms / span * width).toFixed(1);
          const w = (a, b) => Math.max(1, (b - a) / span * width).toFixed(1);
          const parts = [];
          let rows;
          function bars(i, y) {
            const t = T[i], attempts = t[ATTEMPTS], crit = t[CRIT] ? " crit" : "";
            if (mode === "task" && t[READY] != null && attempts.length && attempts[0][0] > t[READY]) {
              parts.push('<rect class="wait" data-t="' + i + '" x="' + x(t[READY]) + '" y="' + (y + 5) + '" width="' +
                w(t[READY], attempts[0][0]) + '" height="8"/>');
            }
            attempts.forEach((a, j) => {
              if (j > 0) parts.push('<line class="delay" x1="' + x(attempts[j - 1][1]) + '" x2="' + x(a[0]) + '" y1="' + (y + 9) +
                '" y2="' + (y + 9) + '"/>');
              parts.push('<rect class="bar r-' + a[2] + crit + '" data-t="' + i + '" data-a="' + j + '" x="' + x(a[0]) + '" y="' +
                (y + 3) + '" width="' + w(a[0], a[1]) + '" height="12"/>');
            });
            if (mode === "task" && !attempts.length && t[END] != null) {
              parts.push('<rect class="mark r-' + t[RESULT] + '" data-t="' + i + '" x="' + (x(t[END]) - 3) + '" y="' + (y + 4) +
                '" width="6" height="10" transform="rotate(45 ' + x(t[END]) + " " + (y + 9) + ')"/>');
            }
          }
          const shown = T.map((t, i) => i).filter(visible);
          if (mode === "task") {
            rows = shown.length;
            shown.forEach((i, row) => {
              const t = T[i], y = row * ROW, id = t[ID].length > 34 ? t[ID].slice(0, 33) + "…" : t[ID];
              parts.push('<text class="label l-' + t[RESULT] + (t[CRIT] ? " crit" : "") + '" data-t="' + i + '" x="4" y="' + (y + 13) +
                '">' + esc(id) + "</text>");
              bars(i, y);
            });
          } else {
            rows = Math.max(D.slots, 1);
            for (let s = 0; s < D.slots; s++) parts.push('<text class="label" x="4" y="' + (s * ROW + 13) + '">slot ' + (s + 1) + "</text>");
            for (const i of shown) if (T[i][SLOT] != null) bars(i, T[i][SLOT] * ROW);
          }
          chart.setAttribute("width", LABEL + width + 20);
          chart.setAttribute("height", rows * ROW + 4);
          chart.innerHTML = parts.join("");
          axis.setAttribute("width", LABEL + width + 20);
          const step = niceStep(span / Math.max(2, width / 110));
          const ticks = [];
          for (let ms = 0; ms <= span + 1e-9; ms += step) {
            ticks.push('<g class="tick"><line x1="' + x(ms) + '" x2="' + x(ms) + '" y1="14" y2="22"/><text x="' + x(ms) +
              '" y="11" text-anchor="middle">' + fmt(Math.round(ms)) + "</text></g>");
          }
          axis.innerHTML = ticks.join("");
          if (selected >= 0) mark(selected);
          document.body.dataset.drawn = mode;
        }
        // Which tasks the chart shows: the "show" choice and the id filter, at 5,000 tasks.
        function visible(i) {
          const t = T[i];
          if (filter && !t[ID].includes(filter)) return false;
          if (only === "failed") return t[RESULT] === "failed" || t[RESULT] === "allowed" || t[ATTEMPTS].length > 1;
          if (only === "critical") return t[CRIT] === 1;
          return true;
        }
        function niceStep(raw) {
          const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
          for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
          return 10 * p;
        }

        function describe(i, j) {
          const t = T[i], a = t[ATTEMPTS];
          const lines = [t[ID] + " — " + word(t[RESULT])];
          lines.push("kind " + t[KIND] + " · queue " + (t[QUEUE] || "default") + " · priority " + (t[PRIORITY] || "normal"));
          if (t[READY] != null) lines.push("ready at " + fmt(t[READY]) + (a.length ? " · waited " + fmt(a[0][0] - t[READY]) + " for a slot" : ""));
          if (a.length) lines.push(a.length + (a.length == 1 ? " attempt, " : " attempts, ") + fmt(a[a.length - 1][1] - a[0][0]) + " from first start to end" +
            (t[SLOT] != null ? " · slot " + (t[SLOT] + 1) : ""));
          if (j != null && a[j]) lines.push("attempt " + (j + 1) + ": " + word(a[j][2]) + " after " + fmt(a[j][1] - a[j][0]) +
            (a[j][3] ? " (" + a[j][3] + ")" : ""));
          if (t[REASON]) lines.push(t[REASON]);
          if (t[EXIT] != null) lines.push("exit status " + t[EXIT]);
          if (t[CRIT]) lines.push("on the critical path");
          return lines;
        }
        chart.addEventListener("mousemove", e => {
          const d = e.target.dataset;
          if (!d || d.t == null) { tip.style.display = "none"; return; }
          tip.textContent = describe(+d.t, d.a != null ? +d.a : null).join("\n");
          tip.style.display = "block";
          tip.style.left = Math.min(e.clientX + 14, innerWidth - 440) + "px";
          tip.style.top = (e.clientY + 14) + "px";
        });
        chart.addEventListener("mouseleave", () => { tip.style.display = "none"; });
        function mark(i) {
          for (const el of chart.querySelectorAll(".selected")) el.classList.remove("selected");
          for (const el of chart.querySelectorAll('.bar[data-t="' + i + '"], .mark[data-t="' + i + '"]')) el.classList.add("selected");
        }
        function show(i) {
          selected = i;
          const t = T[i];
          const needs = t[NEEDS].map(n => T[n][ID]);
          document.getElementById("details-body").innerHTML = "<h2>" + esc(t[ID]) + "</h2>" +
            describe(i, null).slice(1).map(l => "<div>" + esc(l) + "</div>").join("") +
            (needs.length ? "<div>needs " + esc(needs.slice(0, 20).join(", ") + (needs.length > 20 ? ", …" : "")) + "</div>" : "") +
            t[ATTEMPTS].map((a, j) => "<div>attempt " + (j + 1) + ": " + esc(word(a[2])) + ", " + fmt(a[1] - a[0]) +
              (a[3] ? " — " + esc(a[3]) : "") + "</div>").join("");
          const output = document.getElementById("output");
          if (typeof t[TAIL] === "string") {
            output.textContent = (t[DROPPED] ? "… " + t[DROPPED] + " earlier line(s)\n" : "") + t[TAIL];
          } else {
            output.textContent = t[TAIL] === false ? "(output not kept in this report: flowrun logs " + (D.run || "RUN") + " " + t[ID] + ")" : "(no output)";
          }
          details.style.display = "block";
          mark(i);
        }
        chart.addEventListener("click", e => { const d = e.target.dataset; if (d && d.t != null) show(+d.t); });
        document.getElementById("close").addEventListener("click", () => { details.style.display = "none"; selected = -1; mark(-1); });
        for (const input of document.querySelectorAll('input[name="rows"]')) input.addEventListener("change", e => { mode = e.target.value; draw(); });
        document.getElementById("zoom").addEventListener("change", e => { zoom = +e.target.value; draw(); });
        document.getElementById("only").addEventListener("change", e => { only = e.target.value; draw(); });
        document.getElementById("filter").addEventListener("input", e => { filter = e.target.value; draw(); });
        let resizeTimer = 0;
        addEventListener("resize", () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(draw, 100); });
        if (location.hash === "#chart-only") document.body.classList.add("chart-only");
        header();
        draw();
        // From navigation to the first chart drawn, for bench/report_bench.py.
        document.body.dataset.drawnMs = Math.round(performance.now());
        """#
}
