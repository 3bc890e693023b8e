import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configureTarget } from '../../bin/admin/target.js';
import { localAccessKeyId, storedAccessKeyId } from '../../bin/local/local-access-key.js';
import { useTempDirs } from '../support/temp-dir.js';

/** `npm start`'s own access key id for DynamoDB Local (bin/local/local-access-key.ts). */
const newDirectory = useTempDirs('local-access-key');

describe("npm start's access key id for DynamoDB Local", () => {
  it('is made once per data directory, readable by its owner only, and kept', () => {
    const directory = join(newDirectory(), 'dynamodb');
    const made = localAccessKeyId(directory);
    expect(made).toMatch(/^LOCAL[0-9A-F]{24}$/);
    expect(statSync(join(directory, 'access-key-id')).mode & 0o777).toBe(0o600);
    expect(localAccessKeyId(directory)).toBe(made);
    expect(storedAccessKeyId(directory)).toBe(made);
    // Another directory, or a run in memory, has another.
    expect(localAccessKeyId(join(newDirectory(), 'dynamodb'))).not.toBe(made);
    expect(localAccessKeyId(undefined)).not.toBe(made);
  });

  it("takes over an earlier version's shared database as its own", () => {
    const directory = newDirectory();
    writeFileSync(join(directory, 'shared-local-instance.db'), 'the tables');
    const made = localAccessKeyId(directory);
    expect(existsSync(join(directory, 'shared-local-instance.db'))).toBe(false);
    expect(readFileSync(join(directory, `${made}_us-east-1.db`), 'utf8')).toBe('the tables');
  });

  it('is what the operator CLI uses against the local table, whatever the shell has', () => {
    const dataDirectory = newDirectory();
    const made = localAccessKeyId(join(dataDirectory, 'dynamodb'));
    const env: Record<string, string | undefined> = {
      IDP_DATA_DIR: dataDirectory,
      AWS_ACCESS_KEY_ID: 'AKIA-SHELL',
      AWS_REGION: 'eu-west-1',
    };
    configureTarget({}, env as NodeJS.ProcessEnv);
    expect([env.AWS_ACCESS_KEY_ID, env.AWS_REGION]).toEqual([made, 'us-east-1']);
    // Positive control: without one kept (the tests' own DynamoDB Local), the shell's stay.
    const plain: Record<string, string | undefined> = {
      IDP_DATA_DIR: newDirectory(),
      AWS_ACCESS_KEY_ID: 'AKIA-SHELL',
      AWS_REGION: 'eu-west-1',
    };
    configureTarget({}, plain as NodeJS.ProcessEnv);
    expect([plain.AWS_ACCESS_KEY_ID, plain.AWS_REGION]).toEqual(['AKIA-SHELL', 'eu-west-1']);
  });
});
