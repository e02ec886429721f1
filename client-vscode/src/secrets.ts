// The model server's API key: kept in VS Code's SecretStorage (never in settings.json), set by
// "AscendC: Set Model API Key", and passed to the server as `llm.apiKey`.
import * as vscode from 'vscode';

const KEY = 'kernelgen.llm.apiKey';

export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  get(): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(KEY));
  }

  /** Stores the key; an empty one removes it. */
  async set(value: string): Promise<void> {
    if (value) {
      await this.secrets.store(KEY, value);
    } else {
      await this.secrets.delete(KEY);
    }
  }

  /** Fires when the key changes, also from another window of the same profile. */
  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key === KEY) {
        listener();
      }
    });
  }
}

/**
 * Asks for the key with a password box. Returns true when the stored key changed (cancelling the
 * box changes nothing; an empty answer removes the key).
 */
export async function promptForApiKey(store: ApiKeyStore, baseUrl: string): Promise<boolean> {
  const where = baseUrl ? ` for ${baseUrl}` : '';
  const value = await vscode.window.showInputBox({
    title: 'AscendC: Set Model API Key',
    prompt: `API key of the model server${where}. Stored in VS Code's secret storage, not in settings.`,
    placeHolder: 'Leave empty to remove the stored key',
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) {
    return false;
  }
  await store.set(value.trim());
  void vscode.window.showInformationMessage(
    value.trim() ? 'AscendC: the model API key is stored.' : 'AscendC: the model API key is removed.',
  );
  return true;
}
