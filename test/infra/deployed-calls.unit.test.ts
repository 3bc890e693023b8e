/**
 * IAM beyond the table (the local gateway checks table requests: shared/api/table-requests.ts): each
 * function's secret-reading path runs as deployed (its synthesized environment, `IDP_LAMBDA_BUNDLE`
 * as its bundle defines it) against the Secrets Manager stand-in, and every call it makes is
 * checked against the statements the synthesized stack gives that function's role; the audit
 * forwarder runs with its environment alone against a mocked EventBridge.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { marshall } from '@aws-sdk/util-dynamodb';
import { Template } from 'aws-cdk-lib/assertions';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { IdpFunction } from '../../lib/idp-function.js';
import { startFakeSecretsManager } from '../support/fake-secrets-manager.js';
import {
  logicalIdOf,
  removeProjectTempDir,
  type Statement,
  statementsOfRole,
  synthesizeIdp,
} from './synthesize.js';

afterAll(removeProjectTempDir);

const { stack } = synthesizeIdp();
const template = Template.fromStack(stack);
const resources = template.toJSON().Resources as Record<string, { Properties: Record<string, unknown> }>;
const statementsOf = (fn: IdpFunction): Statement[] => statementsOfRole(template, logicalIdOf(fn.role));

/** Secret logical id -> its name (`<prefix><name>`). */
const secretNames = new Map(
  Object.entries(template.findResources('AWS::SecretsManager::Secret')).map(([id, secret]) => [
    id,
    secret.Properties.Name as string,
  ]),
);

/** Whether an IAM resource element names the secret `name` (whose ARN ends `<name>-XXXXXX`). */
const namesSecret = (resource: unknown, name: string): boolean => {
  if (resource === '*') return true;
  const ref = (resource as { Ref?: string }).Ref;
  if (ref !== undefined) return secretNames.get(ref) === name;
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return false;
  const arn = join[1].map((part) => (typeof part === 'string' ? part : 'x')).join(join[0]);
  const pattern = arn.split(':secret:')[1];
  if (pattern === undefined) return false;
  const glob = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return glob.test(`${name}-AbCdEf`);
};

/** What the role may do: an Allow naming the action and the secret, and no Deny of it. */
const allowed = (fn: IdpFunction, action: string, name: string): boolean => {
  const matching = statementsOf(fn).filter(
    (statement) =>
      (statement.Action.includes(action) || statement.Action.includes('secretsmanager:*')) &&
      statement.Resource.some((resource) => namesSecret(resource, name)),
  );
  return matching.some((s) => s.Effect === 'Allow') && !matching.some((s) => s.Effect === 'Deny');
};

let fake: Awaited<ReturnType<typeof startFakeSecretsManager>>;
beforeAll(async () => {
  fake = await startFakeSecretsManager();
});
afterAll(() => fake.close());

/** The secrets as the stack creates them: generated placeholders (not JSON), the TOTP key's JSON. */
const deployedSecrets = () => {
  fake.reset();
  for (const name of secretNames.values())
    fake.secrets.set(
      name,
      name.endsWith('totp-key')
        ? { value: JSON.stringify({ id: '1', material: 'm'.repeat(64) }) }
        : { value: 'GeneratedPlaceholderPassword' },
    );
};

/**
 * Runs `body` with the function's deployed environment (values CloudFormation resolves given
 * stand-ins), modules loaded afresh, and answers the Secrets Manager calls it made as
 * `<Operation> <SecretId>`, with what it returned or threw.
 */
