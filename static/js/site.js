// The header's collapsible menu on narrow screens.
(function () {
  "use strict";
  var toggle = document.querySelector(".menu-toggle");
  var menu = document.getElementById("site-menu");
  if (!toggle || !menu) return;
  toggle.addEventListener("click", function () {
    var open = menu.classList.toggle("open");
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  });
})();

// Charts: the chart library loads only on pages that hold a chart.
(function () {
  "use strict";
  if (!document.querySelector("figure[data-chart]")) return;
  var body = document.body;
  function load(src, then) {
    var s = document.createElement("script");
    s.src = src;
    s.onload = then;
    document.head.appendChild(s);
  }
  load(body.getAttribute("data-chart-lib"), function () {
    load(body.getAttribute("data-chart-js"), function () {});
  });
})();
