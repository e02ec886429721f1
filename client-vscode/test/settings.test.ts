import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CHIPS, LAUNCH_SETTINGS, SECTION, sectionOf, serverSettings, SettingGetter } from '../src/settings';

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const properties: Record<string, { default: unknown; enum?: string[] }> =
  manifest.contributes.configuration.properties;

function getter(values: Record<string, unknown>): SettingGetter {
  return <T>(key: string, fallback: T) => (key in values ? (values[key] as T) : fallback);
}

function flatten(obj: object, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    if (value && typeof value === 'object') {
      Object.assign(out, flatten(value as object, `${prefix}${key}.`));
    } else {
      out[`${prefix}${key}`] = value;
    }
  }
  return out;
}

test('defaults are the server defaults: ascend910b2, validate on save, 100 ms, embedded, record edits', () => {
  assert.deepEqual(serverSettings(getter({})), {
    chip: 'ascend910b2',
    validateOnSave: true,
    lintDebounceMs: 100,
    completion: { backend: 'embedded' },
    llm: { baseUrl: '', model: '' },
    recordAcceptedEdits: true,
  });
});

test('every server setting is contributed one to one, with the same default', () => {
  const server = flatten(serverSettings(getter({})));
  const contributed = Object.keys(properties)
    .map((k) => k.slice(SECTION.length + 1))
    .filter((k) => !LAUNCH_SETTINGS.includes(k));
  assert.deepEqual(contributed.sort(), Object.keys(server).sort());
  for (const key of contributed) {
    assert.deepEqual(properties[`${SECTION}.${key}`].default, server[key], key);
  }
});

test('the chip enum lists exactly the chips the server knows', () => {
  assert.deepEqual(properties['kernelgen.chip'].enum, [...CHIPS]);
});

test('the API key is never a contributed setting, only passed when stored', () => {
  assert.ok(!Object.keys(properties).some((k) => /apikey/i.test(k)));
  assert.equal(serverSettings(getter({}), undefined).llm.apiKey, undefined);
  assert.equal(serverSettings(getter({}), 'sk-1').llm.apiKey, 'sk-1');
});

test('values outside their enum or range fall back to the default', () => {
  const s = serverSettings(getter({ chip: 'ascend999', 'completion.backend': 'gpt', lintDebounceMs: -5 }));
  assert.equal(s.chip, 'ascend910b2');
  assert.equal(s.completion.backend, 'embedded');
  assert.equal(s.lintDebounceMs, 100);
});

test('user values reach the server unchanged', () => {
  const s = serverSettings(
    getter({ chip: 'ascend310p', 'completion.backend': 'llm', 'llm.baseUrl': 'http://h:8000/v1', lintDebounceMs: 250 }),
  );
  assert.equal(s.chip, 'ascend310p');
  assert.equal(s.completion.backend, 'llm');
  assert.equal(s.llm.baseUrl, 'http://h:8000/v1');
  assert.equal(s.lintDebounceMs, 250);
});

test('workspace/configuration answers the section and its subsections, nothing else', () => {
  const s = serverSettings(getter({}), 'k');
  assert.equal(sectionOf(s, 'kernelgen'), s);
  assert.deepEqual(sectionOf(s, 'kernelgen.llm'), { baseUrl: '', model: '', apiKey: 'k' });
  assert.equal(sectionOf(s, 'kernelgen.completion.backend'), 'embedded');
  assert.equal(sectionOf(s, 'editor'), undefined);
  assert.equal(sectionOf(s, undefined), undefined);
});
