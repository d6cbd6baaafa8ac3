// Pin and unpin (compact/pin, compact/unpin): a tool result from the chat, a file from the explorer or editor,
// and the Unpin picker over the current session's pins.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { failureOutcome } from "./model/commandModel";
import type { PinTarget, PinnedItem } from "./model/pins";
import { describePin, pinEffect, pinLabel, pinnedItems } from "./model/pins";
import { notify } from "./notify";
import type { Status } from "./protocol";
import { Methods } from "./protocol";

export const PinMethods = { pin: "compact/pin", unpin: "compact/unpin" } as const;

/** Pins (or unpins) on the current session and says what it does; false when there is no session or it failed. */
export async function setPinned(client: CompactClient, target: PinTarget, pinned: boolean, label: string): Promise<boolean> {
  const sessionId = client.sessionId;
  if (sessionId === undefined) {
    notify({ severity: "info", text: "There is no session to pin in yet: start a chat first." });
    return false;
  }
  try {
    await client.request(pinned ? PinMethods.pin : PinMethods.unpin, { sessionId, ...target });
  } catch (error) {
    notify(failureOutcome(pinned ? "Pin" : "Unpin", error));
    return false;
  }
  notify({ severity: "info", text: describePin(target, pinned, label) });
  return true;
}

/** Compact: Pin File for Rehydration: the file of the explorer/editor context menu, else the active editor's. */
export async function pinFile(client: CompactClient, arg: unknown): Promise<void> {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (uri === undefined || uri.scheme !== "file") {
    notify({ severity: "info", text: "Open the file to pin, or use Pin File on it in the Explorer." });
    return;
  }
  await setPinned(client, { path: uri.fsPath }, true, vscode.workspace.asRelativePath(uri));
}

/** Compact: Unpin…: picks one of the current session's pins. */
export async function unpinPicked(client: CompactClient): Promise<void> {
  const status = await client.request<Status>(Methods.status, client.sessionId === undefined ? {} : { sessionId: client.sessionId });
  const pins = pinnedItems(status);
  if (pins.length === 0) {
    notify({ severity: "info", text: "Nothing is pinned in this session." });
    return;
  }
  const picked = await vscode.window.showQuickPick(
    pins.map((pin) => ({
      label: `$(${pin.kind === "file" ? "file" : "tools"}) ${pinLabel(pin)}`,
      description: pinEffect(pin),
      pin,
    })),
    { title: "Unpin", placeHolder: "What should no longer be pinned?" },
  );
  if (picked !== undefined) {
    await setPinned(client, targetOf(picked.pin), false, pinLabel(picked.pin));
  }
}

function targetOf(pin: PinnedItem): PinTarget {
  return pin.kind === "file" ? { path: pin.path } : { toolUseId: pin.toolUseId };
}
