// Where a link in an answer leads: a file of the workspace (with a line, from `#L12`, `#L12-L20` or `:12:5`), or a
// web page. Pure: the chat view resolves the path and opens it.

export type LinkTarget =
  | { kind: "file"; path: string; line?: number; column?: number; endLine?: number }
  | { kind: "external"; url: string };

const EXTERNAL = /^(https?|mailto):/i;

function positive(text: string | undefined): number | undefined {
  if (text === undefined) {
    return undefined;
  }
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** undefined: not something to open (an empty link, a command: or javascript: URI, a bare #anchor). */
export function linkTarget(href: string): LinkTarget | undefined {
  const text = href.trim();
  if (text === "" || text.startsWith("#")) {
    return undefined;
  }
  if (EXTERNAL.test(text)) {
    return { kind: "external", url: text };
  }
  let rest = text;
  if (/^file:/i.test(rest)) {
    try {
      const url = new URL(rest);
      rest = decodeURIComponent(url.pathname) + url.hash;
    } catch {
      return undefined;
    }
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(rest) && !/^[a-z]:[\\/]/i.test(rest)) {
    return undefined; // command:, javascript:, vscode: … are never run from an answer
  }
  const hash = rest.indexOf("#");
  const anchor = hash >= 0 ? rest.slice(hash + 1) : "";
  let path = hash >= 0 ? rest.slice(0, hash) : rest;
  let line: number | undefined;
  let column: number | undefined;
  let endLine: number | undefined;
  const range = /^L(\d+)(?:C(\d+))?(?:-L?(\d+))?$/i.exec(anchor);
  if (range !== null) {
    [line, column, endLine] = [positive(range[1]), positive(range[2]), positive(range[3])];
  } else {
    const suffix = /^(.*?):(\d+)(?::(\d+))?$/.exec(path);
    if (suffix !== null && suffix[1] !== "") {
      path = suffix[1];
      [line, column] = [positive(suffix[2]), positive(suffix[3])];
    }
  }
  try {
    path = decodeURI(path);
  } catch {
    // a stray % is part of the name
  }
  if (path === "") {
    return undefined;
  }
  const target: LinkTarget = { kind: "file", path };
  if (line !== undefined) {
    target.line = line;
  }
  if (column !== undefined) {
    target.column = column;
  }
  if (endLine !== undefined && line !== undefined && endLine >= line) {
    target.endLine = endLine;
  }
  return target;
}
