import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { PictureStore } from './picture-store.js';

/**
 * Local development: each version at `<data>/pictures/<org>/<user>.<version>`, with a `.type` file
 * holding its content type (pictures of earlier versions of this store: `<org>/<user>` and
 * `<user>.type`). Only the person running the service reads them: folders 0700, files 0600.
 */
export class FilePictureStore implements PictureStore {
  constructor(private readonly directory: string) {}

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<string> {
    const version = randomUUID();
    const path = `${join(this.directory, key)}.${version}`;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // An organization's folder an earlier version made readable is closed too.
    await chmod(dirname(path), 0o700);
    // A new name each time: a read never meets a half-written picture of another upload.
    await writeFile(`${path}.type`, contentType, { mode: 0o600 });
    await writeFile(path, bytes, { mode: 0o600 });
    return version;
  }

  async get(key: string, version?: string) {
    const path = version ? `${join(this.directory, key)}.${version}` : join(this.directory, key);
    try {
      const [bytes, contentType] = await Promise.all([readFile(path), readFile(`${path}.type`, 'utf8')]);
      return { bytes, contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = join(this.directory, key);
    const name = basename(path);
    const files = await readdir(dirname(path)).catch(() => [] as string[]);
    await Promise.all(
      files
        .filter((file) => file === name || file.startsWith(`${name}.`))
        .map((file) => rm(join(dirname(path), file), { force: true })),
    );
  }
}
