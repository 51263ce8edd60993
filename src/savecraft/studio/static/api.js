// Requests to the studio's server. The page is opened with ?token=... (from the address the studio
// printed, or the private redirect file it gave the browser); the token is kept in sessionStorage,
// which belongs to this origin alone (port included), and taken out of the address bar. Every API
// call carries it: in the X-Savecraft-Token header, or in the address for what the browser itself
// fetches (pictures, the download link). The studio's cookie only opens the page's own files.

const TOKEN_KEY = "savecraft-studio-token";
const HEADER = "X-Savecraft-Token";

function takeToken() {
  const found = new URLSearchParams(location.search).get("token");
  if (found) {
    sessionStorage.setItem(TOKEN_KEY, found);
    history.replaceState(null, "", location.pathname + location.hash);
  }
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

const TOKEN = takeToken();

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

// The address of an API call: the given parameters added, the token left to the header.
function apiUrl(path, params = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  url.searchParams.delete("token");
  return url.pathname + url.search;
}

export async function get(path, params = {}) {
  return check(await fetch(apiUrl(path, params), { credentials: "same-origin", headers: { [HEADER]: TOKEN } }));
}

export async function post(path, body = {}) {
  return check(await fetch(apiUrl(path), {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", [HEADER]: TOKEN },
    body: JSON.stringify(body),
  }));
}

// DELETE: the raw response (the caller words its own error).
export async function del(path) {
  return fetch(apiUrl(path), { method: "DELETE", credentials: "same-origin", headers: { [HEADER]: TOKEN } });
}

export async function upload(name, bytes) {
  return check(await fetch("/api/open", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/octet-stream", "X-Filename": encodeURIComponent(name), [HEADER]: TOKEN },
    body: bytes,
  }));
}

// A document's address; one the browser fetches by itself (an <img>, a download link) carries the
// token in its query, since no header can be added there.
export function docUrl(docId, what) {
  const [path, query] = what.split("?", 2);
  const base = `/api/doc/${encodeURIComponent(docId)}` + (path ? `/${path}` : "");
  const params = new URLSearchParams(query || "");
  params.set("token", TOKEN);
  return `${base}?${params}`;
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
