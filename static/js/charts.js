// Draws every <figure data-chart> of a page with the vendored Chart.js. The figure already
// holds its text alternative and a table, so a page without this script loses nothing.
(function () {
  "use strict";
  if (typeof Chart === "undefined") return;
  var css = getComputedStyle(document.documentElement);
  function color(name) { return css.getPropertyValue(name).trim(); }
  // Eight colours; past eight series a line is also dashed, so ten shops stay apart.
  var palette = [1, 2, 3, 4, 5, 6, 7, 8].map(function (n) { return color("--chart-" + n); });
  var ink = color("--ink"), grid = color("--chart-grid"), bad = color("--bad");
  Chart.defaults.color = ink;
  Chart.defaults.borderColor = grid;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  window.omniumCharts = window.omniumCharts || {};

  function dataset(series, i, kind) {
    var base = palette[i % palette.length];
    var marks = {};
    series.marks.forEach(function (m) { marks[m] = true; });
    var ds = {
      label: series.label,
      data: series.values,
      borderColor: base,
      backgroundColor: base,
      spanGaps: false,
    };
    if (kind === "line") {
      ds.tension = 0;
      ds.borderWidth = 2;
      ds.borderDash = Math.floor(i / palette.length) % 2 ? [6, 3] : [];
      ds.pointRadius = series.values.map(function (_, j) { return marks[j] ? 5 : 0; });
      ds.pointHoverRadius = 5;
      ds.pointBackgroundColor = series.values.map(function (_, j) { return marks[j] ? bad : base; });
      ds.pointStyle = series.values.map(function (_, j) { return marks[j] ? "rectRot" : "circle"; });
    } else {
      ds.backgroundColor = series.values.map(function (_, j) { return marks[j] ? bad : base; });
      ds.borderWidth = 0;
    }
    ds.omniumNotes = series.notes;
    return ds;
  }

  function draw(figure) {
    var key = figure.getAttribute("data-chart");
    var specNode = document.getElementById("chart-spec-" + key);
    var canvas = figure.querySelector("canvas");
    if (!specNode || !canvas) return;
    var spec = JSON.parse(specNode.textContent);
    var horizontal = spec.kind === "bar" && spec.horizontal;
    var chart = new Chart(canvas, {
      type: spec.kind,
      data: {
        labels: spec.labels,
        datasets: spec.series.map(function (s, i) { return dataset(s, i, spec.kind); }),
      },
      options: Object.assign({
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        indexAxis: horizontal ? "y" : "x",
        interaction: { mode: "index", intersect: false },
        plugins: {
          legend: { display: spec.series.length > 1 },
          title: { display: false },
          tooltip: {
            callbacks: {
              afterLabel: function (item) {
                var notes = item.dataset.omniumNotes || [];
                return notes[item.dataIndex] || "";
              },
            },
          },
        },
        scales: {
          x: { stacked: spec.stacked, title: { display: !!spec.x_label, text: horizontal ? spec.y_label : spec.x_label } },
          y: { stacked: spec.stacked, beginAtZero: true, title: { display: !!spec.y_label, text: horizontal ? spec.x_label : spec.y_label } },
        },
      }, spec.options || {}),
    });
    window.omniumCharts[key] = chart;
  }

  document.querySelectorAll("figure[data-chart]").forEach(draw);
})();
