// The studio page: tabs of open files and three views of the file in front: the Overview (the
// format plugin's summary: a character sheet, a server's players, a game's world), the Fields (tree,
// bytes with an inspector and find, the selected field with its editor, problems) and the Pictures.
// Everything shown comes from the server as data (summary sections, tree, spans, problems, diff);
// the page knows no format.

import { ApiError, del, docUrl, el, get, hex, post, upload } from "./api.js";
import { HexView } from "./hex.js";
import { Tree } from "./tree.js";

const $ = (id) => document.getElementById(id);
const studio = (window.studio = { timings: {}, docs: new Map(), current: null, lastSpans: [], busy: 0, inspections: 0,
  summaries: new Map(), view: null });

const tree = new Tree($("tree"), { onSelect: (node) => showField(node) });
const hexView = new HexView($("hex"), {
  onByteClick: (space, offset) => byteClicked(space, offset),
  onCursor: (space, offset) => inspectByte(space, offset),
  onFirstPaint: (docId) => {
    if (studio.timings[docId] && !studio.timings[docId].bytesPaint) studio.timings[docId].bytesPaint = performance.now();
    document.body.dataset.bytesReady = docId;
  },
});

// An action started by a click or a key: its error is shown (busy() toasts it) and goes no further,
// so a refused request never becomes an uncaught error of the page.
const act = (fn) => (...args) => Promise.resolve().then(() => fn(...args)).catch((err) => {
  if (!(err && err.shown)) toast(err && err.message ? err.message : String(err), 8000);
});

function store(key, value) { try { localStorage.setItem(key, value); } catch { /* private mode */ } }
function stored(key) { try { return localStorage.getItem(key); } catch { return null; } }

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
  catch (err) { toast(err.message || String(err), 8000); if (err && typeof err === "object") err.shown = true; throw err; }
  finally { if (--studio.busy === 0) document.body.classList.remove("busy"); }
}

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

// -- documents ---------------------------------------------------------------------------------

function renderTabs() {
  $("tabs").replaceChildren(...[...studio.docs.values()].map((d) =>
    el("span", { class: "tab" },
      el("button", { class: `${d.id === studio.current ? "active" : ""} ${d.dirty ? "dirty" : ""}`, title: `${d.path || d.name} (${d.format})`, dataset: { doc: d.id }, onclick: act(() => activate(d.id)) }, d.name),
      el("button", { class: "close", title: `close ${d.name}`, "aria-label": `close ${d.name}`, dataset: { close: d.id }, onclick: act(() => closeDoc(d.id)) }, "×"))));
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
        for (const id of ["tree", "details", "problems", "pictures", "overview", "inspector"]) $(id).replaceChildren();
        hexView.docId = null;
        hexView.rows.replaceChildren();
        $("empty").hidden = false;
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
  $("empty").hidden = true;
  renderTabs();
  renderDocBar();
  $("details").replaceChildren(el("p", { class: "hint" }, "Select a field in the tree, or click a byte."));
  $("inspector").replaceChildren(el("p", { class: "hint" }, "Click a byte to read it as every number type."));
  const timing = (studio.timings[docId] = { started });
  $("view-pictures").hidden = true; // until this file's pictures are listed
  // The overview and the tree load side by side; the view the person chose paints first.
  const summary = loadSummary(docId).then(async (answer) => {
    if (studio.current !== docId) return;
    setView(studio.view || stored("savecraft.view") || "overview", { remember: false });
    await frame();
    timing.overviewPaint = performance.now();
    document.body.dataset.overviewReady = docId;
    return answer;
  });
  // Pictures after the overview (it says which it draws itself), not after the bytes.
  summary.catch(() => {}).then(() => loadPictures(docId)).catch(() => {});
  await tree.setDoc(docId);
  await frame();
  timing.treePaint = performance.now();
  timing.fromActivate = timing.treePaint - started;
  document.body.dataset.treeReady = docId;
  // Problems come from validate, which needs no field spans: they load beside the bytes, not after.
  loadProblems(docId).catch((err) => $("problems").replaceChildren(el("p", { class: "hint" }, err.message)));
  await hexView.setDoc(docId);
  timing.hexPaint = performance.now();
  document.body.dataset.hexReady = docId;
}

