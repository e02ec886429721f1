// The palette, editor-title and context-menu commands ("AscendC: ..."). Their ids differ from
// the server's `kernelgen.*` commands, which the language client registers under their own ids.
import * as path from 'path';
import * as vscode from 'vscode';
import { errorText, KernelgenServer, ServerCommands } from './api';
import { generateKernel, showErrorWithLog } from './generate';
import { isKernelSource, isTorchStub } from './kernelFiles';
import { ServerStatus, summarizeValidation, validationBadge, ValidationLike } from './status';

export const Commands = {
  generateKernel: 'ascendc.generateKernel',
  validateKernel: 'ascendc.validateKernel',
  setReference: 'ascendc.setReference',
  showStatus: 'ascendc.showStatus',
  restartServer: 'ascendc.restartServer',
  setApiKey: 'ascendc.setApiKey',
} as const;

/** The argument of a server command, as code lenses carry it: `{uri, outDir?}`. */
interface ServerArgument {
  uri: string;
  outDir?: string;
}

function isServerArgument(arg: unknown): arg is ServerArgument {
  return typeof arg === 'object' && arg !== null && typeof (arg as ServerArgument).uri === 'string';
}

/**
 * The file a command acts on: the one a menu passed (explorer or editor title), else the active
 * editor's, if it passes `accept`.
 */
export function targetUri(
  arg: unknown,
  active: vscode.TextDocument | undefined,
  accept: (fsPath: string, text: string) => boolean,
): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) {
    return arg;
  }
  if (isServerArgument(arg)) {
    return vscode.Uri.parse(arg.uri);
  }
  if (active && active.uri.scheme === 'file' && accept(active.uri.fsPath, active.getText())) {
    return active.uri;
  }
  return undefined;
}

function activeDocument(): vscode.TextDocument | undefined {
  return vscode.window.activeTextEditor?.document;
}

/** A `✓ 6/6`-style line for a validation result, or the server's own summary. */
export function describeValidation(result: ValidationLike | null | undefined, file: string): string {
  const v = summarizeValidation(result);
  if (!v) {
    return `AscendC: ${file}: no validation result (is a reference set? "AscendC: Set Reference").`;
  }
  if (v.ok && !v.total) {
    return `AscendC: ${file} compiles; set a reference ("AscendC: Set Reference") to run it.`;
  }
  const verdict = v.ok ? 'passed' : 'failed';
  const summary = result?.summary ? `: ${result.summary}` : '';
  return `AscendC: ${file} ${verdict} validation ${validationBadge(v)}${summary}`;
}

/** The lines "AscendC: Show Status" shows, from `kernelgen.status`'s answer. */
export function describeStatus(status: ServerStatus): string {
  const v = summarizeValidation(status.validation);
  const version = status.version ? ` ${status.version}` : '';
  const parts = [`AscendC server${version}: ${status.state ?? 'running'}`];
  if (status.chip) {
    parts.push(`chip ${status.chip}`);
  }
  if (status.project) {
    parts.push(`project ${status.project}`);
  }
  if (status.completion?.backend) {
    const reach = status.completion.reachable === false ? ' (unreachable)' : '';
    parts.push(`completion ${status.completion.backend}${reach}`);
  }
  if (v) {
    parts.push(`last validation ${validationBadge(v)}`);
  }
  const head = parts.join(', ');
  return status.message ? `${head}. ${status.message}` : `${head}.`;
}

export interface CommandDeps {
  server: KernelgenServer;
  setApiKey(): Promise<void>;
  /** A validation the extension got itself (generation's), for the status bar. */
  showValidation?(validation: ValidationLike): void;
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { server } = deps;
  const reg = vscode.commands.registerCommand;
  return [
    reg(Commands.generateKernel, async (arg?: unknown) => {
      const stub = targetUri(arg, activeDocument(), (p) => isTorchStub(p));
      if (!stub) {
        void vscode.window.showWarningMessage(
          'AscendC: open a PyTorch stub (a Python file with `class Model(nn.Module)`) to generate a kernel from it.',
        );
        return;
      }
      await vscode.workspace.saveAll(false);
      const result = await generateKernel(server, stub, isServerArgument(arg) ? arg.outDir : undefined);
      if (result?.validation) {
        deps.showValidation?.(result.validation);
      }
    }),

    reg(Commands.validateKernel, async (arg?: unknown) => {
      const kernel = targetUri(arg, activeDocument(), isKernelSource);
      if (!kernel) {
        void vscode.window.showWarningMessage('AscendC: open an AscendC kernel file to validate it.');
        return;
      }
      await vscode.workspace.saveAll(false);
      const file = path.basename(kernel.fsPath);
      try {
        const result = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: `AscendC: validating ${file}` },
          () => server.execute<ValidationLike | null>(ServerCommands.validate, { uri: kernel.toString() }),
        );
        const message = describeValidation(result, file);
        if (summarizeValidation(result)?.ok) {
          void vscode.window.showInformationMessage(message);
        } else {
          void showErrorWithLog(server, message);
        }
      } catch (err) {
        void showErrorWithLog(server, `AscendC: validation of ${file} did not run: ${errorText(err)}`);
      }
    }),

    reg(Commands.setReference, async (arg?: unknown) => {
      const kernel = targetUri(arg, activeDocument(), isKernelSource);
      if (!kernel) {
        void vscode.window.showWarningMessage('AscendC: open an AscendC kernel file to set its reference.');
        return;
      }
      const picked = await vscode.window.showOpenDialog({
        title: 'AscendC: the PyTorch reference this kernel implements',
        openLabel: 'Set Reference',
        canSelectMany: false,
        filters: { 'PyTorch reference': ['py'] },
        defaultUri: vscode.Uri.file(path.dirname(kernel.fsPath)),
      });
      if (!picked?.length) {
        return;
      }
      try {
        await server.execute(ServerCommands.setReference, {
          uri: kernel.toString(),
          reference: picked[0].toString(),
        });
        void vscode.window.showInformationMessage(
          `AscendC: ${path.basename(kernel.fsPath)} is validated against ${path.basename(picked[0].fsPath)}.`,
        );
      } catch (err) {
        void showErrorWithLog(server, `AscendC: the reference was not set: ${errorText(err)}`);
      }
    }),

    reg(Commands.showStatus, async () => {
      try {
        const status = await server.execute<ServerStatus>(ServerCommands.status, {});
        server.log(`status: ${JSON.stringify(status)}`);
        const choice = await vscode.window.showInformationMessage(describeStatus(status ?? {}), 'Show Log');
        if (choice === 'Show Log') {
          server.showLog();
        }
      } catch (err) {
        void showErrorWithLog(server, `AscendC: no status from the server: ${errorText(err)}`);
      }
    }),

    reg(Commands.restartServer, () => server.restart()),

    reg(Commands.setApiKey, () => deps.setApiKey()),
  ];
}
