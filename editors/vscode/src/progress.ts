// The server's work-done progress ($/progress during a full compaction) as a cancellable notification, not only a
// status bar spinner: Cancel sends window/workDoneProgress/cancel, and the compaction reports "cancelled".
import * as vscode from "vscode";
import type { LanguageClient, ProgressToken, WorkDoneProgressBegin, WorkDoneProgressReport } from "vscode-languageclient/node";
import {
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
} from "vscode-languageclient/node";

type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | { kind: "end"; message?: string };

/** What is in progress now (the chat shows it too); undefined once it ended. */
export type ProgressActivity = { title: string; message?: string } | undefined;

export function registerWorkDoneProgress(
  client: LanguageClient,
  log: vscode.LogOutputChannel,
  onActivity: (activity: ProgressActivity) => void = () => undefined,
): vscode.Disposable {
  return client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    track(client, token, log, onActivity);
  });
}

function track(
  client: LanguageClient,
  token: ProgressToken,
  log: vscode.LogOutputChannel,
  onActivity: (activity: ProgressActivity) => void,
): void {
  let title = "";
  let report: ((message: string | undefined, percentage: number | undefined) => void) | undefined;
  let finish: (() => void) | undefined;
  let lastPercentage = 0;
  const ended = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const subscription = client.onProgress(WorkDoneProgress.type, token, (value: ProgressValue) => {
    if (value.kind === "begin") {
      title = value.title;
      onActivity({ title, message: value.message });
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: value.title, cancellable: value.cancellable === true },
        (progress, cancel) => {
          cancel.onCancellationRequested(() => {
            log.info(`Cancelling "${value.title}"`);
            void client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
          });
          report = (message, percentage) => {
            const increment = percentage !== undefined ? Math.max(0, percentage - lastPercentage) : undefined;
            lastPercentage = percentage ?? lastPercentage;
            progress.report({ message, increment });
          };
          report(value.message, value.percentage);
          return ended;
        },
      );
    } else if (value.kind === "report") {
      report?.(value.message, value.percentage);
      onActivity({ title, message: value.message });
    } else {
      onActivity(undefined);
      subscription.dispose();
      finish?.();
    }
  });
}
