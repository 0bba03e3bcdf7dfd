// dynemu dashboard: refreshes the page's content every 3 s while "refresh" is ticked, and
// advances a virtual clock through the admin API (a JSON POST, with the admin token if given).
"use strict";
(function () {
  async function refresh() {
    const live = document.getElementById("live");
    if (!live || !live.checked) return;
    try {
      const resp = await fetch(location.href, { headers: { Accept: "text/html" }, cache: "no-store" });
      if (!resp.ok) return;
      const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
      for (const sel of ["#content", ".clock-now"]) {
        const fresh = doc.querySelector(sel), old = document.querySelector(sel);
        if (fresh && old) old.replaceWith(fresh);
      }
    } catch (e) { /* the server went away: try again later */ }
  }
  async function advance(seconds) {
    const headers = { "Content-Type": "application/json" };
    const token = document.getElementById("token");
    if (token && token.value) headers["Authorization"] = "Bearer " + token.value;
    const resp = await fetch("/_dynemu/clock", { method: "POST", headers, body: JSON.stringify({ advance: seconds }) });
    if (!resp.ok) {
      const status = document.getElementById("clock-status");
      if (status) status.textContent = "the clock did not move: " + resp.status + " " + (await resp.text());
    }
    const live = document.getElementById("live");
    const was = live && live.checked;
    if (live) live.checked = true;
    await refresh();
    if (live) live.checked = was;
  }
  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-advance]");
    if (b) advance(Number(b.dataset.advance));
  });
  setInterval(refresh, 3000);
})();
