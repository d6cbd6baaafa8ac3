// What a file would look like after the agent's edit_file or write_file call, for "Show diff" on a permission
// prompt. Mirrors the tool: edit_file replaces old_string (every occurrence with replace_all, else the first);
// write_file replaces the whole file. Pure.

export interface ProposedChange {
  /** The path the agent gave (workspace-relative or absolute). */
  filePath: string;
  /** The file's text after the change. */
  after: string;
  /** Why the change could not be applied as given (the tool will refuse it too); the diff then shows no change. */
  problem?: string;
}

function record(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/** `before` is the file's text now (undefined: it does not exist). Undefined for tools that change no file. */
export function proposedChange(tool: string, input: unknown, before: string | undefined): ProposedChange | undefined {
  const args = record(input);
  const filePath = args.file_path;
  if (typeof filePath !== "string" || filePath === "") {
    return undefined;
  }
  if (tool === "write_file" && typeof args.content === "string") {
    return { filePath, after: args.content };
  }
  if (tool === "edit_file" && typeof args.old_string === "string" && typeof args.new_string === "string") {
    const current = before ?? "";
    const { old_string: oldText, new_string: newText } = args;
    if (before === undefined) {
      return { filePath, after: current, problem: "The file does not exist." };
    }
    if (oldText === "" || !current.includes(oldText)) {
      return { filePath, after: current, problem: "The text to replace is not in the file (any more)." };
    }
    const after =
      args.replace_all === true ? current.split(oldText).join(newText) : current.replace(oldText, () => newText);
    return { filePath, after };
  }
  return undefined;
}
