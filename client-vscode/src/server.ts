// Starts and owns the language client: `kernelgen serve` over stdio, the settings it is given,
// and the message shown when it cannot start.
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorHandler,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  State,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import { errorText, KernelgenServer, ServerCommands, WorkDoneProgressValue } from './api';
import { routeLensCommand, ubFromLenses } from './lens';
import { describeSource, preflight, readmeOf, serverCommand, ServerCommand } from './launch';
import { pythonExtensionInterpreter } from './python';
import { ApiKeyStore } from './secrets';
import { SECTION, sectionOf, serverSettings, ServerSettings } from './settings';
import { ClientState, ServerStatus } from './status';

const NAME = 'AscendC Kernelgen';

export class ServerController implements KernelgenServer, vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private readonly output = vscode.window.createOutputChannel(NAME, { log: true });
  private readonly stateEmitter = new vscode.EventEmitter<ClientState>();
  private readonly statusEmitter = new vscode.EventEmitter<ServerStatus>();
  private readonly ubEmitter = new vscode.EventEmitter<{ uri: string; ub: ServerStatus['ub'] }>();
  private readonly owned: vscode.Disposable[] = [];
  /** The command the running (or last tried) server was started with. */
  launched: ServerCommand | undefined;

  readonly onDidChangeState = this.stateEmitter.event;
  readonly onStatus = this.statusEmitter.event;
  /** UB use of a kernel, read from its code lenses each time the server sends them. */
  readonly onKernelUb = this.ubEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly apiKey: ApiKeyStore,
  ) {}

  /** Starts the server once; later calls wait for that start. Undefined when it cannot start. */
  start(): Promise<LanguageClient | undefined> {
    if (this.client?.isRunning()) {
      return Promise.resolve(this.client);
    }
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    this.stateEmitter.fire('starting');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const config = vscode.workspace.getConfiguration(SECTION);
    const launch = serverCommand({
      kernelgenPath: config.get('server.path', ''),
      pythonPath: config.get('server.pythonPath', ''),
      pythonExtensionInterpreter: await pythonExtensionInterpreter(),
      workspaceFolder: folder,
    });
    this.launched = launch;
    this.output.info(`starting: ${launch.command} ${launch.args.join(' ')} (from ${describeSource(launch.source)})`);

    const problem = await preflight(launch, folder);
    if (problem) {
      this.output.error(problem);
      this.stateEmitter.fire('failed');
      void this.showStartFailure(problem);
      return undefined;
    }

    // No `transport`: stdio pipes without the `--stdio` argument the client would append.
    let ran = false;
    let usualHandler: ErrorHandler | undefined;
    const usual = () => (usualHandler ??= client.createDefaultErrorHandler());
    const client: LanguageClient = new LanguageClient(
      'kernelgen',
      NAME,
      { command: launch.command, args: launch.args, options: { cwd: folder } },
      {
        ...(await this.clientOptions()),
        // A server that never came up is not restarted in a loop: the start failure message
        // says what to do. Once it has run, a crash gets the client's usual restarts.
        initializationFailedHandler: () => false,
        errorHandler: {
          error: (error, message, count) => usual().error(error, message, count),
          closed: () => (ran ? usual().closed() : { action: CloseAction.DoNotRestart, handled: true }),
        },
      },
    );
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        ran = true;
        this.stateEmitter.fire('running');
      } else if (e.newState === State.Stopped) {
        this.stateEmitter.fire('stopped');
      }
    });
    client.onNotification('kernelgen/status', (params: ServerStatus) => this.statusEmitter.fire(params));
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.client = undefined;
      this.stateEmitter.fire('failed');
      void client.dispose().catch(ignore);
      this.output.error(`start failed: ${errorText(err)}`);
      void this.showStartFailure('It exited during start-up; its output is in the log.');
      return undefined;
    }
    this.registerAcceptFallback(client);
    return client;
  }

  private async clientOptions(): Promise<LanguageClientOptions> {
    return {
      documentSelector: [
        { scheme: 'file', language: 'cpp' },
        { scheme: 'file', language: 'c' },
        { scheme: 'file', pattern: '**/*.asc' },
      ],
      outputChannel: this.output,
      initializationOptions: await this.settings(),
      middleware: {
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          if (lenses) {
            this.ubEmitter.fire({ uri: document.uri.toString(), ub: ubFromLenses(lenses) });
            for (const lens of lenses) {
              if (lens.command) {
                lens.command = routeLensCommand(lens.command);
              }
            }
          }
          return lenses;
        },
        workspace: {
          // Answers for `kernelgen` carry the normalised settings and the key from SecretStorage.
          configuration: async (params, token, next) => {
            const answers = (await next(params, token)) as unknown[] | ResponseError;
            if (!Array.isArray(answers)) {
              return answers;
            }
            const settings = await this.settings();
            return params.items.map((item, i): unknown => sectionOf(settings, item.section) ?? answers[i]);
          },
        },
      },
    };
  }

  private async settings(): Promise<ServerSettings> {
    const config = vscode.workspace.getConfiguration(SECTION);
    return serverSettings((key, fallback) => config.get(key, fallback), await this.apiKey.get());
  }

  /** Pushes the settings (key included) after a change; pull-model servers re-read them too. */
  async sendSettings(): Promise<void> {
    if (this.client?.isRunning()) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SECTION]: await this.settings() },
      });
    }
  }

  /**
   * Accepted inline completions run `kernelgen.acceptCompletion`. The language client registers
   * it when the server lists it in executeCommandProvider; otherwise the extension forwards it.
   */
  private registerAcceptFallback(client: LanguageClient): void {
    const listed = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    if (listed.includes(ServerCommands.acceptCompletion)) {
      return;
    }
    void vscode.commands.getCommands(true).then((known) => {
      if (!known.includes(ServerCommands.acceptCompletion)) {
        this.owned.push(
          vscode.commands.registerCommand(ServerCommands.acceptCompletion, (arg: object) =>
            this.execute(ServerCommands.acceptCompletion, arg ?? {}),
          ),
        );
      }
    });
  }

  async execute<T>(
    command: string,
    argument: object,
    token?: vscode.CancellationToken,
    workDoneToken?: string,
  ): Promise<T> {
    const client = await this.start();
    if (!client) {
      throw new Error('the kernelgen server is not running');
    }
    return client.sendRequest(
      ExecuteCommandRequest.type,
      { command, arguments: [argument], workDoneToken },
      token,
    ) as Promise<T>;
  }

  onProgress(workDoneToken: string, handler: (value: WorkDoneProgressValue) => void): vscode.Disposable {
    if (!this.client) {
      return new vscode.Disposable(() => undefined);
    }
    return this.client.onProgress(WorkDoneProgress.type, workDoneToken, handler);
  }

  cancelProgress(workDoneToken: string): void {
    void this.client?.sendNotification(WorkDoneProgressCancelNotification.type, { token: workDoneToken });
  }

  async restart(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      this.output.info('restarting the server');
      await client.dispose().catch(ignore);
    }
    await this.start();
  }

  get isRunning(): boolean {
    return this.client?.isRunning() ?? false;
  }

  showLog(): void {
    this.output.show(true);
  }

  log(line: string): void {
    this.output.info(line);
  }

  /** The error message with one-click ways out: pick an interpreter, read the docs, see the log. */
  private async showStartFailure(reason: string): Promise<void> {
    const hasPython = vscode.extensions.getExtension('ms-python.python') !== undefined;
    const choose = hasPython ? 'Choose Interpreter' : 'Set Server Path';
    const choice = await vscode.window.showErrorMessage(
      `AscendC: the kernelgen language server could not start. ${reason}`,
      choose,
      'Install Instructions',
      'Show Log',
    );
    if (choice === 'Choose Interpreter') {
      await vscode.commands.executeCommand('python.setInterpreter');
    } else if (choice === 'Set Server Path') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'kernelgen.server');
    } else if (choice === 'Install Instructions') {
      const readme = readmeOf(this.context.extensionPath);
      if (readme) {
        await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.file(readme));
      }
    } else if (choice === 'Show Log') {
      this.showLog();
    }
  }

  async dispose(): Promise<void> {
    for (const d of this.owned) {
      d.dispose();
    }
    await this.client?.dispose().catch(ignore);
    this.output.dispose();
  }
}

/** For a stop or dispose whose failure changes nothing (the process is gone either way). */
function ignore(): void {}
