// Pins (docs/protocol.md, compact/pin): a pinned tool result is never cleared by microcompaction, a pinned file is
// re-attached first after a compaction. How they read in the usage view, the Unpin picker and the toasts. Pure.

export interface PinnedItem {
  kind: "toolResult" | "file";
  toolUseId?: string;
  path?: string;
  tool?: string;
  inHistory?: boolean;
}

export interface PinTarget {
  toolUseId?: string;
  path?: string;
}

/** "read_file src/data.py" for a result, "src/auth.py" for a file. */
export function pinLabel(pin: PinnedItem): string {
  if (pin.kind === "file") {
    return pin.path ?? "";
  }
  return [pin.tool, pin.path].filter((part) => part !== undefined && part !== "").join(" ") || (pin.toolUseId ?? "");
}

export function pinEffect(pin: PinnedItem): string {
  if (pin.kind === "file") {
    return "re-attached first after a compaction";
  }
  return pin.inHistory === false ? "summarised away (no longer in the context)" : "never cleared by microcompaction";
}

/** The toast after a pin or unpin. */
export function describePin(target: PinTarget, pinned: boolean, label: string): string {
  const what = target.toolUseId !== undefined ? `the result of ${label}` : label;
  if (!pinned) {
    return `Unpinned ${what}.`;
  }
  return target.toolUseId !== undefined
    ? `Pinned ${what}: microcompaction will never clear it.`
    : `Pinned ${what}: it is re-attached first after every compaction.`;
}

/** Pins from a compact/status or compact/pin answer, ignoring anything malformed. */
export function pinnedItems(answer: unknown): PinnedItem[] {
  const list = (answer as { pinned?: unknown } | null | undefined)?.pinned;
  if (!Array.isArray(list)) {
    return [];
  }
  return list.filter(
    (item): item is PinnedItem =>
      typeof item === "object" && item !== null && ((item as PinnedItem).kind === "toolResult" || (item as PinnedItem).kind === "file"),
  );
}