async function openPath(path) {
  return busy(async () => {
    const summary = await post("/api/open", { path });
    remember(summary);
    await activate(summary.id);
  });
}

async function openDropped(file) {
  return busy(async () => {
    const summary = await upload(file.name, await file.arrayBuffer());
    remember(summary);
    await activate(summary.id);
  });
}

function renderDocBar() {
  const d = studio.docs.get(studio.current);
  if (!d) { $("doc-bar").replaceChildren(el("span", { class: "hint" }, "Open a file by path, or drop one on the page.")); return; }
  $("doc-bar").replaceChildren(
    el("button", { id: "undo-button", disabled: d.undo === 0, onclick: act(undo), title: d.history[d.history.length - 1] }, `Undo (${d.undo})`),
    el("button", { id: "save-button", disabled: !d.dirty || !d.path, onclick: act(save), title: d.path ? `write ${d.path}, keeping ${d.name}.bak` : "dropped files have no path: download instead" }, "Save"),
    el("a", { href: docUrl(d.id, "download"), download: d.name }, "Download"),
    el("span", { class: "info" }, `${d.format} · ${d.size.toLocaleString()} bytes${d.dirty ? " · unsaved changes" : ""}${d.path ? " · " + d.path : ""}`),
  );
}

async function refreshDoc(summary) {
  remember(summary);
  studio.summaries.delete(summary.id);
  await tree.reload();
  await hexView.refresh();
  // Awaited: the caller shows its outcome (an edit's, a patch's) after this, and a refresh landing
  // later would replace the inspector that holds a patch's answer (it vanished, 1 run in 3).
  if (hexView.cursor !== null) await inspectByte(hexView.space, hexView.cursor);
  loadProblems(summary.id).catch(() => {});
  loadSummary(summary.id).catch(() => {});
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
  const rows = [["path", node.path || "(file)"], ["value", node.label || node.value]];
  if (node.shown) rows.push(["shown as", node.shown]);
  if (node.ref) rows.push(["refers to", node.ref]);
  rows.push(["type", node.type]);
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
    details.push(el("form", { id: "edit-form", onsubmit: (e) => { e.preventDefault(); act(applyEdit)(node.path, input.value); } },
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
  const answer = await get(docUrl(studio.current, "at"), { space, offset }).catch((err) => { toast(err.message); return {}; });
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
      setView("fields");
      if (p.spans && p.spans.tree) await tree.reveal(p.spans.tree, { notify: false }).catch(() => {});
      if (p.spans && p.spans.offset !== null) await hexView.highlight([{ space: p.spans.space, offset: p.spans.offset, length: Math.max(1, p.spans.length || 1) }]);
    },
  }, p.text));
  $("problems").replaceChildren(...(items.length ? items : [el("p", { class: "ok" }, "valid: validate finds no problem")]),
    ...answer.notes.map((n) => el("p", { class: "hint" }, n)));
  if (studio.timings[docId] && !studio.timings[docId].problemsPaint) studio.timings[docId].problemsPaint = performance.now();
  document.body.dataset.problemsReady = docId;
}

// -- overview: the format plugin's summary, laid out ---------------------------------------------

async function loadSummary(docId) {
  let answer = studio.summaries.get(docId);
  if (!answer) {
    answer = await get(docUrl(docId, "summary")).catch((err) => ({ available: false, error: err.message }));
    studio.summaries.set(docId, answer);
  }
  if (studio.current === docId) renderOverview(docId, answer);
  return answer;
}

// Go to a field: the Fields view, the tree opened down to it, its bytes highlighted.
async function goToField(path) {
  setView("fields");
  await tree.reveal(path);
}

function linked(text, path, attrs = {}) {
  return path ? el("span", { class: "linked", title: `${path}: show in the field tree`, dataset: { path }, onclick: act(() => goToField(path)), ...attrs }, text)
    : el("span", attrs, text);
}

