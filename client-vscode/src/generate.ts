// "AscendC: Generate Kernel from Torch Op": progress in a cancellable notification, the
// generated kernel opened when done.
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { errorText, KernelgenServer, ServerCommands, WorkDoneProgressValue } from './api';
import { summarizeValidation, validationBadge, ValidationLike } from './status';

/** The JSON `kernelgen.generateKernel` returns (the same as `kernelgen generate --format json`). */
export interface GenerateResult {
  ok: boolean;
  op?: string;
  project?: string | null;
  backend_used?: string;
  validation?: ValidationLike | null;
  error?: string | null;
  speed?: { speedup?: number } | null;
  /** The kernel source, when the server names it. */
  kernel?: string | null;
}

/** Resolves when the token is cancelled, so a cancel closes the notification at once. */
function whenCancelled(token: vscode.CancellationToken): Promise<'cancelled'> {
  return new Promise((resolve) => {
    if (token.isCancellationRequested) {
      resolve('cancelled');
    }
    token.onCancellationRequested(() => resolve('cancelled'));
  });
}

/** Converts the server's absolute percentages into the increments withProgress expects. */
export function progressReporter(
  progress: vscode.Progress<{ message?: string; increment?: number }>,
): (value: WorkDoneProgressValue) => void {
  let done = 0;
  return (value) => {
    if (value.kind === 'end') {
      return;
    }
    const step: { message?: string; increment?: number } = {};
    // The begin message repeats what the notification's title already says (the stub).
    if (value.message && value.kind === 'report') {
      step.message = value.message;
    }
    if (value.percentage !== undefined && value.percentage > done) {
      step.increment = value.percentage - done;
      done = value.percentage;
    }
    if (step.message !== undefined || step.increment !== undefined) {
      progress.report(step);
    }
  };
}

/** The kernel source of a generated operator project: `op_kernel/<op>.cpp`. */
export function kernelFileOf(result: GenerateResult): string | undefined {
  if (result.kernel) {
    return result.kernel;
  }
  if (!result.project) {
    return undefined;
  }
  const dir = path.join(result.project, 'op_kernel');
  const named = result.op ? path.join(dir, `${result.op}.cpp`) : undefined;
  if (named && fs.existsSync(named)) {
    return named;
  }
  try {
    const cpp = fs.readdirSync(dir).filter((f) => f.endsWith('.cpp')).sort();
    return cpp.length ? path.join(dir, cpp[0]) : undefined;
  } catch {
    return undefined;
  }
}

/** The one-line outcome shown when generation ends. */
export function describeResult(result: GenerateResult, stubName: string): string {
  if (!result.ok) {
    return `AscendC: no kernel generated from ${stubName}: ${result.error ?? 'the generated kernel failed validation'}.`;
  }
  const v = summarizeValidation(result.validation);
  const parts = [`AscendC: generated ${result.op ?? 'the kernel'} from ${stubName}`];
  if (v) {
    parts.push(`validation ${validationBadge(v)}`);
  }
  if (result.speed?.speedup !== undefined) {
    parts.push(`modelled ${result.speed.speedup.toFixed(2)}x vs eager`);
  }
  return `${parts.join(', ')}.`;
}

/** Runs the generation; the server's result, or undefined when cancelled or failed to run. */
export async function generateKernel(
  server: KernelgenServer,
  stub: vscode.Uri,
  outDir?: string,
): Promise<GenerateResult | undefined> {
  const stubName = path.basename(stub.fsPath);
  let outcome: GenerateResult | 'cancelled' | undefined;
  try {
    outcome = await runWithProgress(server, stub, stubName, outDir);
  } catch (err) {
    void showErrorWithLog(server, `AscendC: generation from ${stubName} did not run: ${errorText(err)}`);
    return undefined;
  }
  if (outcome === 'cancelled') {
    void vscode.window.showInformationMessage(`AscendC: generation from ${stubName} cancelled.`);
    return undefined;
  }
  if (!outcome || typeof outcome !== 'object') {
    void vscode.window.showErrorMessage('AscendC: the server returned no generation result.');
    return undefined;
  }
  const kernel = kernelFileOf(outcome);
  if (kernel && !isVisible(kernel)) {
    // The server normally shows the kernel itself (window/showDocument); this covers a server
    // or client that does not.
    await vscode.window.showTextDocument(vscode.Uri.file(kernel), { preview: false });
  }
  const message = describeResult(outcome, stubName);
  if (outcome.ok) {
    void vscode.window.showInformationMessage(message);
  } else {
    void showErrorWithLog(server, message);
  }
  return outcome;
}

/** The request in a cancellable notification, with the server's progress reported in it. */
function runWithProgress(
  server: KernelgenServer,
  stub: vscode.Uri,
  stubName: string,
  outDir: string | undefined,
): Thenable<GenerateResult | 'cancelled'> {
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `AscendC: generating a kernel from ${stubName}`,
      cancellable: true,
    },
    async (progress, token) => {
      const workDoneToken = randomUUID();
      const listener = server.onProgress(workDoneToken, progressReporter(progress));
      try {
        const request = server.execute<GenerateResult>(
          ServerCommands.generateKernel,
          outDir ? { uri: stub.toString(), outDir } : { uri: stub.toString() },
          token,
          workDoneToken,
        );
        request.catch(() => undefined); // a cancelled request rejects after we stopped waiting
        const outcome = await Promise.race([request, whenCancelled(token)]);
        if (outcome === 'cancelled') {
          // The server stops the generation worker on either signal: the request's
          // $/cancelRequest (sent by the client) or this cancel of its progress.
          server.cancelProgress(workDoneToken);
        }
        return outcome;
      } finally {
        listener.dispose();
      }
    },
  );
}

function isVisible(fsPath: string): boolean {
  return vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === fsPath);
}

export async function showErrorWithLog(server: KernelgenServer, message: string): Promise<void> {
  if ((await vscode.window.showErrorMessage(message, 'Show Log')) === 'Show Log') {
    server.showLog();
  }
}
