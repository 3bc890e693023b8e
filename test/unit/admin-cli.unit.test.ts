import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_GROUPS, runCli } from '../../bin/admin/cli.js';
import { COMMANDS } from '../../bin/admin/commands.js';
import { operatorActor, operatorId } from '../../bin/admin/operator.js';
import type { AuditRecord } from '../../shared/audit/record.js';
import { dynamoDbClient } from '../../shared/store/dynamo.js';

/** The operator CLI's command line, in this process: help never reaches a database. */
const database = mockClient(DynamoDBDocumentClient);
afterAll(() => database.restore());

const run = async (...argv: string[]) => {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (text) => {
      out += `${text}\n`;
    },
    err: (text) => {
      err += `${text}\n`;
    },
    readStdin: async () => '',
  });
  return { code, out, err };
};

const databaseCalls = () => database.calls().length;
/** The items of the `call`th transaction: the change (an Update) and its audit record's items. */
const transaction = (call: number) => {
  const items = database.commandCalls(TransactWriteCommand)[call]?.args[0].input.TransactItems ?? [];
  const [record] = items.flatMap((item) =>
    typeof item.Put?.Item?.record === 'string' ? [JSON.parse(item.Put.Item.record) as AuditRecord] : [],
  );
  return { update: items.find((item) => item.Update)?.Update, record };
};

/** The organization item as the store keeps it. */
const organizationItem = (fields: Record<string, unknown>) => ({
  pk: 'ORG#acme',
  sk: 'ORG',
  id: 'acme',
  name: 'Acme',
  createdAt: 1,
  updatedAt: 2,
  mfaEnabled: false,
  ...fields,
});
const usages = Object.values(COMMANDS).map((command) => command.usage);

let environment: NodeJS.ProcessEnv;
beforeEach(() => {
  database.reset().rejects(new Error('this test expects no DynamoDB call here'));
  environment = { ...process.env };
});
afterEach(() => {
  // A command that ran pointed the store at its target through the environment.
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});

describe('operator CLI help', () => {
  it('lists every command with no command, --help or help', async () => {
    for (const argv of [[], ['--help'], ['help']]) {
      const { code, out, err } = await run(...argv);
      expect([code, err], argv.join(' ')).toEqual([0, '']);
      for (const usage of usages) expect(out).toContain(`  ${usage}\n`);
    }
  });

  it('lists the commands of a group given alone (exit 2), or with --help (exit 0)', async () => {
    expect(COMMAND_GROUPS).toEqual([
      'org',
      'client',
      'user',
      'sso',
      'plugin',
      'agreement',
      'permissions',
      'managed-role',
      'signing-keys',
      'audit',
      'scim',
      'console',
    ]);
    for (const group of COMMAND_GROUPS) {
      const own = usages.filter((usage) => usage.startsWith(`${group} `));
      const alone = await run(group);
      expect([alone.code, alone.out], group).toEqual([2, '']);
      expect(alone.err).toContain(`error: ${group} needs a command`);
      for (const usage of usages) {
        if (own.includes(usage)) expect(alone.err).toContain(`  ${usage}\n`);
        else expect(alone.err).not.toContain(usage);
      }
      const help = await run(group, '--help');
      expect([help.code, help.err]).toEqual([0, '']);
      expect(help.out).toContain(`${group} commands:\n${own.map((usage) => `  ${usage}`).join('\n')}\n`);
    }
    const typo = await run('org', 'updte', '--help');
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('Unknown command "org updte"');
    expect(typo.err).toContain('  org update --id ORG');
  });

  it('answers every command --help with its own usage, without reading the target', async () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      // Help wins over whatever else the line holds, the target included.
      const help = await run(...name.split(' '), '--help', '--table', 'prod', '--region', 'eu-west-1');
      expect([help.code, help.err], name).toEqual([0, '']);
      expect(help.out.split('\n')[0]).toBe(`Usage: npm run --silent admin -- ${command.usage} [--json]`);
      for (const other of usages) if (other !== command.usage) expect(help.out).not.toContain(other);
    }
    expect((await run('org', 'update', '--help')).out).toContain('cache rate-limit settings for 60 s');
    expect(databaseCalls()).toBe(0);
    expect(process.env).toEqual(environment);
  });
});

