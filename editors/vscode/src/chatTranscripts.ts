// The chat's transcripts and titles by session, as the chat view holds them: restored from the server the first
// time a session is shown (compact/transcript, or compact/messages from an older server), then changed by each
// event of a turn. The transcript changes themselves are model/chatModel.ts; restoring records, model/chatRestore.ts.
import type * as vscode from "vscode";
import type { CompactClient } from "./client";
import { isMethodNotFound } from "./serverStart";
import type { ChatEntry, ChatTranscript, CompactionMarker } from "./model/chatModel";
import { EMPTY_TRANSCRIPT } from "./model/chatModel";
import { transcriptFromMessages, transcriptFromRecords } from "./model/chatRestore";
import { plainMessage } from "./model/commandModel";
import type { DidCompactParams, MessagesView } from "./protocol";
import { Methods } from "./protocol";

type ApprovalEntry = Extract<ChatEntry, { kind: "approval" }>;

export class ChatTranscripts {
  /** Transcripts by session id, loaded from the server on first show. */
  private readonly transcripts = new Map<string, ChatTranscript>();
  private readonly titles = new Map<string, string>();

  constructor(
    private readonly client: CompactClient,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  has(sessionId: string): boolean {
    return this.transcripts.has(sessionId);
  }

  /** The transcript of a session as shown (empty when none is, or not yet). */
  of(sessionId: string | undefined): ChatTranscript {
    return sessionId === undefined ? EMPTY_TRANSCRIPT : (this.transcripts.get(sessionId) ?? EMPTY_TRANSCRIPT);
  }

  /** The title the chat shows for a session ("New chat" before the first message creates one). */
  titleOf(sessionId: string | undefined): string {
    return sessionId === undefined ? "New chat" : (this.titles.get(sessionId) ?? "");
  }

  setTitle(sessionId: string, title: string): void {
    this.titles.set(sessionId, title);
  }

  /** A session the chat just created: nothing to read from the server. */
  startEmpty(sessionId: string, title: string): void {
    this.transcripts.set(sessionId, EMPTY_TRANSCRIPT);
    this.titles.set(sessionId, title);
  }

  /** Read a session afresh when it is next shown. */
  forget(sessionId: string): void {
    this.transcripts.delete(sessionId);
  }

  /** A restarted server: every session is read afresh. */
  clear(): void {
    this.transcripts.clear();
  }

  /**
   * Changes a session's transcript; false when it is not held and `running` is false (not shown yet: it is read
   * from the server when it is).
   */
  update(sessionId: string, running: boolean, change: (transcript: ChatTranscript) => ChatTranscript): boolean {
    const before = this.transcripts.get(sessionId);
    if (before === undefined && !running) {
      return false;
    }
    this.transcripts.set(sessionId, change(before ?? EMPTY_TRANSCRIPT));
    return true;
  }

  /** A permission prompt's entry: in one session, or in any. */
  approval(id: string, sessionId?: string): ApprovalEntry | undefined {
    const held = sessionId === undefined ? [...this.transcripts.values()] : [this.of(sessionId)];
    const entry = held.flatMap((t) => t.entries).find((e) => e.kind === "approval" && e.id === id);
    return entry?.kind === "approval" ? entry : undefined;
  }

  /** Reads a session's transcript from the server, unless one arrived meanwhile; a failure is logged. */
  async restore(sessionId: string): Promise<void> {
    try {
      const transcript = await this.load(sessionId);
      if (!this.transcripts.has(sessionId)) {
        this.transcripts.set(sessionId, transcript);
      }
    } catch (error) {
      this.log.warn(`Reading the chat of ${sessionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async load(sessionId: string): Promise<ChatTranscript> {
    try {
      const answer = await this.client.request<{ entries?: unknown[]; title?: string }>(Methods.transcript, { sessionId });
      if (typeof answer.title === "string") {
        this.titles.set(sessionId, answer.title);
      }
      return transcriptFromRecords(answer.entries ?? []);
    } catch (error) {
      if (!isMethodNotFound(error)) {
        throw error;
      }
      const view = await this.client.request<MessagesView>(Methods.messages, { sessionId });
      return transcriptFromMessages(view.messages);
    }
  }
}

/** compact/didCompact as the marker line the transcript draws. */
export function compactionMarker(event: DidCompactParams): CompactionMarker {
  const facts = event as DidCompactParams & { summarizer?: string; fallback?: boolean; fallbackReason?: string; cleared?: number };
  return {
    kind: "marker",
    compaction: event.kind,
    trigger: event.trigger,
    tokensBefore: event.tokensBefore,
    tokensAfter: event.tokensAfter,
    summarizer: facts.summarizer,
    fallback: facts.fallback,
    fallbackReason: facts.fallbackReason,
    cleared: facts.cleared,
  };
}

/** The user's last message as sent (with its attached files), so the chat shows the chips. */
export function withLastUserText(transcript: ChatTranscript, text: string): ChatTranscript {
  const index = transcript.entries.findLastIndex((entry) => entry.kind === "user");
  return index < 0
    ? transcript
    : { ...transcript, entries: transcript.entries.map((entry, i) => (i === index ? { kind: "user", text } : entry)) };
}

/**
 * A turn that failed for want of an API key: the chat's error (shown once, there) carries the Set API Key button and
 * says what to do in VS Code's words, not the server's environment variable.
 */
export function offerApiKeyIn(transcript: ChatTranscript): ChatTranscript {
  const entries = transcript.entries.map((entry) =>
    entry.kind === "error" && /api key/i.test(entry.text)
      ? { ...entry, text: plainMessage(entry.text), action: "compact.setApiKey" as const }
      : entry,
  );
  return { ...transcript, entries };
}
