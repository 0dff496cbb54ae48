
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var table = document.getElementById("sessions");
  if (!form || !table) { return; }
  var text = document.getElementById("filter-text");
  var status = document.getElementById("filter-status");
  var dimension = document.getElementById("filter-dimension");
  var count = document.getElementById("filter-count");
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  // Hovering a verdict shows its evidence: the page holds each evidence text once.
  Array.prototype.forEach.call(table.querySelectorAll("td.verdict details"), function (verdict) {
    var evidence = verdict.querySelector(".evidence");
    if (evidence) { verdict.querySelector("summary").title = evidence.textContent; }
  });
  var columns = Array.prototype.slice.call(table.querySelectorAll("[data-dimension]"));

  function choose(select, value) {
    for (var i = 0; i < select.options.length; i += 1) {
      if (select.options[i].value === value) { select.value = value; return; }
    }
  }

  function apply() {
    var needle = text.value.trim().toLowerCase();
    var wanted = status.value;
    var only = dimension.value;
    var shown = 0;
    columns.forEach(function (cell) {
      cell.hidden = only !== "" && cell.getAttribute("data-dimension") !== only;
    });
    rows.forEach(function (row) {
      var keep = needle === "" || row.textContent.toLowerCase().indexOf(needle) !== -1;
      if (keep && wanted !== "") {
        keep = Array.prototype.some.call(row.querySelectorAll("td[data-dimension]"), function (cell) {
          return (only === "" || cell.getAttribute("data-dimension") === only) &&
            cell.getAttribute("data-status") === wanted;
        });
      }
      row.hidden = !keep;
      if (keep) { shown += 1; }
    });
    count.textContent = "Showing " + shown + " of " + rows.length + " sessions";
  }

  var initial = new URLSearchParams(window.location.hash.slice(1));
  text.value = initial.get("q") || "";
  choose(status, initial.get("status") || "");
  choose(dimension, initial.get("dimension") || "");
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  text.addEventListener("input", apply);
  status.addEventListener("change", apply);
  dimension.addEventListener("change", apply);
  form.hidden = false;
  apply();
})();
