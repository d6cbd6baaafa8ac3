// The permission prompts of the chat's running turns, answered inline: each prompt an approval entry in its
// session's transcript (with the proposed change as a diff), its answer from the chat's buttons, the fallback
// toast (approvals.ts) or the turn's end, and "Show diff" in VS Code's diff editor.
import * as vscode from "vscode";
import type { ChatTranscripts } from "./chatTranscripts";
import type { ApprovalState, ChatTranscript } from "./model/chatModel";
import { approvalDiff } from "./model/approvalDiff";
import { attachDiff, requestApproval, resolveApproval } from "./model/chatModel";
import { failureOutcome } from "./model/commandModel";
import { notify } from "./notify";
import type { ProposedChanges } from "./proposedChanges";
import { readText, resolveWorkspacePath } from "./proposedChanges";

export class ChatApprovals {
  /** Open permission prompts: approval id → the answer's resolver. */
  private readonly open = new Map<string, { sessionId: string; resolve: (title: ApprovalState) => void }>();
  private counter = 0;

  constructor(
    private readonly transcripts: ChatTranscripts,
    private readonly changes: ProposedChanges,
    /** Changes a session's transcript and redraws the chat if it shows that session. */
    private readonly updateSession: (sessionId: string, change: (transcript: ChatTranscript) => ChatTranscript) => void,
  ) {}

  /** A prompt in the chat of `sessionId`, whose turn is running; resolved with the answer. */
  ask(sessionId: string, prompt: string): Promise<ApprovalState> {
    const id = `approval-${++this.counter}`;
    this.updateSession(sessionId, (t) => requestApproval(t, id, prompt));
    void this.addDiff(sessionId, id);
    return new Promise((resolve) => {
      this.open.set(id, { sessionId, resolve });
    });
  }

  answer(id: string, state: ApprovalState): void {
    const open = this.open.get(id);
    if (open === undefined) {
      return;
    }
    this.open.delete(id);
    this.updateSession(open.sessionId, (t) => resolveApproval(t, id, state));
    void this.changes.close(id); // the proposal's diff tab has done its work
    open.resolve(state);
  }

  /** Answers every open prompt (the fallback toast, or the chat going away). */
  answerAll(state: ApprovalState): void {
    for (const id of this.open.keys()) {
      this.answer(id, state);
    }
  }

  /** A turn ended: its prompts still open are dismissed. */
  dismissSession(sessionId: string): void {
    for (const [id, open] of this.open) {
      if (open.sessionId === sessionId) {
        this.answer(id, "dismissed");
      }
    }
  }

  /** "Show diff" on a prompt: the file and the agent's proposal in VS Code's diff editor. */
  async showDiff(id: string): Promise<void> {
    const entry = this.transcripts.approval(id);
    if (entry === undefined) {
      return;
    }
    try {
      if (!(await this.changes.show(entry.tool, entry.input, id))) {
        void vscode.window.showInformationMessage("Compact: this request changes no file, so there is no diff to show.");
      }
    } catch (error) {
      notify(failureOutcome("Show diff", error));
    }
  }

  /** The proposed change as a unified diff in the prompt, from the file as it is on disk now. */
  private async addDiff(sessionId: string, id: string): Promise<void> {
    const entry = this.transcripts.approval(id, sessionId);
    if (entry === undefined) {
      return;
    }
    const filePath = (entry.input as { file_path?: unknown } | undefined)?.file_path;
    const uri = typeof filePath === "string" && filePath !== "" ? resolveWorkspacePath(filePath) : undefined;
    if (uri === undefined) {
      return;
    }
    const diff = approvalDiff(entry.tool, entry.input, await readText(uri));
    if (diff !== undefined && vscode.workspace.textDocuments.some((doc) => doc.isDirty && doc.uri.toString() === uri.toString())) {
      diff.unsaved = vscode.workspace.asRelativePath(uri); // said before the user allows, not only after
    }
    if (diff !== undefined) {
      this.updateSession(sessionId, (t) => attachDiff(t, id, diff));
    }
  }
}
