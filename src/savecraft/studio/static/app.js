// The studio page: tabs of open files, the field tree, the hex view, the selected field with its
// editor, the problems list, pictures, and the comparison of two files. Everything shown comes from
// the server's format-neutral views (tree, spans, problems, diff); the page knows no format.

import { ApiError, del, docUrl, el, get, hex, post, upload } from "./api.js";
import { HexView } from "./hex.js";
import { Tree } from "./tree.js";

const $ = (id) => document.getElementById(id);
const studio = (window.studio = { timings: {}, docs: new Map(), current: null, lastSpans: [], busy: 0 });

const tree = new Tree($("tree"), { onSelect: (node) => showField(node) });
const hexView = new HexView($("hex"), { onByteClick: (space, offset) => byteClicked(space, offset) });

function toast(text, ms = 4000) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, ms);
}

async function busy(fn) {
  studio.busy++;
  document.body.classList.add("busy");
  try { return await fn(); }
  catch (err) { toast(err.message || String(err), 8000); throw err; }
  finally { if (--studio.busy === 0) document.body.classList.remove("busy"); }
}

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

// -- documents ---------------------------------------------------------------------------------

function renderTabs() {
  $("tabs").replaceChildren(...[...studio.docs.values()].map((d) =>
    el("span", { class: "tab" },
      el("button", { class: `${d.id === studio.current ? "active" : ""} ${d.dirty ? "dirty" : ""}`, title: `${d.path || d.name} (${d.format})`, dataset: { doc: d.id }, onclick: () => activate(d.id) }, d.name),
      el("button", { class: "close", title: `close ${d.name}`, dataset: { close: d.id }, onclick: () => closeDoc(d.id) }, "×"))));
}

async function closeDoc(docId) {
  const d = studio.docs.get(docId);
  if (d && d.dirty && !window.confirm(`${d.name} has unsaved changes. Close it anyway?`)) return;
  await busy(async () => {
    const response = await del(docUrl(docId, ""));
    if (!response.ok) throw new ApiError(`cannot close ${docId}: ${response.status}`);
    studio.docs.delete(docId);
    if (studio.current === docId) {
      const next = [...studio.docs.keys()][0];
      studio.current = null;
      if (next) await activate(next);
      else {
        for (const id of ["tree", "details", "problems", "pictures"]) $(id).replaceChildren();
        hexView.docId = null;
        hexView.rows.replaceChildren();
      }
    }
    renderTabs();
    renderDocBar();
  });
}

function remember(summary) {
  studio.docs.set(summary.id, summary);
  renderTabs();
  renderDocBar();
}

async function activate(docId) {
  const started = performance.now();
  studio.current = docId;
  renderTabs();
  renderDocBar();
  $("details").replaceChildren(el("p", { class: "hint" }, "Select a field in the tree, or click a byte."));
  await tree.setDoc(docId);
  await frame();
  studio.timings[docId] = { treePaint: performance.now(), fromActivate: performance.now() - started };
  document.body.dataset.treeReady = docId;
  await hexView.setDoc(docId);
  document.body.dataset.hexReady = docId;
  loadProblems(docId);
  loadPictures(docId);
}

async function openPath(path) {
  await busy(async () => {
    const summary = await post("/api/open", { path });
    remember(summary);
    await activate(summary.id);
  });
}

async function openDropped(file) {
  await busy(async () => {
    const summary = await upload(file.name, await file.arrayBuffer());
    remember(summary);
    await activate(summary.id);
  });
}

function renderDocBar() {
  const d = studio.docs.get(studio.current);
  if (!d) { $("doc-bar").replaceChildren(el("span", { class: "hint" }, "Open a file by path, or drop one on the page.")); return; }
  $("doc-bar").replaceChildren(
    el("button", { id: "undo-button", disabled: d.undo === 0, onclick: undo, title: d.history[d.history.length - 1] }, `Undo (${d.undo})`),
    el("button", { id: "save-button", disabled: !d.dirty || !d.path, onclick: save, title: d.path ? `write ${d.path}, keeping ${d.name}.bak` : "dropped files have no path: download instead" }, "Save"),
    el("a", { href: docUrl(d.id, "download"), download: d.name }, "Download"),
    el("span", { class: "info" }, `${d.format} · ${d.size.toLocaleString()} bytes${d.dirty ? " · unsaved changes" : ""}${d.path ? " · " + d.path : ""}`),
  );
}

async function refreshDoc(summary) {
  remember(summary);
  await tree.reload();
  await hexView.refresh();
  loadProblems(summary.id);
}

async function undo() {
  await busy(async () => {
    const answer = await post(docUrl(studio.current, "undo"));
    await refreshDoc(answer.document);
    toast(answer.undone ? "undone" : "nothing to undo");
  });
}

