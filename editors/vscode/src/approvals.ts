// The server's window/showMessageRequest. A permission prompt (Allow once / Allow for this session / Deny) of a
// running chat turn is answered in the chat, inline, where the user is looking; a toast only stands in when the
// chat is hidden (and either answer counts). Any other request is a plain VS Code message.
import * as vscode from "vscode";
import type { ShowMessageRequestParams } from "vscode-languageclient/node";
import { MessageType } from "vscode-languageclient/node";
import type { ChatViewProvider } from "./chatView";
import type { ApprovalState } from "./model/chatModel";
import { APPROVAL_ACTIONS } from "./model/chatPage";

export function isPermissionPrompt(params: ShowMessageRequestParams): boolean {
  const titles = (params.actions ?? []).map((action) => action.title);
  return titles.length === APPROVAL_ACTIONS.length && APPROVAL_ACTIONS.every((title) => titles.includes(title));
}

export async function answerMessageRequest(
  chat: ChatViewProvider,
  params: ShowMessageRequestParams,
): Promise<{ title: string } | null> {
  if (isPermissionPrompt(params)) {
    const inline = chat.askApproval(params.message);
    if (inline !== undefined) {
      if (!chat.visible) {
        void remindInToast(chat, params.message);
      }
      const state = await inline;
      return state === "dismissed" || state === "pending" ? null : { title: state };
    }
  }
  const show =
    params.type === MessageType.Error
      ? vscode.window.showErrorMessage
      : params.type === MessageType.Warning
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  return (await show(params.message, ...(params.actions ?? []))) ?? null;
}

/** The chat is hidden: a toast says that the agent waits, and can answer too. */
async function remindInToast(chat: ChatViewProvider, message: string): Promise<void> {
  const headline = message.split("\n")[0];
  const choice = await vscode.window.showWarningMessage(`Compact: ${headline}`, "Show in Chat", ...APPROVAL_ACTIONS);
  if (choice === "Show in Chat") {
    await chat.show();
  } else if (choice !== undefined) {
    chat.answerApproval(choice as ApprovalState);
  }
}
