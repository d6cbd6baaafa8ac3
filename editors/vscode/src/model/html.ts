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
}

export function page(title: string, body: string, options: PageOptions, script = ""): string {
  const scriptSrc = options.nonce !== undefined ? `'nonce-${options.nonce}'` : "'none'";
  const csp = [
    "default-src 'none'",
    `style-src ${options.cspSource} 'unsafe-inline'`,
    `script-src ${scriptSrc}`,
    `img-src ${options.cspSource} data:`,
  ].join("; ");
  const scriptTag = script !== "" && options.nonce !== undefined ? `<script nonce="${options.nonce}">${script}</script>` : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
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
.chat { display: flex; flex-direction: column; gap: 8px; padding-bottom: 90px; }
.entry { padding: 6px 10px; border-radius: 4px; white-space: pre-wrap; word-break: break-word; }
.entry.user { background: var(--vscode-input-background); border: 1px solid var(--vscode-input-border, #8884); }
.entry.tool { font-family: var(--vscode-editor-font-family); font-size: 0.9em;
              border-left: 3px solid var(--vscode-textLink-foreground); }
.entry.tool.error, .entry.error { border-left: 3px solid var(--vscode-editorError-foreground, #f14c4c); }
.entry.notice { color: var(--vscode-descriptionForeground); font-style: italic; }
.composer { position: fixed; left: 0; right: 0; bottom: 0; padding: 8px 16px;
            background: var(--vscode-editor-background); display: flex; gap: 8px; }
.composer textarea { flex: 1; resize: vertical; min-height: 2.5em; background: var(--vscode-input-background);
                     color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, #8884); }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none;
         padding: 4px 12px; cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; }
`;