async function save() {
  await busy(async () => {
    const answer = await post(docUrl(studio.current, "save"));
    remember(answer.document);
    toast(`saved ${answer.saved}${answer.backup ? ", the old file kept as " + answer.backup : ""}`);
    document.body.dataset.saved = String(Date.now());
  });
}

// -- the selected field ------------------------------------------------------------------------

async function showField(node) {
  const docId = studio.current;
  const rows = [
    ["path", node.path || "(file)"], ["type", node.type], ["value", node.label || node.value],
  ];
  if (node.ref) rows.push(["refers to", node.ref]);
  if (node.count !== undefined) rows.push(["items", node.count.toLocaleString()]);
  const allowed = el("dd", { id: "field-allowed" }, node.allowed || "");
  const where = el("dd", { id: "field-bytes" }, "…");
  const details = [
    el("dl", {}, rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v ?? ""))]),
      el("dt", {}, "allowed"), allowed, el("dt", {}, "bytes"), where),
  ];
  if (node.text) details.push(el("pre", { class: "text" }, node.text));
  if (node.editable) {
    const input = el("input", { class: "edit", id: "edit-value", value: node.edit ?? "", spellcheck: "false" });
    details.push(el("form", { id: "edit-form", onsubmit: (e) => { e.preventDefault(); applyEdit(node.path, input.value); } },
      input, el("button", { id: "edit-apply" }, "Apply")));
    if (!node.allowed && /^(int|str)\b/.test(node.type)) {
      get(docUrl(docId, "range"), { path: node.path }).then((r) => { if (r.allowed) allowed.textContent = r.allowed; }).catch(() => {});
    }
  }
  details.push(el("div", { id: "edit-outcome" }));
  $("details").replaceChildren(...details);
  const spans = await get(docUrl(docId, "spans"), { path: node.path });
  if (studio.current !== docId || tree.selected !== node.path) return;
  studio.lastSpans = spans;
  if (spans.length) {
    const own = spans[0];
    where.textContent = `${own.space} ${hex(own.offset, 1)}, ${own.length.toLocaleString()} bytes` + (spans.length > 1 ? ` (+${spans.length - 1} parts)` : "");
  } else {
    where.textContent = "not stored as bytes of its own (computed, or inside a stream not opened)";
  }
  await hexView.highlight(spans);
  document.body.dataset.highlighted = node.path;
}

async function byteClicked(space, offset) {
  const answer = await get(docUrl(studio.current, "at"), { space, offset });
  if (!answer.span) { toast(`no field covers ${space} ${hex(offset, 1)}`); return; }
  await tree.reveal(answer.span.tree).catch((err) => toast(err.message));
}

async function applyEdit(path, value) {
  await busy(async () => {
    const out = await post(docUrl(studio.current, "edit"), { path, value });
    const box = el("div", { class: `outcome ${out.accepted ? "ok" : "refused"}`, id: "edit-result", dataset: { accepted: out.accepted } });
    if (out.accepted) {
      box.append(el("div", {}, out.message || "accepted"));
      if (out.diff && out.diff.length) box.append(el("div", {}, "fields changed:"), el("ul", {}, out.diff.map((c) => el("li", {}, c.text))));
      if (out.recomputed && out.recomputed.length) {
        box.append(el("div", {}, "recomputed by the rebuild:"), el("ul", { class: "recomputed" }, out.recomputed.map((r) =>
          el("li", {}, `${r.path}: ${r.old} → ${r.new}`))));
      }
      await refreshDoc(out.document);
    } else {
      box.append(el("div", {}, "refused, nothing changed:"), el("ul", { class: "refusal" }, out.problems.map((p) => el("li", {}, p.text))));
    }
    const holder = $("edit-outcome");
    if (holder) holder.replaceChildren(box);
    else $("details").append(box);
    document.body.dataset.edited = String(Date.now());
  });
}

// -- problems ------------------------------------------------------------------------------------

async function loadProblems(docId) {
  $("problems").replaceChildren(el("p", { class: "hint" }, "validating…"));
  const answer = await get(docUrl(docId, "problems"));
  if (studio.current !== docId) return;
  const items = answer.problems.map((p) => el("div", {
    class: `problem ${p.severity}`, title: "show this field and its bytes",
    onclick: async () => {
      if (p.spans && p.spans.tree) await tree.reveal(p.spans.tree, { notify: false }).catch(() => {});
      if (p.spans && p.spans.offset !== null) await hexView.highlight([{ space: p.spans.space, offset: p.spans.offset, length: Math.max(1, p.spans.length || 1) }]);
    },
  }, p.text));
  $("problems").replaceChildren(...(items.length ? items : [el("p", { class: "ok" }, "valid: validate finds no problem")]),
    ...answer.notes.map((n) => el("p", { class: "hint" }, n)));
  document.body.dataset.problemsReady = docId;
}

