// The chat webview's script (bundled to dist/webview.js). It only posts what the user does and swaps in the
// transcript HTML the extension renders; DOMPurify sanitises that HTML once more before it touches the DOM.
import DOMPurify from "dompurify";

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const log = document.getElementById("log") as HTMLDivElement;
const title = document.getElementById("title") as HTMLDivElement;
const input = document.getElementById("input") as HTMLTextAreaElement;
const send = document.getElementById("send") as HTMLButtonElement;
const stop = document.getElementById("stop") as HTMLButtonElement;
const composer = document.getElementById("composer") as HTMLDivElement;
const readOnlyBar = document.getElementById("readonly") as HTMLDivElement;
const importButton = document.getElementById("import") as HTMLButtonElement;

/** The user just sent a message: the next redraw scrolls to it even when they had scrolled up. */
let followOwnMessage = false;

/** Tool calls the user opened: a redraw keeps them open. */
const open = new Set<string>();

function submit(): void {
  const text = input.value;
  if (text.trim() === "" || send.disabled) {
    return;
  }
  vscode.postMessage({ type: "send", text });
  input.value = "";
  followOwnMessage = true;
}

send.addEventListener("click", submit);
stop.addEventListener("click", () => vscode.postMessage({ type: "stop" }));
importButton.addEventListener("click", () => vscode.postMessage({ type: "import" }));
input.addEventListener("keydown", (event) => {
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
    title?: string;
    readOnly?: boolean;
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
  if (message.type !== "transcript" || typeof message.html !== "string") {
    return;
  }
  const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  log.innerHTML = DOMPurify.sanitize(message.html, { ADD_ATTR: ["data-action", "data-id", "data-decision", "data-key"] });
  for (const details of log.querySelectorAll<HTMLDetailsElement>("details[data-key]")) {
    if (open.has(details.dataset.key ?? "")) {
      details.open = true;
    }
  }
  title.textContent = message.title ?? "";
  const readOnly = message.readOnly === true;
  composer.hidden = readOnly || message.restricted === true;
  readOnlyBar.hidden = !readOnly;
  log.classList.toggle("read-only", readOnly);
  send.disabled = message.busy === true;
  stop.disabled = message.busy !== true;
  const actions = log.querySelector<HTMLElement>(".approval.pending .actions");
  if (actions !== null) {
    // the decision's buttons in view, above the fixed composer
    actions.scrollIntoView({ block: "center" });
  } else if (atBottom || followOwnMessage) {
    window.scrollTo(0, document.body.scrollHeight);
  }
  followOwnMessage = false;
});

vscode.postMessage({ type: "ready" });
