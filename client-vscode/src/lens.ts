// Code lenses as the server sends them, with their commands routed to the extension's own
// commands (progress, messages, the kernel opened) instead of a silent server round trip; and
// the UB figure of the "UB used / capacity" lens, which the status bar shows for the active kernel.
import { Commands } from './commands';
import { ServerCommands } from './api';

export interface LensCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}

const ROUTES: Record<string, string> = {
  [ServerCommands.validate]: Commands.validateKernel,
  [ServerCommands.generateKernel]: Commands.generateKernel,
  [ServerCommands.status]: Commands.showStatus,
};

/** The lens's command with its id replaced by the extension command that does the same. */
export function routeLensCommand<T extends LensCommand>(cmd: T): T {
  const routed = ROUTES[cmd.command];
  return routed ? { ...cmd, command: routed } : cmd;
}

/** Bytes of a size the server prints as `196.5 KB` or `512 B`. */
function bytes(text: string): number | undefined {
  const m = /^([\d.]+)\s*(B|KB|KiB|MB|MiB)$/.exec(text.trim());
  if (!m) {
    return undefined;
  }
  const scale = m[2].startsWith('K') ? 1024 : m[2].startsWith('M') ? 1024 * 1024 : 1;
  return Number(m[1]) * scale;
}

/** UB use from the lens titled `UB <used> / <capacity>`, when the lenses hold one. */
export function ubFromLenses(lenses: readonly { command?: LensCommand }[]): { used: number; capacity: number } | undefined {
  for (const lens of lenses) {
    const m = /^UB (.+) \/ (.+)$/.exec(lens.command?.title ?? '');
    const used = m ? bytes(m[1]) : undefined;
    const capacity = m ? bytes(m[2]) : undefined;
    if (used !== undefined && capacity) {
      return { used, capacity };
    }
  }
  return undefined;
}
