// The assistant's Markdown → HTML for the chat webview: markdown-it with raw HTML off (it is escaped, never passed
// through) and its link validation (no javascript:, vbscript:, file: or data: other than images). The webview runs
// the result through DOMPurify as well before it touches the DOM.
import MarkdownIt from "markdown-it";
import { escapeHtml } from "./html";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
// Only written-out URLs become links: "report.py" is a file name, not the Paraguayan web site http://report.py.
md.linkify.set({ fuzzyLink: false });

// Code fences get a header with the language and a copy button (the webview copies the <code> text).
md.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index];
  const language = token.info.trim().split(/\s+/)[0] ?? "";
  const label = language !== "" ? `<span class="lang">${escapeHtml(language)}</span>` : "";
  return (
    `<div class="code-block">` +
    `<div class="code-head">${label}<button class="icon" data-action="copy" title="Copy" aria-label="Copy code">` +
    `<i class="codicon codicon-copy"></i></button></div>` +
    `<pre><code>${escapeHtml(token.content)}</code></pre></div>\n`
  );
};

// Links open outside the webview (VS Code hands them to the opener); say so to the browser as well.
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index].attrSet("rel", "noopener noreferrer");
  return defaultLinkOpen(tokens, index, options, env, self);
};

// Wide tables scroll sideways inside their own box instead of being cut off.
md.renderer.rules.table_open = () => `<div class="table-wrap"><table>\n`;
md.renderer.rules.table_close = () => `</table></div>\n`;

export function renderMarkdown(text: string): string {
  return md.render(text);
}
