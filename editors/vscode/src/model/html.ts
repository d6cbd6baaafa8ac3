// Small helpers for the webviews' HTML: escaping and the shared page shell with a strict CSP.

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export interface PageOptions {
  /** The webview's cspSource; styles and scripts come only from the page itself. */
  cspSource: string;
  /** Scripts run only with this nonce; absent for pages without scripts. */
  nonce?: string;
  /** A bundled script of the extension (webview URI), run with the nonce. */
  scriptUri?: string;
  /** Style sheets of the extension (webview URIs), e.g. the codicons. */
  styleUris?: string[];
  /** A class on <body> (the chat's narrower layout). */
  bodyClass?: string;
}

export function page(title: string, body: string, options: PageOptions, script = ""): string {
  const scriptSrc = options.nonce !== undefined ? `'nonce-${options.nonce}'` : "'none'";
  const csp = [
    "default-src 'none'",
    `style-src ${options.cspSource} 'unsafe-inline'`,
    `script-src ${scriptSrc}`,
    `img-src ${options.cspSource} data:`,
    `font-src ${options.cspSource}`,
  ].join("; ");
  let scriptTag = script !== "" && options.nonce !== undefined ? `<script nonce="${options.nonce}">${script}</script>` : "";
  if (options.scriptUri !== undefined && options.nonce !== undefined) {
    scriptTag += `<script nonce="${options.nonce}" src="${escapeHtml(options.scriptUri)}"></script>`;
  }
  const styles = (options.styleUris ?? []).map((uri) => `<link rel="stylesheet" href="${escapeHtml(uri)}">`).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
${styles}
<style>${STYLE}</style>
</head>
<body${options.bodyClass !== undefined ? ` class="${escapeHtml(options.bodyClass)}"` : ""}>
${body}
${scriptTag}
</body>
</html>`;
}

export function nonce(random: () => number = Math.random): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  for (let i = 0; i < 32; i++) {
    out += alphabet.charAt(Math.floor(random() * alphabet.length));
  }
  return out;
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground);
       padding: 0 16px 16px; }
h1 { font-size: 1.4em; font-weight: 600; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-widget-border, #8884); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--vscode-descriptionForeground); }
.bar { position: relative; display: flex; height: 28px; border: 1px solid var(--vscode-widget-border, #8886);
       border-radius: 3px; overflow: hidden; margin: 8px 0 4px; }
.bar .seg { height: 100%; }
.bar .free { height: 100%; background: var(--vscode-editorWidget-background, #8881); }
.marker { position: absolute; top: 0; bottom: 0; width: 2px; }
.marker.warning { background: var(--vscode-editorWarning-foreground, #cca700); }
.marker.auto { background: var(--vscode-editorError-foreground, #f14c4c); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 6px 0; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
.level-warning, .level-critical { color: var(--vscode-editorWarning-foreground, #cca700); font-weight: 600; }
.fresh { color: var(--vscode-testing-iconPassed, #73c991); }
.stale, .deleted { color: var(--vscode-editorWarning-foreground, #cca700); }
code { font-family: var(--vscode-editor-font-family); font-size: 0.95em; }
.table-wrap { overflow-x: auto; max-width: 100%; }
td { overflow-wrap: anywhere; }
@media (max-width: 520px) {
  body { padding: 0 8px 8px; }
  th, td { padding: 2px 4px; }
  .optional { display: none; }
}
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none;
         padding: 4px 10px; cursor: pointer; border-radius: 2px; font: inherit; }
button:hover { background: var(--vscode-button-hoverBackground); }
button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
button.secondary:hover { background: var(--vscode-button-secondaryHoverBackground); }
button.icon { background: none; color: var(--vscode-icon-foreground); padding: 2px 4px; }
button:disabled { opacity: 0.5; cursor: default; }
body.chat-page { padding: 0 8px; }
.chat { display: flex; flex-direction: column; gap: 8px; padding-bottom: 110px; }
.welcome { text-align: center; color: var(--vscode-descriptionForeground); margin-top: 2em; }
.welcome > .codicon { font-size: 32px; }
.entry { padding: 6px 8px; border-radius: 4px; word-break: break-word; }
.entry.user { white-space: pre-wrap; background: var(--vscode-input-background);
              border: 1px solid var(--vscode-input-border, #8884); }
.entry.assistant { padding: 0 2px; }
.markdown p { margin: 0.4em 0; } .markdown h1, .markdown h2, .markdown h3 { font-size: 1.1em; margin: 0.6em 0 0.3em; }
.markdown ul, .markdown ol { padding-left: 1.4em; margin: 0.3em 0; }
.markdown a { color: var(--vscode-textLink-foreground); }
.markdown :not(pre) > code { background: var(--vscode-textCodeBlock-background, #8882); padding: 0 3px; border-radius: 3px; }
.markdown table { width: auto; }
.code-block { border: 1px solid var(--vscode-widget-border, #8884); border-radius: 4px; margin: 0.4em 0; overflow: hidden; }
.code-head { display: flex; justify-content: space-between; align-items: center; padding: 0 4px 0 8px;
             background: var(--vscode-editorGroupHeader-tabsBackground, #8881); font-size: 0.85em; min-height: 22px; }
.code-head .lang { color: var(--vscode-descriptionForeground); }
.code-head button { margin-left: auto; }
.code-block pre { margin: 0; padding: 6px 8px; overflow-x: auto; background: var(--vscode-textCodeBlock-background, #8881); }
.entry.tool { font-size: 0.9em; border-left: 3px solid var(--vscode-textLink-foreground); padding: 3px 8px; }
.entry.tool summary { cursor: pointer; list-style-position: outside; white-space: nowrap; overflow: hidden;
                      text-overflow: ellipsis; }
.entry.tool summary code { color: var(--vscode-descriptionForeground); }
.entry.tool summary .pin { float: right; visibility: hidden; }
.entry.tool:hover summary .pin, .entry.tool summary .pin:focus { visibility: visible; }
.entry.tool.error, .entry.error { border-left: 3px solid var(--vscode-editorError-foreground, #f14c4c); }
.entry.tool.error > summary .codicon-error, .entry.error .codicon-error { color: var(--vscode-editorError-foreground, #f14c4c); }
.entry.tool.done > summary .codicon-check { color: var(--vscode-testing-iconPassed, #73c991); }
.tool-result { margin: 4px 0 2px; max-height: 14em; overflow: auto; font-size: 0.95em; white-space: pre-wrap;
               color: var(--vscode-descriptionForeground); }
.entry.notice { color: var(--vscode-descriptionForeground); font-style: italic; }
.entry.edited { display: flex; gap: 6px; align-items: center; }
.entry.edited .added { color: var(--vscode-gitDecoration-addedResourceForeground, #587c0c); }
.entry.edited .removed { color: var(--vscode-gitDecoration-deletedResourceForeground, #ad0707); }
.entry.approval { border: 1px solid var(--vscode-editorWarning-foreground, #cca700); }
.entry.approval.decided { border-color: var(--vscode-widget-border, #8884); }
.approval-detail { max-height: 10em; overflow: auto; font-size: 0.9em; white-space: pre-wrap; margin: 6px 0;
                   background: var(--vscode-textCodeBlock-background, #8881); padding: 4px 6px; }
.actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
.entry.boundary { display: flex; align-items: center; gap: 8px; color: var(--vscode-descriptionForeground);
                  font-size: 0.88em; padding: 2px 0; }
.entry.boundary .line { flex: 1; border-top: 1px dashed var(--vscode-widget-border, #8886); min-width: 12px; }
.entry.boundary .label { flex: 0 1 auto; text-align: center; }
.entry.boundary.full .label { color: var(--vscode-textLink-foreground); }
.entry.boundary.fallback .label { color: var(--vscode-editorWarning-foreground, #cca700); }
.compacted-away { opacity: 0.55; }
.composer { position: fixed; left: 0; right: 0; bottom: 0; padding: 6px 8px;
            background: var(--vscode-sideBar-background, var(--vscode-editor-background)); display: flex; gap: 6px;
            border-top: 1px solid var(--vscode-widget-border, #8884); }
.composer textarea { flex: 1; min-width: 0; resize: vertical; min-height: 2.5em; background: var(--vscode-input-background);
                     color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, #8884);
                     font: inherit; padding: 4px; }
.composer-buttons { display: flex; flex-direction: column; gap: 4px; }
@media (max-width: 300px) { .composer .label { display: none; } }
.diff { margin: 6px 0 0; padding: 4px 0; max-height: 18em; overflow: auto; font-family: var(--vscode-editor-font-family);
        font-size: 0.9em; background: var(--vscode-textCodeBlock-background, #8881); }
.diff-line { display: block; white-space: pre; padding: 0 6px; }
.diff-line.add { background: var(--vscode-diffEditor-insertedLineBackground, #9bb95533);
                 color: var(--vscode-gitDecoration-addedResourceForeground, inherit); }
.diff-line.del { background: var(--vscode-diffEditor-removedLineBackground, #ff000033);
                 color: var(--vscode-gitDecoration-deletedResourceForeground, inherit); }
.diff-line.hunk { color: var(--vscode-descriptionForeground); }
.diff-stat { font-size: 0.85em; margin-top: 4px; }
.diff-stat .add { color: var(--vscode-gitDecoration-addedResourceForeground, #73c991); }
.diff-stat .del { color: var(--vscode-gitDecoration-deletedResourceForeground, #f14c4c); }
.diff-problem { color: var(--vscode-editorWarning-foreground, #cca700); margin-top: 6px; }
button.link { background: none; color: var(--vscode-textLink-foreground); padding: 0; text-align: center; }
button.link:hover { text-decoration: underline; background: none; }
.readonly-bar { position: fixed; left: 0; right: 0; bottom: 0; padding: 6px 8px; display: flex; flex-direction: column;
                gap: 6px; background: var(--vscode-sideBar-background, var(--vscode-editor-background));
                border-top: 1px solid var(--vscode-widget-border, #8884); }
.readonly-bar p { margin: 0; }
.readonly-bar[hidden], .composer[hidden] { display: none; }
.welcome h2 { font-size: 1.1em; color: var(--vscode-foreground); }
.welcome .tips { text-align: left; margin: 0.8em auto; max-width: 32em; padding-left: 1.2em; }
.welcome-actions { justify-content: center; }
kbd { font-family: var(--vscode-editor-font-family); border: 1px solid var(--vscode-widget-border, #8886);
      border-radius: 3px; padding: 0 3px; font-size: 0.9em; }
.attachments { display: flex; flex-direction: column; gap: 2px; margin-top: 4px; white-space: normal; font-size: 0.9em; }
.attachment summary { cursor: pointer; color: var(--vscode-textLink-foreground); }
.mentions { position: absolute; bottom: 100%; left: 8px; right: 8px; margin: 0; padding: 2px 0; list-style: none;
            background: var(--vscode-editorSuggestWidget-background, var(--vscode-input-background));
            border: 1px solid var(--vscode-editorSuggestWidget-border, var(--vscode-widget-border, #8886)); }
.mentions li { padding: 1px 8px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.mentions li.selected { background: var(--vscode-editorSuggestWidget-selectedBackground, var(--vscode-list-activeSelectionBackground));
                        color: var(--vscode-editorSuggestWidget-selectedForeground, inherit); }
:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
/* High contrast: borders where colours alone would tell things apart */
body.vscode-high-contrast .entry.user, body.vscode-high-contrast .entry.approval,
body.vscode-high-contrast .code-block { border: 1px solid var(--vscode-contrastBorder); }
body.vscode-high-contrast .diff-line.add { outline: 1px dashed var(--vscode-contrastActiveBorder, transparent); }
body.vscode-high-contrast .diff-line.del { text-decoration: line-through; }
`;