const asDeployed = async (fn: IdpFunction, body: () => Promise<unknown>) => {
  const saved = { ...process.env };
  const variables = resources[logicalIdOf(fn.lambda)]?.Properties.Environment as {
    Variables: Record<string, unknown>;
  };
  for (const key of Object.keys(process.env)) if (key.startsWith('IDP_')) delete process.env[key];
  for (const [key, value] of Object.entries(variables.Variables))
    process.env[key] =
      typeof value === 'string' ? value : key === 'IDP_ISSUER' ? 'https://id.example.com' : `resolved-${key}`;
  Object.assign(process.env, {
    IDP_SECRETS_MANAGER_ENDPOINT: fake.endpoint,
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_REGION: 'us-east-1',
  });
  (globalThis as { IDP_LAMBDA_BUNDLE?: true }).IDP_LAMBDA_BUNDLE = true;
  vi.resetModules();
  fake.forgetCalls();
  let outcome: { ok: true } | { ok: false; error: string };
  try {
    await body();
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error: (error as Error).message };
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    delete (globalThis as { IDP_LAMBDA_BUNDLE?: true }).IDP_LAMBDA_BUNDLE;
    vi.resetModules();
  }
  const calls = fake.calls().map((call) => ({
    action: `secretsmanager:${call.operation}`,
    name: String(call.input.SecretId ?? call.input.Name),
  }));
  return {
    outcome,
    calls: calls.map(({ action, name }) => `${action} ${name}`),
    refused: calls
      .filter(({ action, name }) => !allowed(fn, action, name))
      .map((c) => `${c.action} ${c.name}`),
  };
};

describe('positive controls: paths whose Secrets Manager calls the roles allow', () => {
  it('oauth: first token signed and JWKS served over the placeholders (initialize + publish)', async () => {
    deployedSecrets();
    const run = await asDeployed(stack.functions.oauth, async () => {
      const keys = await import('../../shared/auth/signing-keys.js');
      await keys.currentSigningKey('ES256');
      await keys.publicJwks();
    });
    expect(run.outcome).toEqual({ ok: true });
    expect(run.calls).toContain('secretsmanager:PutSecretValue idp/signing-keys');
    expect(run.refused).toEqual([]);
  });

  it('signin and scim: verification keys (own-tokens.ts) read the published keys only', async () => {
    const signin = await asDeployed(stack.functions.signin, async () => {
      await (await import('../../shared/auth/signing-keys.js')).verificationJwks();
    });
    expect(signin.outcome).toEqual({ ok: true });
    expect(signin.refused).toEqual([]);
    const scim = await asDeployed(stack.functions.scim, async () => {
      await (await import('../../shared/auth/signing-keys.js')).verificationJwks(['ES256']);
    });
    expect(scim.outcome).toEqual({ ok: true });
    expect(scim.refused).toEqual([]);
  });

  it('the TOTP sealing key: signin, accounts, passkeys and federation read it', async () => {
    for (const group of ['signin', 'accounts', 'passkeys', 'federation'] as const) {
      const run = await asDeployed(stack.functions[group], async () => {
        const { sealTotpSecret } = await import('../../shared/auth/totp-sealing.js');
        await sealTotpSecret({ organizationId: 'o', userId: 'u' }, 'JBSWY3DPEHPK3PXP');
      });
      expect(run.outcome, group).toEqual({ ok: true });
      expect(run.refused, group).toEqual([]);
    }
  });

  it('sso: a new client secret value replaces the old (CreateSecret, DeleteSecret); federation reads it', async () => {
    const sso = await asDeployed(stack.functions.sso, async () => {
      const { withSecretValue } = await import('../../shared/store/sso-secret-values.js');
      await withSecretValue('client-1', 'first', async () => ({ result: 1, replaced: undefined }));
      await withSecretValue('client-1', 'second', async () => ({
        result: 2,
        replaced: { secretVersion: undefined },
      }));
    });
    expect(sso.outcome).toEqual({ ok: true });
    expect(sso.calls.filter((call) => call.includes('DeleteSecret'))).toEqual([
      'secretsmanager:DeleteSecret idp/sso/client-1/secret',
    ]);
    expect(sso.refused).toEqual([]);
    const federation = await asDeployed(stack.functions.federation, async () => {
      const { ssoClientSecretOf } = await import('../../shared/auth/federation/client-secrets.js');
      await ssoClientSecretOf({ clientId: 'client-1' } as never).catch(() => undefined);
    });
    expect(federation.refused).toEqual([]);
  });
});

