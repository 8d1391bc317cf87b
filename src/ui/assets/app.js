// SkillHub's page: routing, the token prompt, live updates. Read-only: it only GETs /ui/api/*.
// Views live in views-skills.js and views-hub.js; the building blocks (and the escaping rules) in dom.js.
import { ASK_TOKEN, announce, api, HttpError, h, isCurrent, nextRender, show, TOKEN_KEY } from "./dom.js";
import { renderStatus, renderTrees, renderUsage } from "./views-hub.js";
import { renderFile, renderSearch, renderSkill, renderSkills } from "./views-skills.js";

const POLL_MS = 3000;
const main = document.getElementById("main");
const searchInput = document.getElementById("search-input");
let lastGeneration = null;
let searchTimer = null;

function currentNav(name) {
  for (const a of document.querySelectorAll("[data-nav]")) {
    if (a.dataset.nav === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function parseRoute() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [pathPart, queryPart] = hash.split("?");
  const parts = pathPart.split("/").filter(Boolean).map(decodeOrKeep);
  return { parts, params: new URLSearchParams(queryPart || "") };
}

/** A malformed escape (`#/skill/%E0`) is kept as typed: the page then says what it cannot find. */
function decodeOrKeep(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * Draw the current route. `keepFocus`: leave the focus where it is (the search box, a live update);
 * `redraw`: the same view again with fresh data (dom.js show keeps the reader's place in it); `scrollY`:
 * where to scroll once drawn (the entry's remembered place, 0 for a new one; none: stay).
 */
async function render(options) {
  const seq = nextRender(options?.redraw);
  const { parts, params } = parseRoute();
  const focus = !options?.keepFocus;
  // The box shows the query of the search on screen, and no other view's.
  if (parts[0] !== "search" && document.activeElement !== searchInput) searchInput.value = "";
  try {
    if (parts[0] === "search") {
      currentNav("");
      await renderSearch(seq, params.get("q") || "");
    } else if (parts[0] === "skill" && parts[2] === "file") {
      currentNav("skills");
      await renderFile(seq, parts[1], parts.slice(3).join("/"));
    } else if (parts[0] === "skill") {
      currentNav("skills");
      await renderSkill(seq, parts[1]);
    } else if (parts[0] === "trees") {
      currentNav("trees");
      await renderTrees(seq);
    } else if (parts[0] === "usage") {
      currentNav("usage");
      await renderUsage(seq);
    } else if (parts[0] === "status") {
      currentNav("status");
      await renderStatus(seq);
    } else {
      currentNav("skills");
      await renderSkills(seq, params);
    }
  } catch (error) {
    if (error instanceof HttpError && error.status === 401) return renderTokenForm(seq, error.message);
    renderProblem(seq, error, parts);
  }
  if (!isCurrent(seq)) return;
  const heading = main.querySelector("h1");
  document.title = heading ? `${heading.dataset.title || heading.textContent} · SkillHub` : "SkillHub";
  if (focus) heading?.focus({ preventScroll: true });
  if (options?.scrollY !== undefined) window.scrollTo(0, options.scrollY);
}

/**
 * A view that could not be drawn, with a way back: "Not found" for what is not there (a skill renamed, a file
 * removed), "Not served" for what the server refuses to show (a path out of the skill, a disabled skill).
 */
function renderProblem(seq, error, parts) {
  const status = error instanceof HttpError ? error.status : 0;
  const missing = status === 404 || status === 403;
  const inSkill = parts[0] === "skill" && parts[2] === "file" && error.code !== "SKILL_NOT_FOUND";
  show(
    seq,
    h(
      "p",
      {},
      inSkill
        ? h("a", { href: `#/skill/${encodeURIComponent(parts[1])}` }, "← Back to the skill")
        : h("a", { href: "#/" }, "← All skills"),
    ),
    h("h1", { tabindex: "-1" }, status === 404 ? "Not found" : status === 403 ? "Not served" : "Something went wrong"),
    h("p", { class: missing ? "notice" : "error-box" }, error.message),
  );
}

/**
 * The token form: after a 401 (`message`, the server's), or asked for (`admin`: the operator's token, over a
 * view that a client's token showed without its private parts; the token kept stays until another is entered).
 */
function renderTokenForm(seq, message, admin = false) {
  const input = h("input", { id: "token-input", type: "password", autocomplete: "off", required: true });
  const hadToken = !admin && Boolean(sessionStorage.getItem(TOKEN_KEY));
  const form = h(
    "form",
    {
      class: "token-form",
      onsubmit: (event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (!value) return;
        // Kept for this browser tab only (sessionStorage), never in a cookie or localStorage.
        sessionStorage.setItem(TOKEN_KEY, value);
        render();
      },
    },
    h("label", { for: "token-input" }, admin ? "Admin token" : "Server token"),
    input,
    h("button", { type: "submit" }, "Open"),
    admin ? h("button", { type: "button", onclick: () => render() }, "Cancel") : null,
  );
  show(
    seq,
    h("h1", { tabindex: "-1" }, admin ? "Enter the admin token" : "This server needs its token"),
    h("p", {}, hadToken ? "The token entered was not accepted. " : "", message),
    h("p", { class: "muted" }, "It is kept in this browser tab only, until the tab is closed."),
    form,
  );
  if (hadToken) sessionStorage.removeItem(TOKEN_KEY);
  input.focus();
}

document.addEventListener(ASK_TOKEN, () =>
  renderTokenForm(
    nextRender(),
    "With the operator's token (SKILLHUB_ADMIN_TOKEN) the page also shows what clients searched and the server's folders.",
    true,
  ),
);

/** Live updates: poll a cheap generation number; re-render the current view when the catalog or usage changed. */
async function poll() {
  try {
    const g = await api("generation");
    const key = `${g.generation}:${g.content}:${g.usage}`;
    if (lastGeneration !== null && key !== lastGeneration) {
      await render({ keepFocus: true, redraw: true });
      announce("Updated: the skills changed on the server.");
      document.getElementById("foot-updated").textContent = `· updated ${new Date().toLocaleTimeString()}`;
    }
    lastGeneration = key;
  } catch {
    // A 401 is shown by the next render; a network blip is retried at the next poll.
  }
}

searchInput.addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    const q = searchInput.value;
    const target = q.trim() ? `#/search?${new URLSearchParams({ q })}` : "#/";
    if (location.hash.startsWith("#/search")) {
      history.replaceState(history.state, "", target);
      render({ keepFocus: true });
    } else {
      location.hash = target;
    }
  }, 120);
});
document.getElementById("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  clearTimeout(searchTimer);
  location.hash = `#/search?${new URLSearchParams({ q: searchInput.value })}`;
});
// The skip link must not change the hash: the hash is the page's route.
document.querySelector(".skip").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});
// Back and Forward return to where the reader was in that view: the page scrolls each entry itself, once drawn
// (the browser would scroll before the view's data came back, and land at the top).
history.scrollRestoration = "manual";
/** Scroll position of each history entry of this tab, by the key kept in the entry's state. */
const scrollOfEntry = new Map();
let entry = entryKey();

function entryKey() {
  if (!history.state?.entry) history.replaceState({ ...history.state, entry: `${Date.now()}-${Math.random()}` }, "");
  return history.state.entry;
}

window.addEventListener("hashchange", () => {
  // A search still waiting on the last keystroke must not take the reader back from the result they opened.
  if (!location.hash.startsWith("#/search")) clearTimeout(searchTimer);
  // The view left is still on screen: its place is the one to come back to.
  scrollOfEntry.set(entry, window.scrollY);
  entry = entryKey();
  render({ keepFocus: document.activeElement === searchInput, scrollY: scrollOfEntry.get(entry) ?? 0 });
});
render({ keepFocus: true });
setInterval(poll, POLL_MS);
poll();