function renderOverview(docId, answer) {
  const d = studio.docs.get(docId) || {};
  $("view-overview").hidden = !answer.available;
  if (!answer.available) {
    $("overview").replaceChildren(el("div", { class: "masthead" }, el("h1", {}, d.name || "file"),
      el("span", { class: "subtitle" }, answer.error || `${d.format}: no overview for this format, the field tree shows everything`)));
    if (studio.view === "overview") setView("fields", { remember: false });
    return;
  }
  const cards = answer.sections.map((section) => {
    const body = el("div", { class: "card-body" });
    const wide = section.kind === "maps" || (section.kind === "table" && (section.total > 8 || section.columns.length > 5))
      || (section.kind === "list" && section.items.length > 12);
    const card = el("section", { class: `card ${wide ? "wide" : ""}`, dataset: { kind: section.kind, section: section.id || section.title } },
      el("h2", {}, section.title, section.note ? el("span", { class: "note" }, section.note) : null), body);
    if (section.kind === "facts") {
      body.append(el("dl", { class: "facts" }, section.items.flatMap((f) => [
        el("dt", {}, f.label),
        el("dd", {}, linked(f.value, f.path), f.allowed ? el("span", { class: "allowed", title: "what the game allows" }, f.allowed) : null)])));
    } else if (section.kind === "list") {
      const items = section.items.map((it) => el("li", {}, it.label ? el("span", { class: "label" }, it.label) : null, linked(it.text, it.path)));
      if (section.search) {
        const input = el("input", { type: "search", placeholder: `filter ${section.items.length.toLocaleString()}…`, "aria-label": `filter ${section.title}` });
        input.addEventListener("input", () => {
          const q = input.value.trim().toLowerCase();
          items.forEach((li) => { li.hidden = q !== "" && !li.textContent.toLowerCase().includes(q); });
        });
        body.append(el("div", { class: "list-tools" }, input));
      }
      body.append(el("ul", { class: "items" }, items));
    } else if (section.kind === "table") {
      body.append(summaryTable(docId, section));
    } else if (section.kind === "maps") {
      body.append(...section.maps.map((m) => pictureBox(docId, { ...m, kind: "map" }, true)));
    } else if (section.kind === "pictures") {
      body.append(...section.names.map((name) => pictureBox(docId, { name, kind: "image", title: name, path: name === "preview" ? "preview.image" : "" }, true)));
    }
    return card;
  });
  $("overview").replaceChildren(
    el("div", { class: "masthead" }, el("h1", { id: "overview-title" }, answer.title), el("span", { class: "subtitle" }, answer.subtitle),
      el("button", { class: "to-fields", onclick: () => setView("fields") }, "Field tree →")),
    el("div", { class: "cards" }, cards));
}

// A summary table: sortable by any column, searchable, a page of rows at a time (the server sorts
// and filters, so 50,000 players cost one page of DOM).
function summaryTable(docId, section) {
  const state = { sort: "", desc: false, q: "", start: 0, total: section.total };
  const head = el("tr", {}, section.columns.map((c) => el("th", {
    class: `sortable ${c.type === "number" || c.type === "id" ? "number" : ""}`, dataset: { key: c.key }, tabindex: 0, title: `sort by ${c.label}`,
    onclick: act(() => { state.desc = state.sort === c.key ? !state.desc : false; state.sort = c.key; state.start = 0; return load(); }),
    onkeydown: (e) => { if (e.key === "Enter") e.currentTarget.click(); },
  }, c.label)));
  const tbody = el("tbody");
  const status = el("span", { class: "pager-status" });
  const prev = el("button", { class: "prev", onclick: act(() => { state.start = Math.max(0, state.start - 100); return load(); }) }, "← Previous");
  const next = el("button", { class: "next", onclick: act(() => { state.start += 100; return load(); }) }, "Next →");
  const search = el("input", { type: "search", class: "table-search", placeholder: `search ${section.total.toLocaleString()} rows…`, "aria-label": `search ${section.title}` });
  let timer = null;
  search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(act(() => { state.q = search.value.trim(); state.start = 0; return load(); }), 180); });
  const wrap = el("div", { class: "table-wrap" }, el("table", { class: "data", dataset: { table: section.id } }, el("thead", {}, head), tbody));
  const fill = (page) => {
    tbody.replaceChildren(...page.rows.map((r) => el("tr", { dataset: { path: r.path }, title: `${r.path}: show in the field tree`, onclick: act(() => goToField(r.path)) },
      r.cells.map((v, i) => {
        const type = section.columns[i].type;  // "id": a number that is a name (a sprite id), not a quantity
        return el("td", { class: type === "number" || type === "id" ? "number" : "" }, type === "number" && typeof v === "number" ? v.toLocaleString() : String(v ?? ""));
      }))));
    state.total = page.total;
    const end = Math.min(page.total, page.start + page.rows.length);
    status.textContent = page.total ? `${(page.start + 1).toLocaleString()}–${end.toLocaleString()} of ${page.total.toLocaleString()}` : "no match";
    prev.disabled = page.start === 0;
    next.disabled = end >= page.total;
    for (const th of head.children) {
      if (th.dataset.key === state.sort) th.setAttribute("aria-sort", state.desc ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    }
    wrap.dataset.loaded = String(Date.now());
  };
  const load = async () => {
    const page = await get(docUrl(docId, "table"), { id: section.id, sort: state.sort, desc: state.desc ? 1 : 0, q: state.q, start: state.start });
    if (page.query === state.q) fill(page);
  };
  fill({ rows: section.rows, total: section.total, start: 0, query: "" });
  return el("div", {}, section.search || section.total > 100 ? el("div", { class: "table-tools" }, search) : null, wrap,
    section.total > 100 || section.search ? el("div", { class: "pager" }, prev, next, status) : null);
}

