// How the language server is started: `kernelgen serve` from the configured executable, the
// configured Python, the Python extension's interpreter, or PATH, in that order.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface LaunchInputs {
  /** `kernelgen.server.path`: a `kernelgen` executable. */
  kernelgenPath: string;
  /** `kernelgen.server.pythonPath`: a Python with ascend-kernelgen installed. */
  pythonPath: string;
  /** The interpreter selected in the Python extension, when it is installed. */
  pythonExtensionInterpreter?: string;
  /** The first workspace folder, for `${workspaceFolder}` in the paths. */
  workspaceFolder?: string;
}

export type LaunchSource = 'kernelgenPath' | 'pythonPath' | 'pythonExtension' | 'path';

export interface ServerCommand {
  command: string;
  args: string[];
  source: LaunchSource;
}

/** `~` and `${workspaceFolder}` expanded, as users write them in settings. */
export function expandPath(value: string, workspaceFolder?: string): string {
  let out = value.trim();
  if (out === '~' || out.startsWith('~/')) {
    out = path.join(os.homedir(), out.slice(1));
  }
  if (workspaceFolder) {
    out = out.split('${workspaceFolder}').join(workspaceFolder);
  }
  return out;
}

/** The command line of the server; a Python runs the CLI module so no script path is needed. */
export function serverCommand(inputs: LaunchInputs): ServerCommand {
  const kernelgen = expandPath(inputs.kernelgenPath, inputs.workspaceFolder);
  if (kernelgen) {
    return { command: kernelgen, args: ['serve'], source: 'kernelgenPath' };
  }
  const python = expandPath(inputs.pythonPath, inputs.workspaceFolder);
  if (python) {
    return { command: python, args: ['-m', 'server.cli', 'serve'], source: 'pythonPath' };
  }
  if (inputs.pythonExtensionInterpreter) {
    return {
      command: inputs.pythonExtensionInterpreter,
      args: ['-m', 'server.cli', 'serve'],
      source: 'pythonExtension',
    };
  }
  return { command: 'kernelgen', args: ['serve'], source: 'path' };
}

/** Where the command came from, for the message shown when the server cannot start. */
export function describeSource(source: LaunchSource): string {
  switch (source) {
    case 'kernelgenPath':
      return 'the `kernelgen.server.path` setting';
    case 'pythonPath':
      return 'the `kernelgen.server.pythonPath` setting';
    case 'pythonExtension':
      return "the Python extension's selected interpreter";
    case 'path':
      return '`kernelgen` on PATH';
  }
}

/**
 * Why the command cannot start the server, in words, or undefined when it looks runnable: a
 * missing executable, or a Python without ascend-kernelgen. Checked before the language client
 * spawns it, whose own failure says only that the connection closed.
 */
export async function preflight(launch: ServerCommand, cwd?: string): Promise<string | undefined> {
  const where = describeSource(launch.source);
  const exe = findExecutable(launch.command);
  if (!exe) {
    return `\`${launch.command}\` (${where}) was not found.`;
  }
  if (launch.args[0] !== '-m') {
    return undefined;
  }
  return new Promise((resolve) => {
    // In the server's working directory: `python -c` imports from there first, as the server does.
    const check = 'import server.cli, server.commands.serve';
    execFile(exe, ['-c', check], { timeout: 30_000, cwd }, (err, _out, stderr) => {
      if (!err) {
        resolve(undefined);
        return;
      }
      const last = stderr.trim().split('\n').pop() || err.message;
      resolve(
        /No module named 'server\.commands\.serve'/.test(last)
          ? `The ascend-kernelgen installed for the Python at ${exe} (${where}) has no language server (\`kernelgen serve\`): update it.`
          : `The Python at ${exe} (${where}) does not have ascend-kernelgen installed (${last}).`,
      );
    });
  });
}

/** The path of an executable named absolutely or found on PATH. */
export function findExecutable(command: string): string | undefined {
  const candidates = command.includes('/') || command.includes('\\')
    ? [command]
    : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, command));
  return candidates.find((c) => {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      return fs.statSync(c).isFile();
    } catch {
      return false;
    }
  });
}

/** The extension's README (install instructions): vsce stores it as `readme.md` in the .vsix. */
export function readmeOf(extensionPath: string): string | undefined {
  return ['README.md', 'readme.md'].map((n) => path.join(extensionPath, n)).find((p) => fs.existsSync(p));
}
