// The hex view: one byte space (the file, or an inflated stream) drawn 16 bytes a row, only the rows
// in sight, from pages fetched on demand. Each byte is tinted by the innermost field that covers it
// (its path in the tooltip); the selected field's bytes are highlighted; clicking a byte asks the
// owner which field it belongs to.

import { docUrl, el, get, hex } from "./api.js";

const ROW = 16;
const PAGE = 4096;
const ROW_HEIGHT = 18;
const MAX_SCROLL = 8_000_000; // px: browsers cap element heights, so huge spaces scroll scaled

export class HexView {
  constructor(root, { onByteClick = null, onCursor = null, onFirstPaint = null, title = "" } = {}) {
    this.onFirstPaint = onFirstPaint; // the file's bytes are on screen (before the spans tint them)
    this.root = root;
    this.onByteClick = onByteClick;
    this.onCursor = onCursor; // the byte under the cursor moved (a click, or the arrow keys)
    this.cursor = null;
    this.docId = null;
    this.space = "file";
    this.size = 0;
    this.pages = new Map();
    this.selected = [];
    this.spaceSelect = el("select", { class: "hex-space", title: "byte space", onchange: () => this.show(this.spaceSelect.value, 0) });
    this.goto = el("input", { class: "hex-goto", placeholder: "offset", size: 10, title: "go to an offset (hex 0x.. or decimal)" });
    this.goto.addEventListener("keydown", (e) => { if (e.key === "Enter") this.scrollTo(Number(this.goto.value.trim()) || 0); });
    this.status = el("span", { class: "hex-status" });
    this.viewport = el("div", { class: "hex-viewport", tabindex: 0 });
    this.spacer = el("div", { class: "hex-spacer" });
    this.rows = el("div", { class: "hex-rows" });
    this.viewport.append(this.spacer, this.rows);
    this.viewport.addEventListener("scroll", () => this.schedule());
    this.rows.addEventListener("click", (e) => this.clicked(e));
    this.viewport.addEventListener("keydown", (e) => this.key(e));
    this.bar = el("div", { class: "hex-bar" }, title ? el("b", {}, title) : null, this.spaceSelect, this.goto, this.status);
    root.replaceChildren(this.bar, this.viewport);
    new ResizeObserver(() => this.schedule()).observe(this.viewport);
  }

  // The file's bytes are painted at once, untinted (they need no field spans); the spaces list and
  // the tinted pages follow when the server has recorded the spans (seconds on a huge save).
  async setDoc(docId) {
    this.docId = docId;
    this.pages.clear();
    this.selected = [];
    this.space = "file";
    this.spaces = null;
    this.cursor = null;
    const quick = await get(docUrl(docId, "bytes"), { offset: 0, length: PAGE });
    if (this.docId !== docId) return;
    this.size = quick.size;
    this.spaceSelect.replaceChildren(el("option", { value: "file" }, `file (${quick.size.toLocaleString()} bytes)`));
    this.spacer.style.height = `${Math.min(this.totalRows() * ROW_HEIGHT, MAX_SCROLL)}px`;
    this.viewport.scrollTop = 0;
    const untinted = (index) => get(docUrl(docId, "bytes"), { offset: index * PAGE, length: PAGE }).then((p) => preparePage(p));
    this.quickPages = untinted;
    this.pages.set("file:0", Promise.resolve(preparePage(quick)));
    await this.render();
    this.firstPaint = performance.now();
    if (this.onFirstPaint) this.onFirstPaint(docId);
    await this.loadSpaces();
    if (this.docId !== docId) return;
    this.quickPages = null;
    this.pages.clear();
    await this.show(this.space, this.firstOffset());
  }

  async refresh() {
    if (!this.docId) return;
    this.pages.clear();
    await this.loadSpaces();
    await this.show(this.space, this.firstOffset());
  }

  async loadSpaces() {
    const spaces = await get(docUrl(this.docId, "spaces"));
    this.spaces = new Map(spaces.map((s) => [s.name, s]));
    this.spaceSelect.replaceChildren(...spaces.map((s) =>
      el("option", { value: s.name }, `${s.name} (${s.length.toLocaleString()} bytes)`)));
    this.spaceSelect.value = this.space;
  }

  async show(space, offset = 0) {
    if (!this.spaces || !this.spaces.has(space)) await this.loadSpaces();
    if (!this.spaces.has(space)) space = "file";
    if (space !== this.space) { this.pages.clear(); this.cursor = null; }
    this.space = space;
    this.spaceSelect.value = space;
    this.size = this.spaces.get(space).length;
    const rows = Math.ceil(this.size / ROW) || 1;
    this.spacer.style.height = `${Math.min(rows * ROW_HEIGHT, MAX_SCROLL)}px`;
    this.scrollTo(offset);
    await this.render();
  }

  totalRows() { return Math.ceil(this.size / ROW) || 1; }
  visibleRows() { return Math.ceil(this.viewport.clientHeight / ROW_HEIGHT) + 1; }

  firstRow() {
    const rows = this.totalRows();
    const full = rows * ROW_HEIGHT;
    if (full <= MAX_SCROLL) return Math.floor(this.viewport.scrollTop / ROW_HEIGHT);
    const range = Math.max(1, MAX_SCROLL - this.viewport.clientHeight);
    return Math.floor((this.viewport.scrollTop / range) * Math.max(0, rows - this.visibleRows()));
  }

  firstOffset() { return this.firstRow() * ROW; }

  scrollTo(offset) {
    const row = Math.floor(Math.max(0, Math.min(offset, this.size - 1)) / ROW);
    const rows = this.totalRows();
    if (rows * ROW_HEIGHT <= MAX_SCROLL) {
      this.viewport.scrollTop = Math.max(0, row * ROW_HEIGHT - 2 * ROW_HEIGHT);
    } else {
      const range = Math.max(1, MAX_SCROLL - this.viewport.clientHeight);
      this.viewport.scrollTop = (row / Math.max(1, rows - this.visibleRows())) * range;
    }
    this.schedule();
  }

