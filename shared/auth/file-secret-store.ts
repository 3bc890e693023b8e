import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretStore } from './secret-store.js';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Local development adapter: one file per secret, readable by the owner only. */
export class FileSecretStore implements SecretStore {
  constructor(private readonly directory: string) {}

  private path(name: string): string {
    return join(this.directory, `${encodeURIComponent(name)}.secret`);
  }

  async get(name: string): Promise<string | undefined> {
    try {
      return await readFile(this.path(name), 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async put(name: string, value: string): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    // Write then rename, so a reader never sees half a secret; one temporary file per write, as
    // one process serves concurrent requests.
    const temporary = `${this.path(name)}.${randomUUID()}.tmp`;
    await writeFile(temporary, value, { mode: 0o600 });
    await rename(temporary, this.path(name));
  }

  async create(name: string, value: string): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    // `wx` fails when the file exists, as CreateSecret does for a name in use.
    await writeFile(this.path(name), value, { mode: 0o600, flag: 'wx' });
  }

  async delete(name: string): Promise<void> {
    await rm(this.path(name), { force: true });
  }

  async initialize(name: string, value: string, isInitialized: (current: string) => boolean) {
    const current = await this.get(name);
    if (current !== undefined && isInitialized(current)) return current;
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    try {
      // `wx` fails when the file exists: the first writer wins, as with Secrets Manager below.
      await writeFile(this.path(name), value, { mode: 0o600, flag: 'wx' });
      return value;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return (await this.get(name)) ?? value;
    }
  }
}