// -- the byte under the cursor: inspector, raw patch, find ----------------------------------------

async function inspectByte(space, offset) {
  const docId = studio.current;
  const answer = await get(docUrl(docId, "inspect"), { space, offset }).catch((err) => ({ error: err.message }));
  if (studio.current !== docId || hexView.cursor !== offset) return;
  if (answer.error) { $("inspector").replaceChildren(el("p", { class: "hint" }, answer.error)); return; }
  const rows = answer.values.map((v) => el("tr", {}, el("td", {}, v.type), el("td", {}, String(v.le)), el("td", {}, String(v.be))));
  const parts = [
    el("dl", {}, el("dt", {}, "at"), el("dd", { class: "mono" }, `${space} ${hex(offset, 1)} (${offset.toLocaleString()})`),
      el("dt", {}, "bytes"), el("dd", { class: "mono" }, answer.bytes),
      el("dt", {}, "text"), el("dd", { class: "mono", id: "inspect-text" }, JSON.stringify(answer.text))),
    el("table", { id: "inspect-table" }, el("thead", {}, el("tr", {}, el("th", {}, "type"), el("th", {}, "little endian"), el("th", {}, "big endian"))), el("tbody", {}, rows)),
  ];
  if (space === "file") {
    // The outcome of a patch at this byte stays when the inspector is drawn again for it.
    const at = `${docId}:${offset}`;
    const kept = $("patch-outcome");
    const outcome = kept && kept.dataset.at === at ? kept : el("div", { id: "patch-outcome", dataset: { at } });
    const input = el("input", { id: "patch-value", value: answer.bytes.split(" ").slice(0, 4).join(" "), spellcheck: "false", "aria-label": "new bytes in hex" });
    parts.push(el("form", { id: "patch-form", title: "overwrite bytes here; the edited file must still read, else nothing changes",
      onsubmit: (e) => { e.preventDefault(); act(applyPatch)(offset, input.value); } },
    input, el("button", { id: "patch-apply" }, "Overwrite")), outcome);
  } else {
    parts.push(el("p", { class: "hint" }, "Bytes of an inflated stream are changed through its fields."));
  }
  $("inspector").replaceChildren(...parts);
  document.body.dataset.inspected = `${space}:${offset}`;
  document.body.dataset.inspections = String(++studio.inspections);
}

