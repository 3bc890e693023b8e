import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledPackages } from '../../lib/bundling.js';
import type { IdpFunction } from '../../lib/idp-function.js';
import { logicalIdOf, removeProjectTempDir, synthesizeIdp, useProjectTempDir } from './synthesize.js';

/**
 * The deployed functions' bundles: ESM, everything inside (the AWS SDK bundled, not the runtime's
 * copy: `npm run bench` measures why), code split so what only some requests need is a chunk of
 * its own, loading in a plain Node process. Bytes are printed, not budgeted (`npm run bench`
 * prints them beside a bare DocumentClient handler).
 */

const outdir = path.join(useProjectTempDir(), 'bundles');
afterAll(removeProjectTempDir);

const { app, stack } = synthesizeIdp({}, { bundle: true, outdir });
const assembly = app.synth();
const resources = assembly.getStackArtifact(stack.artifactId).template.Resources;

const bundled: [string, IdpFunction][] = [
  ...Object.entries(stack.functions),
  ['seed', stack.systemData.handler],
];

const bundleOf = (fn: IdpFunction) => {
  const s3Key: string = resources[logicalIdOf(fn.lambda)].Properties.Code.S3Key;
  return path.join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`, 'index.mjs');
};

/** Imports the bundle in a plain Node process, as the Lambda runtime would, and times it. */
const coldImport = (file: string): { ms: number; handler: string } => {
  const script = `const started = performance.now();
const module = await import(${JSON.stringify(pathToFileURL(file).href)});
process.stdout.write(JSON.stringify({ ms: performance.now() - started, handler: typeof module.handler }));`;
  const output = execFileSync(
    process.execPath,
    ['--enable-source-maps', '--input-type=module', '-e', script],
    {
      env: { ...process.env, IDP_LOG_LEVEL: 'WARN', AWS_REGION: 'us-east-1' },
    },
  );
  return JSON.parse(output.toString());
};

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/**
 * The design card's packages are what the deployed functions run on (written out, so that a
 * function that stops using one, or takes a hand-written protocol instead, fails here).
 */
const TABLE = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'];
const HTTP = ['@middy/core', 'zod', '@aws-lambda-powertools/logger', '@aws-lambda-powertools/metrics'];
const IDEMPOTENT = '@aws-lambda-powertools/idempotency';
const SECRETS = '@aws-sdk/client-secrets-manager';
const RUNS_ON: Record<string, string[]> = {
  'functions/accounts.ts': [...HTTP, ...TABLE, '@aws-sdk/client-sesv2'],
  'functions/audit.ts': [...HTTP, ...TABLE],
  'functions/audit-digest.ts': [...TABLE, SECRETS, 'aws-jwt-verify', '@aws-lambda-powertools/logger'],
  'functions/audit-forwarder.ts': ['@aws-sdk/client-eventbridge', '@aws-lambda-powertools/logger'],
  'functions/clients.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/cors.ts': [...HTTP, ...TABLE],
  'functions/federation.ts': [...HTTP, ...TABLE, SECRETS, 'openid-client'],
  'functions/oauth.ts': [...HTTP, ...TABLE, SECRETS, 'aws-jwt-verify'],
  'functions/openapi.ts': HTTP,
  'functions/organizations.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/passkeys.ts': [...HTTP, ...TABLE, '@simplewebauthn/server'],
  'functions/permissions.ts': [...HTTP, ...TABLE],
  'functions/policies.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/roles.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/scim.ts': [
    ...HTTP,
    ...TABLE,
    SECRETS,
    'aws-jwt-verify',
    '@aws-sdk/client-sesv2',
    'scim-patch',
    'scim2-parse-filter',
  ],
  'functions/scim-tokens.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/seed.ts': ['zod', ...TABLE],
  'functions/signin.ts': [...HTTP, ...TABLE, SECRETS, 'aws-jwt-verify'],
  'functions/sso.ts': [...HTTP, ...TABLE, SECRETS],
  'functions/user-groups.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/user-passwords.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/user-pictures.ts': [...HTTP, ...TABLE, '@aws-sdk/client-s3'],
  'functions/users.ts': [...HTTP, ...TABLE, IDEMPOTENT, '@aws-sdk/client-sesv2'],
};

describe('what the functions run on', () => {
  it('lists every function', () => {
    expect(Object.keys(RUNS_ON).sort()).toEqual(
      readdirSync('functions')
        .map((file) => `functions/${file}`)
        .sort(),
    );
  });

  it('bundles the design card packages each uses', async () => {
    const bundled = await Promise.all(
      Object.keys(RUNS_ON).map(async (entry) => [entry, await bundledPackages(entry)] as const),
    );
    const missing = bundled.map(([entry, packages]) => [
      entry,
      (RUNS_ON[entry] ?? []).filter((name) => !packages.has(name)),
    ]);
    expect(Object.fromEntries(missing)).toEqual(
      Object.fromEntries(Object.keys(RUNS_ON).map((entry) => [entry, []])),
    );
    // One esbuild build per function: a limit for a build that hangs, not a measure of speed (on a
    // loaded 2-core machine they took longer than the default 60 s).
  }, 180_000);
});

describe('function bundles', () => {
  it("put the hosted pages' passkey script in the passkeys function, as a string, and esbuild in none", () => {
    const sourcesOf = (fn: IdpFunction) => {
      const directory = path.dirname(bundleOf(fn));
      const chunks = existsSync(path.join(directory, 'chunks'))
        ? readdirSync(path.join(directory, 'chunks'))
        : [];
      return [
        bundleOf(fn),
        ...chunks.filter((name) => name.endsWith('.mjs')).map((name) => path.join(directory, 'chunks', name)),
      ]
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n');
    };
    // The script's own selector, only in the browser script (the pages write `data-passkey="`).
    const scriptMark = 'form[data-passkey]';
    expect(sourcesOf(stack.functions.passkeys)).toContain(scriptMark);
    for (const [name, fn] of bundled)
      if (name !== 'passkeys') expect(sourcesOf(fn), name).not.toContain(scriptMark);
    for (const [name, fn] of bundled) expect(sourcesOf(fn), name).not.toContain('esbuild');
  });

  it('are one per function, each of its own code', () => {
    const keys = bundled.map(([, fn]) => resources[logicalIdOf(fn.lambda)].Properties.Code.S3Key);
    expect(new Set(keys).size).toBe(bundled.length);
  });

  it.each(bundled)('%s: ESM bundle, all inside, loads and exports handler', (name, fn) => {
    const file = bundleOf(fn);
    const directory = path.dirname(file);
    const chunkDirectory = path.join(directory, 'chunks');
    const chunks = existsSync(chunkDirectory)
      ? readdirSync(chunkDirectory).filter((name) => name.endsWith('.mjs'))
      : [];
    const files = [file, ...chunks.map((name) => path.join(directory, 'chunks', name))];
    const { ms, handler } = coldImport(file);
    const bytes = files.reduce((total, code) => total + readFileSync(code).length, 0);
    console.log(
      `bundle ${name.padEnd(13)} ${kb(bytes).padStart(9)} in ${files.length} files  cold import ${ms.toFixed(0)} ms`,
    );

    for (const code of files) {
      const source = readFileSync(code, 'utf8');
      expect(
        source.startsWith("import { createRequire } from 'module'; const require = createRequire("),
      ).toBe(true);
      // Bundled, not left to the runtime's SDK copy: no import of @aws-sdk remains.
      expect(source).not.toMatch(/(from|import\()\s*["']@aws-sdk\//);
      expect(source).toMatch(/\/\/# sourceMappingURL=\S+\.mjs\.map\s*$/);
    }
    // Schemas are zod/mini: classic Zod (every method on every schema) costs a cold start ~10 ms
    // of load CPU. Only the OpenAPI document's generator, zod-openapi, brings some of it.
    const zodSources = files
      .flatMap((code): string[] => JSON.parse(readFileSync(`${code}.map`, 'utf8')).sources)
      .filter((source) => source.includes('node_modules/zod/'));
    expect(zodSources.some((source) => source.includes('/zod/v4/mini/'))).toBe(true);
    expect(zodSources.some((source) => source.includes('/zod/v4/classic/'))).toBe(name === 'openapi');
    expect(handler).toBe('function');
  });
});
