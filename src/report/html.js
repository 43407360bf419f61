// Draws the HTML report (src/report/html.rs) from the JSON report embedded in the page. Plain
// DOM and SVG, no library. Errors (thrown, or written to the console) are caught and written
// into <body data-errors>, and data-rendered="true" is set once everything is drawn, for the
// browser test and for a reader.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  // The word for the current scenario's loop numbers ("loop", "dump", "snapshot").
  var unit = "loop";
  var errors = [];
  function failed(message) {
    errors.push(String(message));
    document.body.setAttribute("data-errors", errors.join(" | "));
    var box = document.getElementById("report-errors");
    if (!box) {
      box = el("div", "errors");
      box.id = "report-errors";
      box.setAttribute("role", "alert");
      document.body.insertBefore(box, document.body.firstChild);
    }
    box.textContent = "The page could not draw everything: " + errors.join("\n");
  }
  window.onerror = function (message, source, line, column) {
    failed(message + " (line " + line + ":" + column + ")");
  };
  // What the console would show as an error counts too (the test asserts there is none).
  var consoleError = console.error;
  console.error = function () {
    failed(Array.prototype.join.call(arguments, " "));
    consoleError.apply(console, arguments);
  };
  window.addEventListener("unhandledrejection", function (event) {
    failed("unhandled rejection: " + event.reason);
  });

  // Text as the text report writes it (src/report/text.rs).
  var UNITS = ["KiB", "MiB", "GiB", "TiB"];
  function formatBytes(bytes) {
    if (bytes < 1024) return bytes + " B";
    var value = bytes / 1024, unit = 0;
    while (value >= 1024 && unit + 1 < UNITS.length) { value /= 1024; unit++; }
    return value.toFixed(1) + " " + UNITS[unit];
  }
  function sign(value) { return value < 0 ? "-" : "+"; }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  // The measures a chart can draw, each with its JSON field, kind of value and marker shape.
  var MEASURES = {
    objects: { field: "children_objects", label: "objects", unit: "objects of the children", axis: "count", shape: "circle", size: 5 },
    references: { field: "references", label: "references", unit: "references held", axis: "count", shape: "square", size: 3.5 },
    bytes: { field: "children_bytes", label: "bytes", unit: "bytes of the children", axis: "bytes", shape: "triangle", size: 2.5 },
    threads: { field: "objects", label: "threads", unit: "threads", axis: "count", shape: "diamond", size: 4 },
    spread: { field: "spread_objects", label: "spread", unit: "objects spread below", axis: "count", shape: "cross", size: 4 }
  };
  // Drawn for every node, a panel each, in this order; threads and spread as well where the
  // node grows in them.
  var ALWAYS = ["objects", "references", "bytes"];

  // Text from the report with the characters that would change how the page reads shown
  // visibly (as the text report's src/line.rs does): bidi controls (a name read reversed),
  // line separators and control characters but line breaks and tabs.
  var HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
  function visible(text) {
    return String(text).replace(HIDDEN, function (c) {
      return "\\u{" + c.charCodeAt(0).toString(16) + "}";
    });
  }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = visible(text);
    return node;
  }
  function svg(tag, attributes, parent) {
    var node = document.createElementNS(SVG, tag);
    for (var name in attributes) node.setAttribute(name, attributes[name]);
    if (parent) parent.appendChild(node);
    return node;
  }
  function svgText(parent, x, y, text, anchor) {
    var node = svg("text", { x: x, y: y, "text-anchor": anchor || "start" }, parent);
    node.textContent = visible(text);
    return node;
  }
  function shapePath(shape, x, y, r) {
    switch (shape) {
      case "square": return "M" + (x - r) + " " + (y - r) + "h" + 2 * r + "v" + 2 * r + "h" + -2 * r + "z";
      case "triangle": return "M" + x + " " + (y - r - 1) + "L" + (x + r + 1) + " " + (y + r) + "L" + (x - r - 1) + " " + (y + r) + "z";
      case "diamond": return "M" + x + " " + (y - r - 1) + "L" + (x + r + 1) + " " + y + "L" + x + " " + (y + r + 1) + "L" + (x - r - 1) + " " + y + "z";
      case "cross": return "M" + (x - r) + " " + (y - r) + "L" + (x + r) + " " + (y + r) + "M" + (x + r) + " " + (y - r) + "L" + (x - r) + " " + (y + r);
      default: return "M" + (x - r) + " " + y + "a" + r + " " + r + " 0 1 0 " + 2 * r + " 0a" + r + " " + r + " 0 1 0 " + -2 * r + " 0z";
    }
  }
  function measuresOf(growth) {
    var names = ALWAYS.slice();
    (growth || []).forEach(function (kind) {
      if (MEASURES[kind] && names.indexOf(kind) < 0) names.push(kind);
    });
    return names;
  }
  function axisLabel(axis, value) { return axis === "bytes" ? formatBytes(value) : String(value); }

  // Small multiples of `history` (one entry per snapshot): one panel per measure, each on its
  // own scale (objects, references and bytes often grow in step, and on one scale their lines
  // lie on each other), against the loop number on a log scale (snapshots are taken further and
  // further apart). Each panel is titled with what it draws, so there is no legend to match.
  // options: growth (kinds), confirmedFrom (loop after which snapshots confirm, or null),
  // marker ({loop, label}: a dashed line), small.
  function chart(history, options) {
    var names = measuresOf(options.growth);
    var figure = el("figure", "chart");
    var panels = el("div", "panels" + (options.small ? " small" : ""));
    figure.appendChild(panels);
    names.forEach(function (name) { panels.appendChild(panel(history, MEASURES[name], name, options)); });
    var confirming = options.confirmedFrom !== null && options.confirmedFrom !== undefined;
    if (confirming && history.length) {
      figure.appendChild(el("figcaption", "", "Filled markers in the shaded band: confirmation snapshots (after " + unit + " " +
        options.confirmedFrom + "); hollow markers: detection snapshots. Each panel has its own scale."));
    }
    if (history.length) figure.appendChild(valuesTable(history, names, options.confirmedFrom));
    return figure;
  }

  // One measure `m` of `history` in its own SVG panel, its scale from 0 to its largest value.
  function panel(history, m, name, options) {
    var width = options.small ? 260 : 300, height = options.small ? 140 : 170;
    var left = 56, right = 20, top = 24, bottom = 34;
    var plotW = width - left - right, plotH = height - top - bottom;
    var root = svg("svg", { "class": "chart" + (options.small ? " small" : ""), "data-panel": name,
      viewBox: "0 0 " + width + " " + height, role: "img" });
    var title = svg("title", {}, root);
    title.textContent = m.unit + " at each of " + history.length + " snapshots against the " + unit + " number";
    svgText(root, left, 14, m.label + ": " + m.unit).setAttribute("class", "panel-title");
    if (history.length === 0) return root;
    var loops = history.map(function (h) { return h.loops; });
    var lo = Math.log(loops[0] + 1), hi = Math.log(loops[loops.length - 1] + 1);
    function x(loop) {
      if (hi === lo) return left + plotW / 2;
      return left + (Math.log(loop + 1) - lo) / (hi - lo) * plotW;
    }
    var max = 0;
    history.forEach(function (h) { max = Math.max(max, h[m.field]); });
    function y(value) { return top + plotH - (max ? value / max * plotH : 0); }
    var confirming = options.confirmedFrom !== null && options.confirmedFrom !== undefined;
    // Confirmation: the snapshots after the one at which the node became a candidate.
    if (confirming) {
      var from = x(options.confirmedFrom);
      svg("rect", { "class": "confirmation-band", x: from, y: top, width: Math.max(0, left + plotW - from), height: plotH }, root);
      svg("line", { "class": "candidate-line", x1: from, x2: from, y1: top, y2: top + plotH }, root);
    }
    if (options.marker) {
      var at = x(options.marker.loop);
      svg("line", { "class": "candidate-line", x1: at, x2: at, y1: top, y2: top + plotH }, root);
      svgText(root, Math.min(at, left + plotW - 4), top + 10, options.marker.label, "end");
    }
    // Axes, with the loop of each snapshot as a tick.
    svg("line", { "class": "axis", x1: left, x2: left + plotW, y1: top + plotH, y2: top + plotH }, root);
    svg("line", { "class": "axis", x1: left, x2: left, y1: top, y2: top + plotH }, root);
    var lastLabel = -Infinity;
    loops.forEach(function (loop) {
      var tick = x(loop);
      svg("line", { "class": "tick", x1: tick, x2: tick, y1: top + plotH, y2: top + plotH + 4 }, root);
      if (tick - lastLabel >= 26) {
        svgText(root, tick, top + plotH + 15, String(loop), "middle");
        lastLabel = tick;
      }
    });
    svgText(root, left + plotW / 2, height - 4, unit + " (log scale)", "middle");
    [0, 0.5, 1].forEach(function (f) {
      svgText(root, left - 4, top + plotH - f * plotH + 4, axisLabel(m.axis, Math.round(max * f)), "end")
        .setAttribute("class", "y-label");
    });
    var group = svg("g", { "class": "series s-" + name, "data-measure": name }, root);
    var d = history.map(function (h, i) {
      return (i ? "L" : "M") + x(h.loops).toFixed(1) + " " + y(h[m.field]).toFixed(1);
    }).join("");
    svg("path", { "class": "line", d: d }, group);
    history.forEach(function (h) {
      var confirmation = confirming && h.loops > options.confirmedFrom;
      var point = svg("path", {
        "class": "point " + (confirmation ? "confirmation" : "detection"),
        "data-loop": h.loops,
        d: shapePath(m.shape, x(h.loops), y(h[m.field]), options.small ? m.size * 0.75 : m.size)
      }, group);
      var tip = svg("title", {}, point);
      tip.textContent = unit + " " + h.loops + ": " + axisLabel(m.axis, h[m.field]) + " " + m.unit +
        (confirmation ? " (confirmation snapshot)" : "");
    });
    return root;
  }

  // The chart's numbers as a table, folded: the same facts without the picture.
  function valuesTable(history, names, confirmedFrom) {
    var details = el("details", "values");
    details.appendChild(el("summary", "", "Values at each snapshot"));
    var table = el("table");
    var head = el("tr");
    head.appendChild(el("th", "", unit));
    names.forEach(function (name) { head.appendChild(el("th", "", MEASURES[name].label)); });
    if (confirmedFrom !== null && confirmedFrom !== undefined) head.appendChild(el("th", "", "snapshot"));
    table.appendChild(head);
    history.forEach(function (h) {
      var row = el("tr");
      row.appendChild(el("td", "", String(h.loops)));
      names.forEach(function (name) {
        var m = MEASURES[name];
        row.appendChild(el("td", "", axisLabel(m.axis, h[m.field])));
      });
      if (confirmedFrom !== null && confirmedFrom !== undefined) {
        row.appendChild(el("td", "", h.loops > confirmedFrom ? "confirmation" : "detection"));
      }
      table.appendChild(row);
    });
    details.appendChild(table);
    return details;
  }

  // The path from the root group as nested, collapsible steps (shark's layout).
  function pathTree(path, growing) {
    var root = el("div", "path");
    var parent = root;
    path.forEach(function (step, i) {
      var last = i === path.length - 1;
      var details = el("details", last && growing ? "step growing-step" : "step");
      details.open = true;
      var text = (i === 0 ? "" : last ? "╰→" : "├─") + step.text + " (" + step.objects + " objects)";
      details.appendChild(el("summary", "", text + (last && growing ? "  ← grows" : "")));
      parent.appendChild(details);
      parent = details;
    });
    return root;
  }

  function lastStep(path) { return path.length ? path[path.length - 1].text : ""; }

  function growsIn(node) {
    var h = node.history;
    if (!h.length) return "";
    var now = h[h.length - 1], before = h.length > 1 ? h[h.length - 2] : null;
    return node.growth.map(function (kind) {
      var m = MEASURES[kind];
      var value = now[m.field], change = value - (before ? before[m.field] : 0);
      var shown = kind === "bytes"
        ? formatBytes(value) + ", " + sign(change) + " " + formatBytes(Math.abs(change))
        : value + ", " + sign(change) + Math.abs(change);
      return kind + " (" + shown + ")";
    }).join(", ");
  }

  function childLine(child, spread) {
    if (spread && child.new_below !== 0) return child.below + " objects at or below (" + child.new_below + " new): " + child.text;
    if (child.new === 0 && child.new_bytes !== 0) {
      return child.objects + " objects (0 new, " + sign(child.new_bytes) + " " + formatBytes(Math.abs(child.new_bytes)) + "): " + child.text;
    }
    return child.objects + " objects (" + child.new + " new): " + child.text;
  }

  function children(node) {
    var spread = node.growth.indexOf("spread") >= 0;
    var grew = [], unchanged = [];
    node.children.forEach(function (child) {
      var changed = child.new !== 0 || child.new_bytes !== 0 || (spread && child.new_below !== 0);
      (changed ? grew : unchanged).push(childLine(child, spread));
    });
    var box = el("div", "children-box");
    box.appendChild(el("h4", "", "Children that grew"));
    var list = el("ul", "children");
    grew.forEach(function (line) { list.appendChild(el("li", "", line)); });
    if (!grew.length) list.appendChild(el("li", "", "none"));
    box.appendChild(list);
    if (unchanged.length) {
      var more = el("details");
      more.appendChild(el("summary", "", plural(unchanged.length, "unchanged child", "unchanged children")));
      var rest = el("ul", "children");
      unchanged.forEach(function (line) { rest.appendChild(el("li", "", line)); });
      more.appendChild(rest);
      box.appendChild(more);
    }
    return box;
  }

  function codeOf(details) {
    var places = [];
    details.forEach(function (f) {
      var place = f.origin === "jdk" ? "the JDK" : f.origin === "library" ? (f.library || "a library") : "your code";
      if (places.indexOf(place) < 0) places.push(place);
    });
    return places.length > 1 ? places.slice(0, -1).join(", ") + " and " + places[places.length - 1] : places.join("");
  }

  // A stack down to the frame to look at (marked as the text report marks it) and the user's
  // callers after it; the frames in between and after are folded, not dropped.
  function stack(s) {
    var box = el("div", "stack");
    // Stacks folded into this one (the text report's " (2 stacks folded)"): the one shown is
    // the most recorded.
    box.appendChild(el("h4", "", s.headline + (s.folded > 1 ? " (" + s.folded + " stacks folded)" : "")));
    var mark = s.place_to_look;
    var frames = s.frames, details = s.frame_details || [];
    var shown;
    if (mark === null || mark === undefined) {
      shown = Math.min(frames.length, 5);
    } else {
      shown = mark + 1;
      while (shown < frames.length && shown <= mark + 2 && details[shown] && details[shown].origin === "user") shown++;
    }
    var list = el("ol", "frames");
    function frame(i, parent) {
      var li = el("li", i === mark ? "look-here" : "", "at " + frames[i] + (i === mark ? "   ← look here" : ""));
      if (details[i]) li.setAttribute("data-origin", details[i].origin);
      parent.appendChild(li);
    }
    var i = 0;
    while (i < shown) {
      if (i === 1 && mark !== null && mark !== undefined && mark > 4) {
        var folded = el("li", "folded");
        var fold = el("details");
        fold.appendChild(el("summary", "", "… " + (mark - 1) + " frames in " + codeOf(details.slice(1, mark))));
        var inner = el("ol", "frames");
        for (var j = 1; j < mark; j++) frame(j, inner);
        fold.appendChild(inner);
        folded.appendChild(fold);
        list.appendChild(folded);
        i = mark;
        continue;
      }
      frame(i, list);
      i++;
    }
    box.appendChild(list);
    if (shown < frames.length) {
      var more = el("details");
      more.appendChild(el("summary", "", plural(frames.length - shown, "more frame", "more frames")));
      var rest = el("ol", "frames");
      rest.start = shown + 1;
      for (var k = shown; k < frames.length; k++) frame(k, rest);
      more.appendChild(rest);
      box.appendChild(more);
    }
    // The objects' allocation, when the stack is the call that made them reachable.
    var made = s.made_at;
    if (made && made.frames && made.frames.length) {
      var at = made.place_to_look === null || made.place_to_look === undefined ? 0 : made.place_to_look;
      box.appendChild(el("p", "made-at", "made at " + made.frames[at]));
    }
    return box;
  }

  function attribution(a) {
    var box = el("div", "attribution");
    if (a === null || a === undefined) {
      box.appendChild(el("p", "", "Attribution did not run (--no-attribution)."));
      return box;
    }
    if (a.status === "not_attributed") {
      box.appendChild(el("p", "", "Not attributed: " + a.reason));
      return box;
    }
    box.appendChild(el("h4", "", "Where it grows: " + a.kind));
    a.stacks.forEach(function (s) { box.appendChild(stack(s)); });
    (a.hints || []).forEach(function (h) { box.appendChild(el("p", "hint", "Hint: " + h)); });
    a.caveats.forEach(function (c) { box.appendChild(el("p", "", "Note: " + c)); });
    return box;
  }

  function growingNode(node, number, count, id) {
    var article = el("article", "node growing");
    article.id = id;
    article.appendChild(el("h3", "", "Growing node " + number + " of " + count + ": " + lastStep(node.path)));
    article.appendChild(pathTree(node.path, true));
    var facts = el("ul", "facts");
    facts.appendChild(el("li", "", "Grows in: " + growsIn(node)));
    var c = node.confirmed;
    facts.appendChild(el("li", "", c.snapshots === 0
      ? "Not confirmed: a candidate at " + unit + " " + c.to_loop + ", then " + (c.cut || "the search ended")
      : "Confirmed: a new high at each of " + c.snapshots + " snapshots from " + unit + " " +
        c.from_loop + " to " + unit + " " + c.to_loop + (c.cut ? " (stopped early: " + c.cut + ")" : "")));
    var r = node.retained;
    // No change where the snapshot before did not measure it (null).
    var change = function (increase, show) {
      return increase === null ? "" : " (" + sign(increase) + " " + show(Math.abs(increase)) + ")";
    };
    facts.appendChild(el("li", "", "Retained size: " + formatBytes(r.bytes) + change(r.bytes_increase, formatBytes)));
    facts.appendChild(el("li", "", "Retained objects: " + r.objects + change(r.objects_increase, String)));
    article.appendChild(facts);
    article.appendChild(chart(node.history, { growth: node.growth, confirmedFrom: c.from_loop }));
    article.appendChild(children(node));
    article.appendChild(attribution(node.attribution));
    return article;
  }

  function otherPath(kind, heading, item) {
    var article = el("article", "node " + kind);
    article.appendChild(el("h3", "", heading));
    article.appendChild(pathTree(item.path, false));
    var marker = kind === "leveled-off" ? { loop: item.last_growth_loop, label: "last growth" } : null;
    article.appendChild(chart(item.history, { growth: item.growth, confirmedFrom: null, marker: marker, small: true }));
    return article;
  }

  function timings(t, snapshots) {
    var details = el("details", "timings");
    details.appendChild(el("summary", "", "Timings (ms)"));
    var table = el("table");
    var head = el("tr");
    ["phase", "total", "each (one per snapshot and retake; attribution one per growing node)"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    table.appendChild(head);
    ["dump", "parse", "analysis", "attribution"].forEach(function (phase) {
      var values = t[phase] || [];
      var row = el("tr");
      row.appendChild(el("td", "", phase));
      row.appendChild(el("td", "", String(values.reduce(function (a, b) { return a + b; }, 0))));
      row.appendChild(el("td", "", values.join(", ")));
      table.appendChild(row);
    });
    details.appendChild(table);
    return details;
  }

  // The report's own verdict (src/report/verdict.rs): growing, clean, inconclusive (nothing
  // was found to grow, but the search could not judge: verdict_reason says why) or error.
  function verdictOf(s) {
    return s.verdict || (s.error !== undefined ? "error" : s.growing.length ? "growing" : "clean");
  }

  function scenario(s, index) {
    var section = el("section", "scenario");
    section.id = "scenario-" + index;
    var verdict = verdictOf(s);
    section.setAttribute("data-verdict", verdict);
    section.appendChild(el("h2", "", s.scenario));
    // What the loop numbers count: loops of a run, dumps of a diff, snapshots of a watch.
    unit = { dumps: "dump", snapshots: "snapshot" }[s.loop_unit] || "loop";
    var line = el("p", "verdict " + verdict.replace(/ /g, "-"));
    line.appendChild(el("span", "badge", verdict.toUpperCase()));
    if (verdict === "error") {
      line.appendChild(document.createTextNode("the scenario could not be run"));
      section.appendChild(line);
      section.appendChild(el("pre", "mono", s.error));
    } else {
      line.appendChild(document.createTextNode(
        (s.growing.length ? plural(s.growing.length, "growing node", "growing nodes")
          : verdict === "inconclusive" ? "not judged, nothing found to grow" : "no growing objects") +
        (s.loop_unit ? " over " + s.snapshots + " " + s.loop_unit
          : " after " + s.loops + " loops in " + s.snapshots + " snapshots")));
      section.appendChild(line);
      if (s.verdict_reason) section.appendChild(el("p", "", "Not judged: " + s.verdict_reason));
      if (s.not_attributed) section.appendChild(el("p", "", "Not attributed: " + s.not_attributed));
      if (s.settling_cut_short) {
        // As the text report's line (src/report/text.rs, render_settling_cut_short).
        section.appendChild(el("p", "", "Settling cut short before the snapshot at " + unit + " " + s.settling_cut_short[0] +
          (s.settling_cut_short.length > 1 ? " and " + (s.settling_cut_short.length - 1) + " more" : "") +
          ": the scenario's threads were still busy after 2 s, or a timer thread of its did not wake and sleep again within 1.5 s; such a snapshot may hold work still in progress"));
      }
    }
    section.appendChild(timings(s.timings_ms, s.snapshots));
    // Largest retained increase first; the JSON keeps the text report's order.
    var nodes = s.growing.slice().sort(function (a, b) { return (b.retained.bytes_increase || 0) - (a.retained.bytes_increase || 0); });
    nodes.forEach(function (node, i) {
      section.appendChild(growingNode(node, i + 1, nodes.length, "scenario-" + index + "-node-" + (i + 1)));
    });
    if (s.leveled_off.length) {
      var leveled = el("section", "leveled-off");
      leveled.appendChild(el("h3", "", "Leveled off (grew for a while, then no more: not leaks)"));
      s.leveled_off.forEach(function (item) {
        leveled.appendChild(otherPath("leveled-off", "Leveled off after " + unit + " " + item.last_growth_loop + " (grew in " +
          item.growth.join(", ") + " up to that snapshot, then no more; not a leak): " + lastStep(item.path), item));
      });
      section.appendChild(leveled);
    }
    if (s.gone_on_retake) {
      var gone = el("section", "gone-on-retake");
      gone.appendChild(el("h3", "", "Gone when retaken (not growth)"));
      s.gone_on_retake.forEach(function (item) {
        var last = item.history[item.history.length - 1];
        gone.appendChild(otherPath("gone-on-retake", "Gone when retaken (grew in " + item.growth.join(", ") + " to " +
          last.children_objects + " children objects by " + unit + " " + last.loops +
          "; the snapshot taken again after the settler's bound for a timer's tick had " + item.retaken_children_objects +
          ": a structure a background thread empties on its own tick; not growth): " + lastStep(item.path), item));
      });
      section.appendChild(gone);
    }
    if (s.ignored.length) {
      var ignored = el("section", "ignored");
      ignored.appendChild(el("h3", "", "Ignored (kept out of the search by an ignore rule)"));
      s.ignored.forEach(function (item) {
        // As the text report's why_ignored: a built-in rule by its list, the user's by its pattern.
        var why = item.origin.indexOf("known ") === 0 ? item.origin + ": " + item.reason.replace(/^JDK: /, "") : item.pattern + ": " + item.reason;
        ignored.appendChild(otherPath("ignored", "Ignored (" + why + "): " + lastStep(item.path), item));
      });
      section.appendChild(ignored);
    }
    if (s.kept_dumps && s.kept_dumps.length) {
      section.appendChild(el("p", "", "Heap dumps kept (they hold every secret in the heap; delete them when done): " + s.kept_dumps.join(", ")));
    }
    if (s.dumps_not_kept) section.appendChild(el("p", "", "Heap dumps not kept: " + s.dumps_not_kept));
    return section;
  }

  function render(data) {
    var main = document.getElementById("report");
    main.textContent = "";
    main.appendChild(el("h1", "", "heapgrowth report"));
    var counts = { growing: 0, clean: 0, error: 0, inconclusive: 0 };
    data.scenarios.forEach(function (s) { counts[verdictOf(s)]++; });
    var summary = [];
    ["growing", "error", "inconclusive", "clean"].forEach(function (v) { if (counts[v]) summary.push(counts[v] + " " + v); });
    main.appendChild(el("p", "summary", plural(data.scenarios.length, "scenario", "scenarios") + ": " + summary.join(", ")));
    var worst = counts.error ? "ERROR" : counts.growing ? "GROWING" : counts.inconclusive ? "INCONCLUSIVE" : "CLEAN";
    document.title = worst + " · " + document.title;
    data.scenarios.forEach(function (s, i) { main.appendChild(scenario(s, i)); });
  }

  try {
    var start = Date.now();
    render(JSON.parse(document.getElementById("heapgrowth-data").textContent));
    document.body.setAttribute("data-rendered", "true");
    // How long parsing and drawing took, for docs/bench.md.
    document.body.setAttribute("data-draw-ms", String(Date.now() - start));
  } catch (e) {
    failed(e && e.stack ? e.stack : e);
  }
})();