async function applyPatch(offset, text) {
  await busy(async () => {
    const out = await post(docUrl(studio.current, "patch"), { offset, hex: text.replace(/[^0-9a-fA-F]/g, "") });
    const box = el("div", { class: `outcome ${out.accepted ? "ok" : "refused"}`, id: "patch-result", dataset: { accepted: out.accepted } },
      el("div", {}, out.message), out.problems.length ? el("ul", {}, out.problems.map((p) => el("li", {}, p.text))) : null);
    if (out.accepted) await refreshDoc(out.document);
    const holder = $("patch-outcome");
    if (holder) holder.replaceChildren(box); else $("inspector").append(box);
    document.body.dataset.patched = String(Date.now());
  });
}

const finder = { kind: el("select", { class: "find-kind", "aria-label": "find what" }, el("option", { value: "text" }, "text"), el("option", { value: "bytes" }, "hex bytes"), el("option", { value: "value" }, "field value")),
  input: el("input", { type: "search", class: "find-input", id: "find-input", placeholder: "Find… (/)", "aria-label": "find", spellcheck: "false" }),
  next: 0, last: "" };
hexView.bar.append(el("form", { class: "findbar", role: "search", onsubmit: (e) => { e.preventDefault(); act(findNext)(); } },
  finder.kind, finder.input, el("button", { id: "find-next" }, "Find")));

async function findNext() {
  const q = finder.input.value.trim();
  if (!q) return;
  const key = `${finder.kind.value}:${q}:${hexView.space}`;
  if (key !== finder.last) { finder.last = key; finder.next = 0; }
  const kind = finder.kind.value;
  const answer = await get(docUrl(studio.current, "find"), { kind, q, space: hexView.space, start: finder.next });
  if (kind === "value") {
    if (!answer.path) { toast(answer.note || "no match"); finder.next = 0; return; }
    finder.next = answer.index + 1;
    await tree.reveal(answer.path);
    document.body.dataset.found = answer.path;
    return;
  }
  if (answer.offset === null) { toast(`not found in ${hexView.space}`); return; }
  if (answer.wrapped) toast("wrapped to the start");
  finder.next = answer.offset + 1;
  await hexView.highlight([{ space: answer.space, offset: answer.offset, length: answer.length }]);
  hexView.setCursor(answer.offset, { scroll: false });
  document.body.dataset.found = `${answer.space}:${answer.offset}`;
}

// -- pictures ------------------------------------------------------------------------------------

const EAGER_PICTURES = 10;

const animationTimers = [];

