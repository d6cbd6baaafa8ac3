// The chat webview's script (bundled to dist/webview.js). It only posts what the user does and swaps in the
// transcript HTML the extension renders; DOMPurify sanitises that HTML once more before it touches the DOM.
import DOMPurify from "dompurify";

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const log = document.getElementById("log") as HTMLDivElement;
const input = document.getElementById("input") as HTMLTextAreaElement;
const send = document.getElementById("send") as HTMLButtonElement;
const stop = document.getElementById("stop") as HTMLButtonElement;
const composer = document.getElementById("composer") as HTMLDivElement;
const readOnlyBar = document.getElementById("readonly") as HTMLDivElement;
const importButton = document.getElementById("import") as HTMLButtonElement;

/** The @file suggestions under the caret (the extension finds them), and the one Tab or Enter would take. */
const mentions = document.createElement("ul");
mentions.className = "mentions";
mentions.hidden = true;
mentions.setAttribute("role", "listbox");
mentions.setAttribute("aria-label", "Files to attach");
composer.appendChild(mentions);
let suggestions: string[] = [];
let selected = 0;

/** The `@word` the caret is in, or undefined. */
function mentionAtCaret(): { start: number; query: string } | undefined {
  const before = input.value.slice(0, input.selectionStart ?? 0);
  const match = /(^|\s)@([\w./~-]*)$/.exec(before);
  return match === null ? undefined : { start: before.length - match[2].length, query: match[2] };
}

function showSuggestions(items: string[]): void {
  suggestions = items;
  selected = 0;
  mentions.hidden = items.length === 0 || mentionAtCaret() === undefined;
  mentions.innerHTML = "";
  items.forEach((item, index) => {
    const li = document.createElement("li");
    li.textContent = item;
    li.setAttribute("role", "option");
    li.className = index === selected ? "selected" : "";
    li.addEventListener("mousedown", (event) => {
      event.preventDefault();
      selected = index;
      acceptSuggestion();
    });
    mentions.appendChild(li);
  });
}

function acceptSuggestion(): void {
  const at = mentionAtCaret();
  const item = suggestions[selected];
  if (at === undefined || item === undefined) {
    return;
  }
  const caret = input.selectionStart ?? input.value.length;
  input.value = `${input.value.slice(0, at.start)}${item} ${input.value.slice(caret)}`;
  const end = at.start + item.length + 1;
  input.setSelectionRange(end, end);
  saveDraft();
  showSuggestions([]);
}

/** Whether a suggested path still fits what is typed after the `@` (the search answers the query as it was). */
function fits(item: string, query: string): boolean {
  return item.toLowerCase().includes(query.toLowerCase());
}

input.addEventListener("input", () => {
  const at = mentionAtCaret();
  if (at === undefined) {
    showSuggestions([]);
  } else {
    // Until the search for the new text answers, keep only what still fits: Tab never takes a path typed past.
    showSuggestions(suggestions.filter((item) => fits(item, at.query)));
    vscode.postMessage({ type: "mention", text: at.query });
  }
});

/** The user just sent a message: the next redraw scrolls to it even when they had scrolled up. */
let followOwnMessage = false;

/** Tool calls the user opened: a redraw keeps them open. */
const open = new Set<string>();

/** The approvals already offered the focus: a prompt takes it once, when it appears. */
const offered = new Set<string>();

/** The pending approval's primary button ("Allow once"), if a prompt waits. */
function allowOnce(): HTMLButtonElement | null {
  return log.querySelector<HTMLButtonElement>(".approval.pending button[data-action=approve]:not([disabled])");
}

/** The focused button of the log as "entry key/action/decision", to find it again after the log is redrawn. */
function focusedInLog(): string | undefined {
  const button = document.activeElement;
  if (!(button instanceof HTMLButtonElement) || !log.contains(button)) {
    return undefined;
  }
  const key = button.closest<HTMLElement>("[data-key]")?.dataset.key ?? "";
  return `${key}/${button.dataset.action ?? ""}/${button.dataset.decision ?? ""}`;
}

function refocus(where: string | undefined): void {
  if (where === undefined) {
    return;
  }
  for (const button of log.querySelectorAll<HTMLButtonElement>("button")) {
    const key = button.closest<HTMLElement>("[data-key]")?.dataset.key ?? "";
    if (`${key}/${button.dataset.action ?? ""}/${button.dataset.decision ?? ""}` === where && !button.disabled) {
      button.focus();
      return;
    }
  }
}

/**
 * A prompt that appears while the chat has the focus and nothing is typed takes the focus on "Allow once" (Enter
 * allows, Tab reaches the others); from the input, Shift+Tab goes straight to it. Typing on its buttons goes on in
 * the input, so a keystroke meant for the next message is never lost.
 */
function offerApprovalFocus(): void {
  const pending = log.querySelector<HTMLElement>(".approval.pending");
  const key = pending?.dataset.key;
  if (pending === null || key === undefined || offered.has(key)) {
    return;
  }
  offered.add(key);
  const here = document.activeElement;
  const idle = here === null || here === document.body || (here === input && input.value.trim() === "");
  if (document.hasFocus() && idle) {
    allowOnce()?.focus({ preventScroll: true });
  }
}

/** What is typed and not sent yet, kept in the webview's state: VS Code restores it after a reload of the window. */
function saveDraft(): void {
  vscode.setState({ draft: input.value });
}

function restoreDraft(text: unknown): void {
  if (typeof text === "string" && text !== "" && input.value === "") {
    input.value = text;
    saveDraft();
  }
}

