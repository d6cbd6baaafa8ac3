// File mentions in the chat's input: `@src/app.py` attaches the file. The text sent to the agent carries each file
// in an <attached_file> block after the user's words; the chat shows the words and a chip per file. Pure.

const MENTION = /(^|\s)@((?:[\w.~-]+\/)*[\w.~-]*\.?[\w~-]+)/g;
const ATTACHED = /\n*<attached_file path="([^"]*)">\n([\s\S]*?)\n<\/attached_file>/g;

/** The paths mentioned with `@`, in order, each once (e-mail addresses are not mentions: `@` must start a word). */
export function mentionedPaths(text: string): string[] {
  const paths: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const path = match[2].replace(/[.,;:!?)]+$/, "");
    if (path !== "" && !paths.includes(path)) {
      paths.push(path);
    }
  }
  return paths;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}

/** The message the agent gets: the user's words, then each attached file's text. */
export function withAttachments(text: string, files: readonly { path: string; content: string }[]): string {
  const blocks = files.map((file) => `<attached_file path="${escapeAttribute(file.path)}">\n${file.content.replace(/\n$/, "")}\n</attached_file>`);
  return blocks.length === 0 ? text : `${text}\n\n${blocks.join("\n\n")}`;
}

/** A sent message split back into the user's words and the files attached to it (for the chat's user entry). */
export function splitAttachments(message: string): { text: string; files: { path: string; content: string }[] } {
  const files: { path: string; content: string }[] = [];
  const text = message.replace(ATTACHED, (_whole, path: string, content: string) => {
    files.push({ path: path.replace(/&quot;/g, '"').replace(/&amp;/g, "&"), content });
    return "";
  });
  return { text: text.trimEnd(), files };
}
