// Who writes each session, as the server lists it (compact/sessions) and says it since (compact/didChangeOpenElsewhere):
// an agent (Claude Code's, Codex's live sessions: read-only here), another window's server (read-only here while that
// window writes it), and, for a managed copy, the agent it was imported from. The client (client.ts) keeps one, fed by
// its listings and notifications; the chat, the status bar and the warnings ask it (client.owners).
import * as vscode from "vscode";
import { sessionOwner } from "./model/sessions";
import type { SessionInfo } from "./protocol";

export class SessionOwners implements vscode.Disposable {
  /** Sessions listed as read-only (Claude Code's, Codex's) → their source: never adopted as current by a notification. */
  private readonly readOnly = new Map<string, string>();
  /** Sessions another window's server writes (openElsewhere in the last listing, or said since): read-only here. */
  private elsewhere = new Set<string>();
  /** Copies imported from an agent's session: that agent, as the server names it (importedFrom). */
  private readonly imports = new Map<string, string>();
  private readonly elsewhereEmitter = new vscode.EventEmitter<void>();

  /** A session became written in another window, or no longer is (seen in a listing, or said by the server). */
  readonly onDidChangeOpenElsewhere = this.elsewhereEmitter.event;

  /** What a listing (compact/sessions) says of who writes its sessions. */
  listed(sessions: readonly SessionInfo[]): void {
    const elsewhere = new Set(sessions.filter((session) => session.openElsewhere !== undefined).map((session) => session.sessionId));
    if (elsewhere.size !== this.elsewhere.size || [...elsewhere].some((id) => !this.elsewhere.has(id))) {
      this.elsewhere = elsewhere;
      this.elsewhereEmitter.fire();
    }
    for (const session of sessions) {
      if (session.readOnly === true) {
        this.readOnly.set(session.sessionId, sessionOwner(session) ?? "another program");
      }
      if (session.importedFrom !== undefined) {
        this.imports.set(session.sessionId, session.importedFrom);
      }
    }
  }

  /**
   * Another window's server took the session (it wrote first), or let it go (that window closed): the chat turns
   * read-only, or writable, at once (compact/didChangeOpenElsewhere), not at the next listing.
   */
  setOpenElsewhere(sessionId: string, elsewhere: boolean): void {
    if (this.elsewhere.has(sessionId) === elsewhere) {
      return;
    }
    this.elsewhere = new Set(this.elsewhere);
    if (elsewhere) {
      this.elsewhere.add(sessionId);
    } else {
      this.elsewhere.delete(sessionId);
    }
    this.elsewhereEmitter.fire();
  }

  /** Whether another window's server writes the session (as last listed or said): it is read-only here. */
  isOpenElsewhere(sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.elsewhere.has(sessionId);
  }

  /** Whether a listed session is read-only here (Claude Code's or Codex's live sessions). */
  isReadOnly(sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.readOnly.has(sessionId);
  }

  /** The agent a listed copy was imported from, as the server names it ("Codex"); undefined for any other session. */
  importedFrom(sessionId: string | undefined): string | undefined {
    return sessionId === undefined ? undefined : this.imports.get(sessionId);
  }

  /** Who owns a read-only session, as the server names it ("Claude Code", "Codex", "Qwen Code"). */
  readOnlyOwner(sessionId: string | undefined): string | undefined {
    return sessionId === undefined ? undefined : this.readOnly.get(sessionId);
  }

  dispose(): void {
    this.elsewhereEmitter.dispose();
  }
}
