import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PictureStore } from './picture-store.js';

/** Local development: `<data>/pictures/<org>/<user>` plus a `.type` file with the content type. */
export class FilePictureStore implements PictureStore {
  constructor(private readonly directory: string) {}

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const path = join(this.directory, key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, bytes);
    await writeFile(`${path}.type`, contentType);
  }

  async get(key: string) {
    const path = join(this.directory, key);
    try {
      const [bytes, contentType] = await Promise.all([readFile(path), readFile(`${path}.type`, 'utf8')]);
      return { bytes, contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