describe('org update', () => {
  it('refuses a command line that changes nothing or is out of bounds, with its usage (exit 2)', async () => {
    const cases: [string[], string][] = [
      [[], 'nothing to change: give --rate and --burst, --mfa or --no-mfa'],
      [['--rate', '5'], 'give --rate and --burst together'],
      [['--rate', '0', '--burst', '1'], '--rate must be a whole number from 1 to 1000000, got "0"'],
      [['--rate', '5', '--burst', '1000001'], '--burst must be a whole number from 0 to 1000000'],
      [['--mfa', '--no-mfa'], 'give --mfa or --no-mfa, not both'],
      [['--name', 'Renamed', '--mfa'], 'org update does not take --name'],
    ];
    for (const [options, message] of cases) {
      const refused = await run('org', 'update', '--id', 'acme', ...options);
      expect([refused.code, refused.out], options.join(' ')).toEqual([2, '']);
      expect(refused.err).toContain(`error: ${message}`);
      expect(refused.err).toContain(
        'Usage: npm run --silent admin -- org update --id ORG [--rate R --burst B] [--mfa | --no-mfa]',
      );
    }
    expect((await run('org', 'update', '--mfa')).err).toContain('--id is required');
    expect((await run('org', 'create', '--name', 'N', '--no-mfa')).err).toContain(
      'org create does not take --no-mfa',
    );
    expect(databaseCalls()).toBe(0);
  });

  it('writes only what is given, on condition nobody changed it since read, with its record by the operator', async () => {
    database.on(GetCommand).resolves({ Item: organizationItem({ mfaEnabled: true }) });
    database.on(TransactWriteCommand).resolves({});
    const updated = await run('org', 'update', '--id', 'acme', '--rate', '50', '--burst', '5', '--no-mfa');
    expect([updated.code, updated.err]).toEqual([0, '']);
    expect(updated.out).toContain('Updated organization acme (Acme)\n  MFA off; 50 requests/s + burst 5\n');
    expect(updated.out).toContain('60 s');
    expect(database.commandCalls(TransactWriteCommand)).toHaveLength(1);
    const { update, record } = transaction(0);
    expect(update).toEqual({
      TableName: 'idp',
      Key: expect.any(Object),
      UpdateExpression: 'SET updatedAt = :now, rateLimit = :rateLimit, mfaEnabled = :mfaEnabled',
      ConditionExpression: 'updatedAt = :read',
      ExpressionAttributeValues: {
        ':now': expect.any(Number),
        ':read': 2,
        ':rateLimit': { rate: 50, burst: 5 },
        ':mfaEnabled': false,
      },
    });
    expect(record).toMatchObject({
      organizationId: 'acme',
      action: 'organization.updated',
      actor: { type: 'operator', id: operatorActor().id },
      targets: [{ type: 'organization', id: 'acme', name: 'Acme' }],
      changes: {
        mfaEnabled: { from: true, to: false },
        rateLimit: { from: null, to: { rate: 50, burst: 5 } },
      },
    });

    database.resetHistory();
    database.on(GetCommand).resolves({ Item: organizationItem({ rateLimit: { rate: 50, burst: 5 } }) });
    const json = await run('org', 'update', '--id', 'acme', '--mfa', '--json');
    expect(JSON.parse(json.out)).toEqual({
      id: 'acme',
      name: 'Acme',
      createdAt: 1,
      updatedAt: expect.any(Number),
      mfaEnabled: true,
      rateLimit: { rate: 50, burst: 5 },
    });
    expect(transaction(0).update?.UpdateExpression).toBe('SET updatedAt = :now, mfaEnabled = :mfaEnabled');
    expect(transaction(0).record?.changes).toEqual({ mfaEnabled: { from: false, to: true } });
  });

  it('writes and records nothing for settings the organization has already', async () => {
    database.on(GetCommand).resolves({ Item: organizationItem({ mfaEnabled: true }) });
    const unchanged = await run('org', 'update', '--id', 'acme', '--mfa', '--json');
    expect([unchanged.code, unchanged.err]).toEqual([0, '']);
    expect(JSON.parse(unchanged.out)).toMatchObject({ id: 'acme', updatedAt: 2, mfaEnabled: true });
    expect(database.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('refuses an unknown organization, naming --id (exit 1)', async () => {
    database.on(GetCommand).resolves({});
    const refused = await run('org', 'update', '--id', 'nope', '--mfa');
    expect([refused.code, refused.out]).toEqual([1, '']);
    expect(refused.err).toBe(
      'error: Organization nope not found\n  --id: No organization with this id exists ("nope")\n',
    );
  });
});

describe('a deployed target', () => {
  const UPDATE_ON_A_DEPLOYED_TABLE = [
    'org',
    'update',
    '--id',
    'acme',
    '--mfa',
    '--table',
    'prod',
    '--region',
    'eu-west-1',
  ];

  /** A shell whose only AWS credentials are a named profile in its own files. */
  const profileShell = (profile: string) => {
    const directory = mkdtempSync(join(tmpdir(), 'idp-cli-profile-'));
    writeFileSync(
      join(directory, 'credentials'),
      '[operator]\naws_access_key_id = AKIDOPERATOR\naws_secret_access_key = operator-secret\naws_session_token = operator-token\n',
    );
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'])
      delete process.env[name];
    Object.assign(process.env, {
      AWS_SHARED_CREDENTIALS_FILE: join(directory, 'credentials'),
      AWS_CONFIG_FILE: join(directory, 'config'),
      AWS_PROFILE: profile,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
  };

  it("signs with the operator's credentials from the standard chain (here a profile)", async () => {
    profileShell('operator');
    database.on(GetCommand).resolves({ Item: organizationItem({}) });
    database.on(TransactWriteCommand).resolves({});
    const updated = await run(...UPDATE_ON_A_DEPLOYED_TABLE);
    expect([updated.code, updated.err]).toEqual([0, '']);
    expect(await dynamoDbClient().config.credentials()).toMatchObject({
      accessKeyId: 'AKIDOPERATOR',
      secretAccessKey: 'operator-secret',
      sessionToken: 'operator-token',
    });
    expect(await dynamoDbClient().config.region()).toBe('eu-west-1');
  });

  it('stops before any call when the chain finds no credentials (exit 1)', async () => {
    profileShell('missing');
    const refused = await run(...UPDATE_ON_A_DEPLOYED_TABLE);
    expect([refused.code, refused.out]).toEqual([1, '']);
    expect(refused.err).toMatch(
      /^error: No AWS credentials for profile "missing" \(.+\): sign in \(e\.g\. aws sso login\) or set AWS_PROFILE\n$/,
    );
    expect(databaseCalls()).toBe(0);
  });
});

describe('audit commands', () => {
  it('refuses settings out of bounds and filters GET /idp/auditEvents refuses, before any call (exit 2)', async () => {
    const cases: [string[], string][] = [
      [
        ['settings', '--retention-days', '0'],
        '--retention-days must be a whole number from 1 to 3650, got "0"',
      ],
      [['settings', '--retention-days', '3651'], '--retention-days must be a whole number from 1 to 3650'],
      [['settings', '--shards', '17'], '--shards must be a whole number from 1 to 16, got "17"'],
      [['settings', '--shards', '0'], '--shards must be a whole number from 1 to 16'],
      [
        ['list', '--action', 'user.nothing'],
        '--action: An action of the audit log, or a prefix of one ending in "."',
      ],
      [['list', '--action', 'nope'], '--action: An action of the audit log'],
      [['list', '--outcome', 'maybe'], '--outcome:'],
      [['list', '--actor', 'two words'], '--actor: Letters, digits and . _ : @ - only'],
      [['list', '--since', 'yesterday'], '--since must be epoch milliseconds or an ISO 8601 time'],
      [['list', '--until', '2025-01-31T12:00:00'], '--until must be epoch milliseconds or an ISO 8601 time'],
      [['list', '--limit', '0'], '--limit must be a whole number from 1 to 100000'],
    ];
    for (const [[verb, ...options], message] of cases) {
      const refused = await run('audit', verb as string, '--org', 'acme', ...options);
      expect([refused.code, refused.out], options.join(' ')).toEqual([2, '']);
      expect(refused.err, options.join(' ')).toContain(`error: ${message}`);
    }
    expect((await run('audit', 'list')).err).toContain('--org is required');
    expect(databaseCalls()).toBe(0);
  });
});

describe('scim token commands', () => {
  it('refuse a command line they cannot run, before any call (exit 2), repeating no stray word', async () => {
    const token = `idp_scim_${'A'.repeat(43)}`;
    const cases: [string[], string][] = [
      [['create', '--name', 'Okta'], '--org is required'],
      [['create', '--org', 'acme'], '--name is required'],
      [['create', '--org', 'acme', '--name', 'x'.repeat(101)], '--name: Too big'],
      [['create', '--org', 'acme', '--name', 'Two\nlines'], '--name: No control characters'],
      [['create', '--org', 'a b', '--name', 'Okta'], '--org: Letters, digits and . _ : @ - only'],
      [
        ['create', '--org', 'acme', '--name', 'Okta', 'stray-secret'],
        'scim token create takes options only, not 1 more word(s)',
      ],
      [['list', '--org', 'acme', '--name', 'Okta'], 'scim token list does not take --name'],
      [['revoke', '--org', 'acme'], 'scim token revoke needs its TOKEN_ID'],
      [
        ['revoke', '--org', 'acme', 'one', 'stray-secret'],
        'scim token revoke takes one TOKEN_ID, not 2 words',
      ],
      [['revoke', '--org', 'acme', 'stray secret'], 'TOKEN_ID: letters, digits and . _ : @ - only'],
      [
        ['revoke', '--org', 'acme', token],
        "TOKEN_ID is a token's id (scim token list shows them), never its value",
      ],
      [['creat', 'stray-secret'], 'Unknown command "scim token creat"'],
    ];
    for (const [[verb, ...options], message] of cases) {
      const refused = await run('scim', 'token', verb as string, ...options);
      expect([refused.code, refused.out], options.join(' ')).toEqual([2, '']);
      expect(refused.err, options.join(' ')).toContain(`error: ${message}`);
      expect(refused.err).not.toContain('stray');
      expect(refused.err).not.toContain(token);
    }
    const incomplete = await run('scim', 'token');
    expect([incomplete.code, incomplete.out]).toEqual([2, '']);
    expect(incomplete.err).toContain('error: scim token needs a command');
    expect(incomplete.err).toContain('  scim token revoke --org ORG TOKEN_ID\n');
    expect(databaseCalls()).toBe(0);
  });

  it('create writes the token, its count and its record by the operator in one transaction, and prints the value', async () => {
    database.on(GetCommand).resolves({ Item: organizationItem({}) });
    database.on(TransactWriteCommand).resolves({});
    const created = await run('scim', 'token', 'create', '--org', 'acme', '--name', 'Okta');
    expect([created.code, created.err]).toEqual([0, '']);
    const value = /token: (idp_scim_[A-Za-z0-9_-]{43})\n/.exec(created.out)?.[1] as string;
    expect(value).toBeDefined();
    expect(created.out).toContain('shown this once');
    expect(database.commandCalls(TransactWriteCommand)).toHaveLength(1);
    const { record } = transaction(0);
    expect(record).toMatchObject({
      organizationId: 'acme',
      action: 'scimToken.created',
      actor: { type: 'operator', id: operatorActor().id },
      targets: [{ type: 'scimToken', name: 'Okta' }],
    });
    const written = JSON.stringify(database.commandCalls(TransactWriteCommand)[0]?.args[0].input);
    expect(written).not.toContain(value);
  });
});

describe('the operator as an audit actor', () => {
  it('is named by the OS user, written as an actor id may be', () => {
    expect(operatorId('alice')).toBe('alice');
    expect(operatorId('jane.doe@corp')).toBe('jane.doe@corp');
    expect(operatorId('CORP\\Jane Doe')).toBe('CORP-Jane-Doe');
    expect(operatorId('_svc')).toBe('svc');
    expect(operatorId('jürgen')).toBe('j-rgen');
    expect(operatorId('')).toBe('operator');
    expect(operatorId('---')).toBe('operator');
    expect(operatorId('a'.repeat(200))).toBe('a'.repeat(128));
    for (const name of ['alice', 'CORP\\Jane Doe', '_svc', 'jürgen', '', '…', 'x'.repeat(300)])
      expect(operatorId(name)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/);
  });
});