// -- pictures ------------------------------------------------------------------------------------

const EAGER_PICTURES = 10;

const animationTimers = [];

async function loadPictures(docId) {
  while (animationTimers.length) clearInterval(animationTimers.pop()); // the previous file's animations
  const list = await get(docUrl(docId, "pictures"));
  if (studio.current !== docId) return;
  $("pictures").replaceChildren(...(list.length ? list.map((p, i) => pictureBox(docId, p, i < EAGER_PICTURES)) : [el("p", { class: "hint" }, "nothing to draw in this file")]));
}

function loadImage(url) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(`cannot draw ${url}`));
    img.src = url;
  });
}

function pictureBox(docId, p, eager) {
  const body = el("div", { class: "picture-body" });
  const box = el("div", { class: "picture", dataset: { name: p.name, kind: p.kind } },
    el("div", { class: "title", title: p.path, onclick: () => tree.reveal(p.path).catch(() => {}) }, p.title), body);
  const show = () => {
    if (box.dataset.shown) return;
    box.dataset.shown = "1";
    if (p.kind === "text") { body.replaceChildren(el("pre", { class: "script" }, p.text)); box.dataset.drawn = "1"; }
    else if (p.kind === "map") drawMap(docId, p, body);
    else if (p.kind === "animation") drawAnimation(docId, p, body);
    else drawImage(docId, p, body);
  };
  if (eager) show();
  else body.append(el("button", { onclick: show }, "show"));
  return box;
}

async function drawImage(docId, p, body) {
  const img = await loadImage(docUrl(docId, `picture/${p.name}`));
  const canvas = el("canvas", { width: img.naturalWidth, height: img.naturalHeight });
  canvas.getContext("2d").drawImage(img, 0, 0);
  body.replaceChildren(canvas, el("div", { class: "hint" }, `${img.naturalWidth} x ${img.naturalHeight}`));
  box_drawn(body);
}

function box_drawn(body) { body.closest(".picture").dataset.drawn = "1"; }

async function drawAnimation(docId, p, body) {
  const frames = await Promise.all(Array.from({ length: p.frames }, (_, k) => loadImage(docUrl(docId, `picture/${p.name}?frame=${k}`))));
  const w = Math.max(...frames.map((f) => f.naturalWidth)), h = Math.max(...frames.map((f) => f.naturalHeight));
  const canvas = el("canvas", { width: w, height: h });
  canvas.style.width = `${Math.min(4 * w, 192)}px`; // CSSOM, not a style attribute: the CSP allows no inline styles
  const ctx = canvas.getContext("2d");
  let k = 0;
  const step = () => { ctx.clearRect(0, 0, w, h); ctx.drawImage(frames[k % frames.length], 0, 0); k++; };
  step();
  if (frames.length > 1) animationTimers.push(setInterval(step, p.frame_ms));
  body.replaceChildren(canvas, el("div", { class: "hint" }, `${frames.length} frame(s), ${w} x ${h}`));
  box_drawn(body);
}

