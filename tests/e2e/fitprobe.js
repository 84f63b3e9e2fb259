/* fitprobe.js — appended to a copy of a blkpeak HTML report by
 * check_report_fits (browser.sh): lists what does not fit the window, one
 * finding a line, in a <pre id="fit-result"> between two marker lines. */
(function () {
  var out = [], W = window.innerWidth, de = document.documentElement;
  function px(v) { return Math.round(v); }
  if (de.scrollWidth > W)
    out.push("page: scrollWidth " + de.scrollWidth + " > innerWidth " + W);
  document.querySelectorAll("table").forEach(function (t, i) {
    var r = t.getBoundingClientRect();
    if (r.right > W + 0.5 || r.left < -0.5)
      out.push("table " + (t.className || i) + ": spans " + px(r.left) + "-" + px(r.right) + " px of " + W);
  });
  document.querySelectorAll("svg").forEach(function (s, i) {
    var sr = s.getBoundingClientRect(), name = (s.closest("figure") || {}).id || ("svg " + i);
    if (sr.right > W + 0.5 || sr.left < -0.5)
      out.push(name + ": spans " + px(sr.left) + "-" + px(sr.right) + " px of " + W);
    s.querySelectorAll("text").forEach(function (t) {
      var r = t.getBoundingClientRect(), own = "", where = t.closest("g.legend") ? "legend" : "text";
      t.childNodes.forEach(function (c) { if (c.nodeType === 3) own += c.nodeValue; });
      if (r.width === 0)
        return;
      if (r.left < sr.left - 0.5 || r.right > sr.right + 0.5 || r.top < sr.top - 0.5 || r.bottom > sr.bottom + 0.5)
        out.push(name + ": " + where + " \"" + own + "\" at " + px(r.left) + "-" + px(r.right) +
                 " outside its svg " + px(sr.left) + "-" + px(sr.right));
      if (/\u2026\s*$/.test(own))
        out.push(name + ": " + where + " cut: \"" + own + "\"");
    });
  });
  var p = document.createElement("pre");
  p.id = "fit-result";
  p.textContent = "FIT-" + "BEGIN\ninnerWidth " + W + "\n" + out.join("\n") + (out.length ? "\n" : "") + "FIT-" + "END";
  document.body.appendChild(p);
})();
