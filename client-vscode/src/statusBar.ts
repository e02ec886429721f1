// The status bar item: server state, completion backend, UB use, last validation. Clicking it
// shows the server's log.
import * as vscode from 'vscode';
import { ClientState, render, ServerStatus } from './status';

export const SHOW_LOG_COMMAND = 'ascendc.showLog';
/** `kernelgen/status` state sent when LLM completions fall back to the embedded engine. */
const FALLBACK_STATE = 'completion-fallback';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private client: ClientState = 'stopped';
  private status: ServerStatus | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('ascendc.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'AscendC';
    this.item.command = SHOW_LOG_COMMAND;
  }

  setClientState(state: ClientState): void {
    this.client = state;
    if (state !== 'running') {
      this.status = undefined;
    }
    this.update();
  }

  setServerStatus(status: ServerStatus): void {
    if (status.state === FALLBACK_STATE) {
      // Not a state of the server's work: the model server is down and the embedded engine
      // answers; keep the last state and validation, flag the completion backend.
      this.status = {
        ...this.status,
        completion: { ...this.status?.completion, backend: this.status?.completion?.backend ?? 'llm', reachable: false },
        message: status.message,
      };
    } else {
      this.status = { ...this.status, ...status };
    }
    this.update();
  }

  /** The item is shown once the server is wanted (a kernel file or a command), not before. */
  show(): void {
    this.update();
    this.item.show();
  }

  get text(): string {
    return this.item.text;
  }

  private update(): void {
    const view = render(this.client, this.status);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor = view.error
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
