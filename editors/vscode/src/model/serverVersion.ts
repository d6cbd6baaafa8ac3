// Is the running server the one this extension was built for? (docs/protocol.md, "Versions")
import type { CompactLspCapability } from "../protocol.generated";

/** The protocol version this extension speaks: `capabilities.experimental.compactLsp.protocolVersion`. */
export const PROTOCOL_VERSION = 1;

/**
 * One sentence for the user when the server's protocol version differs from PROTOCOL_VERSION (older, newer, or a
 * server too old to say), else undefined. `experimental` is the initialize result's `capabilities.experimental`.
 */
export function versionMismatch(
  experimental: unknown,
  serverVersion: string | undefined,
): string | undefined {
  const info = (
    experimental as { compactLsp?: Partial<CompactLspCapability> } | undefined
  )?.compactLsp;
  const protocol =
    typeof info?.protocolVersion === "number"
      ? info.protocolVersion
      : undefined;
  const named = `The Compact server${serverVersion ? ` (compact-lsp ${serverVersion})` : ""}`;
  if (protocol === PROTOCOL_VERSION) {
    return undefined;
  }
  if (protocol === undefined || protocol < PROTOCOL_VERSION) {
    const which =
      protocol === undefined
        ? "predates protocol versions"
        : `speaks protocol ${protocol}`;
    return (
      `${named} is older than this extension: it ${which}, the extension expects ${PROTOCOL_VERSION}. ` +
      "Update the server (or clear compactLsp.server.command / pythonPath to use the one bundled with the extension)."
    );
  }
  return (
    `${named} is newer than this extension: it speaks protocol ${protocol}, the extension expects ` +
    `${PROTOCOL_VERSION}. Update the extension.`
  );
}
