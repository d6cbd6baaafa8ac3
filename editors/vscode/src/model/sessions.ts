// Which session the extension follows when it starts: the server forgets the active one across restarts.
import type { SessionInfo } from "../protocol";

/** The most recently updated session (compact/sessions is sorted already; this does not rely on it). */
export function mostRecentSession(sessions: readonly SessionInfo[]): SessionInfo | undefined {
  let best: SessionInfo | undefined;
  for (const session of sessions) {
    if (best === undefined || Date.parse(session.updatedAt) > Date.parse(best.updatedAt)) {
      best = session;
    }
  }
  return best;
}
