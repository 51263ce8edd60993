// The field tree: one level at a time, lists a page at a time (so a save with 50,000 players shows
// its first players at once). Nodes are found by field path; reveal(path) opens every level down to
// a field the page was pointed at from elsewhere (a clicked byte, a problem, a diff line).

import { docUrl, el, get } from "./api.js";

export class Tree {
  constructor(root, { onSelect = null } = {}) {
    this.root = root;
    this.onSelect = onSelect;
    this.docId = null;
    this.nodes = new Map(); // path -> {element, data, kids}
    this.selected = null;
    this.expanded = new Set();
  }

  async setDoc(docId) {
    this.docId = docId;
    this.selected = null;
    this.expanded = new Set([""]);
    await this.load();
  }

  async load() {
    const top = await get(docUrl(this.docId, "tree"), { path: "" });
    this.nodes.clear();
    const kids = el("div", { class: "kids" });
    this.root.replaceChildren(kids);
    this.nodes.set("", { element: this.root, data: top, kids });
    this.fill("", top);
  }

  // After an edit or an undo: the same fields, new values; open levels stay open.
  async reload() {
    const keep = [...this.expanded].filter((p) => p !== "").sort((a, b) => a.length - b.length);
    const selected = this.selected;
    await this.load();
    for (const path of keep) {
      if (this.nodes.has(path)) await this.expand(path).catch(() => {});
    }
    if (selected) await this.reveal(selected).catch(() => {});
  }

  // A row reads as a person names things: the field, its value (or an item's own name), the value as
  // the game shows it (a date, 18/100), what a reference points at. Type names are in the details.
  makeNode(n) {
    const leaf = n.kind === "leaf";
    const toggle = el("span", { class: "toggle", "aria-hidden": "true" }, leaf ? "" : "▸");
    const many = n.kind === "list" || n.kind === "map" || n.kind === "array";
    const row = el("div", { class: "row", role: "treeitem", dataset: { path: n.path }, title: n.path || "(file)" },
      toggle,
      el("span", { class: "name" }, n.name),
      leaf ? el("span", { class: "value" }, n.value || "")
        : many ? el("span", { class: "count value" }, `${(n.count ?? 0).toLocaleString()} items`)
        : el("span", { class: "label value" }, n.label || n.value || ""),
      n.shown ? el("span", { class: "shown" }, n.shown) : null,
      n.ref ? el("span", { class: "ref" }, `→ ${n.ref}`) : null);
    const kids = el("div", { class: "kids", hidden: true });
    const element = el("div", { class: `node ${leaf ? "leaf" : "branch"}` }, row, kids);
    toggle.addEventListener("click", (e) => { e.stopPropagation(); this.toggle(n.path); });
    row.addEventListener("click", () => {
      this.select(n.path);
      const holder = this.nodes.get(n.path);
      if (!leaf && holder && (holder.kids.hidden || !holder.loaded)) this.expand(n.path);
    });
    this.nodes.set(n.path, { element, data: n, kids, toggle });
    return element;
  }

  // Put one page of children under `path`, with buttons for the pages before and after it.
  fill(path, page, { append = false } = {}) {
    const holder = this.nodes.get(path);
    const items = page.children.map((c) => this.makeNode(c));
    const end = page.start + page.children.length;
    const more = end < page.total
      ? el("button", { class: "more", onclick: async (e) => {
          e.target.disabled = true;
          const next = await get(docUrl(this.docId, "tree"), { path, start: end });
          e.target.remove();
          this.fill(path, next, { append: true });
        } }, `show ${Math.min(200, page.total - end)} more of ${page.total.toLocaleString()}`)
      : null;
    const before = !append && page.start > 0
      ? el("button", { class: "more", onclick: async () => {
          const prev = await get(docUrl(this.docId, "tree"), { path, start: Math.max(0, page.start - 200) });
          this.fill(path, prev);
        } }, `show items before ${page.start.toLocaleString()}`)
      : null;
    if (append) holder.kids.append(...items, ...(more ? [more] : []));
    else holder.kids.replaceChildren(...(before ? [before] : []), ...items, ...(more ? [more] : []));
    holder.kids.hidden = false;
    holder.loaded = true;
    if (holder.toggle) holder.toggle.textContent = "▾";
    this.expanded.add(path);
  }

  async expand(path) {
    const holder = this.nodes.get(path);
    if (!holder) return;
    if (holder.loaded) {
      holder.kids.hidden = false;
      if (holder.toggle) holder.toggle.textContent = "▾";
      this.expanded.add(path);
      return;
    }
    this.fill(path, await get(docUrl(this.docId, "tree"), { path }));
  }

  async toggle(path) {
    const holder = this.nodes.get(path);
    if (!holder || holder.data.kind === "leaf") return;
    if (!holder.kids.hidden && holder.loaded) {
      holder.kids.hidden = true;
      holder.toggle.textContent = "▸";
      this.expanded.delete(path);
    } else {
      await this.expand(path);
    }
  }

  select(path, { notify = true } = {}) {
    const holder = this.nodes.get(path);
    const row = holder && holder.element.querySelector(":scope > .row");
    if (!row) return false; // the top, or bytes with no field of their own (a checksum the model computes)
    for (const old of this.root.querySelectorAll(".row.selected")) old.classList.remove("selected");
    row.classList.add("selected");
    row.scrollIntoView({ block: "nearest" });
    this.selected = path;
    if (notify && this.onSelect) this.onSelect(holder.data);
    return true;
  }

  // Keyboard: the rows in sight, in order, and moves between them (arrows, Home/End, Enter).
  visibleRows() {
    return [...this.root.querySelectorAll(".row")].filter((r) => r.offsetParent !== null);
  }

  async key(event) {
    const rows = this.visibleRows();
    if (!rows.length) return false;
    const at = rows.findIndex((r) => r.dataset.path === this.selected);
    const go = (i) => { const r = rows[Math.max(0, Math.min(rows.length - 1, i))]; this.select(r.dataset.path); };
    const holder = this.nodes.get(this.selected);
    const branch = holder && holder.data.kind !== "leaf";
    const open = branch && holder.loaded && !holder.kids.hidden;
    switch (event.key) {
      case "ArrowDown": go(at < 0 ? 0 : at + 1); return true;
      case "ArrowUp": go(at < 0 ? 0 : at - 1); return true;
      case "Home": go(0); return true;
      case "End": go(rows.length - 1); return true;
      case "ArrowRight":
        if (branch && !open) await this.expand(this.selected);
        else if (open) go(at + 1);
        return true;
      case "ArrowLeft":
        if (open) { await this.toggle(this.selected); return true; }
        if (holder) {
          const parent = holder.element.parentElement && holder.element.parentElement.closest(".node");
          const row = parent && parent.querySelector(":scope > .row");
          if (row) this.select(row.dataset.path);
        }
        return true;
      case "Enter": case " ":
        if (branch) await this.toggle(this.selected);
        return true;
      default: return false;
    }
  }

  // Open every level down to `path` (the server says which page holds each step), then select it.
  async reveal(path, { notify = true } = {}) {
    const answer = await get(docUrl(this.docId, "reveal"), { path });
    for (const level of answer.levels) {
      const holder = this.nodes.get(level.path);
      if (!holder) break;
      const next = answer.levels[answer.levels.indexOf(level) + 1];
      const stepPath = next ? next.path : answer.path;
      if (!holder.loaded || !this.nodes.has(stepPath)) this.fill(level.path, level);
      else { holder.kids.hidden = false; if (holder.toggle) holder.toggle.textContent = "▾"; this.expanded.add(level.path); }
    }
    return this.select(answer.path, { notify });
  }
}