async function loadPictures(docId) {
  while (animationTimers.length) clearInterval(animationTimers.pop()); // the previous file's animations
  const list = await get(docUrl(docId, "pictures"));
  if (studio.current !== docId) return;
  // What the overview already draws (a game's maps, a save's preview) is not drawn twice.
  const summary = studio.summaries.get(docId) || {};
  const shown = new Set((summary.sections || []).flatMap((s) => s.kind === "maps" ? s.maps.map((m) => m.name) : s.kind === "pictures" ? s.names : []));
  const rest = list.filter((p) => !shown.has(p.name));
  $("view-pictures").hidden = rest.length === 0;
  if (studio.view === "pictures" && !rest.length) setView("fields", { remember: false });
  $("pictures").replaceChildren(...(rest.length ? rest.map((p, i) => pictureBox(docId, p, i < EAGER_PICTURES)) : [el("p", { class: "hint" }, "nothing more to draw in this file")]));
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
    el("div", { class: "title", title: p.path ? `${p.path}: show in the field tree` : "", onclick: act(() => p.path && goToField(p.path)) }, p.title), body);
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
  // Layers by name when the overview names them ({id, name}), else by number.
  const layers = (p.layers || []).map((l) => (typeof l === "object" ? l : { id: l, name: `layer ${l}` }));
  const on = new Set(layers.map((l) => l.id));
  const scale = Math.min(1, 2048 / Math.max(p.width || 1, p.height || 1));
  const view = { img: null, zoom: 1, x: 0, y: 0 };
  const ctx = canvas.getContext("2d");
  const draw = () => {
    canvas.width = canvas.clientWidth || 600;
    canvas.height = canvas.clientHeight || 320;
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
      const w = canvas.clientWidth || 600, h = canvas.clientHeight || 320;
      view.zoom = Math.min(w / view.img.naturalWidth, h / view.img.naturalHeight);
      view.x = (w - view.img.naturalWidth * view.zoom) / 2;
      view.y = (h - view.img.naturalHeight * view.zoom) / 2;
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
  const toggles = layers.map((layer) => el("label", { title: `layer ${layer.id}` },
    el("input", { type: "checkbox", checked: true, dataset: { layer: layer.id }, onchange: (e) => { if (e.target.checked) on.add(layer.id); else on.delete(layer.id); act(load)(false); } }),
    layer.name));
  new ResizeObserver(() => draw()).observe(canvas);
  body.replaceChildren(
    el("div", { class: "layers" }, toggles, el("span", { class: "zoom" }, el("button", { onclick: () => zoomBy(1.25), title: "zoom in" }, "+"), el("button", { onclick: () => zoomBy(0.8), title: "zoom out" }, "−"), el("button", { onclick: act(() => load(true)) }, "fit"))),
    canvas, el("div", { class: "hint" }, `${p.width || "?"} x ${p.height || "?"} px · wheel: zoom · drag: pan`));
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

// -- a field across several files: the timeline ---------------------------------------------------

// SVG's namespace, as the HTML parser gives it (the page names no address, not even this one).
const SVG = (() => { const box = document.createElement("div"); box.innerHTML = "<svg></svg>"; return box.firstChild.namespaceURI; })();
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function timelineDocs() {
  return [...$("timeline-files").querySelectorAll("input:checked")].map((i) => i.value);
}

// The files offered: every open file, those of the format in front (or of `format`) ticked.
function renderTimelineFiles(format) {
  const current = studio.docs.get(studio.current);
  const wanted = format || (current ? current.format : null);
  $("timeline-files").replaceChildren(...[...studio.docs.values()].map((d) => el("label", { class: "timeline-file", title: d.path || d.name },
    el("input", { type: "checkbox", value: d.id, checked: d.format === wanted, dataset: { doc: d.id }, onchange: act(refreshTimeline) }), ` ${d.name}`)));
}

async function openTimeline() {
  renderTimelineFiles();
  if (tree.selected && !$("timeline-path").value) $("timeline-path").value = tree.selected;
  $("timeline").hidden = false;
  if (!studio.docs.size) { toast("open some files, or a folder of saves, first"); return; }
  await refreshTimeline();
}

async function refreshTimeline() {
  const docs = timelineDocs();
  if (!docs.length) {
    $("timeline-fields").replaceChildren(el("p", { class: "hint" }, "tick the files to follow"));
    return;
  }
  await busy(async () => {
    const answer = await get("/api/timeline/fields", { docs: docs.join(",") });
    $("timeline-count").textContent = `${answer.fields.length.toLocaleString()}${answer.more ? "+" : ""}`;
    $("timeline-fields").replaceChildren(...(answer.fields.length ? answer.fields.map((f) => el("div", {
      class: "change", dataset: { path: f.path }, title: f.shown.join(" → "),
      onclick: act(() => { $("timeline-path").value = f.path; return showTimeline(); }),
    }, f.path, el("span", { class: "note" }, `  ${f.shown.join(" → ")}`))) : [el("p", { class: "hint" }, docs.length > 1 ? "no field changes across these files" : "tick two files or more")]));
    document.body.dataset.timelineFields = String(answer.fields.length);
  });
  if ($("timeline-path").value.trim()) await showTimeline();
}

async function showTimeline() {
  const path = $("timeline-path").value.trim();
  const docs = timelineDocs();
  if (!path || !docs.length) return;
  await busy(async () => {
    const answer = await get("/api/timeline/values", { docs: docs.join(","), path, from: studio.current || "" });
    for (const row of $("timeline-fields").querySelectorAll(".change")) row.classList.toggle("selected", row.dataset.path === path);
    $("timeline-title").classList.remove("hint");
    $("timeline-title").textContent = answer.followed === answer.path ? answer.path : `${answer.path}, followed as ${answer.followed}`;
    $("timeline-chart").replaceChildren(answer.numeric ? timelineChart(answer.points) : el("p", { class: "hint" }, "not a number: the values are in the table"));
    let previous = null;
    const rows = answer.points.map((p, i) => {
      let change = "", cls = "";
      if (p.number !== null && previous !== null && previous.number !== null) {
        const d = p.number - previous.number;
        change = d === 0 ? "=" : `${d > 0 ? "+" : "−"}${Math.abs(d).toLocaleString()}`;
        cls = d > 0 ? "number up" : d < 0 ? "number down" : "number";
      } else if (previous !== null) {
        change = p.shown === previous.shown ? "=" : "changed";
      }
      previous = p;
      return el("tr", { dataset: { doc: p.doc, present: p.present }, title: p.at ? `${p.name}: show ${p.at} in the field tree` : `${p.name} has no such field`,
        onclick: act(async () => { if (!p.at) return; $("timeline").hidden = true; await activate(p.doc); await goToField(p.at); }) },
      el("td", { class: "number" }, String(i + 1)), el("td", {}, p.name),
      el("td", { class: p.number !== null ? "number" : "" }, p.number !== null ? p.number.toLocaleString() : p.shown), el("td", { class: cls }, change));
    });
    $("timeline-table").replaceChildren(el("thead", {}, el("tr", {}, el("th", { class: "number" }, "#"), el("th", {}, "file"), el("th", {}, "value"), el("th", {}, "change"))),
      el("tbody", {}, rows));
    document.body.dataset.timelineReady = answer.path;
  });
}

// The values as a line over the files (in order); a file without the field is a hollow mark on the axis.
function timelineChart(points) {
  const W = 720, H = 240, L = 84, R = 16, T = 14, B = 30;
  const numbers = points.filter((p) => p.number !== null).map((p) => p.number);
  let lo = Math.min(...numbers), hi = Math.max(...numbers);
  if (lo === hi) { lo -= 1; hi += 1; }
  const x = (i) => L + (points.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (points.length - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "the field's value in each file" },
    svg("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }), svg("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }),
    svg("text", { class: "grid-label", x: L - 6, y: y(hi) + 4, "text-anchor": "end" }, hi.toLocaleString()),
    svg("text", { class: "grid-label", x: L - 6, y: y(lo) + 4, "text-anchor": "end" }, lo.toLocaleString()));
  let run = [];
  const flush = () => { if (run.length > 1) chart.append(svg("polyline", { class: "line", points: run.join(" ") })); run = []; };
  points.forEach((p, i) => {
    chart.append(svg("text", { class: "grid-label", x: x(i), y: H - B + 16, "text-anchor": "middle" }, String(i + 1)));
    if (p.number === null) { flush(); return; }
    run.push(`${x(i)},${y(p.number)}`);
  });
  flush();
  points.forEach((p, i) => {
    const mark = p.number === null
      ? svg("circle", { class: "point absent", cx: x(i), cy: H - B, r: 4, "data-doc": p.doc }, svg("title", {}, `${p.name}: ${p.shown}`))
      : svg("circle", { class: "point", cx: x(i), cy: y(p.number), r: 4.5, "data-doc": p.doc }, svg("title", {}, `${p.name}: ${p.number.toLocaleString()}`));
    chart.append(mark);
  });
  return chart;
}

