import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import type { IdpFunction } from '../../lib/idp-function.js';
import {
  logicalIdOf,
  removeProjectTempDir,
  statementsOfRole,
  synthesizeIdp,
  useProjectTempDir,
} from './synthesize.js';

/**
 * The deployed functions' bundles: ESM, everything inside (the AWS SDK bundled, not the runtime's
 * copy: `npm run bench` measures why), code split so what only some requests need is a chunk of
 * its own, loading in a plain Node process. Bytes are printed, not budgeted (`npm run bench`
 * prints them beside a bare DocumentClient handler).
 */

const outdir = path.join(useProjectTempDir(), 'bundles');
afterAll(removeProjectTempDir);

// With a sender, so that the mailer function is there too.
const { app, stack } = synthesizeIdp({ sesSender: 'no-reply@example.com' }, { bundle: true, outdir });
const { mailer } = stack;
if (!mailer) throw new Error('a sesSender makes a mailer');
const assembly = app.synth();
const resources = assembly.getStackArtifact(stack.artifactId).template.Resources;

const bundled: [string, IdpFunction][] = [
  ...Object.entries(stack.functions),
  ['seed', stack.systemData.handler],
  ['mailer', mailer.function],
];

const bundleOf = (fn: IdpFunction) => {
  const s3Key: string = resources[logicalIdOf(fn.lambda)].Properties.Code.S3Key;
  return path.join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`, 'index.mjs');
};

/** A function's code files: `index.mjs` and its chunks. */
const codeFilesOf = (fn: IdpFunction): string[] => {
  const file = bundleOf(fn);
  const chunkDirectory = path.join(path.dirname(file), 'chunks');
  const chunks = existsSync(chunkDirectory)
    ? readdirSync(chunkDirectory).filter((name) => name.endsWith('.mjs'))
    : [];
  return [file, ...chunks.map((name) => path.join(chunkDirectory, name))];
};

/** The sources a function's code came from, as its source maps name them. */
const sourcesOf = (fn: IdpFunction): string[] =>
  codeFilesOf(fn).flatMap((code): string[] => JSON.parse(readFileSync(`${code}.map`, 'utf8')).sources);

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
/** Functions whose requests cause emails hand them to the mailer function (shared/email/mailer-queue.ts). */
const MAILER_QUEUE = '@aws-sdk/client-lambda';
const RUNS_ON: Record<string, string[]> = {
  'functions/accounts.ts': [...HTTP, ...TABLE, MAILER_QUEUE],
  'functions/audit.ts': [...HTTP, ...TABLE],
  'functions/audit-digest.ts': [...TABLE, SECRETS, 'aws-jwt-verify', '@aws-lambda-powertools/logger'],
  'functions/audit-forwarder.ts': ['@aws-sdk/client-eventbridge', '@aws-lambda-powertools/logger'],
  'functions/clients.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/console.ts': HTTP,
  'functions/cors.ts': [...HTTP, ...TABLE],
  'functions/federation.ts': [...HTTP, ...TABLE, SECRETS, 'openid-client'],
  'functions/mailer.ts': ['@aws-sdk/client-sesv2', 'zod', '@aws-lambda-powertools/logger'],
  'functions/oauth.ts': [...HTTP, ...TABLE, SECRETS, 'aws-jwt-verify'],
  'functions/openapi.ts': HTTP,
  'functions/organizations.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/passkeys.ts': [...HTTP, ...TABLE, '@simplewebauthn/server', MAILER_QUEUE],
  'functions/permissions.ts': [...HTTP, ...TABLE],
  'functions/policies.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/roles.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/scim.ts': [
    ...HTTP,
    ...TABLE,
    SECRETS,
    'aws-jwt-verify',
    MAILER_QUEUE,
    'scim-patch',
    'scim2-parse-filter',
  ],
  'functions/scim-tokens.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/seed.ts': ['zod', ...TABLE],
  'functions/signin.ts': [...HTTP, ...TABLE, SECRETS, 'aws-jwt-verify', MAILER_QUEUE],
  'functions/sso.ts': [...HTTP, ...TABLE, SECRETS],
  'functions/user-groups.ts': [...HTTP, ...TABLE, IDEMPOTENT],
  'functions/user-passwords.ts': [...HTTP, ...TABLE, MAILER_QUEUE],
  'functions/user-pictures.ts': [...HTTP, ...TABLE, '@aws-sdk/client-s3'],
  'functions/users.ts': [...HTTP, ...TABLE, IDEMPOTENT, MAILER_QUEUE],
};

describe('what the functions run on', () => {
  it('lists every function', () => {
    expect(Object.keys(RUNS_ON).sort()).toEqual(
      readdirSync('functions')
        .map((file) => `functions/${file}`)
        .sort(),
    );
  });

  it('bundles the design card packages each uses', () => {
    // The deployed bundles' own source maps say whose code is in them (after tree shaking).
    const byEntry: Record<string, IdpFunction> = {
      ...Object.fromEntries(
        Object.entries(stack.functions).map(([group, fn]) => [`functions/${group}.ts`, fn]),
      ),
      'functions/audit-forwarder.ts': stack.auditStream.forwarder,
      'functions/audit-digest.ts': stack.auditDigests.writer,
      'functions/seed.ts': stack.systemData.handler,
      'functions/mailer.ts': mailer.function,
    };
    const missing = Object.entries(RUNS_ON).map(([entry, wanted]) => {
      const fn = byEntry[entry];
      const packages = new Set(
        (fn ? sourcesOf(fn) : []).map((source) => source.match(/node_modules\/((@[^/]+\/)?[^/]+)/)?.[1]),
      );
      return [entry, wanted.filter((name) => !packages.has(name))];
    });
    expect(Object.fromEntries(missing)).toEqual(
      Object.fromEntries(Object.keys(RUNS_ON).map((entry) => [entry, []])),
    );
  });
});

describe('what the functions may read', () => {
  it('lets a function read signing secrets only when its code loads keys, and key sets only where it signs', () => {
    const template = Template.fromStack(stack);
    const functions: [string, IdpFunction][] = [...bundled, ['audit-digest', stack.auditDigests.writer]];
    const { signingKeys, idTokenSigningKeys, publicSigningKeys, publicIdTokenSigningKeys } = stack.secrets;
    const readable = (fn: IdpFunction) =>
      [signingKeys, idTokenSigningKeys, publicSigningKeys, publicIdTokenSigningKeys].filter((secret) =>
        statementsOfRole(template, logicalIdOf(fn.role)).some(
          (statement) =>
            [statement.Action].flat().includes('secretsmanager:GetSecretValue') &&
            JSON.stringify(statement.Resource).includes(logicalIdOf(secret)),
        ),
      );
    // Whose code can reach the keys at all (its source maps): it reads some; the others none.
    const loadsKeys = (fn: IdpFunction) =>
      sourcesOf(fn).some((source) => source.endsWith('shared/auth/signing-keys.ts'));
    // Who signs: oauth (tokens, both rings) and the digests (ES256); the rest verify with the
    // published public keys, both rings where ID tokens come back (logout's hints) or ES256 alone.
    const wanted: Record<string, (typeof signingKeys)[]> = {
      oauth: [signingKeys, idTokenSigningKeys, publicSigningKeys, publicIdTokenSigningKeys],
      'audit-digest': [signingKeys],
      signin: [publicSigningKeys, publicIdTokenSigningKeys],
      scim: [publicSigningKeys],
    };
    for (const [name, fn] of functions) {
      const expected = loadsKeys(fn) ? wanted[name] : [];
      expect(expected, `${name} loads keys, and no grant for them is written here`).toBeDefined();
      expect(readable(fn).map(logicalIdOf), name).toEqual((expected ?? []).map(logicalIdOf));
    }
  });
});

describe('function bundles', () => {
  it('put what browsers load in the one function serving it, and esbuild in none', () => {
    const codeOf = (fn: IdpFunction) =>
      codeFilesOf(fn)
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n');
    // Marks only the browser code holds: the passkey script's selector (the pages write
    // `data-passkey="`), and a sentence of the console's.
    const marks = {
      passkeys: 'form[data-passkey]',
      console: 'Your permissions show no screen of this console.',
    };
    for (const [owner, mark] of Object.entries(marks))
      for (const [name, fn] of bundled)
        if (name === owner) expect(codeOf(fn), name).toContain(mark);
        else expect(codeOf(fn), name).not.toContain(mark);
    for (const [name, fn] of bundled) expect(codeOf(fn), name).not.toContain('esbuild');
  });

  it("hold the client schemas only where clients are registered or documented, not in every function's entities", () => {
    // The stored client entity once imported them all (about a hundred schemas built at each cold
    // start of every function): shared/schemas/client-jwk.ts is what the entity needs.
    const holders = bundled
      .filter(([, fn]) => sourcesOf(fn).some((source) => source.endsWith('shared/schemas/clients.ts')))
      .map(([name]) => name);
    expect(holders.sort()).toEqual(['clients', 'openapi']);
  });

  it('hold the audit query and record schemas only in the audit and openapi functions, though every function writes records', () => {
    // A page-size constant imported from them once built about 90 schemas at each cold start of
    // every function.
    const holders = bundled
      .filter(([, fn]) => sourcesOf(fn).some((source) => source.endsWith('shared/schemas/audit.ts')))
      .map(([name]) => name);
    expect(holders.sort()).toEqual(['audit', 'openapi']);
  });

  it('are one per function, each of its own code', () => {
    const keys = bundled.map(([, fn]) => resources[logicalIdOf(fn.lambda)].Properties.Code.S3Key);
    expect(new Set(keys).size).toBe(bundled.length);
  });

  it.each(bundled)('%s: ESM bundle, all inside, loads and exports handler', (name, fn) => {
    const files = codeFilesOf(fn);
    const { ms, handler } = coldImport(bundleOf(fn));
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
    const zodSources = sourcesOf(fn).filter((source) => source.includes('node_modules/zod/'));
    expect(zodSources.some((source) => source.includes('/zod/v4/mini/'))).toBe(true);
    expect(zodSources.some((source) => source.includes('/zod/v4/classic/'))).toBe(name === 'openapi');
    expect(handler).toBe('function');
  });
});
