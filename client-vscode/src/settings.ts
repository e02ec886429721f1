// The extension's settings and how they map onto the server's configuration (section
// `kernelgen`, sent as initializationOptions and in workspace/configuration answers).

export const SECTION = 'kernelgen';

/** Chips the server knows (ascend_tools/data/chips.json); the `kernelgen.chip` enum. */
export const CHIPS = [
  'ascend910b1',
  'ascend910b2',
  'ascend910b3',
  'ascend910b4',
  'ascend910_93',
  'ascend910',
  'ascend310p',
  'ascend310b',
] as const;
export type Chip = (typeof CHIPS)[number];

export const COMPLETION_BACKENDS = ['embedded', 'llm', 'off'] as const;
export type CompletionBackend = (typeof COMPLETION_BACKENDS)[number];

/** The configuration the server reads, one key per setting (`llm.apiKey` from SecretStorage). */
export interface ServerSettings {
  chip: Chip;
  validateOnSave: boolean;
  lintDebounceMs: number;
  completion: { backend: CompletionBackend };
  llm: { baseUrl: string; model: string; apiKey?: string };
  recordAcceptedEdits: boolean;
}

/** Reads one key of the `kernelgen` section (vscode's WorkspaceConfiguration.get). */
export type SettingGetter = <T>(key: string, fallback: T) => T;

function oneOf<T extends string>(value: string, allowed: readonly T[], fallback: T): T {
  return (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/**
 * The server's configuration from the user's settings. Values outside their enum fall back to
 * the default rather than reaching the server; the API key is added only when one is stored.
 */
export function serverSettings(get: SettingGetter, apiKey?: string): ServerSettings {
  const debounce = Number(get('lintDebounceMs', 100));
  const settings: ServerSettings = {
    chip: oneOf(get('chip', 'ascend910b2'), CHIPS, 'ascend910b2'),
    validateOnSave: get('validateOnSave', true),
    lintDebounceMs: Number.isFinite(debounce) && debounce >= 0 ? Math.round(debounce) : 100,
    completion: {
      backend: oneOf(get('completion.backend', 'embedded'), COMPLETION_BACKENDS, 'embedded'),
    },
    llm: { baseUrl: get('llm.baseUrl', ''), model: get('llm.model', '') },
    recordAcceptedEdits: get('recordAcceptedEdits', true),
  };
  if (apiKey) {
    settings.llm.apiKey = apiKey;
  }
  return settings;
}

/** Settings that change how the server is started, not what it is told: a restart applies them. */
export const LAUNCH_SETTINGS = ['server.path', 'server.pythonPath'];

/** The settings answer for `kernelgen` or a subsection such as `kernelgen.llm`. */
export function sectionOf(settings: ServerSettings, section: string | undefined): unknown {
  if (section === SECTION) {
    return settings;
  }
  if (!section?.startsWith(`${SECTION}.`)) {
    return undefined;
  }
  let value: unknown = settings;
  for (const key of section.slice(SECTION.length + 1).split('.')) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}
