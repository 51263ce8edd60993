// Requests to the studio's server. The access token travels in a same-site cookie set when the
// page was opened with ?token=..., so every call here is a plain same-origin fetch.

export class ApiError extends Error {
  constructor(message, body) {
    super(message);
    this.body = body || {};
  }
}

async function check(response) {
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await response.json() : null;
  if (!response.ok) {
    throw new ApiError((body && body.error) || `${response.status} ${response.statusText}`, body);
  }
  return body;
}

export async function get(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  return check(await fetch(query ? `${path}?${query}` : path, { credentials: "same-origin" }));
}

export async function post(path, body = {}) {
  return check(await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }));
}

export async function upload(name, bytes) {
  return check(await fetch("/api/open", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/octet-stream", "X-Filename": encodeURIComponent(name) },
    body: bytes,
  }));
}

export function docUrl(docId, what) {
  return `/api/doc/${encodeURIComponent(docId)}/${what}`;
}

// A small element builder: el("div", {class: "x", onclick: f}, child, "text", ...).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function hex(n, width = 8) {
  return "0x" + n.toString(16).toUpperCase().padStart(width, "0");
}
