import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localAccessKeyId } from '../../bin/local/local-access-key.js';
import { reloadConfig } from '../../shared/config.js';
import { deliverEmail } from '../../shared/email/delivery.js';
import { FilePictureStore } from '../../shared/pictures/file-picture-store.js';
import { useTempDirs } from '../support/temp-dir.js';

/**
 * What `npm start` keeps under its data directory is for the person running it alone: the table
 * (client secrets among it; DynamoDB Local names its file after the access key id), the outbox
 * (invitation and reset links), pictures and secret files. The machine's umask (022 here) would
 * make them readable by every user.
 */
const newDirectory = useTempDirs('local-data-modes');
const othersMayRead = (path: string) => (statSync(path).mode & 0o077).toString(8);

/** A reset email (its link a secret) delivered through the local outbox at `outbox`. */
const sendResetEmail = async (outbox: string) => {
  vi.stubEnv('IDP_OUTBOX_FILE', outbox);
  reloadConfig();
  await deliverEmail(
    {
      type: 'PASSWORD_RESET_EMAIL',
      organizationId: 'org-1',
      userId: 'user-1',
      to: 'pat@example.com',
      name: 'Pat',
    },
    { organizationId: 'org-1', createdAt: 1, messageId: 'outbox-1' },
    { subject: 'Choose a new password', text: 'Open https://idp.example.com/signin/reset?token=SECRET' },
  );
};

afterEach(() => {
  vi.unstubAllEnvs();
  reloadConfig();
});

describe('the local data directory', () => {
  it("keeps the table's folder, and a data directory it makes, to their owner", () => {
    const data = join(newDirectory(), '.data');
    const dynamodb = join(data, 'dynamodb');
    expect(localAccessKeyId(dynamodb)).toMatch(/^LOCAL/);
    expect(statSync(join(dynamodb, 'access-key-id')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dynamodb)).toEqual(['access-key-id']);
    expect(othersMayRead(data)).toBe('0');
    expect(othersMayRead(dynamodb)).toBe('0');
  });

  it("closes the table's folder of an earlier version, made 0755", () => {
    const dynamodb = join(newDirectory(), 'dynamodb');
    mkdirSync(dynamodb, { recursive: true });
    chmodSync(dynamodb, 0o755);
    // Positive control: open before.
    expect(othersMayRead(dynamodb)).toBe('55');
    localAccessKeyId(dynamodb);
    expect(othersMayRead(dynamodb)).toBe('0');
  });
});

describe('the local outbox and pictures of an earlier version', () => {
  it('are closed when next written', async () => {
    const directory = newDirectory();
    const outbox = join(directory, 'outbox.jsonl');
    writeFileSync(outbox, '');
    chmodSync(outbox, 0o644);
    const folder = join(directory, 'pictures', 'org-1');
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o755);
    // Positive control: open before.
    expect([othersMayRead(outbox), othersMayRead(folder)]).toEqual(['44', '55']);
    await sendResetEmail(outbox);
    await new FilePictureStore(directory).put('pictures/org-1/user-1', Uint8Array.from([1]), 'image/png');
    expect([othersMayRead(outbox), othersMayRead(folder)]).toEqual(['0', '0']);
  });
});

describe('the local outbox and pictures', () => {
  it('are written for their owner alone', async () => {
    const directory = newDirectory();
    const outbox = join(directory, 'mail', 'outbox.jsonl');
    await sendResetEmail(outbox);
    expect(othersMayRead(outbox)).toBe('0');
    expect(othersMayRead(join(directory, 'mail'))).toBe('0');

    const store = new FilePictureStore(directory);
    const version = await store.put('pictures/org-1/user-1', Uint8Array.from([1]), 'image/png');
    const stored = join(directory, 'pictures', 'org-1');
    expect(othersMayRead(stored)).toBe('0');
    for (const file of readdirSync(stored)) expect(othersMayRead(join(stored, file)), file).toBe('0');
    expect(readdirSync(stored).sort()).toEqual([`user-1.${version}`, `user-1.${version}.type`]);
  });
});
