// The extension's own command ids (package.json contributes.commands). The server's commands (compact.microcompact,
// ...) are registered by the language client under their own ids, so these must never clash with them.

export const Commands = {
  microcompactNow: "compact.microcompactNow",
  compactConversation: "compact.compactConversation",
  undoCompaction: "compact.undoCompaction",
  showUsage: "compact.showUsage",
  showTimeline: "compact.showTimeline",
  showWorkingSet: "compact.showWorkingSet",
  showRehydrationPreview: "compact.showRehydrationPreview",
  openChat: "compact.openChat",
  newChat: "compact.newChat",
  selectSession: "compact.selectSession",
  showSessionUsage: "compact.showSessionUsage",
  renameSession: "compact.renameSession",
  importSession: "compact.importSession",
  refreshSessions: "compact.refreshSessions",
  pinFile: "compact.pinFile",
  unpin: "compact.unpin",
  showServerLog: "compact.showServerLog",
  restartServer: "compact.restartServer",
  setApiKey: "compact.setApiKey",
  claudeCodeHook: "compact.claudeCodeHook",
  codexHook: "compact.codexHook",
  qwenCodeHook: "compact.qwenCodeHook",
  geminiCliHook: "compact.geminiCliHook",
  focusChat: "compact.focusChat",
  sendMessage: "compact.sendMessage",
  stopTurn: "compact.stopTurn",
  openWalkthrough: "compact.openWalkthrough",
} as const;

/** The walkthrough's id as VS Code knows it: `<publisher>.<name>#<walkthrough id>` (package.json). */
export const WALKTHROUGH_ID = "compact-lsp.compact-lsp#gettingStarted";
