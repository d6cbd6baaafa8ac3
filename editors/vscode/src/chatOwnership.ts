// The chat of a session another window writes (that window's server took it: openElsewhere). The chat reads it again
// from the server when that window takes it or lets it go, and as that window's turns move it on (this window did not
// stream them), then shows it read-only, or with its input back. Who writes which session is sessionOwners.ts.
import type * as vscode from "vscode";
import type { ChatTranscripts } from "./chatTranscripts";
import type { CompactClient } from "./client";

export class ChatOwnership implements vscode.Disposable {
  /** The session whose chat is being read again (another window writes it), and whether it changed meanwhile. */
  private rereading: string | undefined;
  private rereadAgain = false;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly client: CompactClient,
    private readonly transcripts: ChatTranscripts,
    /** Whether a turn of this window runs in the session (the chat streams it: nothing to read again). */
    private readonly busy: (sessionId: string) => boolean,
    /** Redraws the chat. */
    private readonly post: () => void,
  ) {
    this.subscriptions = [
      client.owners.onDidChangeOpenElsewhere(() => this.ownerChanged()),
      client.onDidChangeUsage((event) => this.movedElsewhere(event.sessionId)),
    ];
  }

  /** Whether the chat shows the session read-only because another window writes it (no agent owns it, no turn runs here). */
  shownReadOnly(sessionId: string | undefined): boolean {
    const owners = this.client.owners;
    return owners.readOnlyOwner(sessionId) === undefined && owners.isOpenElsewhere(sessionId) && !this.busy(sessionId ?? "");
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  /**
   * Another window took the shown session or let it go: read its chat again (that window's turns, which this one
   * did not stream), then show it read-only or with its input back.
   */
  private ownerChanged(): void {
    const sessionId = this.client.sessionId;
    if (sessionId !== undefined && !this.busy(sessionId)) {
      void this.reread(sessionId);
    } else {
      this.post();
    }
  }

  /** The shown session moved while another window writes it (the server followed that window's turn): read it again. */
  private movedElsewhere(sessionId: string): void {
    if (sessionId === this.client.sessionId && this.client.owners.isOpenElsewhere(sessionId) && !this.busy(sessionId)) {
      void this.reread(sessionId);
    }
  }

  /** Reads the session's chat from the server again and shows it: one read at a time, a change meanwhile reads once more. */
  private async reread(sessionId: string): Promise<void> {
    if (this.rereading !== undefined) {
      this.rereadAgain = true;
      return;
    }
    this.rereading = sessionId;
    try {
      do {
        this.rereadAgain = false;
        this.transcripts.forget(sessionId);
        await this.transcripts.restore(sessionId);
        this.post();
      } while (this.rereadAgain && this.client.sessionId === sessionId);
    } finally {
      this.rereading = undefined;
    }
  }
}
