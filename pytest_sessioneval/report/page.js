(function () {
  "use strict";
  // Draws the session table from the page's JSON data, 100 rows to a page, and filters it.
  // Every value is set as text, never as markup. The address may preselect the filters:
  // report.html#status=fail&dimension=gate-health&q=text&page=2
  var PER_PAGE = 100;
  var BADGES = {"pass": "s-pass", "fail": "s-fail", "not-applicable": "s-na", "cannot-determine": "s-cd"};
  var source = document.getElementById("session-data");
  if (!source) { return; }
  var data = JSON.parse(source.textContent);

  function element(tag, className, content) {
    var made = document.createElement(tag);
    if (className) { made.className = className; }
    if (content !== undefined && content !== null) { made.textContent = content; }
    return made;
  }

  function heading(names) {
    var head = element("thead");
    var line = element("tr");
    names.forEach(function (name) {
      var th = element("th", name[1], name[0]);
      th.scope = "col";
      if (name[2]) { th.setAttribute("data-dimension", name[2]); }
      line.appendChild(th);
    });
    head.appendChild(line);
    return head;
  }

  function place(row) { // a record's file and line; the whole path on hover when shown short
    var where = data.sources[row[1]];
    var span = element("span", "where", where[0] + ":" + row[2]);
    if (where[1] !== null) { span.title = where[1] + ":" + row[2]; }
    return span;
  }

  // Previous, "Page x of y (rows a-b)", Next, in ``nav``; ``turn(page)`` draws another page.
  function pager(nav, total, page, turn) {
    var last = Math.max(0, Math.ceil(total / PER_PAGE) - 1);
    nav.textContent = "";
    nav.hidden = last === 0;
    if (last === 0) { return; }
    var back = element("button", "", "Previous");
    back.type = "button";
    back.disabled = page === 0;
    back.addEventListener("click", function () { turn(page - 1); });
    var next = element("button", "", "Next");
    next.type = "button";
    next.disabled = page === last;
    next.addEventListener("click", function () { turn(page + 1); });
    nav.appendChild(back);
    nav.appendChild(element("span", "page-of", "Page " + (page + 1) + " of " + (last + 1) +
      " (rows " + (page * PER_PAGE + 1) + "\u2013" + Math.min(total, (page + 1) * PER_PAGE) + ")"));
    nav.appendChild(next);
  }

  var skipped = document.getElementById("not-scored-table");
  var skippedPages = document.getElementById("not-scored-pages");
  function drawSkipped(page) {
    var body = element("tbody");
    var end = Math.min(data.skipped.length, (page + 1) * PER_PAGE);
    for (var k = page * PER_PAGE; k < end; k += 1) {
      var row = data.skipped[k];
      var tr = element("tr");
      var sid = element("th", "sid", row[0]);
      sid.scope = "row";
      tr.appendChild(sid);
      var where = element("td");
      where.appendChild(place(row));
      tr.appendChild(where);
      tr.appendChild(element("td", "", data.reasons[row[3]]));
      body.appendChild(tr);
    }
    skipped.textContent = "";
    skipped.appendChild(heading([["Session"], ["Record"], ["Reason"]]));
    skipped.appendChild(body);
    pager(skippedPages, data.skipped.length, page, drawSkipped);
  }
  if (skipped && skippedPages) { drawSkipped(0); }

  var form = document.getElementById("filters");
  var table = document.getElementById("sessions");
  var pages = document.getElementById("pages");
  if (!form || !table || !pages) { return; }
  var columns = data.columns;
  var rows = data.rows;
  var verdicts = data.verdicts;
  var text = document.getElementById("filter-text");
  var status = document.getElementById("filter-status");
  var dimension = document.getElementById("filter-dimension");
  var count = document.getElementById("filter-count");
  var requested = {};
  data.requested.forEach(function (entry) { requested[entry[0]] = entry[1]; });
  var page = 0;
  var haystacks = null; // each row's searchable text, lowercased, made at the first search

  function choose(select, value) {
    for (var i = 0; i < select.options.length; i += 1) {
      if (select.options[i].value === value) { select.value = value; return; }
    }
  }

  function haystack(row) {
    var where = data.sources[row[1]];
    var parts = [row[0], where[0] + ":" + row[2], where[1] || ""];
    for (var i = 0; i < columns.length; i += 1) {
      var ref = row[4 + i];
      if (ref >= 0 && verdicts[ref][1] !== null) { parts.push(verdicts[ref][1]); }
    }
    return parts.join("\n").toLowerCase();
  }

  function matching() {
    var needle = text.value.trim().toLowerCase();
    var wanted = status.value;
    var only = columns.indexOf(dimension.value);
    if (needle !== "" && haystacks === null) { haystacks = rows.map(haystack); }
    var found = [];
    for (var r = 0; r < rows.length; r += 1) {
      if (needle !== "" && haystacks[r].indexOf(needle) === -1) { continue; }
      if (wanted !== "") {
        var hit = false;
        for (var i = 0; i < columns.length && !hit; i += 1) {
          var ref = rows[r][4 + i];
          hit = (only === -1 || only === i) && ref >= 0 && verdicts[ref][0] === wanted;
        }
        if (!hit) { continue; }
      }
      found.push(r);
    }
    return found;
  }

  function verdictCell(name, ref, open) {
    var cell = element("td", "verdict");
    cell.setAttribute("data-dimension", name);
    if (ref < 0) {
      cell.setAttribute("data-status", "");
      cell.textContent = "\u2014";
      return cell;
    }
    var verdict = verdicts[ref];
    cell.setAttribute("data-status", verdict[0]);
    var known = Object.prototype.hasOwnProperty.call(BADGES, verdict[0]);
    var head = element("span", "badge " + (known ? BADGES[verdict[0]] : "s-other"), verdict[0]);
    var score = verdict[2] ? element("span", "score", verdict[2]) : null;
    if (verdict[1] === null) {
      cell.appendChild(head);
      if (score) { cell.appendChild(document.createTextNode(" ")); cell.appendChild(score); }
      return cell;
    }
    var details = element("details");
    var summary = element("summary");
    summary.title = verdict[1];
    summary.appendChild(head);
    if (score) { summary.appendChild(document.createTextNode(" ")); summary.appendChild(score); }
    details.appendChild(summary);
    details.appendChild(element("p", "evidence", verdict[1]));
    details.open = open;
    cell.appendChild(details);
    return cell;
  }

  function draw(found) {
    var only = columns.indexOf(dimension.value);
    var wanted = status.value;
    var shown = [];
    for (var i = 0; i < columns.length; i += 1) {
      if (only === -1 || only === i) { shown.push(i); }
    }
    var head = heading([["Session and record", "sid-col"], ["Started", "when-col"]].concat(
      shown.map(function (i) { return [columns[i], "verdict-col", columns[i]]; })));
    var body = element("tbody");
    var end = Math.min(found.length, (page + 1) * PER_PAGE);
    for (var k = page * PER_PAGE; k < end; k += 1) {
      var index = found[k];
      var row = rows[index];
      var tr = element("tr");
      var sid = element("th", "sid", row[0]);
      sid.scope = "row";
      sid.appendChild(place(row));
      if (Object.prototype.hasOwnProperty.call(requested, index)) {
        var asked = element("span", "requested", "scored on request");
        asked.title = requested[index];
        sid.appendChild(asked);
      }
      tr.appendChild(sid);
      tr.appendChild(element("td", "when", row[3] === null ? "\u2014" : row[3]));
      shown.forEach(function (i) {
        var ref = row[4 + i];
        tr.appendChild(verdictCell(columns[i], ref, wanted !== "" && ref >= 0 && verdicts[ref][0] === wanted));
      });
      body.appendChild(tr);
    }
    table.textContent = "";
    table.appendChild(head);
    table.appendChild(body);
  }

  function apply(fromStart) {
    var found = matching();
    var last = Math.max(0, Math.ceil(found.length / PER_PAGE) - 1);
    if (fromStart) { page = 0; }
    page = Math.min(Math.max(page, 0), last);
    draw(found);
    pager(pages, found.length, page, function (turned) { page = turned; apply(false); });
    count.textContent = "Showing " + found.length + " of " + rows.length + " sessions";
  }

  var initial = new URLSearchParams(window.location.hash.slice(1));
  text.value = initial.get("q") || "";
  choose(status, initial.get("status") || "");
  choose(dimension, initial.get("dimension") || "");
  page = Math.max(0, (parseInt(initial.get("page") || "1", 10) || 1) - 1);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  text.addEventListener("input", function () { apply(true); });
  status.addEventListener("change", function () { apply(true); });
  dimension.addEventListener("change", function () { apply(true); });
  form.hidden = false;
  apply(false);
  if (window.performance && performance.mark) { performance.mark("sessions-drawn"); }
})();
