// The chat webview: a static shell whose script only posts the user's text and swaps in the transcript HTML the
// extension renders here (so the rendering is unit-tested in Node, not in a browser).
import type { ChatEntry, ChatTranscript } from "./chatModel";
import type { PageOptions } from "./html";
import { escapeHtml, page } from "./html";

export function renderChatEntry(entry: ChatEntry): string {
  switch (entry.kind) {
    case "user":
      return `<div class="entry user">${escapeHtml(entry.text)}</div>`;
    case "assistant":
      return `<div class="entry assistant">${escapeHtml(entry.text)}</div>`;
    case "tool": {
      const icon = entry.state === "running" ? "⏳" : entry.state === "error" ? "✗" : "✓";
      const summary = entry.summary !== "" ? ` <code>${escapeHtml(entry.summary)}</code>` : "";
      const result = entry.result !== "" ? `<div class="muted">${escapeHtml(entry.result)}</div>` : "";
      return `<div class="entry tool ${entry.state}">${icon} ${escapeHtml(entry.name)}${summary}${result}</div>`;
    }
    case "error":
      return `<div class="entry error">${escapeHtml(entry.text)}</div>`;
    case "notice":
      return `<div class="entry notice">${escapeHtml(entry.text)}</div>`;
  }
}

export function renderTranscript(transcript: ChatTranscript): string {
  const entries = transcript.entries.map(renderChatEntry);
  if (transcript.busy) {
    entries.push(`<div class="entry notice">${escapeHtml(transcript.status ?? "Working…")}</div>`);
  }
  if (entries.length === 0) {
    return `<p class="muted">Ask the agent about this workspace. It reads files through the context engine, so the status bar shows what the conversation costs.</p>`;
  }
  return entries.join("\n");
}

/** What the extension posts to the webview after every change. */
export interface TranscriptMessage {
  type: "transcript";
  html: string;
  busy: boolean;
}

export function transcriptMessage(transcript: ChatTranscript): TranscriptMessage {
  return { type: "transcript", html: renderTranscript(transcript), busy: transcript.busy };
}

/** What the webview posts back. */
export type ChatViewRequest = { type: "send"; text: string } | { type: "stop" } | { type: "ready" };

export function parseChatViewRequest(raw: unknown): ChatViewRequest | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const message = raw as { type?: unknown; text?: unknown };
  if (message.type === "send" && typeof message.text === "string" && message.text.trim() !== "") {
    return { type: "send", text: message.text.trim() };
  }
  if (message.type === "stop" || message.type === "ready") {
    return { type: message.type };
  }
  return undefined;
}

const SCRIPT = `
const vscode = acquireVsCodeApi();
const log = document.getElementById("log");
const input = document.getElementById("input");
const send = document.getElementById("send");
const stop = document.getElementById("stop");
function submit() {
  const text = input.value;
  if (text.trim() === "") return;
  vscode.postMessage({ type: "send", text });
  input.value = "";
}
send.addEventListener("click", submit);
stop.addEventListener("click", () => vscode.postMessage({ type: "stop" }));
input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); submit(); }
});
window.addEventListener("message", (event) => {
  const msg = event.data;
  if (msg.type !== "transcript") return;
  log.innerHTML = msg.html;
  send.disabled = msg.busy;
  stop.disabled = !msg.busy;
  window.scrollTo(0, document.body.scrollHeight);
});
vscode.postMessage({ type: "ready" });
`;

export function renderChatShell(options: PageOptions): string {
  const body = `<h1>Compact chat</h1>
<div id="log" class="chat"></div>
<div class="composer">
<textarea id="input" rows="2" placeholder="Ask the agent… (Enter sends, Shift+Enter for a new line)" aria-label="Message"></textarea>
<button id="send">Send</button><button id="stop" disabled>Stop</button>
</div>`;
  return page("Compact chat", body, options, SCRIPT);
}
