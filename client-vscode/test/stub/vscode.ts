// A stand-in for the `vscode` module, enough for the extension's modules to run under Node's
// test runner. Calls the tests look at are recorded in `calls`; answers to prompts are queued
// in `answers`.
import * as path from 'path';

export const calls: { api: string; args: unknown[] }[] = [];
/** Queued answers of showInputBox / show*Message / showOpenDialog, taken first in first out. */
export const answers: unknown[] = [];

function record(api: string, args: unknown[]): unknown {
  calls.push({ api, args });
  return answers.length ? answers.shift() : undefined;
}

export function reset(): void {
  calls.length = 0;
  answers.length = 0;
  commandRegistry.clear();
  window.activeTextEditor = undefined;
  window.visibleTextEditors = [];
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', path.resolve(p));
  }
  static parse(value: string): Uri {
    return value.startsWith('file://') ? Uri.file(decodeURIComponent(value.slice(7))) : new Uri('untitled', value);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return Uri.file(path.join(base.fsPath, ...parts));
  }
  get path(): string {
    return this.fsPath;
  }
  toString(): string {
    return this.scheme === 'file' ? `file://${encodeURI(this.fsPath)}` : this.fsPath;
  }
}

export class Disposable {
  constructor(private readonly fn: () => void) {}
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (listener: (e: T) => void): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(e: T): void {
    this.listeners.forEach((l) => l(e));
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** A cancellation token the test can cancel. */
export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export interface FakeStatusBarItem {
  id: string;
  text: string;
  tooltip?: string;
  command?: string;
  name?: string;
  backgroundColor?: ThemeColor;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

/** Progress reports of the last withProgress, and the source of its cancellation token. */
export const progress = { reports: [] as unknown[], options: undefined as unknown, source: new CancellationTokenSource() };

export const window = {
  activeTextEditor: undefined as undefined | { document: unknown },
  visibleTextEditors: [] as { document: { uri: Uri } }[],
  statusBarItems: [] as FakeStatusBarItem[],
  createStatusBarItem(id: string): FakeStatusBarItem {
    const item: FakeStatusBarItem = {
      id,
      text: '',
      visible: false,
      show() {
        item.visible = true;
      },
      hide() {
        item.visible = false;
      },
      dispose() {
        item.visible = false;
      },
    };
    window.statusBarItems.push(item);
    return item;
  },
  showInformationMessage: (...args: unknown[]) => Promise.resolve(record('showInformationMessage', args)),
  showWarningMessage: (...args: unknown[]) => Promise.resolve(record('showWarningMessage', args)),
  showErrorMessage: (...args: unknown[]) => Promise.resolve(record('showErrorMessage', args)),
  showInputBox: (...args: unknown[]) => Promise.resolve(record('showInputBox', args)),
  showOpenDialog: (...args: unknown[]) => Promise.resolve(record('showOpenDialog', args)),
  showTextDocument: (...args: unknown[]) => Promise.resolve(record('showTextDocument', args)),
  withProgress<R>(
    options: unknown,
    task: (p: { report(v: unknown): void }, token: CancellationTokenSource['token']) => Promise<R>,
  ): Promise<R> {
    record('withProgress', [options]);
    progress.reports = [];
    progress.options = options;
    progress.source = new CancellationTokenSource();
    return task({ report: (v) => progress.reports.push(v) }, progress.source.token);
  },
};

const commandRegistry = new Map<string, (...args: unknown[]) => unknown>();

export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown): Disposable {
    if (commandRegistry.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    commandRegistry.set(id, fn);
    return new Disposable(() => commandRegistry.delete(id));
  },
  executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    const fn = commandRegistry.get(id);
    return fn ? Promise.resolve(fn(...args)) : Promise.resolve(record('executeCommand', [id, ...args]));
  },
  getCommands: () => Promise.resolve([...commandRegistry.keys()]),
};

export const workspace = {
  saveAll: (...args: unknown[]) => Promise.resolve(record('saveAll', args) ?? true),
  workspaceFolders: undefined,
  getConfiguration: () => ({ get: <T>(_key: string, fallback: T) => fallback }),
};

/** A text document with a file URI and fixed content. */
export function document(fsPath: string, text: string): { uri: Uri; getText(): string } {
  return { uri: Uri.file(fsPath), getText: () => text };
}
