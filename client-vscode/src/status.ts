// The server's `kernelgen/status` notification and the status bar text made from it. Pure: the
// status bar item (statusBar.ts) only displays what render() returns.

/** The language client's own view of the server process. */
export type ClientState = 'starting' | 'running' | 'stopped' | 'failed';

/** A validation result, either the server's summary or a whole ValidationReport. */
export interface ValidationLike {
  ok?: boolean;
  passed?: number;
  total?: number;
  /** The rule code of the first failure (e.g. `datacopy-align`). */
  rule?: string | null;
  summary?: string | null;
  compile?: { ok?: boolean };
  cases?: { ok?: boolean }[];
  runtime_errors?: { code?: string }[];
}

/** Parameters of `kernelgen/status`; every field optional so an older server still shows. */
export interface ServerStatus {
  state?: string;
  project?: string | null;
  message?: string | null;
  validation?: ValidationLike | null;
  completion?: { backend?: string; reachable?: boolean | null } | null;
  ub?: { used?: number; capacity?: number; file?: string } | null;
  chip?: string;
  /** The server's version (in `kernelgen.status` answers). */
  version?: string;
}

export interface ValidationSummary {
  ok: boolean;
  passed?: number;
  total?: number;
  failure?: string;
}

/** Passed/total cases and the first failure's rule code, from either validation shape. */
export function summarizeValidation(v: ValidationLike | null | undefined): ValidationSummary | undefined {
  if (!v) {
    return undefined;
  }
  let passed = v.passed;
  let total = v.total;
  if (total === undefined && Array.isArray(v.cases)) {
    total = v.cases.length;
    passed = v.cases.filter((c) => c.ok).length;
  }
  const ok = v.ok ?? (total !== undefined && total > 0 && passed === total);
  let failure: string | undefined;
  if (!ok) {
    failure =
      v.rule ??
      v.runtime_errors?.find((e) => e.code)?.code ??
      (v.compile && v.compile.ok === false ? 'compile' : undefined) ??
      (total !== undefined ? `${passed ?? 0}/${total}` : 'failed');
  }
  return { ok, passed, total, failure };
}

/** `✓ 6/6` or `✗ datacopy-align`: what the status bar shows of the last validation. */
export function validationBadge(s: ValidationSummary): string {
  if (s.ok) {
    // No cases: compiled without a reference to run against.
    return s.total ? `✓ ${s.passed ?? s.total}/${s.total}` : '✓ compiled';
  }
  return `✗ ${s.failure ?? 'failed'}`;
}

export function ubPercent(ub: ServerStatus['ub']): number | undefined {
  if (!ub || !ub.capacity || ub.used === undefined) {
    return undefined;
  }
  return Math.round((100 * ub.used) / ub.capacity);
}

function kib(bytes: number): string {
  return `${Math.round(bytes / 1024)} KiB`;
}

/** States the server reports while it works; shown with a spinning icon. */
const BUSY_STATES = ['starting', 'linting', 'validating', 'generating', 'busy'];

export interface StatusView {
  text: string;
  tooltip: string;
  /** Draws the item in the error colours. */
  error: boolean;
}

/** The status bar text and tooltip for the client's state and the server's last status. */
export function render(client: ClientState, status: ServerStatus | undefined): StatusView {
  if (client === 'starting') {
    return { text: '$(sync~spin) AscendC', tooltip: 'AscendC: starting the kernelgen server', error: false };
  }
  if (client === 'stopped' || client === 'failed') {
    const what = client === 'failed' ? 'could not start' : 'is stopped';
    return {
      text: '$(error) AscendC',
      tooltip: `AscendC: the kernelgen server ${what}. Click to show the log.`,
      error: true,
    };
  }
  const s = status ?? {};
  const parts: string[] = [];
  const busy = s.state !== undefined && BUSY_STATES.includes(s.state);
  const failed = s.state === 'error';
  parts.push(busy ? '$(sync~spin) AscendC' : failed ? '$(warning) AscendC' : '$(circuit-board) AscendC');
  const lines = [`Server: ${s.state ?? 'running'}${s.chip ? ` (${s.chip})` : ''}`];
  if (s.project) {
    lines.push(`Project: ${s.project}`);
  }

  const percent = ubPercent(s.ub);
  if (percent !== undefined && s.ub) {
    parts.push(`UB ${percent}%`);
    lines.push(`Unified Buffer: ${kib(s.ub.used ?? 0)} of ${kib(s.ub.capacity ?? 0)} (${percent}%)`);
  }

  const v = summarizeValidation(s.validation);
  if (v) {
    parts.push(validationBadge(v));
    lines.push(`Last validation: ${v.ok ? 'passed' : 'failed'} ${validationBadge(v)}`);
  }

  const completion = s.completion;
  if (completion?.backend) {
    const reach =
      completion.reachable === false ? 'unreachable' : completion.reachable ? 'reachable' : undefined;
    lines.push(`Completion: ${completion.backend}${reach ? `, ${reach}` : ''}`);
    if (completion.reachable === false) {
      parts.push('$(debug-disconnect)');
    }
  }
  if (s.message) {
    lines.push(s.message);
  }
  lines.push('Click to show the log.');
  return { text: parts.join(' '), tooltip: lines.join('\n'), error: failed };
}