async function openFolder(path) {
  await busy(async () => {
    const answer = await post("/api/open-folder", { path });
    answer.opened.forEach(remember);
    if (!answer.opened.length) { toast(`no file of a known format in ${path}`); return; }
    if (!studio.current) await activate(answer.opened[0].id);
    renderTimelineFiles(answer.opened[0].format);
    for (const input of $("timeline-files").querySelectorAll("input")) input.checked = answer.opened.some((d) => d.id === input.value);
    toast(`opened ${answer.opened.length} file(s) from ${path}` + (answer.skipped ? `; ${answer.skipped} skipped (not of a known format)` : ""));
  });
  await refreshTimeline();
}

// -- start ---------------------------------------------------------------------------------------

// -- views, theme, keys ---------------------------------------------------------------------------

function setView(view, { remember = true } = {}) {
  const button = $(`view-${view}`);
  if (!button || button.hidden) view = "fields";
  studio.view = view;
  if (remember) store("savecraft.view", view);
  $("workspace").dataset.view = view;
  for (const b of $("views").querySelectorAll("button")) b.setAttribute("aria-selected", String(b.dataset.view === view));
  document.body.dataset.view = view;
  if (view === "fields") hexView.schedule();
}

const THEMES = ["system", "light", "dark"];
function applyTheme(theme) {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $("theme-button").title = `theme: ${theme === "system" ? "follows the system" : theme} (key t)`;
  $("theme-button").textContent = theme === "light" ? "☀" : theme === "dark" ? "☾" : "◐";
  document.body.dataset.theme = theme;
}
function cycleTheme() {
  const now = stored("savecraft.theme") || "system";
  const next = THEMES[(THEMES.indexOf(now) + 1) % THEMES.length];
  store("savecraft.theme", next);
  applyTheme(next);
}
applyTheme(stored("savecraft.theme") || "system");