  schedule() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = null; this.render(); });
  }

  async page(index) {
    const key = `${this.space}:${index}`;
    let page = this.pages.get(key);
    if (!page) {
      page = this.quickPages && this.space === "file" ? this.quickPages(index)
        : get(docUrl(this.docId, "hex"), { space: this.space, offset: index * PAGE, length: PAGE }).then((p) => preparePage(p));
      this.pages.set(key, page);
    }
    return page;
  }

  async render() {
    if (!this.docId) return;
    const first = this.firstRow();
    const count = this.visibleRows();
    const start = first * ROW;
    const end = Math.min(this.size, (first + count) * ROW);
    const pageIndexes = [];
    for (let p = Math.floor(start / PAGE); p * PAGE < Math.max(end, start + 1); p++) pageIndexes.push(p);
    const pages = await Promise.all(pageIndexes.map((p) => this.page(p)));
    if (this.firstRow() !== first) return this.schedule(); // scrolled on while loading
    const top = this.totalRows() * ROW_HEIGHT <= MAX_SCROLL ? first * ROW_HEIGHT : this.viewport.scrollTop;
    this.rows.style.transform = `translateY(${top}px)`;
    const selected = this.selected.filter((s) => s.space === this.space);
    const lines = [];
    for (let r = first; r < first + count && r * ROW < this.size; r++) {
      const cells = [];
      const text = [];
      for (let c = 0; c < ROW; c++) {
        const offset = r * ROW + c;
        if (offset >= this.size) break;
        const page = pages[Math.floor(offset / PAGE) - pageIndexes[0]];
        const i = offset - page.offset;
        const byte = page.bytes[i];
        const owner = page.owner[i];
        const span = owner >= 0 ? page.spans[owner] : null;
        let cls = span ? (owner % 2 ? "b f1" : "b f0") : "b";
        if (selected.some((s) => offset >= s.offset && offset < s.offset + s.length)) cls += " sel";
        if (offset === this.cursor) cls += " cur";
        const attrs = { class: cls, dataset: { o: offset } };
        if (span) attrs.title = `${span.path}  (${hex(span.offset, 1)}, ${span.length} bytes)`;
        cells.push(el("span", attrs, byte.toString(16).padStart(2, "0")));
        text.push(el("span", { class: cls.replace("b", "t"), dataset: { o: offset } }, byte >= 32 && byte < 127 ? String.fromCharCode(byte) : "."));
      }
      lines.push(el("div", { class: "hex-row" }, el("span", { class: "hex-off" }, hex(r * ROW)), el("span", { class: "hex-bytes" }, cells), el("span", { class: "hex-text" }, text)));
    }
    this.rows.replaceChildren(...lines);
    this.status.textContent = `${this.space}: ${hex(start)} of ${this.size.toLocaleString()} bytes`;
  }

  clicked(event) {
    const target = event.target.closest("[data-o]");
    if (!target) return;
    this.setCursor(Number(target.dataset.o), { scroll: false });
    this.viewport.focus({ preventScroll: true });
    if (this.onByteClick) this.onByteClick(this.space, Number(target.dataset.o));
  }

  setCursor(offset, { scroll = true } = {}) {
    this.cursor = Math.max(0, Math.min(this.size - 1, offset));
    if (scroll) {
      const first = this.firstOffset(), last = first + (this.visibleRows() - 2) * ROW;
      if (this.cursor < first || this.cursor >= last) this.scrollTo(this.cursor);
    }
    this.schedule();
    if (this.onCursor) this.onCursor(this.space, this.cursor);
  }

  // Arrow keys move the cursor byte (a row up or down, a byte left or right); Enter selects its field.
  key(event) {
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -ROW, ArrowDown: ROW, PageUp: -ROW * 16, PageDown: ROW * 16 };
    if (event.key in moves) {
      event.preventDefault();
      this.setCursor((this.cursor ?? this.firstOffset()) + moves[event.key]);
    } else if (event.key === "Enter" && this.cursor !== null && this.onByteClick) {
      event.preventDefault();
      this.onByteClick(this.space, this.cursor);
    }
  }

  // Highlight spans [{space, offset, length}] and bring the first into sight.
  async highlight(spans, { scroll = true } = {}) {
    this.selected = spans || [];
    if (scroll && this.selected.length) {
      const first = this.selected.find((s) => s.space === this.space) || this.selected[0];
      if (first.space !== this.space) await this.show(first.space, first.offset);
      else this.scrollTo(first.offset);
    }
    await this.render();
  }

  selectedOffsets() {
    return [...this.rows.querySelectorAll(".b.sel")].map((n) => Number(n.dataset.o));
  }
}

// Bytes as an array, and for each byte the index of the innermost span that covers it.
function preparePage(p) {
  const bytes = new Uint8Array(p.hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(p.hex.substr(2 * i, 2), 16);
  const owner = new Int32Array(bytes.length).fill(-1);
  const ownerLength = new Float64Array(bytes.length).fill(Infinity);
  const spans = p.spans.slice().sort((a, b) => a.offset - b.offset || b.length - a.length);
  spans.forEach((s, k) => {
    const from = Math.max(s.offset, p.offset) - p.offset;
    const to = Math.min(s.offset + Math.max(s.length, 1), p.offset + bytes.length) - p.offset;
    for (let i = from; i < to; i++) {
      if (s.length <= ownerLength[i]) { owner[i] = k; ownerLength[i] = s.length; }
    }
  });
  return { offset: p.offset, bytes, owner, spans };
}