function submit(): void {
  const text = input.value;
  if (text.trim() === "" || send.disabled) {
    return;
  }
  vscode.postMessage({ type: "send", text });
  input.value = "";
  saveDraft();
  followOwnMessage = true;
}

send.addEventListener("click", submit);
stop.addEventListener("click", () => vscode.postMessage({ type: "stop" }));
importButton.addEventListener("click", () => vscode.postMessage({ type: "import" }));
input.addEventListener("keydown", (event) => {
  if (!mentions.hidden && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
    event.preventDefault();
    selected = (selected + (event.key === "ArrowDown" ? 1 : suggestions.length - 1)) % suggestions.length;
    mentions.querySelectorAll("li").forEach((li, index) => (li.className = index === selected ? "selected" : ""));
    return;
  }
  if (!mentions.hidden && (event.key === "Tab" || event.key === "Enter")) {
    event.preventDefault();
    acceptSuggestion();
    return;
  }
  if (!mentions.hidden && event.key === "Escape") {
    event.preventDefault();
    showSuggestions([]);
    return;
  }
  if (event.key === "Tab" && event.shiftKey && allowOnce() !== null) {
    event.preventDefault();
    allowOnce()?.focus();
    return;
  }
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    submit();
  } else if (event.key === "Escape" && !stop.disabled) {
    event.preventDefault();
    vscode.postMessage({ type: "stop" });
  }
});

log.addEventListener(
  "toggle",
  (event) => {
    const details = event.target as HTMLDetailsElement;
    const key = details.dataset.key;
    if (key !== undefined) {
      if (details.open) {
        open.add(key);
      } else {
        open.delete(key);
      }
    }
  },
  true,
);

log.addEventListener("keydown", (event) => {
  const target = event.target as HTMLElement;
  const printable = event.key.length === 1 && event.key !== " " && !event.ctrlKey && !event.metaKey && !event.altKey;
  if (printable && target.closest(".approval.pending") !== null && !composer.hidden) {
    input.focus(); // the key's character lands in the input: typing on the prompt's buttons is never lost
  }
});

log.addEventListener("click", (event) => {
  const link = (event.target as HTMLElement).closest("a");
  if (link !== null) {
    // a link in an answer: the extension opens files (with their line) and asks before leaving for the web
    event.preventDefault();
    vscode.postMessage({ type: "open", href: link.getAttribute("href") ?? "" });
    return;
  }
  const button = (event.target as HTMLElement).closest("button");
  if (button === null) {
    return;
  }
  const action = button.dataset.action;
  if (action === "copy") {
    const code = button.closest(".code-block")?.querySelector("code")?.textContent ?? "";
    vscode.postMessage({ type: "copy", text: code });
  } else if (action === "approve") {
    for (const other of button.parentElement?.querySelectorAll("button[data-action=approve]") ?? []) {
      (other as HTMLButtonElement).disabled = true;
    }
    vscode.postMessage({ type: "approve", id: button.dataset.id, decision: button.dataset.decision });
  } else if (action === "diff") {
    vscode.postMessage({ type: "diff", id: button.dataset.id });
  } else if (action === "pin") {
    event.preventDefault(); // a button in a <summary> would also open or close the tool call
    vscode.postMessage({ type: "pin", id: button.dataset.id });
  } else if (action === "summary" || action === "command") {
    vscode.postMessage({ type: action, id: button.dataset.id });
  }
});

window.addEventListener("message", (event: MessageEvent) => {
  const message = event.data as {
    type?: string;
    html?: string;
    busy?: boolean;
    readOnly?: boolean;
    owner?: string;
    restricted?: boolean;
  };
  if (message.type === "focus") {
    input.focus();
    return;
  }
  if (message.type === "submit") {
    submit();
    return;
  }
  if (message.type === "draft") {
    restoreDraft((event.data as { text?: unknown }).text); // a message the server could not take: typed again
    return;
  }
  if (message.type === "mentions") {
    const { query, items } = event.data as { query?: unknown; items?: unknown };
    const at = mentionAtCaret();
    if (at === undefined || query !== at.query) {
      return; // the answer to a search for text typed since: a newer one is on its way
    }
    showSuggestions(Array.isArray(items) ? items.filter((item): item is string => typeof item === "string") : []);
    return;
  }
  if (message.type !== "transcript" || typeof message.html !== "string") {
    return;
  }
  const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  const focused = focusedInLog();
  log.innerHTML = DOMPurify.sanitize(message.html, { ADD_ATTR: ["data-action", "data-id", "data-decision", "data-key"] });
  for (const details of log.querySelectorAll<HTMLDetailsElement>("details[data-key]")) {
    if (open.has(details.dataset.key ?? "")) {
      details.open = true;
    }
  }
  const readOnly = message.readOnly === true;
  composer.hidden = readOnly || message.restricted === true;
  readOnlyBar.hidden = !readOnly;
  for (const owner of readOnlyBar.querySelectorAll(".owner")) {
    owner.textContent = message.owner ?? "Claude Code";
  }
  log.classList.toggle("read-only", readOnly);
  send.disabled = message.busy === true;
  stop.disabled = message.busy !== true;
  refocus(focused);
  offerApprovalFocus();
  const actions = log.querySelector<HTMLElement>(".approval.pending .actions");
  if (actions !== null) {
    // the decision's buttons in view, above the fixed composer
    actions.scrollIntoView({ block: "center" });
  } else if (atBottom || followOwnMessage) {
    window.scrollTo(0, document.body.scrollHeight);
  }
  followOwnMessage = false;
});

input.addEventListener("input", saveDraft);
restoreDraft((vscode.getState() as { draft?: unknown } | undefined)?.draft);
vscode.postMessage({ type: "ready" });
