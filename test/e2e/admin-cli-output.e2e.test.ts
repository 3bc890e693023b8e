import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/admin/cli.js';
import { runsAdminCli } from '../support/database.js';
import { useService } from '../support/service.js';

/**
 * The operator CLI prints no terminal controls from stored text: names are chosen by anyone who
 * may name a user, role or client, and refuse C0 controls but not C1 (U+009B is CSI, U+009D OSC).
 */
runsAdminCli();
const service = useService();

const admin = async (args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, '--endpoint', process.env.IDP_DYNAMODB_ENDPOINT as string], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    readStdin: async () => '',
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters looked for
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E]/;

/** CSI 2 J (clear screen), then OSC 0 (window title) ended by ST, all 8-bit C1; a right-to-left override. */
const ESCAPES = '\u009b2J\u009d0;owned\u009c\u202e';

describe('the operator CLI shows stored control characters as escapes', () => {
  it('in `audit list` of a role an administrator named', async () => {
    for (const name of ['Plain role', `Role${ESCAPES}`]) {
      const created = await service.call('POST', '/idp/roles', {
        token: service.admin.token,
        body: { name, permissions: ['USER.LIST'] },
      });
      expect(created.status).toBe(204);
    }
    const listed = await admin([
      'audit',
      'list',
      '--org',
      service.organizationId,
      '--action',
      'role.created',
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Plain role');
    expect(listed.stdout).toContain('Role\\u009b2J\\u009d0;owned\\u009c\\u202e');
    expect(listed.stdout).not.toMatch(TERMINAL_CONTROLS);
  });

  it('in `user list` of a name a person gave themselves, and in its --json, which keeps the name', async () => {
    const id = await service.createUser({ name: 'Plain Name' });
    const name = `Eve${ESCAPES}`;
    const renamed = await service.call('PUT', `/idp/users/${id}`, {
      token: await service.userToken(id),
      body: { name },
    });
    expect(renamed.status).toBe(200);
    const listed = await admin(['user', 'list', '--org', service.organizationId]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Eve\\u009b2J');
    expect(listed.stdout).not.toMatch(TERMINAL_CONTROLS);
    const json = await admin(['user', 'list', '--org', service.organizationId, '--json']);
    expect(json.stdout).not.toMatch(TERMINAL_CONTROLS);
    const names = json.stdout.split('\n').map((line) => (JSON.parse(line) as { name: string }).name);
    expect(names).toContain(name);
  });
});

describe('`audit list --since/--until` take only days of the calendar', () => {
  it('refuses 2025-02-30 and 2025-04-31 (exit code 2) as it refuses month 13, rather than reading the next month', async () => {
    const list = (option: string, value: string) =>
      admin(['audit', 'list', '--org', service.organizationId, option, value]);
    // Positive controls: real days are taken, the last of February and of April included.
    for (const day of ['2025-02-28', '2024-02-29', '2025-04-30T23:59:59Z'])
      expect((await list('--until', day)).code).toBe(0);
    for (const day of ['2025-13-01', '2025-02-30', '2025-02-29', '2025-04-31T00:00:00Z', '2025-00-10']) {
      const refused = await list('--since', day);
      expect(refused.code, day).toBe(2);
      expect(refused.stderr).toContain('--since must be epoch milliseconds or an ISO 8601 time');
    }
  });
});
