// Opening a record's page is reading its discussion: move the read mark with a POST, so
// that the GET which rendered the page stays free of side effects.
(function () {
  var panel = document.getElementById("discussion");
  if (!panel) return;
  var token = panel.querySelector("input[name=csrfmiddlewaretoken]");
  if (!token) return;
  var body = new URLSearchParams({ op: "read", next: panel.dataset.next });
  fetch(panel.dataset.readUrl, {
    method: "POST",
    credentials: "same-origin",
    headers: { "X-CSRFToken": token.value, "Content-Type": "application/x-www-form-urlencoded" },
    body: body.toString(),
    redirect: "manual",
  });
})();
