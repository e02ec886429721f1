// What the commands need from the language server, so they can be tested without one.
import type * as vscode from 'vscode';

/** The server's commands (workspace/executeCommand, one JSON object argument). */
export const ServerCommands = {
  generateKernel: 'kernelgen.generateKernel',
  validate: 'kernelgen.validate',
  setReference: 'kernelgen.setReference',
  acceptCompletion: 'kernelgen.acceptCompletion',
  status: 'kernelgen.status',
} as const;

/** $/progress values of a work-done progress (LSP WorkDoneProgressBegin/Report/End). */
export interface WorkDoneProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
}

export interface KernelgenServer {
  /** Runs a server command; starts the server first when it is not running. */
  execute<T>(
    command: string,
    argument: object,
    token?: vscode.CancellationToken,
    workDoneToken?: string,
  ): Promise<T>;
  /** Progress the server reports against a work-done token the client chose. */
  onProgress(workDoneToken: string, handler: (value: WorkDoneProgressValue) => void): vscode.Disposable;
  /** window/workDoneProgress/cancel for a progress the user cancelled. */
  cancelProgress(workDoneToken: string): void;
  restart(): Promise<void>;
  showLog(): void;
  /** A line in the server's output channel. */
  log(line: string): void;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