describe('the audit digest writer (functions/audit-digest.ts: existingSigningKey)', () => {
  const signDigest = async () => {
    await (await import('../../shared/auth/signing-keys.js')).existingSigningKey();
  };
  const initializeAsOauth = () =>
    asDeployed(stack.functions.oauth, async () => {
      await (await import('../../shared/auth/signing-keys.js')).currentSigningKey();
    });

  it('reads the key set the oauth function made, under the stack prefix, with only calls its role allows', async () => {
    deployedSecrets();
    expect((await initializeAsOauth()).outcome).toEqual({ ok: true });
    const run = await asDeployed(stack.auditDigests.writer, signDigest);
    expect(run).toEqual({
      outcome: { ok: true },
      calls: ['secretsmanager:GetSecretValue idp/signing-keys'],
      refused: [],
    });
  });

  it('before the oauth function made the key set, fails saying so and writes nothing', async () => {
    deployedSecrets();
    const run = await asDeployed(stack.auditDigests.writer, signDigest);
    expect(run.outcome).toEqual({
      ok: false,
      error: 'signing-keys holds no key set yet: the oauth function creates it when it first signs',
    });
    expect(run.calls).toEqual(['secretsmanager:GetSecretValue idp/signing-keys']);
    expect(run.refused).toEqual([]);
  });

  it('looks under the prefix the stack was deployed with; an empty prefix is refused at synthesis', () => {
    const prefixed = synthesizeIdp({ secretPrefix: 'prod/idp/' }).stack;
    const variables = Template.fromStack(prefixed).toJSON().Resources[
      logicalIdOf(prefixed.auditDigests.writer.lambda)
    ].Properties.Environment.Variables as Record<string, unknown>;
    expect(variables).toMatchObject({ IDP_SECRET_STORE: 'aws', IDP_SECRET_PREFIX: 'prod/idp/' });
    expect(() => synthesizeIdp({ secretPrefix: '' })).toThrow('secretPrefix must not be empty');
  });
});

describe('the audit forwarder (functions/audit-forwarder.ts)', () => {
  const eventBridge = mockClient(EventBridgeClient);
  afterAll(() => eventBridge.restore());
  const record = {
    id: '01J00000000000000000000001',
    organizationId: 'org-1',
    time: 1_790_000_000_000,
    action: 'user.created',
    actor: { type: 'user', id: 'user-1', ip: '192.0.2.1' },
    targets: [{ type: 'user', id: 'user-1' }],
    outcome: 'success',
  };
  const item = {
    pk: `AUDIT#org-1#${record.id}`,
    sk: 'RECORD',
    record: JSON.stringify(record),
    action: record.action,
  };
  const event = {
    Records: [
      {
        eventID: '1',
        eventName: 'INSERT',
        eventSource: 'aws:dynamodb',
        dynamodb: {
          Keys: marshall({ pk: item.pk, sk: item.sk }),
          NewImage: marshall(item),
          SequenceNumber: '1001',
          StreamViewType: 'NEW_IMAGE',
        },
      },
    ],
  } as unknown as DynamoDBStreamEvent;

  it('puts a new record on the bus with the environment it is deployed with alone (no table settings)', async () => {
    eventBridge.reset();
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    const run = await asDeployed(stack.auditStream.forwarder, async () => {
      expect(Object.keys(process.env).filter((name) => name.startsWith('IDP_'))).toEqual([
        'IDP_EVENT_BUS_NAME',
        'IDP_SECRETS_MANAGER_ENDPOINT',
      ]);
      const { handler } = await import('../../functions/audit-forwarder.js');
      expect(await handler(event)).toEqual({ batchItemFailures: [] });
    });
    expect(run.outcome).toEqual({ ok: true });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(1);
  });
});