async function drawMap(docId, p, body) {
  const canvas = el("canvas", { class: "map", width: 600, height: 320 });
  const on = new Set(p.layers);
  const scale = Math.min(1, 2048 / Math.max(p.width || 1, p.height || 1));
  const view = { img: null, zoom: 1, x: 0, y: 0 };
  const ctx = canvas.getContext("2d");
  const draw = () => {
    canvas.width = canvas.clientWidth || 600;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    if (!view.img) return;
    ctx.imageSmoothingEnabled = view.zoom < 1;
    ctx.setTransform(view.zoom, 0, 0, view.zoom, view.x, view.y);
    ctx.drawImage(view.img, 0, 0);
  };
  const load = async (fit) => {
    const layers = [...on].sort((a, b) => a - b).join(",");
    view.img = await loadImage(docUrl(docId, `picture/${p.name}?layers=${layers}&scale=${scale}`));
    if (fit) {
      const w = canvas.clientWidth || 600;
      view.zoom = Math.min(w / view.img.naturalWidth, canvas.height / view.img.naturalHeight);
      view.x = (w - view.img.naturalWidth * view.zoom) / 2;
      view.y = (canvas.height - view.img.naturalHeight * view.zoom) / 2;
    }
    draw();
    box_drawn(body);
    const box = body.closest(".picture");
    box.dataset.loads = String(Number(box.dataset.loads || 0) + 1);
  };
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const f = e.deltaY < 0 ? 1.25 : 0.8;
    const r = canvas.getBoundingClientRect();
    const mx = e.clientX - r.left, my = e.clientY - r.top;
    view.x = mx - (mx - view.x) * f;
    view.y = my - (my - view.y) * f;
    view.zoom *= f;
    draw();
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => { drag = { x: e.clientX - view.x, y: e.clientY - view.y }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener("pointermove", (e) => { if (drag) { view.x = e.clientX - drag.x; view.y = e.clientY - drag.y; draw(); } });
  canvas.addEventListener("pointerup", () => { drag = null; });
  const zoomBy = (f) => { const cx = canvas.width / 2, cy = canvas.height / 2; view.x = cx - (cx - view.x) * f; view.y = cy - (cy - view.y) * f; view.zoom *= f; draw(); };
  const toggles = p.layers.map((layer) => el("label", {},
    el("input", { type: "checkbox", checked: true, dataset: { layer }, onchange: (e) => { if (e.target.checked) on.add(layer); else on.delete(layer); load(false); } }),
    ` layer ${layer}`));
  body.replaceChildren(
    el("div", { class: "layers" }, toggles, el("button", { onclick: () => zoomBy(1.25) }, "+"), el("button", { onclick: () => zoomBy(0.8) }, "−"), el("button", { onclick: () => load(true) }, "fit")),
    canvas, el("div", { class: "hint" }, "wheel: zoom · drag: pan"));
  await load(true);
}

// -- comparing -----------------------------------------------------------------------------------

let compareHex = null;

function openCompare() {
  const docs = [...studio.docs.values()];
  if (docs.length < 2) { toast("open two files to compare them"); return; }
  for (const id of ["compare-a", "compare-b"]) {
    $(id).replaceChildren(...docs.map((d) => el("option", { value: d.id }, `${d.name} (${d.id})`)));
  }
  // A: the file in front; B: another file of the same format, else any other.
  const a = studio.docs.get(studio.current) || docs[0];
  const others = docs.filter((d) => d.id !== a.id);
  const b = others.find((d) => d.format === a.format) || others[0];
  $("compare-a").value = a.id;
  $("compare-b").value = b.id;
  $("compare").hidden = false;
  runCompare();
}

async function runCompare() {
  const a = $("compare-a").value, b = $("compare-b").value;
  if (!compareHex) {
    compareHex = [new HexView($("compare-hex-a"), { title: "A" }), new HexView($("compare-hex-b"), { title: "B" })];
  }
  await busy(async () => {
    const [result] = await Promise.all([get("/api/diff", { a, b }), compareHex[0].setDoc(a), compareHex[1].setDoc(b)]);
    $("compare-summary").textContent = result.equal ? "the same data" : result.note || `${result.changes.length} change(s)`;
    const rows = result.changes.map((c) => el("div", {
      class: `change ${c.change}`, dataset: { path: c.path },
      onclick: async (e) => {
        for (const n of $("compare-list").querySelectorAll(".selected")) n.classList.remove("selected");
        e.currentTarget.classList.add("selected");
        await Promise.all([compareHex[0].highlight(c.spans_a), compareHex[1].highlight(c.spans_b)]);
        document.body.dataset.compareShown = c.path;
      },
    }, c.text));
    $("compare-list").replaceChildren(...(rows.length ? rows : [el("p", { class: "hint" }, result.lines.join("\n") || "no differences")]));
    document.body.dataset.compareReady = `${a}:${b}`;
  });
}

// -- start ---------------------------------------------------------------------------------------

$("open-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const path = $("open-path").value.trim();
  if (path) openPath(path);
});
$("compare-button").addEventListener("click", openCompare);
$("compare-run").addEventListener("click", runCompare);
$("compare-close").addEventListener("click", () => { $("compare").hidden = true; });

let dragDepth = 0;
window.addEventListener("dragenter", (e) => { e.preventDefault(); dragDepth++; $("drop-veil").hidden = false; });
window.addEventListener("dragleave", () => { if (--dragDepth <= 0) { dragDepth = 0; $("drop-veil").hidden = true; } });
window.addEventListener("dragover", (e) => e.preventDefault());
window.addEventListener("drop", (e) => {
  e.preventDefault();
  dragDepth = 0;
  $("drop-veil").hidden = true;
  for (const file of e.dataTransfer.files) openDropped(file);
});

studio.openPath = openPath;
studio.activate = activate;

(async () => {
  const docs = await get("/api/docs");
  docs.forEach(remember);
  renderDocBar();
  if (docs.length) await activate(docs[0].id);
  document.body.dataset.ready = "1";
})().catch((err) => {
  const text = err instanceof ApiError ? err.message : String(err);
  $("doc-bar").replaceChildren(el("span", { class: "hint" }, text));
  document.body.dataset.ready = "error";
});
