// Entry point: wires the server, the commands, the status bar and the API key together. The
// server starts when a kernel file is open or the workspace holds a kernel project, or when a
// command needs it, not merely because a C++ or Python file was opened.
import * as vscode from 'vscode';
import { errorText, ServerCommands } from './api';
import { registerCommands } from './commands';
import { isKernelSource } from './kernelFiles';
import { onInterpreterChange } from './python';
import { ApiKeyStore, promptForApiKey } from './secrets';
import { ServerController } from './server';
import { LAUNCH_SETTINGS, SECTION } from './settings';
import { ServerStatus } from './status';
import { SHOW_LOG_COMMAND, StatusBar } from './statusBar';

/** Enough of a file to find its `#include "kernel_operator.h"`. */
const HEAD_CHARS = 16_384;
const KERNEL_FILE_CONTEXT = 'ascendc.kernelFile';

let controller: ServerController | undefined;

function isKernelDocument(doc: vscode.TextDocument | undefined): boolean {
  return !!doc && doc.uri.scheme === 'file' && isKernelSource(doc.uri.fsPath, doc.getText().slice(0, HEAD_CHARS));
}

async function workspaceHasKernels(): Promise<boolean> {
  for (const glob of ['**/op_kernel/*.cpp', '**/*.asc']) {
    if ((await vscode.workspace.findFiles(glob, '**/node_modules/**', 1)).length) {
      return true;
    }
  }
  return false;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const apiKey = new ApiKeyStore(context.secrets);
  const server = new ServerController(context, apiKey);
  const statusBar = new StatusBar();
  controller = server;

  // The chip and whether the completion backend answers, asked when the server comes up and
  // after each settings change (the notification only says when LLM completions fall back).
  const refreshStatus = async () => {
    if (!server.isRunning) {
      return;
    }
    try {
      const s = await server.execute<ServerStatus>(ServerCommands.status, {});
      statusBar.setServerStatus({ chip: s.chip, completion: s.completion });
    } catch (err) {
      server.log(`status: ${errorText(err)}`);
    }
  };
  server.onDidChangeState((state) => {
    statusBar.setClientState(state);
    statusBar.show();
    if (state === 'running') {
      void refreshStatus();
    }
  });
  server.onStatus((status) => statusBar.setServerStatus(status));
  // UB use per kernel from its code lenses; the status bar shows the active editor's.
  const ubByUri = new Map<string, ServerStatus['ub']>();
  const showUb = (editor: vscode.TextEditor | undefined) =>
    statusBar.setServerStatus({ ub: editor ? ubByUri.get(editor.document.uri.toString()) ?? null : null });
  server.onKernelUb(({ uri, ub }) => {
    ubByUri.set(uri, ub);
    showUb(vscode.window.activeTextEditor);
  });

  const startFor = (doc: vscode.TextDocument | undefined) => {
    if (isKernelDocument(doc)) {
      void server.start();
    }
  };
  const updateContext = (editor: vscode.TextEditor | undefined) => {
    void vscode.commands.executeCommand('setContext', KERNEL_FILE_CONTEXT, isKernelDocument(editor?.document));
  };

  context.subscriptions.push(
    statusBar,
    { dispose: () => void server.dispose() },
    ...registerCommands({
      server,
      showValidation: (validation) => statusBar.setServerStatus({ validation }),
      setApiKey: async () => {
        const baseUrl = vscode.workspace.getConfiguration(SECTION).get('llm.baseUrl', '');
        if (await promptForApiKey(apiKey, baseUrl)) {
          await server.sendSettings();
        }
      },
    }),
    vscode.commands.registerCommand(SHOW_LOG_COMMAND, () => server.showLog()),
    apiKey.onDidChange(() => void server.sendSettings()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) {
        return;
      }
      if (LAUNCH_SETTINGS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`))) {
        void server.restart();
      } else {
        void server.sendSettings().then(refreshStatus);
      }
    }),
    vscode.workspace.onDidOpenTextDocument(startFor),
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      updateContext(editor);
      showUb(editor);
      startFor(editor?.document);
    }),
  );

  const interpreterWatch = await onInterpreterChange(() => {
    if (server.launched?.source === 'pythonExtension' || server.launched === undefined) {
      void server.restart();
    }
  });
  if (interpreterWatch) {
    context.subscriptions.push(interpreterWatch);
  }

  updateContext(vscode.window.activeTextEditor);
  if (vscode.workspace.textDocuments.some(isKernelDocument) || (await workspaceHasKernels())) {
    void server.start();
  }
}

export async function deactivate(): Promise<void> {
  await controller?.dispose();
  controller = undefined;
}