function typing(target) {
  return target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
}

// Keys are handled synchronously (so preventDefault works: "/" is not typed into the find box, an
// arrow does not also scroll the tree); the work they start runs through act().
const TREE_KEYS = new Set(["ArrowDown", "ArrowUp", "ArrowLeft", "ArrowRight", "Home", "End", "Enter", " "]);
window.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "Escape") {
    if (!$("compare").hidden) $("compare").hidden = true;
    if (!$("timeline").hidden) $("timeline").hidden = true;
    if (typing(e.target)) e.target.blur();
    return;
  }
  if (typing(e.target)) return;
  if (e.target.closest && e.target.closest(".tree") && studio.view === "fields" && TREE_KEYS.has(e.key)) {
    e.preventDefault();
    act(() => tree.key(e))();
    return;
  }
  const views = { 1: "overview", 2: "fields", 3: "pictures" };
  if (views[e.key]) { e.preventDefault(); setView(views[e.key]); }
  else if (e.key === "/") { e.preventDefault(); setView("fields"); finder.input.focus(); finder.input.select(); }
  else if (e.key === "t") cycleTheme();
  else if (e.key === "?") $("keys").showModal();
});

for (const b of $("views").querySelectorAll("button")) b.addEventListener("click", () => setView(b.dataset.view));
$("theme-button").addEventListener("click", cycleTheme);
$("keys-button").addEventListener("click", () => $("keys").showModal());
$("tree").addEventListener("focus", () => { if (!tree.selected) { const first = tree.visibleRows()[0]; if (first) tree.select(first.dataset.path); } });

$("open-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const path = $("open-path").value.trim();
  if (path) act(openPath)(path);
});
$("compare-button").addEventListener("click", act(openCompare));
$("compare-run").addEventListener("click", act(runCompare));
$("compare-close").addEventListener("click", () => { $("compare").hidden = true; });
$("timeline-button").addEventListener("click", act(openTimeline));
$("timeline-close").addEventListener("click", () => { $("timeline").hidden = true; });
$("timeline-form").addEventListener("submit", (e) => { e.preventDefault(); act(showTimeline)(); });
$("timeline-folder-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const path = $("timeline-folder").value.trim();
  if (path) act(openFolder)(path);
});

let dragDepth = 0;
window.addEventListener("dragenter", (e) => { e.preventDefault(); dragDepth++; $("drop-veil").hidden = false; });
window.addEventListener("dragleave", () => { if (--dragDepth <= 0) { dragDepth = 0; $("drop-veil").hidden = true; } });
window.addEventListener("dragover", (e) => e.preventDefault());
window.addEventListener("drop", (e) => {
  e.preventDefault();
  dragDepth = 0;
  $("drop-veil").hidden = true;
  for (const file of e.dataTransfer.files) act(openDropped)(file);
});

studio.openPath = openPath;
studio.activate = activate;
studio.setView = setView;
studio.openTimeline = openTimeline;

(async () => {
  setView(stored("savecraft.view") || "overview", { remember: false });
  const docs = await get("/api/docs");
  docs.forEach(remember);
  renderDocBar();
  $("empty").hidden = docs.length > 0;
  if (docs.length) await activate(docs[0].id);
  document.body.dataset.ready = "1";
})().catch((err) => {
  const text = err instanceof ApiError ? err.message : String(err);
  $("doc-bar").replaceChildren(el("span", { class: "hint" }, text));
  document.body.dataset.ready = "error";
});
